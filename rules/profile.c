/*
 * rules/profile.c: time every kernel of a captured model (CUPTI, in a
 * worker) and write kopt-out/<model>/profile.{json,md}.
 *
 * Key: the capture's stable hash, the seed, warm-up and call counts.
 * Stable part: the kernel inventory (name, kind, source hash, heuristic,
 * config), what the propose steps key on. Measurements: every time, share,
 * byte count and bandwidth. The hot selection (agents hot / max_kernels) is
 * made from the stored measurements when the graph is expanded, so changing
 * `hot` runs no profile again.
 *
 * The summary (struct rule_summary) is what planning reads without parsing
 * the whole result: this rule writes it into the manifest, in the text
 * format rules/summary.c owns, and its expansion reads it back.
 *
 * A Helion kernel file's profile also holds its baselines (the worker's
 * "helion": each kernel's own config, Helion's quick autotune and, with the
 * agents' helion_full, its full effort, each timed and with its search's
 * wall time); the quick autotune's config goes into the kernel's inventory
 * entry as "helion_start", where the built-in agents start from
 * (agents/builtin/helion.c), so it is part of the proposals' keys.
 *
 * A variant whose compiled code is wrong or ill-conditioned gets no chain of
 * candidates: the candidates would be compared with a baseline that does not
 * compute the model (kopt(5), "The reference").
 *
 * Its expand hook adds, once every declared variant of the model is
 * profiled, the agents' own variants and, once every variant is profiled
 * or failed (the engine calls the hook for a failed profile too), the hot
 * kernels' chains of candidates (rules/chains.c).
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/roof.h"
#include "measured.h"
#include "plan.h"
#include "summary.h"
#include "groups.h"
#include "chains.h"
#include "space.h"
#include "proto.h"
#include "keys.h"
#include "outputs.h"
#include "vendor.h"
#include "common.h"

#define WARMUP 3
#define CALLS 20

/*
 * The rule's version: bumped whenever what the worker writes into a profile
 * for the same capture changes, so that older profiles are made again (the
 * capture it reads stays, but the worker compiles the variant again for
 * it, which is a capture's time under max-autotune).
 *
 * The graph facts have a version of their own, FACTS_VERSION, in the key
 * of a model's first variant's profile alone: the implementation-space
 * search reads the facts from that profile only (rules/space.c), and the
 * first variant is commonly Inductor's defaults, quick to compile, so new
 * facts make only those profiles again. 2: transposed_convolutions,
 * depthwise_convolutions, convolutions_3d, poolings and linear_reductions
 * beside convolutions, gemms, reductions and parameters (profiles of
 * version 1 lacked them, and the search read them as none: it never tried
 * a rewrite there). 3: strided_reductions. 4: linear_reductions counts
 * every form the fold now takes: through a vector over the features
 * subtracted or a number added or subtracted, a mean over a transposed
 * convolution's spatial axes, a sum over a convolution's channels.
 * 5: attentions (a softmax between two batched products, float32: what
 * kopt.flash_attention takes). 6: sliced_products (a matrix product whose
 * output is read in part: what kopt.sliced_product takes). 7: attentions
 * with a mask the same over batches and heads (a causal one), which the
 * attention rewrite now takes. 8: the summary's gemm32 line (the share of
 * the device time in cuBLAS's large float32 products, from the vendor
 * probe's calls: what kopt.tf32x3_products takes), which the search also
 * reads from that profile alone.
 * tests/runtime/test_rewrites.py checks that every fact the worker writes
 * is named here.
 *
 * 6: a kernel's bytes count an in_out argument (Inductor's buffer read and
 * written in place) twice; level 3's in-place softmax read as 42% of its
 * bound at 84%.
 *
 * 7: the worker compiles each variant in a frame of its own
 * (kopt.inductor.own_frame): a variant profiled in a worker that had
 * compiled the model's other variants went through their Dynamo entries'
 * guards on each call.
 *
 * 8: a variant's calls run under its own cudnn_benchmark (a flag of the
 * process): a variant profiled in a worker that had compiled another
 * variant since could have run under that variant's.
 *
 * 9: each Triton and vendor kernel's DRAM bytes, read from the GPU's
 * counters in one more call (runtime/counters.c; dram_bytes per launch,
 * traffic over its arguments' bytes): the bound counts the fewer of the
 * two, and a kernel that moves more than its arguments gets a single pass
 * or a fusion first.
 *
 * 10: each Triton kernel's class (rules/groups.c) in its row and the
 * summary: kernels that differ in sizes and names alone are one group,
 * hot by their sum.
 *
 * 11: the summary's time line holds the time the kernels run (their sum,
 * rule_kernels_ns) rather than their span, so that the GPU's idle gaps
 * between launches count as the host's (a launch-bound network got no
 * CUDA-graph variant); its cuDNN line, the 1x1 convolutions' share.
 *
 * 12: queued_ns_per_call, the device time of a call queued behind a GPU
 * spin (kopt.measure.event_medians, as tests/gpu/deploy.py measures it):
 * the report's device speedups had divided spans from an idle GPU, which
 * carry a host-bound call's gaps between kernels (EfficientNetB2's
 * claimed 3.168x, where its deployment measured 1.590x behind a spin).
 *
 * 13: a CUDA-graph variant copies its large inputs before each replay by a
 * plain copy each, not by one foreach kernel of a few blocks
 * (kopt.graphcopy; the GPT-2 block's input at batch 1: 14.7 us of 80).
 */
