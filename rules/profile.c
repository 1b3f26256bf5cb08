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
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define WARMUP 3
#define CALLS 20

static int profile_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	rule_key_input(k, n->mv->capture);
	hash_key_int(k, "param:seed", n->model->spec->agents ? (long long)n->model->spec->agents->seed : 0);
	hash_key_int(k, "param:warmup", WARMUP);
	hash_key_int(k, "param:calls", CALLS);
	return 0;
}

static int profile_start(struct rule_run *run)
{
	const struct kopt_model *m = run->node->model->spec;
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:i, s:i}", "op", "profile",
				 "model", rule_model_json(m),
				 "variant", rule_variant_json(run->node->mv->variant),
				 "seed", (json_int_t)(m->agents ? m->agents->seed : 0),
				 "warmup", WARMUP, "calls", CALLS);
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
	const char *dir = rule_model_dir(n->model->spec);
	if (n->mv->index == 0)
		return xasprintf("%s/profile.%s", dir, ext);
	return xasprintf("%s/profile-%s.%s", dir, n->mv->variant->name, ext);
}

static int profile_reply(struct rule_run *run, json_t *res)
{
	json_t *kernels = json_object_get(res, "kernels");
	if (!json_is_array(kernels))
		return rule_fail(run, "the profile result lacks kernels");
	json_t *cap = dag_result(run->dag, run->node->mv->capture);
	json_t *capk = json_object_get(json_object_get(cap, "stable"), "kernels");
	json_t *inv = json_array(), *rows = json_array();
	double sum_ns = 0;
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
		json_array_append_new(rows, row);
		double ns = rule_num(kr, "ns_per_call");
		if (!isnan(ns))
			sum_ns += ns;
	}
	run->stable = json_pack("{s:o}", "kernels", inv);
	/* What planning reads, cheap to parse: per kernel a line
	 * "KIND\tSHARE\tIDENT\tNAME", IDENT the hash of its inventory entry
	 * (what the proposals key on), SHARE for the hot selection. */
	struct strbuf sum = STRBUF_INIT;
	json_array_foreach(inv, i, kr) {
		const char *name = json_string_value(json_object_get(kr, "name"));
		const char *kind = json_string_value(json_object_get(kr, "kind"));
		double share = NAN;
		size_t j;
		json_t *row;
		json_array_foreach(rows, j, row) {
			const char *rn = json_string_value(json_object_get(row, "name"));
			if (rn && strcmp(rn, name) == 0)
				share = rule_num(row, "share");
		}
		if (strpbrk(name, "\t\n") || isnan(share))
			continue;
		char *canon = json_dumps(kr, JSON_COMPACT | JSON_SORT_KEYS);
		char hex[HASH_HEX];
		hash_hex(hash_str(canon), hex);
		free(canon);
		strbuf_addf(&sum, "%s\t%.9g\t%s\t%s\n", kind ? kind : "-", share, hex, name);
	}
	run->meas = json_pack("{s:O, s:O, s:O, s:O, s:f, s:o}",
			      "calls", json_object_get(res, "calls") ? json_object_get(res, "calls") : json_null(),
			      "model_ns_per_call", json_object_get(res, "model_ns_per_call") ? json_object_get(res, "model_ns_per_call") : json_null(),
			      "device_ns_per_call", json_object_get(res, "device_ns_per_call") ? json_object_get(res, "device_ns_per_call") : json_null(),
			      "peak_copy_gbps", json_object_get(res, "peak_copy_gbps") ? json_object_get(res, "peak_copy_gbps") : json_null(),
			      "sum_kernel_ns_per_call", sum_ns, "rows", rows);
	if (json_object_get(res, "vendor"))
		json_object_set(run->meas, "vendor", json_object_get(res, "vendor"));
	if (json_object_get(res, "eager"))
		json_object_set(run->meas, "eager", json_object_get(res, "eager"));
	/* and the implementation-space level's figures (dag_expand_space) */
	char *eager_line = rule_space_line(run->meas);
	strbuf_addstr(&sum, eager_line);
	free(eager_line);
	run->summary = json_string(sum.buf);
	strbuf_release(&sum);

	/* kopt-out/<model>/profile.json and profile.md */
	const struct kopt_model *m = run->node->model->spec;
	json_t *doc = json_pack("{s:s, s:s, s:O}", "model", m->name, "variant",
				run->node->mv->variant->name, "profile", run->meas);
	char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	char *rel = profile_rel(run->node, "json");
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);

	struct strbuf md = STRBUF_INIT;
	double model_ns = rule_num(run->meas, "model_ns_per_call");
	double dev_ns = rule_num(run->meas, "device_ns_per_call");
	strbuf_addf(&md, "# Profile of %s (variant %s)\n\n", m->name, run->node->mv->variant->name);
	strbuf_addstr(&md, "Model time per call: ");
	fmt_num(&md, model_ns / 1000.0, "%.3f us");
	strbuf_addstr(&md, "; device time per call: ");
	fmt_num(&md, dev_ns / 1000.0, "%.3f us");
	strbuf_addstr(&md, "; sum of kernel times: ");
	fmt_num(&md, sum_ns / 1000.0, "%.3f us");
	if (!isnan(dev_ns) && dev_ns > 0)
		strbuf_addf(&md, " (%.1f%% of device time)", 100.0 * sum_ns / dev_ns);
	json_t *eg = json_object_get(run->meas, "eager");
	if (!isnan(rule_num(eg, "eager_ns")) && !isnan(rule_num(eg, "compiled_ns")))
		strbuf_addf(&md, ".\nSide by side, the same model run eagerly: %.3f us against %.3f us compiled",
			    rule_num(eg, "eager_ns") / 1000.0, rule_num(eg, "compiled_ns") / 1000.0);
	strbuf_addstr(&md, "\n\n| kernel | kind | heuristic | time/call (us) | launches/call | share | bytes | GB/s | of peak |\n"
			   "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	json_array_foreach(rows, i, kr) {
		const char *h = json_string_value(json_object_get(kr, "heuristic"));
		strbuf_addf(&md, "| %s | %s | %s | ", json_string_value(json_object_get(kr, "name")),
			    json_string_value(json_object_get(kr, "kind")) ? json_string_value(json_object_get(kr, "kind")) : "-",
			    h ? h : "-");
		fmt_num(&md, rule_num(kr, "ns_per_call") / 1000.0, "%.3f");
		strbuf_addstr(&md, " | ");
		fmt_num(&md, rule_num(kr, "launches_per_call"), "%.1f");
		strbuf_addstr(&md, " | ");
		fmt_num(&md, 100.0 * rule_num(kr, "share"), "%.1f%%");
		strbuf_addstr(&md, " | ");
		fmt_num(&md, rule_num(kr, "bytes"), "%.0f");
		strbuf_addstr(&md, " | ");
		fmt_num(&md, rule_num(kr, "achieved_gbps"), "%.0f");
		strbuf_addstr(&md, " | ");
		fmt_num(&md, 100.0 * rule_num(kr, "frac_peak"), "%.0f%%");
		strbuf_addstr(&md, " |\n");
	}
	const struct kopt_gates *g = m->gates;
	struct strbuf space = STRBUF_INIT;
	const json_t *meas = run->meas;
	if (rule_space_rows(&space, m, &meas, 1, g->gamma, NULL))
		strbuf_addf(&md, "\n## Implementation space\n\n%s%s", rule_space_header, space.buf);
	strbuf_release(&space);
	json_t *vcalls = json_object_get(json_object_get(run->meas, "vendor"), "calls");
	if (json_array_size(vcalls)) {
		strbuf_addf(&md, "\n## Vendor calls\n\n%s", rule_vendor_header);
		rule_vendor_rows(&md, m->name, vcalls, g->gamma);
	}
	rel = profile_rel(run->node, "md");
	if (rule_output(run, rel, md.buf, md.len) < 0)
		r = -1;
	free(rel);
	strbuf_release(&md);
	if (r < 0)
		return rule_fail(run, "cannot write the profile outputs");
	return RULE_DONE;
}

/* the hot kernels' chains, and the agents' own variants once every
 * declared variant is profiled */
static void profile_expand(struct dag *d, struct dag_node *n)
{
	dag_expand(d, n->mv); /* before the users: stitch gains its verify inputs */
	dag_expand_space(d, n->model);
}

const struct rule rule_profile = {
	.name = "profile", .version = 3, .worker = true, .timing = true,
	.restore = rule_restore_outputs,
	.key = profile_key, .start = profile_start, .reply = profile_reply, .expand = profile_expand,
};
