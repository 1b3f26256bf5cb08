/*
 * agents/builtin/transform.c: the analyst's choice of kernel transforms,
 * from the kernel's diagnosis: what bounds it and how far from its bound
 * (agents/roof.c, the profile row), and its access pattern as its source
 * shows it (its row loops, what each loop reads and sums, its row's length
 * and stride, its outputs against the device's SMs).
 *
 * A transform is a named text transform of Inductor's kernel source
 * (runtime/python/kopt/transforms.py and knobs.py): the analyst names it
 * and says why, the screen (rules/screen.c) tries it first, alone, on the
 * kernel's real arguments, and its search moves it with the launch keys;
 * the worker applies it only where its preconditions hold and says why
 * not otherwise. What the analyst asks for, by diagnosis:
 *
 *   - a looped reduction that reads its row twice (a later loop loads
 *     what an earlier one loaded; or the GPU's counters saw it move
 *     AGENT_REREAD times its arguments): persist=on where the row fits in
 *     registers (persist.h), else rloop=reverse (the later loop walks back
 *     over what the first read last, from L2), which the screen's grid
 *     moves (fewer rows in flight) go with;
 *   - statistics summed in two loops (a loop's sum, then a later loop's):
 *     onepass=welford and onepass=sumsq (one loop for both);
 *   - a row read along a strided axis (its load's index steps the row by
 *     more than one element): more outputs per program and a shorter
 *     block of the row, the loads along the contiguous axis (a launch
 *     config: "XBLOCK x8, R0_BLOCK /8");
 *   - short rows, one or few per program: several rows per program (a
 *     launch config: "XBLOCK x4");
 *   - few outputs against the device's SMs and long rows: a split into
 *     two stages needs a second kernel and a buffer, which no candidate of
 *     one kernel can add (the wrapper's grid and buffers are Inductor's,
 *     and gate 1 keeps them); a note, naming the implementation space's
 *     cooperative reductions, which do split.
 */
#include <config.h>

#include "../builtin.h"
#include "../features.h"
#include "../roof.h"
#include "persist.h"
#include "transform.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

/* rows at most this long are short: several per program */
#define SHORT_ROW 256
/* a row at least this long is long, where few outputs meet it */
#define LONG_ROW 8192
/* elements per program the several-rows start keeps under */
#define ROWS_ELEMS 8192

/* the kernel's row loops ("    for r0_offset in ..."), and how many of
 * them sum or otherwise accumulate ("... = tl.where(r0_mask, ...)") */
static void loops_of(const char *src, int *loops, int *accumulating)
{
	*loops = *accumulating = 0;
	bool in_loop = false, acc = false;
	for (const char *l = src; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		size_t ind = 0;
		while (ind < len && l[ind] == ' ')
			ind++;
		bool blank = ind == len;
		if (!blank && ind <= 4 && in_loop) {
			*accumulating += acc;
			in_loop = acc = false;
		}
		if (ind == 4 && strncmp(l + 4, "for r0_offset in ", 17) == 0) {
			in_loop = true;
			++*loops;
		} else if (in_loop && !blank) {
			const char *w = strstr(l, " = tl.where(r0_mask, ");
			acc |= w && w < l + len && l[ind] == '_';
		}
		l = nl ? nl + 1 : NULL;
	}
	*accumulating += in_loop && acc;
}

/* the step of the row in a row loop's first load: the factor on the row's
 * index in "tl.load(PTR + (... + S*r0_1 ...)" (1 where it stands alone);
 * 0 where no load says */
static long long row_stride(const char *src)
{
	const char *p = strstr(src, "    for r0_offset in ");
	const char *ld = p ? strstr(p, " = tl.load(") : NULL;
	if (!ld)
		return 0;
	const char *end = strchr(ld, '\n');
	for (const char *q = ld; (q = strstr(q, "r0_")) && (!end || q < end); q += 3) {
		if (q[3] < '0' || q[3] > '9')
			continue;
		/* "4096*r0_1": the digits before the '*' */
		if (q[-1] != '*')
			return 1;
		const char *d = q - 1;
		while (d > ld && d[-1] >= '0' && d[-1] <= '9')
			d--;
		return strtoll(d, NULL, 10);
	}
	return 0;
}

/* the device's SMs: the worker's environment, else the kernel's triton_meta */
static long long sms_of(const struct agent_kernel *k)
{
	json_t *v = json_object_get(k->env, "sms");
	if (json_is_integer(v))
		return json_integer_value(v);
	const char *p = k->source ? strstr(k->source, "multi_processor_count=") : NULL;
	return p ? strtoll(p + strlen("multi_processor_count="), NULL, 10) : 0;
}