#define PROFILE_VERSION 13
#define FACTS_VERSION 8

static int profile_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	rule_key_input(k, rule_mv_of(n)->capture);
	hash_key_int(k, "param:seed", rule_model_of(n)->spec->agents ? (long long)rule_model_of(n)->spec->agents->seed : 0);
	hash_key_int(k, "param:warmup", WARMUP);
	hash_key_int(k, "param:calls", CALLS);
	/* the baseline check's seeds and tolerances (not gamma or repeats:
	 * a new gamma reruns no profile) */
	const struct kopt_gates *g = rule_model_of(n)->spec->gates;
	hash_key_int(k, "param:seeds", g->seeds);
	rule_key_tolerances(k, g);
	const struct kopt_model *m = rule_model_of(n)->spec;
	if (m->kind == KOPT_MODEL_HELION)
		hash_key_int(k, "param:helion_full", m->agents && m->agents->helion_full);
	if (rule_mv_of(n) == &rule_model_of(n)->mvs[0])
		hash_key_int(k, "param:facts", FACTS_VERSION);
	return 0;
}

static int profile_start(struct rule_run *run)
{
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:i, s:i, s:o}", "op", "profile",
				 "model", rule_model_json(rule_model_of(run->node)),
				 "variant", rule_variant_json(rule_mv_of(run->node)->variant),
				 "seed", (json_int_t)(m->agents ? m->agents->seed : 0),
				 "warmup", WARMUP, "calls", CALLS, "gates", rule_gates_json(m->gates));
	if (m->kind == KOPT_MODEL_HELION)
		json_object_set_new(run->request, "helion_full", json_boolean(m->agents && m->agents->helion_full));
	return RULE_SEND;
}

static void fmt_num(struct strbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, fmt, v);
}

/* the profile file name of a variant: the first variant gets profile.*, others profile-NAME.* */
static char *profile_rel(const struct dag_node *n, const char *ext)
{
	const char *dir = rule_model_dir(rule_model_of(n));
	if (rule_mv_of(n)->index == 0)
		return xasprintf("%s/profile.%s", dir, ext);
	return xasprintf("%s/profile-%s.%s", dir, rule_mv_of(n)->variant->name, ext);
}

/* a Triton kernel's FLOPs per launch, counted in its source (the
 * capture's object; agents/roof.c), and how; 0 when unknown */
static double kernel_flops(struct dag *d, const json_t *ce, char **how, uint64_t *cls)
{
	*how = NULL;
	*cls = 0;
	const char *obj = json_string_value(json_object_get(ce, "source_obj"));
	kopt_hash h;
	if (!obj || hash_parse(obj, &h) < 0)
		return 0;
	struct strbuf src = STRBUF_INIT;
	double f = 0;
	if (cache_object_get(d->cache, h, &src) == 0) {
		f = agent_flops(src.buf, how);
		*cls = rule_kernel_class(src.buf, json_string_value(json_object_get(ce, "name")));
	}
	strbuf_release(&src);
	return f;
}

/* a row's roofline fields: FLOPs per launch and how they were counted,
 * FLOP per byte, the bound per call, what binds and the bound over the
 * time (agents/roof.c); returns the bound, or the measured time where it
 * is unknown, NAN without either */
static double row_bound(json_t *row, double flops, const char *how, double copy_gbps, double peak_gflops)
{
	struct agent_bound b;
	agent_bound(row, flops, copy_gbps, peak_gflops, &b);
	const char *kind = json_string_value(json_object_get(row, "kind"));
	if (kind && strcmp(kind, "triton") == 0) {
		json_object_set_new(row, "flops", flops > 0 ? json_real(flops) : json_null());
		json_object_set_new(row, "flops_how", how ? json_string(how) : json_null());
		json_object_set_new(row, "intensity", rule_num_json(b.intensity));
	}
	json_object_set_new(row, "bound_ns", rule_num_json(b.ns));
	json_object_set_new(row, "binds", b.binds ? json_string(b.binds) : json_null());
	json_object_set_new(row, "frac_bound", rule_num_json(b.frac));
	if (!isnan(b.traffic))
		json_object_set_new(row, "traffic", json_real(b.traffic));
	return isnan(b.ns) ? rule_num(row, "ns_per_call") : b.ns;
}

/* The inventory (stable) and the rows (measured) from the worker's kernels:
 * each kernel's entry is its capture's (without the source object), its
 * row the worker's with the capture's heuristic and its roofline fields
 * (row_bound). Returns the sum of the kernels' times per call; *bound_ns,
 * the sum of their bounds (a kernel without one at its time). */
