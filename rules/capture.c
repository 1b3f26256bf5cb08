/*
 * rules/capture.c: compile a model under one variant in a worker, keep
 * Inductor's output code and the kernel inventory.
 *
 * Key: the model file's bytes, its kind, the variant, the seed and the
 * worker environment fingerprint (GPU, driver, CUDA, torch, triton); for
 * a variant with koptmake's own options (kopt.NAME), also the digest of
 * the kopt package's graph code (rewrites and the kernels they call, the
 * env's graph_code): a change there changes what that variant runs. The
 * others leave it out, so that such a change recaptures only them.
 * Stable part: the output code's hash and per kernel its name, kind, source
 * hash, heuristic, config and the object holding its source.
 * Measurements: compile time and its phases (runtime/python/kopt/
 * compile_time.py), input shapes, each kernel's tensor arguments (shape,
 * dtype, bytes: the LLM agents' prompts show them).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "proto.h"
#include "outputs.h"
#include "common.h"

static uint64_t seed_of(const struct kopt_model *m)
{
	return m->agents ? m->agents->seed : 0;
}

/* whether the variant sets any of koptmake's own options (kopt.NAME) */
static bool uses_graph_code(const struct kopt_variant *v)
{
	for (size_t i = 0; v && i < v->noptions; i++)
		if (strncmp(v->options[i].key, "kopt.", 5) == 0)
			return true;
	return false;
}

static int capture_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	struct rule_mv *mv = rule_mv_of(n);
	const struct kopt_model *m = mv->model->spec;
	json_t *env = dag_env(d, m->device);
	if (!env) {
		*why = xasprintf("no environment fingerprint for device '%s' yet (the GPU, driver, CUDA, torch and triton "
				 "versions that its first worker reports; part of a capture's key)", dag_env_name(m->device));
		return -1;
	}
	hash_key_hash(k, "model", mv->model->file_hash);
	hash_key_int(k, "param:model_kind", m->kind);
	hash_key_splice(k, &mv->variant_key);
	hash_key_int(k, "param:seed", (long long)seed_of(m));
	json_t *rest = json_copy(env);
	json_object_del(rest, "graph_code");
	char *e = json_dumps(rest, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(rest);
	hash_key_str(k, "env", e);
	free(e);
	if (uses_graph_code(mv->variant)) {
		const char *gc = json_string_value(json_object_get(env, "graph_code"));
		hash_key_str(k, "graph_code", gc ? gc : "");
	}
	return 0;
}

static int capture_start(struct rule_run *run)
{
	struct rule_mv *mv = rule_mv_of(run->node);
	const struct kopt_model *m = mv->model->spec;
	if (mv->model->file_error)
		return rule_fail(run, "%s", mv->model->file_error);
	run->request = json_pack("{s:s, s:o, s:o, s:I}", "op", "capture", "model", rule_model_json(mv->model),
				 "variant", rule_variant_json(mv->variant),
				 "seed", (json_int_t)seed_of(m));
	return RULE_SEND;
}

static int capture_reply(struct rule_run *run, json_t *res)
{
	json_t *code = json_object_get(res, "output_code");
	json_t *kernels = json_object_get(res, "kernels");
	if (!json_is_string(code) || !json_is_array(kernels))
		return rule_fail(run, "the capture result lacks output_code or kernels");
	kopt_hash h;
	char hex[HASH_HEX];
	if (rule_object(run, "output_code", json_string_value(code), json_string_length(code), &h) < 0)
		return rule_fail(run, "cannot store the output code in the cache");
	hash_hex(h, hex);
	json_t *inv = json_array(), *args = json_object();
	size_t i;
	json_t *kr;
	json_array_foreach(kernels, i, kr) {
		const char *name = json_string_value(json_object_get(kr, "name"));
		const char *kind = json_string_value(json_object_get(kr, "kind"));
		if (!name || !kind) {
			json_decref(inv);
			json_decref(args);
			return rule_fail(run, "capture result: kernel %zu has no name or kind", i);
		}
		json_t *e = json_pack("{s:s, s:s, s:O, s:O, s:O}", "name", name, "kind", kind,
				      "source_hash", json_object_get(kr, "source_hash") ? json_object_get(kr, "source_hash") : json_null(),
				      "heuristic", json_object_get(kr, "heuristic") ? json_object_get(kr, "heuristic") : json_null(),
				      "config", json_object_get(kr, "config") ? json_object_get(kr, "config") : json_null());
		/* a Helion kernel's launched Triton kernel: the global name of
		 * its @helion.kernel (the deployment's) */
		if (json_is_string(json_object_get(kr, "helion_kernel")))
			json_object_set(e, "helion_kernel", json_object_get(kr, "helion_kernel"));
		json_t *src = json_object_get(kr, "source");
		if (json_is_string(src)) {
			kopt_hash sh;
			char sx[HASH_HEX], *nm = xasprintf("kernel:%s", name);
			if (rule_object(run, nm, json_string_value(src), json_string_length(src), &sh) == 0) {
				hash_hex(sh, sx);
				json_object_set_new(e, "source_obj", json_string(sx));
			}
			free(nm);
		}
		json_array_append_new(inv, e);
		if (json_array_size(json_object_get(kr, "args")))
			json_object_set(args, name, json_object_get(kr, "args"));
	}
	run->stable = json_pack("{s:s, s:o}", "output_code", hex, "kernels", inv);
	run->meas = json_pack("{s:O, s:O}", "compile_s",
			      json_object_get(res, "compile_s") ? json_object_get(res, "compile_s") : json_null(),
			      "inputs", json_object_get(res, "inputs") ? json_object_get(res, "inputs") : json_null());
	/* the kernels' tensor arguments, for the LLM agents' prompts */
	json_object_set_new(run->meas, "args", args);
	/* where the compile's seconds went (Dynamo, Inductor, Triton,
	 * autotuning, the first run), for the report's capture table */
	if (json_is_object(json_object_get(res, "compile_phases")))
		json_object_set(run->meas, "compile_phases", json_object_get(res, "compile_phases"));
	/* and the capture's seconds besides the compile (the model loaded,
	 * what ran around the compile's spans, the warm-up and the kernel
	 * list after it, the worker's own total), for the same table */
	if (json_is_object(json_object_get(res, "capture_parts")))
		json_object_set(run->meas, "capture_parts", json_object_get(res, "capture_parts"));
	return RULE_DONE;
}

const struct rule rule_capture = {
	.name = "capture", .version = 3, .worker = true, .timing = false, .secondary = true,
	.device = rule_device,
	.key = capture_key, .start = capture_start, .reply = capture_reply,
};