static void add(json_t *out, const char *edit, const json_t *config, char *why)
{
	json_t *e = json_pack("{s:s, s:s}", "edit", edit ? edit : "", "why", why);
	if (config)
		json_object_set_new(e, "config", (json_t *)config);
	json_array_append_new(out, e);
	free(why);
}

/* own with key scaled by f (a launch config start), or NULL where it has
 * no such key or the result would be under 1 */
static json_t *scaled(const json_t *own, const char *key, double f, json_t *into)
{
	json_t *v = json_object_get(own, key);
	if (!json_is_integer(v) || json_integer_value(v) * f < 1)
		return NULL;
	json_t *c = into ? into : json_deep_copy(own);
	json_object_set_new(c, key, json_integer((json_int_t)(json_integer_value(v) * f)));
	return c;
}

/* the reduction's transforms (a looped one: rows read twice, statistics in
 * two loops) */
static void reduction(const struct agent_kernel *k, const struct agent_bound *b, long long rn, json_t *out)
{
	int loops, acc;
	loops_of(k->source, &loops, &acc);
	int rb = 0;
	char *twice = loops >= 2 ? persist_edit(k->source, INT_MAX, &rb) : NULL;
	bool reread = twice || (!isnan(b->traffic) && b->traffic >= AGENT_REREAD);
	free(twice);
	if (loops >= 2 && reread) {
		char *moved = isnan(b->traffic) ? xstrdup("") : xasprintf(", %.2fx its arguments' bytes", b->traffic);
		if (rn > 0 && rn <= PERSIST_MAX_RBLOCK)
			add(out, "persist=on", NULL,
			    xasprintf("reads its row of %lld twice%s: the row held in registers, read once", rn, moved));
		else
			add(out, "rloop=reverse", NULL,
			    xasprintf("reads its row of %lld twice%s, too long to hold: the later loop walks back over "
				      "what the first read last, from L2 (with fewer rows in flight: grid)", rn, moved));
		free(moved);
	}
	if (acc >= 2) {
		add(out, "onepass=welford", NULL,
		    xstrdup("its statistics take two loops over the row: Welford's mean and squared deviations in one"));
		add(out, "onepass=sumsq", NULL,
		    xstrdup("its statistics take two loops over the row: the sum and the sum of squares in one"));
	}
}

json_t *agent_builtin_transforms(const struct agent_kernel *k)
{
	json_t *out = json_array();
	char *why = NULL;
	if (!k->source || !k->heuristic || agent_builtin_analyze(k, &why) != 0) {
		free(why);
		return out; /* left alone, or nothing to read */
	}
	free(why);
	struct agent_bound b;
	builtin_bound(k, &b);
	bool mem = !b.binds || strcmp(b.binds, "memory") == 0;
	long long rn = agent_src_const(k->source, "r0_numel"), xn = agent_src_const(k->source, "xnumel");
	long long sms = sms_of(k);
	bool looped = strcmp(k->heuristic, "reduction") == 0, persistent = strcmp(k->heuristic, "persistent_reduction") == 0;
	if (!looped && !persistent)
		return out;
	if (looped && mem)
		reduction(k, &b, rn, out);
	long long stride = row_stride(k->source);
	if (stride > 1 && json_is_object(k->config)) {
		json_t *c = scaled(k->config, "XBLOCK", 8, NULL);
		if (c && !scaled(k->config, "R0_BLOCK", 0.125, c) && json_object_get(k->config, "R0_BLOCK")) {
			json_decref(c);
			c = NULL;
		}
		if (c)
			add(out, "", c, xasprintf("reads its row along a strided axis (a step of %lld): more outputs per "
						  "program, loads along the contiguous one", stride));
	}
	json_t *xb = json_object_get(k->config, "XBLOCK");
	long long rp = 1;
	while (rn > 0 && rp < rn)
		rp *= 2;
	if (rn > 0 && rn <= SHORT_ROW && json_is_integer(xb) && json_integer_value(xb) * 4 * rp <= ROWS_ELEMS && stride <= 1) {
		json_t *c = scaled(k->config, "XBLOCK", 4, NULL);
		if (c)
			add(out, "", c, xasprintf("rows of %lld, %lld per program: several rows per program", rn,
						  (long long)json_integer_value(xb)));
	}
	if (sms > 0 && xn > 0 && xn < sms && rn >= LONG_ROW)
		json_array_append_new(out, json_pack("{s:s}", "note",
		    "few outputs meet long rows: a split into two stages needs a second kernel and a buffer, which a "
		    "candidate of this kernel cannot add; the implementation space's cooperative reductions split "
		    "(autotune-cooperative-reductions)"));
	return out;
}
