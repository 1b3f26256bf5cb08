/*
 * agents/builtin/screened.h: the screen's configs (rules/screen.c) as the
 * built-in tuner proposes them (internal to agents/builtin; screened.c).
 */
#ifndef KOPT_BUILTIN_SCREENED_H
#define KOPT_BUILTIN_SCREENED_H

#include "../builtin.h"

#include <jansson.h>

/* the screen's configs, fastest first (new reference), NULL when none;
 * *edits: beside them, each config's source knobs, or NULL */
json_t *screened_configs(const struct agent_request *req, json_t **edits);
/* the first of configs (with its source knobs, edits) not proposed yet, as
 * a candidate (new reference), or NULL; *reason (when reason is not NULL)
 * says its time alone */
json_t *screened_next(const struct agent_request *req, const json_t *configs, const json_t *edits,
		      char **reason);

#endif
