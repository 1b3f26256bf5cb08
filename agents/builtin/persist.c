/*
 * agents/builtin/persist.c: the coder's "persistent" source edit, see
 * persist.h.
 *
 * Inductor's looped reductions (triton_red_*) walk each row in blocks of
 * R0_BLOCK, once per loop; a softmax, a layer norm or an RMS norm has two
 * loops, and the second loads the row again. With static shapes the row
 * length is a constant of the kernel ("    r0_numel = 16384"), so when the
 * launch config sets R0_BLOCK to the next power of two, every loop runs
 * exactly once with r0_offset = 0. The edit writes that down, under a
 * compile-time branch:
 *
 *       if R0_BLOCK >= 16384:
 *           (the loops' bodies, once each, at r0_offset = 0)
 *       else:
 *           (Inductor's loops, as they were)
 *
 *   - in the first branch, a later tl.load of the same address and mask as
 *     an earlier one (the eviction hint aside), with no tl.store to that
 *     pointer in between, becomes a copy of the earlier value: the row is
 *     read once and kept in registers, which is the point;
 *   - R0_BLOCK is a constexpr, so Triton compiles one branch only, and the
 *     kernel stays correct under any config: Inductor's decorator compiles
 *     its own list of configs when the source loads, before koptmake pins
 *     the candidate's, and a tuner or debugger may try smaller blocks.
 *
 * Nothing else changes: names, signature and decorator stay (gate 1), and
 * gates 2-4 judge the result like any candidate.
 */
#include <config.h>

#include "persist.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

#define LOOP4 "    for r0_offset in "

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_add(struct lines *l, char *s)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = s;
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static size_t indent_of(const char *s)
{
	size_t i = 0;
	while (s[i] == ' ')
		i++;
	return i;
}

static int blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return 0;
	return 1;
}

/* a row loop of the kernel body: "for r0_offset in (tl.)range(0, r0_numel, R0_BLOCK):" */
static int row_loop(const char *s)
{
	if (strncmp(s, LOOP4, strlen(LOOP4)) != 0)
		return 0;
	s += strlen(LOOP4);
	if (strncmp(s, "tl.range(", 9) == 0)
		s += 9;
	else if (strncmp(s, "range(", 6) == 0)
		s += 6;
	else
		return 0;
	if (strncmp(s, "0, r0_numel, R0_BLOCK", 21) != 0)
		return 0;
	s += 21;
	while (*s == ',' || *s == ' ' || isalnum((unsigned char)*s) || *s == '_' || *s == '=')
		s++; /* tl.range's own keywords (num_stages=...) */
	return strcmp(s, "):") == 0;
}

/* "tmp4 = tl.load(ARGS)" -> var "tmp4", ARGS without the eviction hint, the
 * pointer ("in_ptr0"); 0 when the line is not one */
static int parse_load(const char *line, char **var, char **args, char **ptr)
{
	const char *p = line + indent_of(line);
	const char *eq = strstr(p, " = tl.load(");
	if (!eq)
		return 0;
	for (const char *q = p; q < eq; q++)
		if (!isalnum((unsigned char)*q) && *q != '_')
			return 0;
	const char *a = eq + strlen(" = tl.load(");
	size_t n = strlen(a);
	if (n < 1 || a[n - 1] != ')')
		return 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, a, n - 1);
	/* drop ", eviction_policy='...'" */
	char *ev = strstr(sb.buf, ", eviction_policy='");
	if (ev) {
		char *end = strchr(ev + strlen(", eviction_policy='"), '\'');
		if (!end) {
			strbuf_release(&sb);
			return 0;
		}
		memmove(ev, end + 1, strlen(end + 1) + 1);
		sb.len = strlen(sb.buf);
	}
	size_t pl = strcspn(a, " +,)[");
	*var = xstrndup(p, (size_t)(eq - p));
	*ptr = xstrndup(a, pl);
	*args = strbuf_detach(&sb);
	return 1;
}

/* the pointer a "tl.store(PTR ...)" line writes, or NULL */
static char *store_ptr(const char *line)
{
	const char *p = strstr(line, "tl.store(");
	if (!p)
		return NULL;
	p += strlen("tl.store(");
	return xstrndup(p, strcspn(p, " +,)["));
}

