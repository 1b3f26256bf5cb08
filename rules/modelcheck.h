/*
 * rules/modelcheck.h: the model files read with the worker's Python's own
 * parser (rules/modelcheck.c, which says how): -t check's (rules.h,
 * rule_tool_check) and the rule set's precheck before a build's first
 * step.
 */
#ifndef KOPT_RULES_MODELCHECK_H
#define KOPT_RULES_MODELCHECK_H

#include "../common/util.h"
#include "../engine/dag.h"
#include "../lang/spec.h"

/* The worker's interpreter: KOPT_PYTHON, else configure's PYTHON; NULL
 * with *why (malloc'd) where there is none to run. */
const char *rule_python(char **why);
/* The files of models (n of them) read with the interpreter py
 * (rules/modelcheck.py): each problem goes to fn, at the file's line and
 * column, with a note at the declaration; *nerrors counts them. Returns
 * 0 when all are fine, 2 when one is not, 1 after saying why none could
 * be read (the interpreter failed). */
int rule_check_models(const char *py, const struct kopt_model *const *models, size_t n, kopt_diag_fn *fn, void *ctx,
		      int *nerrors);
/* the rule set's precheck: the build's model files not checked before
 * with this interpreter; an exit status, 0 to go on */
int rule_precheck(struct dag *d);

#endif