static double inventory(struct rule_run *run, json_t *res, json_t *inv, json_t *rows, double *bound_ns)
{
	json_t *kernels = json_object_get(res, "kernels");
	json_t *cap = dag_result(run->dag, rule_mv_of(run->node)->capture);
	json_t *capk = json_object_get(json_object_get(cap, "stable"), "kernels");
	double copy = rule_num(res, "peak_copy_gbps"), peak = rule_num(res, "peak_fp32_gflops");
	double sum_ns = 0;
	*bound_ns = 0;
	size_t i;
	json_t *kr;
	json_array_foreach(kernels, i, kr) {
		const char *name = json_string_value(json_object_get(kr, "name"));
		if (!name)
			continue;
		json_t *ce = NULL;
		for (size_t j = 0; j < json_array_size(capk); j++) {
			json_t *e = json_array_get(capk, j);
			const char *cn = json_string_value(json_object_get(e, "name"));
			if (cn && strcmp(cn, name) == 0)
				ce = e;
		}
		json_t *e = ce ? json_deep_copy(ce) : json_pack("{s:s, s:O, s:O, s:n, s:n}", "name", name,
			"kind", json_object_get(kr, "kind") ? json_object_get(kr, "kind") : json_null(),
			"source_hash", json_object_get(kr, "source_hash") ? json_object_get(kr, "source_hash") : json_null(),
			"heuristic", "config");
		json_object_del(e, "source_obj");
		json_array_append_new(inv, e);
		json_t *row = json_deep_copy(kr);
		if (ce && json_object_get(ce, "heuristic"))
			json_object_set(row, "heuristic", json_object_get(ce, "heuristic"));
		char *how = NULL;
		uint64_t cls = 0;
		double flops = ce ? kernel_flops(run->dag, ce, &how, &cls) : 0;
		if (cls) { /* its class: kernels that differ in sizes and names alone (rules/groups.c) */
			char cx[17];
			snprintf(cx, sizeof cx, "%016llx", (unsigned long long)cls);
			json_object_set_new(row, "class", json_string(cx));
		}
		double b = row_bound(row, flops, how, copy, peak);
		free(how);
		json_array_append_new(rows, row);
		double ns = rule_num(kr, "ns_per_call");
		if (!isnan(ns))
			sum_ns += ns;
		if (!isnan(b))
			*bound_ns += b;
	}
	return sum_ns;
}

/* each Helion kernel's quick-autotune config into its launched kernels'
 * inventory entries and rows, as "helion_start" */
static void helion_starts(const json_t *helion, json_t *inv, json_t *rows)
{
	size_t i, j, r;
	json_t *hk, *nm, *e;
	json_array_foreach(json_object_get(helion, "kernels"), i, hk) {
		json_t *start = json_object_get(json_object_get(hk, "quick"), "config");
		if (!json_is_object(start))
			continue;
		json_array_foreach(json_object_get(hk, "names"), j, nm) {
			json_t *lists[2] = { inv, rows };
			for (int l = 0; l < 2; l++)
				json_array_foreach(lists[l], r, e)
					if (json_is_string(nm) && json_equal(json_object_get(e, "name"), nm))
						json_object_set(e, "helion_start", start);
		}
	}
}

/* a Helion baseline's cell: the time in us, or why there is none */
static void helion_cell(struct strbuf *md, const json_t *b)
{
	const char *err = json_string_value(json_object_get(b, "error"));
	if (err)
		strbuf_addf(md, "failed: %s", err);
	else
		fmt_num(md, rule_num(b, "ns") / 1000.0, "%.3f");
}

/* profile.md's Helion section: per kernel, its own config's time, the
 * autotuner's and the autotuner's wall time, and the line to paste */
static void helion_md(struct strbuf *md, const json_t *helion)
{
	if (!helion)
		return;
	strbuf_addstr(md, "\n## Helion baselines\n\nEach Helion kernel at its own config (the decorator's, else Helion's "
			  "default) and at the configs Helion's autotuner found, timed in the file's launch side by side; "
			  "the autotuner's wall time beside.\n\n");
	const char *err = json_string_value(json_object_get(helion, "error"));
	if (err)
		strbuf_addf(md, "The baselines could not run: %s\n", err);
	strbuf_addstr(md, "| kernel | own config (us) | quick autotune (us) | quick wall (s) | full autotune (us) | full wall (s) |\n"
			  "| --- | ---: | ---: | ---: | ---: | ---: |\n");
	size_t i;
	json_t *hk;
	json_array_foreach(json_object_get(helion, "kernels"), i, hk) {
		strbuf_addf(md, "| %s | ", json_string_value(json_object_get(hk, "kernel")));
		helion_cell(md, json_object_get(hk, "default"));
		strbuf_addstr(md, " | ");
		helion_cell(md, json_object_get(hk, "quick"));
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(json_object_get(hk, "quick"), "wall_s"), "%.1f");
		strbuf_addstr(md, " | ");
		if (json_object_get(hk, "full")) {
			helion_cell(md, json_object_get(hk, "full"));
			strbuf_addstr(md, " | ");
			fmt_num(md, rule_num(json_object_get(hk, "full"), "wall_s"), "%.1f");
		} else {
			strbuf_addstr(md, "not run (agents: helion_full) | -");
		}
		strbuf_addstr(md, " |\n");
	}
	json_array_foreach(json_object_get(helion, "kernels"), i, hk) {
		const char *dq = json_string_value(json_object_get(json_object_get(hk, "quick"), "decorator"));
		if (dq)
			strbuf_addf(md, "\nQuick autotune's config of %s:\n\n    %s\n", json_string_value(json_object_get(hk, "kernel")), dq);
	}
}

