/*
 * rules/outputs.h: the objects and files a step writes (rules/outputs.c).
 */
#ifndef KOPT_RULES_OUTPUTS_H
#define KOPT_RULES_OUTPUTS_H

#include <stddef.h>

#include "../engine/dag.h"
#include "../engine/hash.h"
#include "../engine/rule.h"
#include "../lang/spec.h"
#include "plan.h"

/* stores bytes as an object and records it under name in run->objects */
int rule_object(struct rule_run *run, const char *name, const void *data, size_t n, kopt_hash *h);
/* writes an output file, "<the step's folder>/<name>" under the out dir
 * (engine/outdir.h: no link followed, fsync of file and folder), and
 * records its size and hash */
int rule_output(struct rule_run *run, const char *rel, const char *data, size_t n);
/* the restore hook of the rules that write outputs: checks a cached
 * result's outputs (size and hash) and restores the missing and changed
 * ones from its objects; returns how many it wrote back, or -1 when an
 * object is bad or the record names a file outside the step's folder (a
 * corrupt record: warned) */
int rule_restore_outputs(struct dag *d, struct dag_node *n);
/* the model's output folder relative to the out dir ("softmax"; a
 * shape's, "softmax/b1") */
const char *rule_model_dir(const struct rule_model *dm);

#endif
