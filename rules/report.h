/*
 * rules/report.h: what the report's parts give each other and the model's
 * report (rules/report.c, report_device.c, report_capture.c).
 */
#ifndef KOPT_RULES_REPORT_H
#define KOPT_RULES_REPORT_H

#include <jansson.h>

#include "../common/util.h"
#include "plan.h"

/* rules/report.c: seconds in minutes to a tenth, as every report's GPU
 * time (what a reader needs, and steady across rebuilds and machines) */
double rule_tenth_minutes(double s);

/* rules/report_device.c: into o, the model's speedups in device time
 * (device_speedup, device_speedup_vs_max_autotune) from its variants'
 * profiles' measurements meas (in the model's variant order) and its
 * stitch's me; o has the chosen "variant" and "verdict" */
void rule_report_device_speedups(const struct dag_node *s, const json_t **meas, const json_t *me, json_t *o);

/* rules/report_capture.c: each variant's capture, where its compile's
 * seconds went: [{variant, compile_s, gpu_minutes, dynamo_s, inductor_s,
 * triton_s, autotune_s, run_s, gpu_lock_wait_s}] (null where unknown) */
json_t *rule_capture_phases(struct dag *d, const struct rule_model *dm);
/* ... as report.md's "Capture" section, appended to md (nothing where no
 * capture says) */
void rule_capture_md(struct dag *d, const struct rule_model *dm, struct strbuf *md);

#endif