/* the summary of an inventory, its rows and the measurements */
static char *summary_of(const json_t *inv, const json_t *rows, const json_t *meas,
			enum gate_baseline_status baseline, const char *why, double cost_s)
{
	struct rule_summary s;
	memset(&s, 0, sizeof s);
	s.baseline = baseline;
	s.kernels = xcalloc(json_array_size(inv) + 1, sizeof *s.kernels);
	double peak = rule_num(meas, "peak_copy_gbps");
	size_t i;
	json_t *kr;
	json_array_foreach(inv, i, kr) {
		struct rule_summary_kernel *k = &s.kernels[s.nkernels++];
		k->name = json_string_value(json_object_get(kr, "name"));
		k->kind = json_string_value(json_object_get(kr, "kind"));
		k->share = NAN;
		k->frac = NAN;
		size_t j;
		json_t *row;
		json_array_foreach(rows, j, row) {
			const char *rn = json_string_value(json_object_get(row, "name"));
			if (rn && strcmp(rn, k->name) == 0) {
				k->share = rule_num(row, "share");
				k->frac = rule_row_frac(row, peak);
				const char *cx = json_string_value(json_object_get(row, "class"));
				k->cls = cx ? strtoull(cx, NULL, 16) : 0;
			}
		}
		char *canon = json_dumps(kr, JSON_COMPACT | JSON_SORT_KEYS);
		k->ident = hash_str(canon);
		free(canon);
	}
	rule_summary_space(&s, meas);
	s.model_ns = rule_num(meas, "model_ns_per_call");
	s.device_ns = rule_kernels_ns(meas);
	s.cost_s = cost_s;
	s.baseline_why = xstrdup(why);
	char *text = rule_summary_write(&s);
	rule_summary_release(&s);
	return text;
}

/* profile.md: the times, each kernel's row, the implementation space and the vendor calls */
static void profile_md(struct strbuf *md, const struct dag_node *n, const json_t *meas, double sum_ns)
{
	const struct kopt_model *m = rule_model_of(n)->spec;
	double model_ns = rule_num(meas, "model_ns_per_call");
	double dev_ns = rule_num(meas, "device_ns_per_call");
	char *what = rule_variant_what(rule_mv_of(n)->variant);
	strbuf_addf(md, "# Profile of %s (variant %s)\n\nCompiled with %s.\n\n", m->name, rule_mv_of(n)->variant->name,
		    what);
	free(what);
	rule_measured_md(md, json_object_get(meas, "measured"));
	strbuf_addstr(md, "Model time per call: ");
	fmt_num(md, model_ns / 1000.0, "%.3f us");
	strbuf_addstr(md, "; device time per call: ");
	fmt_num(md, dev_ns / 1000.0, "%.3f us");
	strbuf_addstr(md, "; sum of kernel times: ");
	fmt_num(md, sum_ns / 1000.0, "%.3f us");
	if (!isnan(dev_ns) && dev_ns > 0)
		strbuf_addf(md, " (%.1f%% of device time)", 100.0 * sum_ns / dev_ns);
	double queued_ns = rule_num(meas, "queued_ns_per_call");
	if (!isnan(queued_ns))
		strbuf_addf(md, "; queued behind a spin, its kernels back to back: %.3f us", queued_ns / 1000.0);
	json_t *eg = json_object_get(meas, "eager");
	if (!isnan(rule_num(eg, "eager_ns")) && !isnan(rule_num(eg, "compiled_ns")))
		strbuf_addf(md, ".\nSide by side, the same model run eagerly: %.3f us against %.3f us compiled",
			    rule_num(eg, "eager_ns") / 1000.0, rule_num(eg, "compiled_ns") / 1000.0);
	double bound = rule_num(meas, "bound_ns_per_call"), host = rule_num(meas, "host_ns_per_call");
	double copy = rule_num(meas, "peak_copy_gbps"), peak = rule_num(meas, "peak_fp32_gflops");
	if (!isnan(bound) && bound > 0 && !isnan(model_ns)) {
		strbuf_addf(md, ".\nBound: %.3f us (the kernels at their bounds, %.3f us, and the host's %.3f us); "
			    "the model's time is %.2fx its bound", bound / 1000.0, (bound - host) / 1000.0,
			    host / 1000.0, model_ns / bound);
	}
	if (!isnan(copy) || !isnan(peak)) {
		strbuf_addstr(md, ".\nMeasured roofs: copy bandwidth ");
		fmt_num(md, copy, "%.0f GB/s");
		strbuf_addstr(md, ", FP32 peak ");
		fmt_num(md, peak / 1000.0, "%.1f TFLOP/s");
	}
	/* the DRAM bytes: counted, or why not (runtime/counters.c) */
	json_t *cn = json_object_get(meas, "counters");
	const char *cerr = json_string_value(json_object_get(cn, "error"));
	if (cerr)
		strbuf_addf(md, ".\nDRAM bytes: not counted (%s)", cerr);
	else if (json_is_object(cn))
		strbuf_addf(md, ".\nDRAM bytes: the GPU's counters saw %.0f of the kernels, in one more call "
			    "(DRAM bytes read and written per launch)", rule_num(cn, "rows"));
	strbuf_addstr(md, "\n\n| kernel | kind | heuristic | time/call (us) | launches/call | share | bytes | DRAM bytes | GB/s | "
			  "of peak | FLOP/byte | bound (us) | binds | of bound | regs | spills | occupancy |\n"
			  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: "
			  "| ---: |\n");
	size_t i;
	json_t *kr;
	json_array_foreach(json_object_get(meas, "rows"), i, kr) {
		const char *h = json_string_value(json_object_get(kr, "heuristic"));
		strbuf_addf(md, "| %s | %s | %s | ", json_string_value(json_object_get(kr, "name")),
			    json_string_value(json_object_get(kr, "kind")) ? json_string_value(json_object_get(kr, "kind")) : "-",
			    h ? h : "-");
		fmt_num(md, rule_num(kr, "ns_per_call") / 1000.0, "%.3f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "launches_per_call"), "%.1f");
		strbuf_addstr(md, " | ");
		fmt_num(md, 100.0 * rule_num(kr, "share"), "%.1f%%");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "bytes"), "%.0f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "dram_bytes"), "%.0f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "achieved_gbps"), "%.0f");
		strbuf_addstr(md, " | ");
		fmt_num(md, 100.0 * rule_num(kr, "frac_peak"), "%.0f%%");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "intensity"), "%.3g");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "bound_ns") / 1000.0, "%.3f");
		const char *binds = json_string_value(json_object_get(kr, "binds"));
		strbuf_addf(md, " | %s | ", binds ? binds : "-");
		fmt_num(md, rule_num(kr, "frac_bound"), "%.2f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "n_regs"), "%.0f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "n_spills"), "%.0f");
		strbuf_addstr(md, " | ");
		fmt_num(md, rule_num(kr, "occupancy"), "%.2f");
		strbuf_addstr(md, " |\n");
	}
	const struct kopt_gates *g = m->gates;
	struct strbuf space = STRBUF_INIT;
	if (rule_space_rows(&space, m, &meas, 1, g->gamma, NULL))
		strbuf_addf(md, "\n## Implementation space\n\n%s%s", rule_space_header, space.buf);
	strbuf_release(&space);
	json_t *vcalls = json_object_get(json_object_get(meas, "vendor"), "calls");
	if (json_array_size(vcalls)) {
		strbuf_addf(md, "\n## Vendor calls\n\n%s", rule_vendor_header);
		rule_vendor_rows(md, m->name, vcalls, g->gamma);
	}
	helion_md(md, json_object_get(meas, "helion"));
}

