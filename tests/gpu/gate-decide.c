/*
 * tests/gpu/gate-decide.c: applies koptmake's gate arithmetic to a worker's
 * verify or stitch reply, as the engine does. Used by the GPU tests.
 *
 *   gate-decide REPLY.json [SEEDS GAMMA]
 *
 * REPLY.json is wclient.py's {"request":..., "reply":...} or a bare reply.
 * The gate settings come from the request's "gates" (defaults where absent).
 * Prints one line: `pass|fail GATE: REASON`, then the verdict as JSON.
 * Exit 0 on pass, 1 on fail, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../gates/gates.h"

static double num(const json_t *o, const char *k, double d)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : d;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gate-decide REPLY.json\n");
		return 2;
	}
	json_error_t err;
	json_t *doc = json_load_file(argv[1], 0, &err);
	if (!doc) {
		fprintf(stderr, "gate-decide: %s:%d: %s\n", argv[1], err.line, err.text);
		return 2;
	}
	json_t *reply = json_object_get(doc, "reply") ? json_object_get(doc, "reply") : doc;
	json_t *req = json_object_get(doc, "request");
	json_t *g = req ? json_object_get(req, "gates") : NULL;
	struct kopt_gates cfg;
	gate_config_default(&cfg);
	if (g) {
		cfg.seeds = (int)num(g, "seeds", cfg.seeds);
		cfg.atol = num(g, "atol", cfg.atol);
		cfg.rtol = num(g, "rtol", cfg.rtol);
		cfg.atol_half = num(g, "atol_half", cfg.atol_half);
		cfg.rtol_half = num(g, "rtol_half", cfg.rtol_half);
		cfg.gamma = num(g, "gamma", cfg.gamma);
		cfg.repeats = (int)num(g, "repeats", cfg.repeats);
		cfg.fp64_fallback = !json_is_false(json_object_get(g, "fp64_fallback"));
		const char *prec = json_string_value(json_object_get(g, "precision"));
		if (prec && strcmp(prec, "strict") != 0)
			cfg.precision = strcmp(prec, "tf32") == 0 ? KOPT_PRECISION_TF32 : KOPT_PRECISION_LOOSE;
	}
	json_t *numbers = json_object_get(json_object_get(reply, "result"), "numbers");
	if (!json_is_true(json_object_get(reply, "ok")) || !numbers) {
		json_t *e = json_object_get(reply, "error");
		printf("error: %s\n", json_is_string(e) ? json_string_value(e) : "no numbers in the reply");
		json_decref(doc);
		return 2;
	}
	struct gate_verdict v;
	gate_decide(numbers, &cfg, &v);
	printf("%s %s: %s\n", v.pass ? "pass" : "fail", gate_name(v.gate), v.reason);
	json_t *vj = gate_verdict_to_json(&v);
	char *s = json_dumps(vj, JSON_COMPACT);
	printf("%s\n", s);
	free(s);
	json_decref(vj);
	json_decref(doc);
	return v.pass ? 0 : 1;
}
