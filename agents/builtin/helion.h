/*
 * agents/builtin/helion.h: the built-in agents' moves over a Helion
 * kernel's helion.Config (helion.c says which). Returned JSON and strings
 * are new references or the caller's to free.
 */
#ifndef KOPT_HELION_H
#define KOPT_HELION_H

#include <jansson.h>
#include <stdbool.h>

#include "../builtin.h"
#include "../features.h"

/* move applied to base, or NULL when it does not apply */
json_t *helion_apply(const char *move, const json_t *base);
/* the moves, ranked by the long-term memory; *why says what ranked them */
json_t *helion_plan(const struct agent_kernel *k, const char *memory, const char *scope, char **why);
/* agent_builtin_propose for a Helion kernel */
int helion_propose(const struct agent_request *req, const char *memory, struct agent_reply *reply);
/* agent_builtin_digest for a Helion kernel (index > 0) */
char *helion_digest(const struct agent_request *req);

#endif
