/*
 * tests/unit/lists_dump.c: the C side of the rules held in both languages,
 * run on given inputs for tests/lists.py, which runs the Python side on the
 * same ones. Prints JSON on stdout; exits 2 on a bad input.
 *
 *   lists_dump perf < CASES        gate 4 (gates/perf.c) on each case of
 *                                  [{"base": [...], "cand": [...], "gamma": G}]:
 *                                  [{"q25", "q50", "q75", "speedup", "pass",
 *                                  "no_regression"}], at least one pair asked
 *   lists_dump tolerance NAME...   gate_tolerance of each dtype name under
 *                                  atol 1, rtol 2, atol_half 3, rtol_half 4:
 *                                  {"NAME": [atol, rtol]}
 *   lists_dump persist FILE        the coder's persistent edit of the kernel
 *                                  in FILE at PERSIST_MAX_RBLOCK:
 *                                  {"source": TEXT or null, "rblock": N,
 *                                  "max": PERSIST_MAX_RBLOCK}
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../agents/builtin/persist.h"
#include "../../common/util.h"
#include "../../gates/gates.h"

static double *numbers(const json_t *a, size_t *n)
{
	*n = json_array_size(a);
	double *x = xcalloc(*n + 1, sizeof *x);
	for (size_t i = 0; i < *n; i++)
		x[i] = json_number_value(json_array_get(a, i));
	return x;
}

static int perf(void)
{
	json_error_t err;
	json_t *cases = json_loadf(stdin, 0, &err), *out = json_array();
	if (!json_is_array(cases)) {
		fprintf(stderr, "lists_dump: perf: %s\n", err.text);
		return 2;
	}
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c) {
		size_t nb, nc;
		double *b = numbers(json_object_get(c, "base"), &nb), *k = numbers(json_object_get(c, "cand"), &nc);
		double gamma = json_number_value(json_object_get(c, "gamma"));
		struct gate_timing t;
		struct gate_verdict v, w;
		gate_verdict_init(&v);
		gate_verdict_init(&w);
		int ok = gate_timing_stats(b, k, nb < nc ? nb : nc, &t);
		bool pass = gate_perf(b, nb, k, nc, gamma, 1, GATE_LEVEL_KERNEL, &v);
		bool nreg = gate_no_regression(b, nb, k, nc, 1, &w);
		json_array_append_new(out, ok < 0 ? json_null()
					     : json_pack("{s:f, s:f, s:f, s:f, s:b, s:b}", "q25", t.ratio_q25, "q50",
							 t.ratio_median, "q75", t.ratio_q75, "speedup", t.speedup,
							 "pass", pass, "no_regression", nreg));
		free(b);
		free(k);
	}
	json_dumpf(out, stdout, JSON_COMPACT);
	json_decref(out);
	json_decref(cases);
	return 0;
}

static int tolerance(int argc, char **argv)
{
	struct kopt_gates g;
	gate_config_default(&g);
	g.atol = 1, g.rtol = 2, g.atol_half = 3, g.rtol_half = 4;
	json_t *out = json_object();
	for (int i = 0; i < argc; i++) {
		double a, r;
		gate_tolerance(&g, gate_dtype_parse(argv[i]), &a, &r);
		json_object_set_new(out, argv[i], json_pack("[f, f]", a, r));
	}
	json_dumpf(out, stdout, JSON_COMPACT);
	json_decref(out);
	return 0;
}

static int persist(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		fprintf(stderr, "lists_dump: %s: cannot read\n", path);
		return 2;
	}
	int rb = 0;
	char *ed = persist_edit(sb.buf, PERSIST_MAX_RBLOCK, &rb);
	json_t *out = json_pack("{s:o, s:i, s:i}", "source", ed ? json_string(ed) : json_null(), "rblock", ed ? rb : 0,
				"max", PERSIST_MAX_RBLOCK);
	json_dumpf(out, stdout, JSON_COMPACT);
	json_decref(out);
	free(ed);
	strbuf_release(&sb);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "perf") == 0)
		return perf();
	if (argc >= 2 && strcmp(argv[1], "tolerance") == 0)
		return tolerance(argc - 2, argv + 2);
	if (argc == 3 && strcmp(argv[1], "persist") == 0)
		return persist(argv[2]);
	fprintf(stderr, "usage: lists_dump perf | tolerance NAME... | persist FILE\n");
	return 2;
}
