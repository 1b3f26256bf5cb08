/*
 * rules/report_capture.c: where each variant's capture spent its seconds,
 * for a model's report.md (rules/stitch_out.c) and report.json
 * (rules/report.c): the compile's phases as the worker measured them
 * (runtime/python/kopt/compile_time.py: Dynamo, Inductor, Triton,
 * autotuning, the first run, and the time its timings waited for other
 * workers' on the GPU), the capture's seconds besides the compile (the
 * model loaded; around the compile's spans, Inductor's imports in a fresh
 * worker among them; the warm-up runs, the kernels' arguments and the
 * kernel list after it; and outside the worker's handling of the request:
 * a worker started for the step, the request's queueing and transfer), and
 * the capture step's share of its GPU (engine/gpu_meter.h).
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "plan.h"
#include "report.h"
#include "common.h"

/* the phases' names in the worker's reply, and as the report heads them */
static const char *const phase_key[] = { "dynamo_s", "inductor_s", "triton_s", "autotune_s", "run_s",
					 "gpu_lock_wait_s" };
static const char *const phase_head[] = { "Dynamo", "Inductor", "Triton", "autotuning", "first run",
					  "waited for the GPU" };
#define NPHASE (sizeof phase_key / sizeof *phase_key)
/* the capture's seconds besides its compile, as rule_capture_phases names them */
static const char *const other_key[] = { "load_s", "around_s", "after_s", "outside_s" };
static const char *const other_head[] = { "model loaded", "around the compile", "after the compile",
					  "outside the request" };
#define NOTHER (sizeof other_key / sizeof *other_key)

json_t *rule_capture_phases(struct dag *d, const struct rule_model *dm)
{
	json_t *out = json_array();
	for (size_t v = 0; v < dm->nmv; v++) {
		const json_t *meas = json_object_get(dag_result(d, dm->mvs[v].capture), "meas");
		const json_t *ph = json_object_get(meas, "compile_phases");
		/* the GPU share to a tenth of a minute, as the GPU-time table's
		 * (steady across rebuilds; the compile's own seconds are the
		 * cached capture's) */
		double g = rule_num(meas, "gpu_s");
		json_t *e = json_pack("{s:s, s:o, s:o}", "variant", dm->mvs[v].variant->name, "compile_s",
				      rule_num_json(rule_num(meas, "compile_s")), "gpu_minutes",
				      rule_num_json(isnan(g) ? NAN : rule_tenth_minutes(g)));
		for (size_t i = 0; i < NPHASE; i++)
			json_object_set_new(e, phase_key[i], rule_num_json(rule_num(ph, phase_key[i])));
		const json_t *parts = json_object_get(meas, "capture_parts");
		double step = rule_num(meas, "worker_s"), total = rule_num(parts, "total_s");
		/* the step's seconds: the worker's handling of the request and
		 * what was outside it; a worker's own count where the step's is
		 * shorter (a clock's edge), the step's where the worker has none */
		double outside = step >= total ? step - total : NAN;
		json_object_set_new(e, "capture_s", rule_num_json(isnan(total) ? step : isnan(outside) ? total : step));
		json_object_set_new(e, "load_s", rule_num_json(rule_num(parts, "load_s")));
		json_object_set_new(e, "around_s", rule_num_json(rule_num(parts, "around_s")));
		json_object_set_new(e, "after_s", rule_num_json(rule_num(parts, "after_s")));
		json_object_set_new(e, "outside_s", rule_num_json(outside));
		json_array_append_new(out, e);
	}
	return out;
}

void rule_capture_md(struct dag *d, const struct rule_model *dm, struct strbuf *md)
{
	json_t *rows = rule_capture_phases(d, dm);
	bool any = false;
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r)
		any |= !isnan(rule_num(r, "compile_s"));
	if (any) {
		strbuf_addstr(md, "\n## Capture\n\nWhere each variant's capture spent its seconds: its compile "
				  "by torch's own spans; besides the compile, the model loaded, what ran around its "
				  "spans (Inductor's imports in a fresh worker, the output code read), what ran after "
				  "it (warm-up runs, the kernels' arguments and list) and what was outside the worker's "
				  "handling of the request (a worker started for it); and the capture's share of its "
				  "GPU (captures that compiled side by side split the time they shared).\n\n"
				  "| variant | capture (s) | compile (s) |");
		for (size_t k = 0; k < NPHASE; k++)
			strbuf_addf(md, " %s |", phase_head[k]);
		for (size_t k = 0; k < NOTHER; k++)
			strbuf_addf(md, " %s |", other_head[k]);
		strbuf_addstr(md, " GPU-minutes |\n| --- | ---: | ---: |");
		for (size_t k = 0; k <= NPHASE + NOTHER; k++)
			strbuf_addstr(md, " ---: |");
		strbuf_addch(md, '\n');
		json_array_foreach(rows, i, r) {
			strbuf_addf(md, "| %s |", json_string_value(json_object_get(r, "variant")));
			double x = rule_num(r, "capture_s");
			strbuf_addf(md, isnan(x) ? " - |" : " %.1f |", x);
			x = rule_num(r, "compile_s");
			strbuf_addf(md, isnan(x) ? " - |" : " %.1f |", x);
			for (size_t k = 0; k < NPHASE; k++) {
				x = rule_num(r, phase_key[k]);
				strbuf_addf(md, isnan(x) ? " - |" : " %.1f |", x);
			}
			for (size_t k = 0; k < NOTHER; k++) {
				x = rule_num(r, other_key[k]);
				strbuf_addf(md, isnan(x) ? " - |" : " %.1f |", x);
			}
			x = rule_num(r, "gpu_minutes");
			strbuf_addf(md, isnan(x) ? " - |\n" : " %.1f |\n", x);
		}
	}
	json_decref(rows);
}
