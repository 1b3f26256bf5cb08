/*
 * rules/verify.c: one candidate through gates 1, 2 and 4 at kernel level,
 * inside the real model run, in a worker.
 *
 * Key: the capture's and the proposal's stable hashes, the kernel, the
 * variant, the seed and every gate parameter. Stable part: verdict, failing
 * gate and the candidate's identity. Measurements: the reason and numbers.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "rules.h"

static int verify_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	const struct kopt_model *m = n->model->spec;
	rule_key_input(k, n->mv->capture);
	rule_key_input(k, n->kernel->propose[n->cand]);
	hash_key_hash(k, "kernel", n->kernel->ident);
	rule_key_variant(k, n->mv->variant);
	hash_key_int(k, "param:seed", m->agents ? (long long)m->agents->seed : 0);
	if (m->gates)
		rule_key_gates(k, m->gates);
	return 0;
}

static int verify_start(struct rule_run *run)
{
	struct dag_node *n = run->node;
	const struct kopt_model *m = n->model->spec;
	json_t *pr = dag_result(run->dag, n->kernel->propose[n->cand]);
	json_t *cand = json_object_get(json_object_get(pr, "stable"), "candidate");
	if (!cand)
		return rule_fail(run, "the proposal of this candidate is missing from the cache");
	json_t *c = json_pack("{s:O, s:O}", "source",
			      json_object_get(cand, "source") ? json_object_get(cand, "source") : json_null(),
			      "config", json_object_get(cand, "config") ? json_object_get(cand, "config") : json_null());
	struct kopt_gates defaults = { .seeds = 5, .atol = 1e-4, .rtol = 1e-4, .atol_half = 1e-2,
				       .rtol_half = 1e-2, .fp64_fallback = true, .gamma = 1.03, .repeats = 10 };
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:s, s:o, s:o}", "op", "verify",
				 "model", rule_model_json(m), "variant", rule_variant_json(n->mv->variant),
				 "seed", (json_int_t)(m->agents ? m->agents->seed : 0),
				 "kernel", n->kernel->name, "candidate", c,
				 "gates", rule_gates_json(m->gates ? m->gates : &defaults));
	return RULE_SEND;
}

static int verify_reply(struct rule_run *run, json_t *res)
{
	const char *verdict = json_string_value(json_object_get(res, "verdict"));
	if (!verdict || (strcmp(verdict, "pass") != 0 && strcmp(verdict, "fail") != 0))
		return rule_fail(run, "the verify result has no verdict pass or fail");
	json_t *gate = json_object_get(res, "gate");
	char hex[HASH_HEX];
	hash_hex(run->node->kernel->propose[run->node->cand]->out, hex);
	run->stable = json_pack("{s:s, s:O, s:s}", "verdict", verdict, "gate",
				json_is_string(gate) ? gate : json_null(), "candidate", hex);
	json_t *reason = json_object_get(res, "reason");
	json_t *nums = json_object_get(res, "numbers");
	run->meas = json_object();
	json_object_set_new(run->meas, "reason",
			    json_string(json_is_string(reason) ? json_string_value(reason) : ""));
	json_object_set_new(run->meas, "numbers", json_is_object(nums) ? json_deep_copy(nums) : json_object());
	return RULE_DONE;
}

const struct rule rule_verify = {
	.name = "verify", .version = 1, .worker = true, .timing = true,
	.key = verify_key, .start = verify_start, .reply = verify_reply,
};
