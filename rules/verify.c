/*
 * rules/verify.c: one candidate through gates 1, 2 and 4 at kernel level,
 * inside the real model run, in a worker.
 *
 * The worker measures; this rule decides with gate_decide() (gates/gates.h)
 * on the reply's numbers; the worker's own verdict is kept as advice.
 *
 * Key: the capture's and the proposal's stable hashes, the kernel, the
 * variant (and, where it tunes with coordinate descent, how a config is
 * pinned: rule_key_pinned), the seed and every gate parameter. Stable part: verdict, failing
 * gate and the candidate's identity. Measurements: the reason, the decided
 * numbers (medians, quartiles, errors) and the kernel speedup. The raw
 * timing arrays are not kept (the decision's statistics are). verdict_write
 * writes them, rule_verdict_read reads them back for everyone else.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/memory.h"
#include "../gates/gates.h"
#include "../common/nofollow.h"
#include "plan.h"
#include "propose.h"
#include "verify.h"
#include "proto.h"
#include "keys.h"
#include "outputs.h"
#include "groups.h"
#include "common.h"

static int verify_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	struct rule_cand *c = rule_cand_of(n);
	struct rule_mv *mv = c->k->mv;
	const struct kopt_model *m = mv->model->spec;
	rule_key_input(k, mv->capture);
	rule_key_input(k, c->propose);
	hash_key_hash(k, "kernel", c->k->ident);
	hash_key_splice(k, &mv->variant_key);
	rule_key_pinned(k, mv->variant);
	hash_key_int(k, "param:seed", m->agents ? (long long)m->agents->seed : 0);
	hash_key_splice(k, &mv->model->gates_key);
	return 0;
}

/* the agent had no candidate: nothing to verify */
static bool verify_skip(struct dag *d, struct dag_node *n, kopt_hash *out)
{
	(void)d;
	static kopt_hash none;
	if (hash_is_zero(none)) {
		json_t *j = rule_no_candidate();
		none = dag_stable_hash(j);
		json_decref(j);
	}
	if (!hash_eq(rule_cand_of(n)->propose->out, none))
		return false;
	*out = none;
	return true;
}

static int verify_start(struct rule_run *run)
{
	struct rule_cand *cd = rule_cand_of(run->node);
	struct rule_mv *mv = cd->k->mv;
	const struct kopt_model *m = mv->model->spec;
	struct rule_proposal p;
	rule_proposal_read(run->dag, cd, &p);
	if (!p.json)
		return rule_fail(run, "the proposal of this candidate is missing from the cache");
	json_t *c = json_pack("{s:o, s:o}", "source", p.cand.source ? json_string(p.cand.source) : json_null(),
			      "config", p.cand.config ? json_deep_copy(p.cand.config) : json_null());
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:s, s:o, s:o}", "op", "verify",
				 "model", rule_model_json(mv->model), "variant", rule_variant_json(mv->variant),
				 "seed", (json_int_t)(m->agents ? m->agents->seed : 0),
				 "kernel", cd->k->name, "candidate", c,
				 "gates", rule_gates_json(m->gates));
	return RULE_SEND;
}

/* the result: the decision v on the worker's reply res */
static void verdict_write(struct rule_run *run, const struct gate_verdict *v, json_t *res)
{
	char hex[HASH_HEX];
	hash_hex(rule_cand_of(run->node)->propose->out, hex);
	run->stable = json_pack("{s:s, s:o, s:s}", "verdict", v->pass ? "pass" : "fail", "gate",
				v->pass ? json_null() : json_string(gate_name(v->gate)), "candidate", hex);
	json_t *decision = gate_verdict_to_json(v);
	run->meas = json_pack("{s:s, s:O, s:o}", "reason", v->reason, "numbers",
			      json_object_get(decision, "numbers"), "worker",
			      json_pack("{s:O, s:O, s:O}",
					"verdict", json_object_get(res, "verdict") ? json_object_get(res, "verdict") : json_null(),
					"gate", json_object_get(res, "gate") ? json_object_get(res, "gate") : json_null(),
					"reason", json_object_get(res, "reason") ? json_object_get(res, "reason") : json_null()));
	json_object_set_new(run->meas, "speedup", isnan(v->kernel.speedup) || !v->kernel.pairs ?
			    json_null() : json_real(v->kernel.speedup));
	/* which of the worker's stored references the verdict used (the
	 * baseline's outputs, the float64 reference), and where it stopped */
	json_t *nums = json_object_get(res, "numbers");
	json_t *ref = json_object_get(nums, "reference");
	if (json_is_object(ref))
		json_object_set(run->meas, "reference", ref);
	json_t *ph = json_object_get(res, "phases"); /* where the request's time went */
	if (json_is_object(ph))
		json_object_set(run->meas, "phases", ph);
	const char *cs = json_string_value(json_object_get(json_object_get(nums, "correctness"), "stopped"));
	const char *ps = json_string_value(json_object_get(json_object_get(nums, "perf"), "stopped"));
	if (cs || ps)
		json_object_set_new(run->meas, "stopped", json_string(cs ? cs : ps));
	json_decref(decision);
}