/* the source's lines */
static void split_lines(struct lines *in, const char *src)
{
	for (const char *p = src;;) {
		const char *nl = strchr(p, '\n');
		lines_add(in, nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p));
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* the reduction's length (r0_numel), -1 when not a number; *nloops: the
 * row loops, 1000 or more when a loop sits inside one (not this shape) */
static long reduction_length(const struct lines *in, size_t *nloops)
{
	long numel = -1;
	*nloops = 0;
	for (size_t i = 0; i < in->n; i++) {
		if (strncmp(in->v[i], "    r0_numel = ", 15) == 0) {
			char *end;
			long v = strtol(in->v[i] + 15, &end, 10);
			if (*end == '\0' && v > 0 && numel < 0)
				numel = v;
		}
		if (row_loop(in->v[i]))
			(*nloops)++;
		else if (strstr(in->v[i], "for ") && indent_of(in->v[i]) > 4 && strstr(in->v[i], " in "))
			*nloops += 1000;
	}
	return numel;
}

/* The body from the first row loop to the function's end, kept as it was
 * under "else", and unrolled (each row loop once at r0_offset = 0) under
 * "if R0_BLOCK >= numel"; [*from, *to) are the unrolled lines in out. */
static void branch(const struct lines *in, long numel, struct lines *out, size_t *from, size_t *to)
{
	size_t first_loop = 0, end = in->n;
	while (first_loop < in->n && !row_loop(in->v[first_loop]))
		first_loop++;
	for (size_t i = first_loop + 1; i < in->n; i++)
		if (!blank(in->v[i]) && indent_of(in->v[i]) == 0) {
			end = i;
			break;
		}
	for (size_t i = 0; i < first_loop; i++)
		lines_add(out, xstrdup(in->v[i]));
	lines_add(out, xasprintf("    if R0_BLOCK >= %ld:", numel));
	*from = out->n;
	int in_loop = 0;
	for (size_t i = first_loop; i < end; i++) {
		char *s = in->v[i];
		if (row_loop(s)) {
			lines_add(out, xstrdup("        r0_offset = 0"));
			in_loop = 1;
			continue;
		}
		if (in_loop && !blank(s) && indent_of(s) < 8)
			in_loop = 0;
		if (blank(s))
			lines_add(out, xstrdup(""));
		else if (in_loop)
			lines_add(out, xstrdup(s)); /* out of its loop, into the branch: same indent */
		else
			lines_add(out, xasprintf("    %s", s));
	}
	*to = out->n;
	lines_add(out, xstrdup("    else:"));
	for (size_t i = first_loop; i < end; i++)
		lines_add(out, blank(in->v[i]) ? xstrdup("") : xasprintf("    %s", in->v[i]));
	for (size_t i = end; i < in->n; i++)
		lines_add(out, xstrdup(in->v[i]));
}

/* the row read once in out's lines [0, to) but the "if" (skip): later
 * loads of the same address copy the first, until a store writes it;
 * returns the loads replaced */
static int reuse_loads(struct lines *out, size_t skip, size_t to)
{
	struct seen {
		char *var, *args, *ptr;
	} *seen = NULL;
	size_t nseen = 0, seencap = 0;
	int reused = 0;
	for (size_t i = 0; i < to; i++) {
		if (i == skip)
			continue;
		char *ptr = store_ptr(out->v[i]);
		if (ptr) {
			for (size_t j = 0; j < nseen; j++)
				if (seen[j].ptr && strcmp(seen[j].ptr, ptr) == 0) {
					free(seen[j].ptr);
					seen[j].ptr = NULL; /* written: no longer a copy of memory */
				}
			free(ptr);
			continue;
		}
		char *var, *args, *lptr;
		if (!parse_load(out->v[i], &var, &args, &lptr))
			continue;
		size_t j;
		for (j = 0; j < nseen; j++)
			if (seen[j].ptr && strcmp(seen[j].args, args) == 0)
				break;
		if (j < nseen) {
			char *line = xasprintf("%.*s%s = %s", (int)indent_of(out->v[i]), out->v[i], var, seen[j].var);
			free(out->v[i]);
			out->v[i] = line;
			reused++;
			free(var);
			free(args);
			free(lptr);
			continue;
		}
		seen = xgrow(seen, &seencap, nseen + 1, sizeof *seen);
		seen[nseen++] = (struct seen){ var, args, lptr };
	}
	for (size_t j = 0; j < nseen; j++) {
		free(seen[j].var);
		free(seen[j].args);
		free(seen[j].ptr);
	}
	free(seen);
	return reused;
}

char *persist_edit(const char *src, int max_rblock, int *rblock)
{
	if (!src || strstr(src, "r1_") || strstr(src, "@triton_heuristics.persistent_reduction"))
		return NULL;
	struct lines in = { 0 }, out = { 0 };
	split_lines(&in, src);
	size_t nloops;
	long numel = reduction_length(&in, &nloops);
	int rb = 1;
	while (numel > 0 && rb < numel)
		rb *= 2;
	if (numel < 0 || nloops < 2 || nloops >= 1000 || rb > max_rblock) {
		lines_free(&in);
		return NULL;
	}
	size_t from, to;
	branch(&in, numel, &out, &from, &to);
	lines_free(&in);
	if (!reuse_loads(&out, from - 1, to)) { /* nothing read twice: the edit buys nothing */
		lines_free(&out);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < out.n; i++) {
		strbuf_addstr(&sb, out.v[i]);
		if (i + 1 < out.n)
			strbuf_addch(&sb, '\n');
	}
	lines_free(&out);
	*rblock = rb;
	return strbuf_detach(&sb);
}
