/*
 * rules/common.h: the small helpers every rule uses (rules/common.c).
 */
#ifndef KOPT_RULES_COMMON_H
#define KOPT_RULES_COMMON_H

#include <jansson.h>
#include <stdio.h>

#include "../engine/dag.h"
#include "../engine/rule.h"
#include "plan.h"

int rule_fail(struct rule_run *run, const char *fmt, ...) KOPT_PRINTF(2, 3);

/* the step whose own failure failed n: n itself, or, where n failed
 * because an input did (DAG_UPFAIL), the first failed input's, followed
 * down; its why is the reason */
const struct dag_node *rule_failure_of(const struct dag_node *n);

/* -t why: a result's numbers, one "  NAME  VALUE" line each, nested
 * objects as NAME.SUB (the worker's own verdict left out) */
void rule_print_numbers(FILE *out, json_t *nums);
/* a number from an object, NAN when absent */
double rule_num(const json_t *o, const char *key);
/* the measured part of mv's profile (its result's "meas"), NULL when not done */
json_t *rule_profile_meas(struct dag *d, const struct rule_mv *mv);
/* a number as JSON, null for NAN; new reference */
json_t *rule_num_json(double v);
/* the first entry named name in a capture's or profile's kernel inventory
 * (res["stable"]["kernels"]), or NULL; borrowed */
json_t *rule_inventory_entry(const json_t *res, const char *name);

#endif