void rule_verdict_read(struct dag *d, const struct rule_cand *c, struct rule_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->speedup = NAN;
	v->error = (c->verify->flags & DAG_FAILED) != 0;
	if (v->error) {
		const struct dag_node *f = rule_failure_of(c->verify);
		v->failure = f->why ? f->why : "no reason given";
		v->failed_kind = f != c->verify ? f->rule->name : NULL;
	}
	json_t *r = dag_result(d, c->verify);
	json_t *st = json_object_get(r, "stable"), *me = json_object_get(r, "meas");
	v->verdict = json_string_value(json_object_get(st, "verdict"));
	v->pass = v->verdict && strcmp(v->verdict, "pass") == 0;
	v->gate = json_string_value(json_object_get(st, "gate"));
	v->reason = json_string_value(json_object_get(me, "reason"));
	v->speedup = rule_num(me, "speedup");
	json_t *kt = json_object_get(json_object_get(me, "numbers"), "kernel");
	v->base_ns = rule_num(kt, "base_median_ns");
	v->cand_ns = rule_num(kt, "cand_median_ns");
}

static int verify_reply(struct rule_run *run, json_t *res)
{
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	json_t *nums = json_object_get(res, "numbers");
	if (!json_is_object(nums))
		return rule_fail(run, "the verify reply has no numbers object");
	/* the worker measures, koptmake decides (gates/gates.h) */
	struct gate_verdict v;
	gate_decide(nums, m->gates, &v);
	if (v.pass) {
		static const enum gate_id need[] = { GATE_STATIC, GATE_CORRECTNESS, GATE_PERF };
		for (size_t i = 0; i < sizeof need / sizeof *need; i++)
			if (!(v.gates_run & (1u << need[i])))
				return rule_fail(run, "the verify numbers lack the %s gate", gate_name(need[i]));
	} else if (v.gate == GATE_NONE) {
		return rule_fail(run, "the verify numbers hold no gate: %s", v.reason);
	}
	verdict_write(run, &v, res);
	return RULE_DONE;
}

/* In a build, each verdict, run now or found in the cache: the long-term
 * memory learns the outcome of the candidate's strategy, once per verdict
 * (its key) whatever the number of builds that see it. */
static void verify_done(struct dag *d, struct dag_node *n)
{
	if (n->flags & DAG_NONE)
		return; /* no candidate, no verdict */
	struct rule_plan *pl = d->plan;
	char key[HASH_HEX];
	hash_hex(n->key, key);
	if (!pl->memory) {
		pl->memory = rule_memory_path(d);
		pl->scope = rule_memory_scope(d);
		memory_seen_load(&pl->seen, pl->memory);
	}
	if (memory_seen_has(&pl->seen, key))
		return;
	struct rule_cand *cd = rule_cand_of(n);
	struct rule_kernel *k = cd->k;
	struct rule_proposal p;
	struct rule_verdict v;
	rule_proposal_read(d, cd, &p);
	rule_verdict_read(d, cd, &v);
	if (!p.json || !v.verdict)
		return;
	rule_kernel_info(d, k);
	/* with its source, as the planner sees it: the feature class holds the
	 * reduction's length, read from the source */
	struct strbuf src = STRBUF_INIT;
	rule_kernel_source(d, k, &src);
	struct agent_kernel ak = { .model = k->mv->model->spec->name, .name = k->name, .heuristic = k->heuristic,
				   .source = src.len ? src.buf : NULL, .config = k->config, .profile_row = k->row };
	/* its class, which a skill (a lesson with an edit) is filed under */
	char cls[17];
	if (src.len) {
		snprintf(cls, sizeof cls, "%016llx", (unsigned long long)rule_kernel_class(src.buf, k->name));
		ak.cls = cls;
	}
	double x = v.pass && !isnan(v.speedup) ? v.speedup : 0;
	static bool said; /* a memory that cannot be written says so once a build */
	if (agent_learn(pl->memory, pl->scope, key, &ak, p.json, v.pass, x) < 0) {
		if (!said)
			kopt_warn("%s: cannot append to the agents' memory: %s", pl->memory, nofollow_why(errno));
		said = true;
	}
	else
		memory_seen_add(&pl->seen, key);
	strbuf_release(&src);
}

