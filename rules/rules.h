/*
 * rules/rules.h: koptmake's pipeline, one rule per step kind, as the
 * engine and the front end see it: the node kinds, the rule set and the
 * rules' own tool. A rule names the ingredients of a step's key, builds the
 * worker requests of a stale step, and turns the replies into a result: a
 * stable part (hashed, drives the dependents' keys) and measurements
 * (stored, never hashed), plus cache objects and files in kopt-out/.
 *
 * The interface (struct rule, struct rule_run, struct rule_set) is the
 * engine's (engine/rule.h); rule_pipeline is koptmake's set. The rules'
 * parts share one header each: the graph and its contexts (plan.h), a
 * profile's summary (summary.h), kernel groups (groups.h), the chains
 * (chains.h), the screen (screen.h), proposals (propose.h), verdicts
 * (verify.h), the implementation space (space.h), the report (report.h),
 * a model's shapes (shapes.h),
 * what a step sends (proto.h) and keys on (keys.h), the files it writes
 * (outputs.h), vendor rows (vendor.h), and the helpers all use
 * (common.h); stitch.h, svg.h and measured.h are their parts' own.
 */
#ifndef KOPT_RULES_H
#define KOPT_RULES_H

#include "../engine/engine.h"
#include "../engine/rule.h"

/* the node kinds: indices into rule_pipeline's table */
enum rule_kind {
	RULE_CAPTURE, RULE_PROFILE, RULE_PROPOSE, RULE_VERIFY, RULE_STITCH, RULE_REPORT, RULE_SCREEN, RULE_DEPLOY,
	RULE_NKINDS
};

/* koptmake's rules */
extern const struct rule_set rule_pipeline;
/* -t memory [CLASS]: the agents' long-term memory in the cache, by kernel
 * feature class (read only, no lock) */
engine_tool_fn rule_tool_memory;
/* -t check: every model file of the spec read with Python's own parser
 * (rules/modelcheck.c); "ok: N models, N targets" when all are fine */
engine_tool_fn rule_tool_check;

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
