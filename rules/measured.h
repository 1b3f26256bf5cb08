/*
 * rules/measured.h: when, on what and with what a result was measured, for
 * the reports (rules/measured.c).
 */
#ifndef KOPT_RULES_MEASURED_H
#define KOPT_RULES_MEASURED_H

#include "plan.h"
#include "outputs.h"

/* the worker's stamp of a result ("measured_at", seconds since the epoch),
 * else koptmake's clock now (a worker from before the stamp) */
double rule_measured_at(const json_t *res);
/* sets run->meas["measured"] = {"at", "env", "koptmake"}: at, the worker
 * environment of the model's device (the fingerprint capture keys on),
 * koptmake's version. run->meas must be an object. */
void rule_measured(struct rule_run *run, double at);
/* the newer of two "measured" objects (either may be NULL); borrowed */
const json_t *rule_measured_newer(const json_t *a, const json_t *b);
/* the "measured" object of a step's cached result, or NULL; borrowed */
const json_t *rule_measured_of(struct dag *d, struct dag_node *n);
/* {"date", "gpu", "cc", "driver", "cuda", "torch", "triton", "koptmake"}
 * (what the fingerprint has); new reference, null for NULL */
json_t *rule_measured_json(const json_t *measured);
/* a Markdown paragraph, "Measured on DATE (UTC) on GPU ...: driver D, CUDA C,
 * torch T, triton R, koptmake V.", and a blank line; nothing for NULL */
void rule_measured_md(struct strbuf *md, const json_t *measured);

#endif