/* An hour a call: beyond it a clock or a unit went wrong. */
#define MAX_NS_PER_CALL 3.6e12

/* Whether o's key, a time per call in ns, is absent, null (not measured) or
 * a number from 0 to MAX_NS_PER_CALL; else why not, into why. */
static bool time_ok(const json_t *o, const char *key, const char *where, struct strbuf *why)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return true;
	if (!json_is_number(v)) {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		strbuf_addf(why, "%s%s is %.40s, not a number", where, key, s ? s : "?");
		free(s);
		return false;
	}
	double x = json_number_value(v);
	if (isfinite(x) && x >= 0 && x <= MAX_NS_PER_CALL)
		return true;
	strbuf_addf(why, "%s%s is %g ns, %s", where, key, x,
		    x < 0 ? "below zero" : "more than an hour a call");
	return false;
}

/* The times of a profile reply, checked before any is kept: a negative,
 * non-numeric or absurd one would rank kernels and report speedups. */
static bool profile_times_ok(const json_t *res, struct strbuf *why)
{
	static const char *const top[] = { "model_ns_per_call", "device_ns_per_call", "queued_ns_per_call" };
	static const char *const eager[] = { "compiled_ns", "eager_ns", "compiled_device_ns", "eager_device_ns" };
	for (size_t i = 0; i < sizeof top / sizeof *top; i++)
		if (!time_ok(res, top[i], "", why))
			return false;
	for (size_t i = 0; i < sizeof eager / sizeof *eager; i++)
		if (!time_ok(json_object_get(res, "eager"), eager[i], "eager.", why))
			return false;
	size_t i;
	json_t *kr;
	json_array_foreach(json_object_get(res, "kernels"), i, kr) {
		char where[48];
		snprintf(where, sizeof where, "kernels[%zu].", i);
		if (!time_ok(kr, "ns_per_call", where, why))
			return false;
		double share = rule_num(kr, "share"), launches = rule_num(kr, "launches_per_call");
		if (json_object_get(kr, "share") && !json_is_null(json_object_get(kr, "share")) &&
		    !(share >= 0 && share <= 1.5)) {
			strbuf_addf(why, "%sshare is %g, not a share of device time", where, share);
			return false;
		}
		if (json_object_get(kr, "launches_per_call") && !json_is_null(json_object_get(kr, "launches_per_call")) &&
		    !(launches >= 0 && isfinite(launches))) {
			strbuf_addf(why, "%slaunches_per_call is %g", where, launches);
			return false;
		}
	}
	return true;
}