/* -t why: the verdict, the failing gate, the candidate, the numbers */
static void verify_why(struct dag *d, struct dag_node *n, FILE *out)
{
	if (n->flags & DAG_NONE) {
		fprintf(out, "verify %s: no candidate (the agent had no more)\n", n->path);
		return;
	}
	struct rule_verdict v;
	struct rule_proposal p;
	rule_verdict_read(d, rule_cand_of(n), &v);
	rule_proposal_read(d, rule_cand_of(n), &p);
	fprintf(out, "verify %s: %s%s%s\n", n->path, v.verdict, v.gate ? " at gate " : "", v.gate ? v.gate : "");
	if (p.cand.strategy)
		fprintf(out, "  candidate              %s\n", p.cand.strategy);
	const char *an = json_string_value(json_object_get(p.json, "analysis"));
	if (an) /* candidate 0's: the bound and what binds */
		fprintf(out, "  analysis               %s\n", an);
	fprintf(out, "  reason                 %s\n", v.reason);
	json_t *me = json_object_get(dag_result(d, n), "meas");
	rule_print_numbers(out, json_object_get(me, "numbers"));
	json_t *ref = json_object_get(me, "reference");
	if (json_is_object(ref))
		fprintf(out, "  references             baseline outputs %s; float64 %s (store key %s)\n",
			json_string_value(json_object_get(ref, "baseline")) ? json_string_value(json_object_get(ref, "baseline")) : "-",
			json_string_value(json_object_get(ref, "fp64")) ? json_string_value(json_object_get(ref, "fp64")) : "not needed",
			json_string_value(json_object_get(ref, "key")) ? json_string_value(json_object_get(ref, "key")) : "-");
	if (json_string_value(json_object_get(me, "stopped")))
		fprintf(out, "  stopped early          %s\n", json_string_value(json_object_get(me, "stopped")));
	json_t *ph = json_object_get(me, "phases");
	if (json_is_object(ph)) {
		fprintf(out, "  seconds                model %.1f (%s)", rule_num(ph, "model_s"),
			json_is_true(json_object_get(ph, "compiled")) ? "compiled" : "kept from an earlier request");
		if (!isnan(rule_num(ph, "build_s")))
			fprintf(out, ", candidate built %.1f", rule_num(ph, "build_s"));
		if (!isnan(rule_num(ph, "gates_s")))
			fprintf(out, ", gates %.1f", rule_num(ph, "gates_s"));
		fprintf(out, "\n");
	}
	json_t *w = json_object_get(me, "worker");
	if (json_string_value(json_object_get(w, "reason")))
		fprintf(out, "  worker said            %s\n", json_string_value(json_object_get(w, "reason")));
}

/* 2: the compiled baseline's outputs kept with their own strides (a slice
 * of a larger buffer had been kept contiguous, and every candidate of such
 * a model failed correctness on strides: runtime/python/kopt/state.py,
 * copy_strided) */
#define VERIFY_VERSION 2

const struct rule rule_verify = {
	.name = "verify", .version = VERIFY_VERSION, .worker = true, .timing = true,
	.device = rule_device,
	.key = verify_key, .skip = verify_skip, .start = verify_start, .reply = verify_reply,
	.priority = rule_cand_priority,
	.why = verify_why, .done = verify_done,
};
