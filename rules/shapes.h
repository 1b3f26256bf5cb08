/*
 * rules/shapes.h: a model served at several shapes (rules/shapes.c; its
 * deploy step: rules/deploy.c).
 */
#ifndef KOPT_RULES_SHAPES_H
#define KOPT_RULES_SHAPES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/util.h"
#include "plan.h"

/* rules/shapes.c: the shapes of model dm (planned by rule_plan_model),
 * each a rule_model of the plan's, and its deploy step; the order of their
 * stitches and their chains across shapes */
void rule_plan_shapes(struct dag *d, struct rule_model *dm);
/* a kernel's class across shapes: its class (rule_kernel_class) with
 * every size hint taken as 1, so that the same kernel at any size has it;
 * 0 without a source */
uint64_t rule_shape_class(const char *src, const char *name);
/* the kernel of an earlier shape of k's model, in the same variant, whose
 * chain searches k's class across shapes (shapes.c), or NULL */
const struct rule_kernel *rule_shape_via(struct dag *d, struct rule_kernel *k);
/* whether every earlier shape of dm's model has its chains (true for a
 * model without shapes); rule_shapes_next expands the later shapes' */
bool rule_shapes_ready(struct dag *d, const struct rule_model *dm);
void rule_shapes_next(struct dag *d, const struct rule_model *dm);
/* adds the ingredient "param:shape", the shape's names and values, to k
 * (nothing for NULL: a model's own inputs key as before shapes were) */
void rule_key_shape(struct hash_key *k, const struct kopt_shape *sh);

/* rules/shapes.c: for the report of target n (its inputs, the models'
 * stitches; doc, report.json's document, with its "models" rows), each
 * model served at several shapes: report.json's "shapes", [{model,
 * shapes: [shape...], geomean_speedup, geomean_speedup_vs_max_autotune}],
 * each row of a shape given its "shape" and "of" (the model), and
 * report.md's Shapes section, appended to md */
void rule_report_shapes(const struct dag_node *n, json_t *doc, struct strbuf *md);

#endif