static int profile_reply(struct rule_run *run, json_t *res)
{
	json_t *kernels = json_object_get(res, "kernels");
	if (!json_is_array(kernels))
		return rule_fail(run, "the profile result lacks kernels");
	struct strbuf why_times = STRBUF_INIT;
	if (!profile_times_ok(res, &why_times)) {
		rule_fail(run, "the worker's profile is not believable: %s", why_times.buf);
		strbuf_release(&why_times);
		return RULE_FAIL;
	}
	json_t *inv = json_array(), *rows = json_array();
	double kbound_ns;
	double sum_ns = inventory(run, res, inv, rows, &kbound_ns);
	helion_starts(json_object_get(res, "helion"), inv, rows);
	/* the compiled code against eager: decided here, kept in the stable
	 * part (what follows from it must rerun when it changes) */
	char why[GATE_REASON_MAX];
	enum gate_baseline_status bs = gate_baseline(json_object_get(res, "check"),
						     rule_model_of(run->node)->spec->gates, why, sizeof why);
	run->stable = json_pack("{s:o, s:{s:s, s:s}}", "kernels", inv, "baseline", "status",
				gate_baseline_name(bs), "reason", why);
	run->meas = json_pack("{s:O, s:O, s:O, s:O, s:f, s:o}",
			      "calls", json_object_get(res, "calls") ? json_object_get(res, "calls") : json_null(),
			      "model_ns_per_call", json_object_get(res, "model_ns_per_call") ? json_object_get(res, "model_ns_per_call") : json_null(),
			      "device_ns_per_call", json_object_get(res, "device_ns_per_call") ? json_object_get(res, "device_ns_per_call") : json_null(),
			      "peak_copy_gbps", json_object_get(res, "peak_copy_gbps") ? json_object_get(res, "peak_copy_gbps") : json_null(),
			      "sum_kernel_ns_per_call", sum_ns, "rows", rows);
	/* the model's bound: its kernels' bounds and the host's time, what
	 * is not a kernel's (the model's time less the kernels') */
	double model_ns = rule_num(res, "model_ns_per_call");
	double host_ns = model_ns > 0 ? fmax(model_ns - sum_ns, 0) : NAN;
	json_object_set_new(run->meas, "peak_fp32_gflops", rule_num_json(rule_num(res, "peak_fp32_gflops")));
	json_object_set_new(run->meas, "host_ns_per_call", rule_num_json(host_ns));
	json_object_set_new(run->meas, "kernel_bound_ns_per_call", json_real(kbound_ns));
	json_object_set_new(run->meas, "bound_ns_per_call", rule_num_json(isnan(host_ns) ? NAN : kbound_ns + host_ns));
	/* the device time per call behind a spin (the report's device
	 * speedups, rules/report_device.c); null from an older worker */
	json_object_set_new(run->meas, "queued_ns_per_call", rule_num_json(rule_num(res, "queued_ns_per_call")));
	if (json_object_get(res, "vendor"))
		json_object_set(run->meas, "vendor", json_object_get(res, "vendor"));
	if (json_object_get(res, "eager"))
		json_object_set(run->meas, "eager", json_object_get(res, "eager"));
	if (json_object_get(res, "check"))
		json_object_set(run->meas, "check", json_object_get(res, "check"));
	if (json_object_get(res, "facts"))
		json_object_set(run->meas, "facts", json_object_get(res, "facts"));
	if (json_object_get(res, "phases"))
		json_object_set(run->meas, "phases", json_object_get(res, "phases"));
	if (json_object_get(res, "counters"))
		json_object_set(run->meas, "counters", json_object_get(res, "counters"));
	if (json_object_get(res, "helion"))
		json_object_set(run->meas, "helion", json_object_get(res, "helion"));
	/* the graph-cache keys its compile looked up: what a deployment's
	 * compiles are compared with (runtime/python/kopt/graphkeys.py) */
	if (json_is_array(json_object_get(res, "graph_keys")))
		json_object_set(run->meas, "graph_keys", json_object_get(res, "graph_keys"));
	rule_measured(run, rule_measured_at(res));
	/* what a variant of the model costs, about: this one's capture */
	const json_t *cm = json_object_get(dag_result(run->dag, rule_mv_of(run->node)->capture), "meas");
	double cost = rule_num(cm, "gpu_s");
	if (!(cost > 0))
		cost = rule_num(cm, "worker_s");
	char *sum = summary_of(inv, rows, run->meas, bs, why, cost);
	run->summary = json_string(sum);
	free(sum);

	/* kopt-out/<model>/profile.json and profile.md */
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	json_t *doc = json_pack("{s:s, s:s, s:O}", "model", m->name, "variant",
				rule_mv_of(run->node)->variant->name, "profile", run->meas);
	char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	char *rel = profile_rel(run->node, "json");
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);
	struct strbuf md = STRBUF_INIT;
	profile_md(&md, run->node, run->meas, sum_ns);
	strbuf_addf(&md, "\n## The compiled baseline against eager\n\n%s%s.\n", why,
		    gate_baseline_usable(bs) ? "" : ": this variant is not optimized and claims no speedup");
	rel = profile_rel(run->node, "md");
	if (rule_output(run, rel, md.buf, md.len) < 0)
		r = -1;
	free(rel);
	strbuf_release(&md);
	if (r < 0)
		return rule_fail(run, "cannot write the profile outputs");
	return RULE_DONE;
}

/* a variant of the agents' own, after the declared ones and any other;
 * its lists become dm's (v's arrays are taken, not copied) */
