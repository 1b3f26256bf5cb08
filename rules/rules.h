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
 * (outputs.h), vendor rows (vendor.h), the model files read before a
 * build (modelcheck.h), and the helpers all use (common.h); stitch.h,
 * svg.h and measured.h are their parts' own.
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

#endif
