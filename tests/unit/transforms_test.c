/* tests/unit/transforms_test.c: the analyst's choice of kernel transforms
 * from a kernel's diagnosis (agents/builtin/transform.c), on Inductor's
 * kernels recorded on the H200 (tests/fixtures/kernels/, var_norm.py
 * written by hand in their shape) and on the same texts with another row
 * length, stride or output count; and the skills (agents/memory.c
 * memory_skills, agents/agent.c agent_skills, agents/features.c): what
 * is stored, what a kernel of a class or a feature class gets back, in
 * which order, with which config, and only what the memory held when the
 * build began. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/features.h"
#include "../../agents/memory.h"
#include "../../common/util.h"
#include "../tap.h"

static char *fixture(const char *dir, const char *name)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/%s/%s.py", top ? top : ".", dir, name);
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path);
	free(path);
	if (rc < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* src with the first "from" replaced by "to" (caller frees) */
static char *with(const char *src, const char *from, const char *to)
{
	const char *p = src ? strstr(src, from) : NULL;
	if (!p)
		return NULL;
	return xasprintf("%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
}

/* the analyst's transforms for src, as "EDIT|EDIT|..." ("config" for a
 * launch config start, "note" for a note); frac: the kernel's bound over
 * its time; traffic: the bytes the counters saw over its arguments' (NAN:
 * no counters) */
static char *chosen_moving(const char *src, const char *heuristic, const json_t *config, double frac, double traffic,
			   json_t **all)
{
	/* at the copy bandwidth (4000 GB/s) the row's bytes take frac of its
	 * 100 us; a FP32 peak so high that memory binds */
	json_t *row = json_pack("{s:s, s:f, s:f, s:f}", "kind", "triton", "ns_per_call", 1e5, "launches_per_call", 1.0,
				"bytes", 4e8 * frac);
	if (!isnan(traffic))
		json_object_set_new(row, "dram_bytes", json_real(4e8 * frac * traffic));
	struct agent_kernel k = { .model = "m", .name = "k", .heuristic = heuristic, .source = src, .config = config,
				  .profile_row = row, .peak_copy_gbps = 4000, .peak_fp32_gflops = 1e9 };
	json_t *t = agent_builtin_transforms(&k);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *e;
	json_array_foreach(t, i, e) {
		const char *ed = json_string_value(json_object_get(e, "edit"));
		strbuf_addf(&sb, "%s%s", i ? "|" : "", json_object_get(e, "note") ? "note" : ed && *ed ? ed : "config");
	}
	if (all)
		*all = t;
	else
		json_decref(t);
	json_decref(row);
	return strbuf_detach(&sb);
}

static char *chosen(const char *src, const char *heuristic, const json_t *config, double frac, json_t **all)
{
	return chosen_moving(src, heuristic, config, frac, NAN, all);
}

static void analyst(void)
{
	json_t *red = json_pack("{s:i, s:i, s:i, s:i}", "XBLOCK", 1, "R0_BLOCK", 2048, "num_warps", 8, "num_stages", 1);
	char *vn = fixture("fixtures/kernels", "var_norm"), *ln = fixture("fixtures/kernels", "layernorm");
	char *rs = fixture("fixtures/kernels", "row_sum"), *sm = fixture("fixtures/kernels", "softmax");
	TAP_OK(vn && ln && rs && sm, "the fixtures load");
	json_t *all;
	char *c = chosen(vn, "reduction", red, 0.5, &all);
	TAP_OK(strcmp(c, "persist=on|onepass=welford|onepass=sumsq") == 0,
	       "var_norm (rows of 8192 read three times, statistics in two loops): persist=on, then one-pass "
	       "statistics both ways (%s)", c);
	const char *why = json_string_value(json_object_get(json_array_get(all, 0), "why"));
	TAP_OK(why && strstr(why, "reads its row of 8192 twice") && strstr(why, "held in registers"),
	       "... each with why (%s)", why ? why : "none");
	json_decref(all);
	/* an empty line inside a row loop is no line of the loop's end: the
	 * same loops, the same transforms */
	char *vb = with(vn, "        r0_index = r0_offset + r0_base\n", "\n        r0_index = r0_offset + r0_base\n");
	char *cb = chosen(vb, "reduction", red, 0.5, NULL);
	TAP_IS_STR(cb, c, "... with an empty line inside its first row loop: the same transforms");
	free(cb);
	free(vb);
	free(c);
	c = chosen(ln, "reduction", red, 0.5, NULL);
	TAP_OK(strcmp(c, "persist=on") == 0, "layernorm (Welford's statistics in one loop, rows read twice): persist=on alone (%s)", c);
	free(c);
	char *long_ln = with(ln, "    r0_numel = 4096\n", "    r0_numel = 65536\n");
	c = chosen(long_ln, "reduction", red, 0.5, &all);
	why = json_string_value(json_object_get(json_array_get(all, 0), "why"));
	TAP_OK(strcmp(c, "rloop=reverse") == 0 && why && strstr(why, "too long to hold"),
	       "the same with rows of 65536, too long to hold: rloop=reverse (%s)", c);
	json_decref(all);
	free(c);
	c = chosen(ln, "reduction", red, 0.99, NULL);
	TAP_OK(!*c, "a kernel at 99%% of its bound is left alone: nothing (%s)", c);
	free(c);
	c = chosen(sm, "reduction", red, 0.5, NULL);
	TAP_OK(strcmp(c, "persist=on") == 0, "softmax (its online statistics in one loop): persist=on alone (%s)", c);
	free(c);
	/* a loop accumulates where a masked where writes an accumulator
	 * (Inductor's _tmpN): rmsnorm's sum of squares is the one; a masked
	 * temporary in its second loop (tmpN, read once) and an accumulator's
	 * own line that is no masked where are none, so no one-pass statistics */
	char *rms = fixture("fixtures/kernels", "rmsnorm");
	char *rms_where = with(rms, "        tmp16 = tmp13 * tmp15\n", "        tmp16 = tl.where(r0_mask, tmp13 * tmp15, 0.0)\n");
	char *rms_acc = with(rms, "        tmp16 = tmp13 * tmp15\n", "        tmp16 = tmp13 * tmp15\n        _tmp21 = tmp16\n");
	char *c0 = chosen(rms, "reduction", red, 0.5, NULL);
	c = chosen(rms_where, "reduction", red, 0.5, NULL);
	char *c1 = chosen(rms_acc, "reduction", red, 0.5, NULL);
	TAP_OK(rms_where && rms_acc && !strcmp(c0, "persist=on") && !strcmp(c, "persist=on") && !strcmp(c1, "persist=on"),
	       "rmsnorm (one sum over the row; its second loop with a masked temporary, or with an _tmp line that is no "
	       "masked where): persist=on alone (%s, %s, %s)", c0, c, c1);
	free(c0);
	free(c);
	free(c1);
	free(rms_where);
	free(rms_acc);
	free(rms);
	c = chosen(rs, "reduction", red, 0.5, NULL);
	TAP_OK(!*c, "row_sum (one loop, contiguous rows, many outputs): nothing to transform (%s)", c);
	free(c);
	/* the counters' bytes at twice the arguments' count as a row read
	 * twice only where there are two loops to read it: one loop is left
	 * alone whatever the counters say */
	c = chosen_moving(rs, "reduction", red, 0.5, 2.0, NULL);
	TAP_OK(!*c, "row_sum moving twice its arguments' bytes, in one loop: no persist or rloop (%s)", c);
	free(c);
	c = chosen_moving(ln, "reduction", red, 0.5, 1.0, NULL);
	char *c2 = chosen_moving(ln, "reduction", red, 0.5, 2.0, NULL);
	TAP_OK(!strcmp(c, "persist=on") && !strcmp(c2, "persist=on"),
	       "layernorm, its row read twice by its source, at 1x and 2x its arguments' bytes: persist=on (%s, %s)", c, c2);
	free(c);
	free(c2);
	/* two row loops that the persistent edit cannot take (a row length
	 * passed in, not a number): the counters decide, from AGENT_REREAD
	 * (1.25) of the arguments' bytes up */
	static const char dyn[] = "@triton.jit\ndef k(in_ptr0, out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n"
				  "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
				  "        a = tl.load(in_ptr0 + r0_offset)\n"
				  "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
				  "        b = tl.load(in_ptr0 + r0_offset)\n";
	c = chosen_moving(dyn, "reduction", red, 0.5, 1.25, NULL);
	c2 = chosen_moving(dyn, "reduction", red, 0.5, 1.24, NULL);
	TAP_OK(strcmp(c, "rloop=reverse") == 0 && !*c2,
	       "two row loops the persistent edit cannot take: moving 1.25x its arguments' bytes reads its row twice, "
	       "rloop=reverse; 1.24x: nothing (%s, %s)", c, c2);
	free(c);
	free(c2);
	char *strided = with(rs, "r0_1 + 16384*x0", "x0 + 16384*r0_1");
	c = chosen(strided, "reduction", red, 0.5, &all);
	json_t *cfg = json_object_get(json_array_get(all, 0), "config");
	TAP_OK(strcmp(c, "config") == 0 && json_integer_value(json_object_get(cfg, "XBLOCK")) == 8 &&
	       json_integer_value(json_object_get(cfg, "R0_BLOCK")) == 256,
	       "a row read along a strided axis: more outputs per program, a shorter block of the row (%s)", c);
	json_decref(all);
	free(c);
	/* the row's index is r0_ and any digit: 0 and 9 read as 1 does */
	int digits = 0;
	for (const char *d = "09"; *d; d++) {
		char idx[16];
		snprintf(idx, sizeof idx, "16384*r0_%c", *d);
		char *sd = with(strided, "16384*r0_1", idx);
		c = chosen(sd, "reduction", red, 0.5, &all);
		cfg = json_object_get(json_array_get(all, 0), "config");
		digits += strcmp(c, "config") == 0 && json_integer_value(json_object_get(cfg, "XBLOCK")) == 8;
		json_decref(all);
		free(c);
		free(sd);
	}
	TAP_IS_INT(digits, 2, "... its row's index r0_0 or r0_9: the same stride read, the same config");
	/* the stride is the load's, whatever the row's length: a row whose
	 * length is passed in (no r0_numel constant) read along the same
	 * strided axis gets the same config */
	char *sdyn = with(strided, "    r0_numel = 16384\n", "");
	c = chosen(sdyn, "reduction", red, 0.5, &all);
	cfg = json_object_get(json_array_get(all, 0), "config");
	TAP_OK(sdyn && strcmp(c, "config") == 0 && json_integer_value(json_object_get(cfg, "XBLOCK")) == 8 &&
	       json_integer_value(json_object_get(cfg, "R0_BLOCK")) == 256,
	       "... its row's length passed in, not a number: the same config (%s)", c);
	json_decref(all);
	free(c);
	free(sdyn);
	char *few = with(rs, "    xnumel = 16384\n", "    xnumel = 16\n");
	c = chosen(few, "reduction", red, 0.5, &all);
	const char *note = json_string_value(json_object_get(json_array_get(all, 0), "note"));
	TAP_OK(strcmp(c, "note") == 0 && note && strstr(note, "cooperative reductions"),
	       "16 outputs of rows of 16384 on 132 SMs: a split needs a second kernel, a note naming the "
	       "cooperative reductions (%s)", c);
	json_decref(all);
	free(c);
	/* the edge: as many outputs as SMs (132) is not few; one fewer is */
	char *f132 = with(rs, "    xnumel = 16384\n", "    xnumel = 132\n"), *f131 = with(rs, "    xnumel = 16384\n", "    xnumel = 131\n");
	char *c132 = chosen(f132, "reduction", red, 0.5, NULL), *c131 = chosen(f131, "reduction", red, 0.5, NULL);
	TAP_OK(!strstr(c132, "note") && strstr(c131, "note"),
	       "132 outputs on 132 SMs: no note; 131: the note (%s, %s)", c132, c131);
	free(c132);
	free(c131);
	free(f132);
	free(f131);
	char *ps = fixture("static/orig", "per_sum5");
	json_t *per = json_pack("{s:i, s:i, s:i}", "XBLOCK", 8, "num_warps", 2, "num_stages", 1);
	c = chosen(ps, "persistent_reduction", per, 0.5, &all);
	cfg = json_object_get(json_array_get(all, 0), "config");
	TAP_OK(strcmp(c, "config") == 0 && json_integer_value(json_object_get(cfg, "XBLOCK")) == 32,
	       "a persistent reduction over rows of 64, 8 a program: several more rows per program (%s)", c);
	json_decref(all);
	free(c);
	char *pg = fixture("fixtures/kernels", "per_gelu_layernorm");
	c = chosen(pg, "persistent_reduction", per, 0.5, NULL);
	TAP_OK(!*c, "a persistent reduction over rows of 1024: nothing (%s)", c);
	free(c);
	c = chosen(vn, "pointwise", red, 0.5, NULL);
	TAP_OK(!*c, "a pointwise kernel: no reduction transform (%s)", c);
	free(c);
	json_decref(red);
	json_decref(per);
	free(vn);
	free(ln);
	free(rs);
	free(sm);
	free(long_ln);
	free(strided);
	free(few);
	free(ps);
	free(pg);
}

static const char *edit_at(const json_t *sk, size_t i)
{
	return json_string_value(json_object_get(json_array_get(sk, i), "edit"));
}

/* the edit of the first of the two skills a memory of the lessons ls
 * gives features F, NULL unless it gives two; caller frees */
static char *first_skill(const char *F, const struct mem_lesson *ls, size_t n)
{
	char path[] = "/tmp/kopt-skills2-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		memory_append_lesson(path, &ls[i]);
	json_t *sk = memory_skills(path, F, NULL, 5, -1);
	char *e = json_array_size(sk) == 2 ? xstrdup(edit_at(sk, 0)) : NULL;
	json_decref(sk);
	unlink(path);
	return e;
}

static void skills(void)
{
	char path[] = "/tmp/kopt-skills-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	const char *F = "reduction/looped/r12/b26", *G = "reduction/looped/r14/b28";
	struct mem_lesson ls[] = {
		{ "s1", F, "screen:evict+onepass", "XBLOCK=1 R0_BLOCK=1/8 num_warps=16 num_stages=1", "k1",
		  "evict0=first+onepass=welford", "aaaa", 1, 1.3 },
		{ "s2", F, "screen:evict+rloop", NULL, "k2", "evict1=none+rloop=reverse", "bbbb", 1, 1.2 },
		{ "s2", F, "screen:evict+rloop", NULL, "k3", "evict1=none+rloop=reverse", "bbbb", 0, 0 },
		{ "s1", G, "screen:persist", NULL, "k4", "persist=on", "cccc", 1, 1.5 },
		{ "s1", F, "screen:onepass", NULL, "k5", "onepass=sumsq", "aaaa", 0, 0 },
		{ "s1", F, "screen", "XBLOCK=2 R0_BLOCK=1/4 num_warps=8 num_stages=1", "k6", NULL, NULL, 1, 1.1 },
	};
	long long after_first = 0;
	for (size_t i = 0; i < sizeof ls / sizeof *ls; i++) {
		TAP_OK(memory_append_lesson(path, &ls[i]) == 0, "lesson %zu appended", i + 1);
		if (i == 0)
			after_first = memory_length(path);
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_read_file(&sb, path);
	TAP_OK(strstr(sb.buf, "\"e\":\"evict0=first+onepass=welford\",\"h\":\"aaaa\",\"k\":\"k1\"") &&
	       !strstr(strstr(sb.buf, "\"k6\"") - 120, "\"e\":"),
	       "a lesson with an edit stores it and the kernel's class; a config-only one neither");
	strbuf_release(&sb);
	json_t *sk = memory_skills(path, F, "aaaa", 5, -1);
	TAP_OK(json_array_size(sk) == 2 && strcmp(edit_at(sk, 0), "evict0=first+onepass=welford") == 0 &&
	       strcmp(json_string_value(json_object_get(json_array_get(sk, 0), "match")), "class") == 0 &&
	       strcmp(edit_at(sk, 1), "rloop=reverse") == 0,
	       "a kernel of the class gets its class's edit whole first, then the feature class's kernel-wide knobs "
	       "(%s, %s)", edit_at(sk, 0), edit_at(sk, 1));
	json_t *s1 = json_array_get(sk, 1);
	TAP_OK(json_integer_value(json_object_get(s1, "wins")) == 1 && json_integer_value(json_object_get(s1, "tries")) == 2 &&
	       fabs(json_number_value(json_object_get(s1, "x")) - 1.2) < 1e-9,
	       "a skill counts its tries and wins and the mean speedup of its wins, from every spec");
	TAP_OK(strcmp(json_string_value(json_object_get(json_array_get(sk, 0), "shape")),
		      "XBLOCK=1 R0_BLOCK=1/8 num_warps=16 num_stages=1") == 0, "a skill keeps the config of its best win");
	json_decref(sk);
	sk = memory_skills(path, F, NULL, 5, -1);
	TAP_OK(json_array_size(sk) == 2 && strcmp(edit_at(sk, 0), "onepass=welford") == 0 &&
	       strcmp(edit_at(sk, 1), "rloop=reverse") == 0,
	       "a kernel of another class gets no load's own knob: onepass=welford, rloop=reverse");
	json_decref(sk);
	sk = memory_skills(path, F, "aaaa", 1, -1);
	TAP_OK(json_array_size(sk) == 1, "at most max skills");
	json_decref(sk);
	sk = memory_skills(path, F, "aaaa", 5, after_first);
	TAP_OK(json_array_size(sk) == 1 && strcmp(edit_at(sk, 0), "evict0=first+onepass=welford") == 0,
	       "only what the memory held when the build began (the first lesson's bytes)");
	json_decref(sk);
	sk = memory_skills(path, "pointwise/flat/b20", "dddd", 5, -1);
	TAP_OK(json_array_size(sk) == 0, "a kernel of no known class or features: none");
	json_decref(sk);
	/* the order: the share of tries that won first, then the mean gain
	 * of the wins (one won 2 of 2 at 1.1x, the other 1 of 2 at 1.5x; then
	 * a tie of 1 of 1, at 1.1x and 1.5x) */
	struct mem_lesson ord[] = {
		{ "s", F, "screen:onepass", NULL, "o1", "onepass=welford", "eeee", 1, 1.1 },
		{ "s", F, "screen:onepass", NULL, "o2", "onepass=welford", "eeee", 1, 1.1 },
		{ "s", F, "screen:rloop", NULL, "r1", "rloop=reverse", "ffff", 1, 1.5 },
		{ "s", F, "screen:rloop", NULL, "r2", "rloop=reverse", "ffff", 0, 0 },
	};
	char *top = first_skill(F, ord, 4);
	TAP_IS_STR(top, "onepass=welford", "skills: 2 wins of 2 at 1.1x before 1 of 2 at 1.5x");
	free(top);
	struct mem_lesson tie[] = { ord[0], ord[2] };
	top = first_skill(F, tie, 2);
	TAP_IS_STR(top, "rloop=reverse", "skills: at the same share of wins, the larger gain first");
	free(top);
	sk = memory_skills("/nonexistent/memory.jsonl", F, "aaaa", 5, -1);
	TAP_OK(json_is_array(sk) && json_array_size(sk) == 0, "no memory: none");
	json_decref(sk);

	/* agent_skills: the config in the kernel's own terms, said for people */
	char *src = xstrdup("def k(in_ptr0, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):\n    xnumel = 16384\n"
			    "    r0_numel = 8192\n");
	json_t *own = json_pack("{s:i, s:i, s:i, s:i}", "XBLOCK", 1, "R0_BLOCK", 2048, "num_warps", 8, "num_stages", 1);
	struct agent_kernel k = { .model = "m", .name = "k", .heuristic = "reduction", .source = src, .config = own,
				  .cls = "aaaa" };
	json_t *row = json_pack("{s:f}", "bytes", 100663296.0); /* 2^26.6: the b26 bucket */
	k.profile_row = row;
	char *feat = agent_features(&k);
	TAP_OK(strcmp(feat, "reduction/looped/r12/b26") == 0, "the kernel's features (%s)", feat);
	sk = agent_skills(path, -1, &k, 3);
	json_t *first = json_array_get(sk, 0);
	const char *what = json_string_value(json_object_get(first, "skill"));
	TAP_OK(json_integer_value(json_object_get(json_object_get(first, "config"), "R0_BLOCK")) == 1024 &&
	       json_integer_value(json_object_get(json_object_get(first, "config"), "num_warps")) == 16,
	       "a skill's config as this kernel's: an eighth of its row of 8192, 16 warps");
	TAP_OK(what && strcmp(what, "evict0=first+onepass=welford, 1.300x in 1 of 1 try on kernels of its class") == 0,
	       "a skill said for people: \"%s\"", what ? what : "");
	TAP_OK(!json_object_get(json_array_get(sk, 1), "config") &&
	       strstr(json_string_value(json_object_get(json_array_get(sk, 1), "skill")), "of its feature class"),
	       "a skill without a config goes at the kernel's own, and says it came from the feature class");
	json_decref(sk);
	sk = agent_skills(NULL, -1, &k, 3);
	TAP_OK(json_array_size(sk) == 0, "agent_skills without a memory: none");
	json_decref(sk);
	free(feat);
	json_decref(row);

	json_t *c = agent_shape_config("XBLOCK=2 R0_BLOCK=1 num_warps=4 num_stages=2", src, own);
	TAP_OK(json_integer_value(json_object_get(c, "R0_BLOCK")) == 8192 && json_integer_value(json_object_get(c, "XBLOCK")) == 2,
	       "a shape's whole row (R0_BLOCK=1) is the row's power of two");
	json_decref(c);
	/* a fraction of the row of 8192, in decimal, to the power of two at or
	 * above it: 1/128 is 64, 1/3 is 4096, 1/100 is 128, a fraction past
	 * the row is 1, 1/0 the whole row */
	static const struct {
		const char *frac;
		long long r0;
	} fr[] = { { "1/128", 64 }, { "1/3", 4096 }, { "1/100", 128 }, { "1/16384", 1 }, { "1/0", 8192 } };
	int fr_right = 0;
	for (size_t i = 0; i < sizeof fr / sizeof *fr; i++) {
		char *shape = xasprintf("XBLOCK=2 R0_BLOCK=%s num_warps=4", fr[i].frac);
		json_t *fc = agent_shape_config(shape, src, own);
		long long got = json_integer_value(json_object_get(fc, "R0_BLOCK"));
		if (got == fr[i].r0)
			fr_right++;
		else
			tap_diag("%s: R0_BLOCK %lld", shape, got);
		json_decref(fc);
		free(shape);
	}
	TAP_IS_INT(fr_right, (int)(sizeof fr / sizeof *fr), "a shape's fraction of the row, read in decimal, to a power of two");
	json_t *per = json_pack("{s:i, s:i}", "XBLOCK", 8, "num_warps", 2);
	TAP_OK(!agent_shape_config("XBLOCK=1 R0_BLOCK=1/8 num_warps=16 num_stages=1", src, per),
	       "a looped reduction's shape is no config of a kernel without R0_BLOCK");
	json_decref(per);
	char *e = agent_skill_edit("evict0=first+cache1=cg+onepass=welford+grid=264");
	TAP_OK(e && strcmp(e, "onepass=welford+grid=264") == 0, "a skill's kernel-wide knobs (%s)", e ? e : "none");
	free(e);
	TAP_OK(!agent_skill_edit("evict0=first+cache2=cv"), "an edit of a load's own knobs alone carries to no other kernel");
	e = agent_skill_edit("evt_a0=x+cax_b1=y+evict3=first+cache12=cg");
	TAP_OK(e && strcmp(e, "evt_a0=x+cax_b1=y") == 0,
	       "only evictI and cacheI are a load's: knobs that begin like them and hold a digit carry (%s)", e ? e : "none");
	free(e);
	json_decref(own);
	free(src);
	unlink(path);
}

int main(void)
{
	analyst();
	skills();
	return tap_done();
}