static void add_auto(struct dag *d, struct rule_model *dm, const struct kopt_variant *v)
{
	if (dm->nmv - dm->spec->nvariants >= RULE_MAX_AUTO)
		kopt_die("more than %d variants of the agents' own", RULE_MAX_AUTO);
	struct kopt_variant *av = &dm->auto_variants[dm->nmv - dm->spec->nvariants];
	*av = *v;
	rule_plan_variant(d, dm, av);
}

static bool declares(const struct kopt_model *m, const char *name)
{
	for (size_t v = 0; v < m->nvariants; v++)
		if (strcmp(m->variants[v].name, name) == 0)
			return true;
	return false;
}

/* The implementation-space search (rules/space.c): agents space_variants
 * of Inductor's options on top of max-autotune-no-cudagraphs, as the
 * first variant's profile calls for; a name the spec declares is left to
 * the spec. */
static void expand_search(struct dag *d, struct rule_model *dm)
{
	const struct kopt_model *m = dm->spec;
	int want = m->agents ? m->agents->space_variants : 0;
	if (want == 0 || !gate_baseline_usable(dm->mvs[0].summary.baseline))
		return; /* off, or no speedup is claimed over the first variant */
	const struct kopt_variant *base = NULL;
	for (size_t v = 0; v < m->nvariants && !base; v++)
		if (m->variants[v].mode && strcmp(m->variants[v].mode, RULE_SPACE_MODE) == 0)
			base = &m->variants[v];
	struct kopt_variant found[RULE_SPACE_MAX];
	size_t n;
	if (want < 0) { /* the default: what the facts single out, within space_time (rules/space.c) */
		double cost = NAN;
		for (size_t v = 0; v < m->nvariants && v < dm->nmv; v++)
			if (dm->mvs[v].summary.cost_s > 0 && !(cost >= dm->mvs[v].summary.cost_s))
				cost = dm->mvs[v].summary.cost_s;
		n = rule_space_auto(&dm->mvs[0].summary, base, m->gates->gamma, m->agents->space_time_s, cost, found);
	} else {
		n = rule_space_search(&dm->mvs[0].summary, base, (size_t)want, m->gates->gamma, found);
	}
	for (size_t i = 0; i < n; i++) {
		if (declares(m, found[i].name)) {
			rule_variant_release(&found[i]);
			continue;
		}
		add_auto(d, dm, &found[i]);
	}
}

/*
 * The implementation-space level, once every declared variant of dm has
 * its profile: where eager beats each of them by gamma, the agents add a
 * variant of their own, "aten-auto" (the first variant plus ATen fallbacks
 * for the hot kernels' ops); where torch's cuDNN calls take a quarter of
 * the first variant's device time or more and no variant benchmarks them,
 * "cudnn-auto" (the first variant with cudnn.benchmark on). Each comes with
 * its capture and profile; the stitch races them with the rest.
 */
static void expand_space(struct dag *d, struct rule_model *dm)
{
	const struct kopt_model *m = dm->spec;
	size_t n = m->nvariants;
	if (dm->space_done || dm->nmv != n || n == 0 || dm->file_error)
		return;
	for (size_t v = 0; v < n; v++)
		if (!(dm->mvs[v].profile->flags & DAG_DONE))
			return; /* not all known yet, or one failed: no choice */
	dm->space_done = true;
	if (m->kind != KOPT_MODEL_TORCH)
		return;
	if (m->agents && !m->agents->auto_variants) {
		expand_search(d, dm);
		return;
	}
	double gamma = m->gates->gamma;
	json_t *ops = NULL;
	double cudnn = 0;
	bool known = true;
	for (size_t v = 0; v < n; v++)
		known &= dm->mvs[v].summary.eager_known;
	if (known) { /* the summaries say it all */
		double *ratio = xcalloc(n, sizeof *ratio);
		for (size_t v = 0; v < n; v++)
			ratio[v] = dm->mvs[v].summary.eager_ratio;
		ops = rule_space_pick_lines(m, ratio, n, dm->mvs[0].summary.eager_ops, gamma);
		free(ratio);
		cudnn = dm->mvs[0].summary.cudnn_share;
	} else { /* profiles cached before the summary had the lines */
		const json_t **meas = xcalloc(n, sizeof *meas);
		meas[0] = rule_profile_meas(d, &dm->mvs[0]);
		cudnn = rule_cudnn_share(meas[0]);
		/* the first profile alone settles most models: parse the rest only then */
		json_t *first = rule_space_pick(m, meas, 1, gamma);
		if (first) {
			for (size_t v = 1; v < n; v++)
				meas[v] = rule_profile_meas(d, &dm->mvs[v]);
			ops = n > 1 ? rule_space_pick(m, meas, n, gamma) : json_incref(first);
			json_decref(first);
		}
		free(meas);
	}
	if (ops && !declares(m, RULE_AUTO_VARIANT)) {
		/* the first variant's compile options, those ops kept out of Inductor */
		struct kopt_variant v;
		rule_variant_copy(&v, &m->variants[0]);
		v.name = dag_strdup(d, RULE_AUTO_VARIANT);
		free(v.aten_fallback);
		v.naten_fallback = json_array_size(ops);
		v.aten_fallback = xcalloc(v.naten_fallback, sizeof *v.aten_fallback);
		for (size_t i = 0; i < v.naten_fallback; i++)
			v.aten_fallback[i] = dag_strdup(d, json_string_value(json_array_get(ops, i)));
		add_auto(d, dm, &v);
	}
	json_decref(ops);
	bool benchmarked = false;
	for (size_t v = 0; v < n; v++)
		benchmarked |= m->variants[v].cudnn_benchmark;
	/* the vendor probe's finding deployed: where one of torch's cuDNN calls
	 * leaves gamma on the table against an algorithm cuDNN ranked, the
	 * way torch can be told to look for it is cudnn.benchmark (which
	 * times cuDNN's algorithms at each shape and keeps the fastest) */
	double left = dm->mvs[0].summary.cudnn_left;
	bool probe_found = !isnan(left) && left >= gamma;
	if ((cudnn >= RULE_CUDNN_SHARE || probe_found) && !benchmarked && !declares(m, RULE_CUDNN_VARIANT)) {
		/* the first variant's, cuDNN's algorithms benchmarked at each shape */
		struct kopt_variant v;
		rule_variant_copy(&v, &m->variants[0]);
		v.name = dag_strdup(d, RULE_CUDNN_VARIANT);
		v.cudnn_benchmark = true;
		add_auto(d, dm, &v);
	}
	expand_search(d, dm);
}

/* a profile settled: its summary read; the agents' own variants once
 * every declared variant is profiled; the chains once every variant is
 * (the engine calls this for a failed profile too) */
static void profile_expand(struct dag *d, struct dag_node *n)
{
	struct rule_mv *mv = rule_mv_of(n);
	if (n->flags & DAG_DONE)
		rule_read_summary(mv);
	expand_space(d, mv->model);
	rule_expand_chains(d, mv->model);
}

/* -t why: the model's time and bound, then each kernel's time against
 * its bound and what binds, and its compile metadata */
static void profile_why(struct dag *d, struct dag_node *n, FILE *out)
{
	json_t *me = json_object_get(dag_result(d, n), "meas");
	double model = rule_num(me, "model_ns_per_call"), bound = rule_num(me, "bound_ns_per_call");
	fprintf(out, "profile %s: %.3f us per call", n->path, model / 1000.0);
	if (bound > 0)
		fprintf(out, ", bound %.3f us (host %.3f us): %.2fx its bound", bound / 1000.0,
			rule_num(me, "host_ns_per_call") / 1000.0, model / bound);
	fputc('\n', out);
	double copy = rule_num(me, "peak_copy_gbps"), peak = rule_num(me, "peak_fp32_gflops");
	fputs("  roofs                  copy bandwidth ", out);
	if (isnan(copy))
		fputs("unknown", out);
	else
		fprintf(out, "%.0f GB/s", copy);
	if (isnan(peak))
		fputs(", FP32 peak unknown\n", out);
	else
		fprintf(out, ", FP32 peak %.1f TFLOP/s\n", peak / 1000.0);
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(me, "rows"), i, r) {
		const char *binds = json_string_value(json_object_get(r, "binds"));
		fprintf(out, "  %-22s %.3f us", json_string_value(json_object_get(r, "name")),
			rule_num(r, "ns_per_call") / 1000.0);
		if (binds && strcmp(binds, "measured") == 0)
			fputs(", its own bound (not rewritten)", out);
		else if (binds)
			fprintf(out, ", bound %.3f us (%s, %.3g FLOP per byte): %.0f%% of it", rule_num(r, "bound_ns") / 1000.0,
				binds, rule_num(r, "intensity"), 100 * rule_num(r, "frac_bound"));
		else
			fputs(", bound unknown", out);
		if (!isnan(rule_num(r, "n_regs")))
			fprintf(out, "; %.0f registers, %.0f spilled, occupancy %.2f", rule_num(r, "n_regs"),
				rule_num(r, "n_spills"), rule_num(r, "occupancy"));
		fputc('\n', out);
	}
}

/* hot kernels a variant is guessed to have before its profile says */
#define GUESS_HOT 2

/* the progress count's guess of the steps a profile reveals: its hot
 * kernels' chains (a screen, then a proposal and a verify per candidate),
 * for GUESS_HOT kernels; the engine scales it by what the profiles so far
 * revealed */
static double profile_reveals(struct dag *d, struct dag_node *n)
{
	(void)d;
	const struct rule_mv *mv = n->ctx;
	const struct kopt_model *m = mv->model->spec;
	const struct kopt_agents *ag = m->agents;
	if (mv->model->chains_done || !ag || ag->budget <= 0)
		return 0;
	double hot = ag->max_kernels >= 0 && ag->max_kernels < GUESS_HOT ? ag->max_kernels : GUESS_HOT;
	bool screen = ag->screen_s > 0 && m->kind == KOPT_MODEL_TORCH &&
		      ag->roles[KOPT_ROLE_CODER].backend == KOPT_BACKEND_BUILTIN;
	return hot * ((screen ? 1 : 0) + 2.0 * ag->budget);
}

const struct rule rule_profile = {
	.name = "profile", .version = PROFILE_VERSION, .worker = true, .timing = true,
	.device = rule_device,
	.restore = rule_restore_outputs,
	.key = profile_key, .start = profile_start, .reply = profile_reply, .expand = profile_expand,
	.reveals = profile_reveals, .why = profile_why,
};
