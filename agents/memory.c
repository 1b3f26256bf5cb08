/* agents/memory.c: see memory.h for the file format. */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "memory.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "../common/util.h"

static struct mem_stat *find(struct memory *m, const char *s)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->stats[i].strategy, s) == 0)
			return &m->stats[i];
	return NULL;
}

static void count(struct memory *m, const char *key, bool pass, double x)
{
	struct mem_stat *st = find(m, key);
	if (!st) {
		m->stats = xgrow(m->stats, &m->cap, m->n + 1, sizeof *m->stats);
		st = &m->stats[m->n++];
		st->strategy = xstrdup(key);
		st->tries = st->wins = 0;
		st->gain = 0;
	}
	st->tries++;
	if (pass) {
		st->wins++;
		if (x > 0)
			st->gain += log(x);
	}
}

/* one lesson of the file, parsed */
struct lesson {
	const char *features, *strategy, *scope, *shape;
	bool pass;
	double x;
};

/*
 * Calls fn for each well-formed lesson of the file at path; a torn last line
 * is ignored. Returns 0, 1 when the file is missing, -1 when it cannot be
 * read (errno says why), -2 when it is not a memory file of version 1.
 */
static int each_lesson(const char *path, void (*fn)(void *, const struct lesson *), void *ctx)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return path && errno == ENOENT ? 1 : -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int first = 1, rc = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n')
			break; /* torn tail: ignored */
		json_t *o = json_loads(line, 0, NULL);
		if (first) {
			first = 0;
			if (!o || json_integer_value(json_object_get(o, "kopt-memory")) != 1) {
				json_decref(o);
				rc = -2;
				break;
			}
			json_decref(o);
			continue;
		}
		struct lesson l = {
			json_string_value(json_object_get(o, "f")), json_string_value(json_object_get(o, "s")),
			json_string_value(json_object_get(o, "p")), json_string_value(json_object_get(o, "c")),
			false, json_number_value(json_object_get(o, "x")),
		};
		const char *v = json_string_value(json_object_get(o, "v"));
		l.pass = v && strcmp(v, "pass") == 0;
		if (l.features && l.strategy && v)
			fn(ctx, &l);
		json_decref(o);
	}
	free(line);
	fclose(f);
	return rc;
}

/* counts l under its strategy and, with a shape, under "=" + shape */
static void count_lesson(struct memory *m, const struct lesson *l)
{
	count(m, l->strategy, l->pass, l->x);
	if (l->shape) {
		char *key = xasprintf("=%s", l->shape);
		count(m, key, l->pass, l->x);
		free(key);
	}
}

struct load_ctx {
	struct memory *m;
	const char *features, *exclude;
};

static void load_one(void *c, const struct lesson *l)
{
	struct load_ctx *x = c;
	bool own = x->exclude && l->scope && strcmp(l->scope, x->exclude) == 0;
	if (!own && strcmp(l->features, x->features) == 0)
		count_lesson(x->m, l);
}

int memory_load(struct memory *m, const char *path, const char *features, const char *exclude)
{
	memset(m, 0, sizeof *m);
	struct load_ctx x = { m, features, exclude };
	if (each_lesson(path, load_one, &x) == -2)
		kopt_warn("%s: not a memory file of version 1; ignored", path);
	return 0;
}

void memory_release(struct memory *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->stats[i].strategy);
	free(m->stats);
	memset(m, 0, sizeof *m);
}

const struct mem_stat *memory_get(const struct memory *m, const char *strategy)
{
	return find((struct memory *)m, strategy);
}

int memory_append(const char *path, const char *scope, const char *features, const char *strategy,
		  const char *shape, const char *key, int pass, double speedup)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
	if (fd < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	off_t end = lseek(fd, 0, SEEK_END);
	if (end == 0)
		strbuf_addstr(&sb, "{\"kopt-memory\":1}\n");
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f}", "p", scope ? scope : "", "f", features, "s", strategy,
			      "v", pass ? "pass" : "fail", "x", isfinite(speedup) ? speedup : 0.0);
	if (shape)
		json_object_set_new(o, "c", json_string(shape));
	if (key)
		json_object_set_new(o, "k", json_string(key));
	char *text = json_dumps(o, JSON_COMPACT);
	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	free(text);
	json_decref(o);
	ssize_t w = write(fd, sb.buf, sb.len);
	int rc = w == (ssize_t)sb.len ? 0 : -1;
	strbuf_release(&sb);
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

static uint64_t seen_hash(const char *key, size_t n)
{
	uint64_t h = XXH3_64bits(key, n);
	return h ? h : 1; /* 0 marks an empty slot */
}

static void seen_put(struct memory_seen *s, uint64_t h)
{
	if (2 * (s->n + 1) > s->cap) {
		struct memory_seen big = { xcalloc(s->cap ? 2 * s->cap : 256, sizeof *big.slot), s->cap ? 2 * s->cap : 256, 0 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				seen_put(&big, s->slot[i]);
		free(s->slot);
		*s = big;
	}
	size_t i = (size_t)(h % s->cap);
	while (s->slot[i] && s->slot[i] != h)
		i = (i + 1) % s->cap;
	if (!s->slot[i]) {
		s->slot[i] = h;
		s->n++;
	}
}

int memory_seen_load(struct memory_seen *s, const char *path)
{
	memset(s, 0, sizeof *s);
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return 0;
	/* the lines are ours (memory_append): the key is found without
	 * parsing the line, which a null build of thousands of lessons pays */
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n')
			break; /* torn tail */
		const char *k = strstr(line, "\"k\":\"");
		if (!k)
			continue;
		k += 5;
		size_t n = strcspn(k, "\"");
		if (k[n] == '"')
			seen_put(s, seen_hash(k, n));
	}
	free(line);
	fclose(f);
	return 0;
}

bool memory_seen_has(const struct memory_seen *s, const char *key)
{
	if (!s->cap)
		return false;
	uint64_t h = seen_hash(key, strlen(key));
	for (size_t i = (size_t)(h % s->cap); s->slot[i]; i = (i + 1) % s->cap)
		if (s->slot[i] == h)
			return true;
	return false;
}

void memory_seen_add(struct memory_seen *s, const char *key)
{
	seen_put(s, seen_hash(key, strlen(key)));
}

void memory_seen_release(struct memory_seen *s)
{
	free(s->slot);
	memset(s, 0, sizeof *s);
}

double memory_score(const struct memory *m, const char *strategy, double prior)
{
	const struct mem_stat *s = memory_get(m, strategy);
	if (!s)
		return prior;
	/* win rate with a Laplace prior worth two tries of the prior's weight,
	 * plus the mean log gain of the wins */
	double rate = (s->wins + 2.0 * prior) / (s->tries + 2.0);
	double gain = s->wins ? s->gain / s->wins : 0;
	return rate + 2.0 * gain;
}

/* one feature class's stats, for memory_summary */
struct mem_class {
	char *features;
	struct memory m;
	char **scopes;
	size_t nscopes, scap;
	int lessons;
};

static int cmp_stat(const void *a, const void *b)
{
	const struct mem_stat *x = a, *y = b;
	if (x->wins != y->wins)
		return y->wins - x->wins;
	if (x->tries != y->tries)
		return y->tries - x->tries;
	return strcmp(x->strategy, y->strategy);
}

static int cmp_class(const void *a, const void *b)
{
	return strcmp(((const struct mem_class *)a)->features, ((const struct mem_class *)b)->features);
}

static void print_stats(FILE *out, const struct memory *m, bool shapes)
{
	fprintf(out, "  %-52s %5s %6s  %s\n", shapes ? "launch config (problem's terms)" : "strategy", "tried", "passed",
		"mean speedup of passes");
	for (size_t i = 0; i < m->n; i++) {
		const struct mem_stat *st = &m->stats[i];
		if ((st->strategy[0] == '=') != shapes)
			continue;
		fprintf(out, "  %-52s %5d %6d  ", st->strategy + shapes, st->tries, st->wins);
		if (st->wins)
			fprintf(out, "%.3fx\n", exp(st->gain / st->wins));
		else
			fprintf(out, "-\n");
	}
}

struct summary_ctx {
	struct mem_class *cls;
	size_t n, cap;
	const char *only;
};

static void summary_one(void *c, const struct lesson *l)
{
	struct summary_ctx *x = c;
	if (x->only && strcmp(l->features, x->only) != 0)
		return;
	struct mem_class *k = NULL;
	for (size_t i = 0; i < x->n && !k; i++)
		if (strcmp(x->cls[i].features, l->features) == 0)
			k = &x->cls[i];
	if (!k) {
		x->cls = xgrow(x->cls, &x->cap, x->n + 1, sizeof *x->cls);
		k = &x->cls[x->n++];
		memset(k, 0, sizeof *k);
		k->features = xstrdup(l->features);
	}
	count_lesson(&k->m, l);
	k->lessons++;
	const char *scope = l->scope ? l->scope : "";
	for (size_t i = 0; i < k->nscopes; i++)
		if (strcmp(k->scopes[i], scope) == 0)
			return;
	k->scopes = xgrow(k->scopes, &k->scap, k->nscopes + 1, sizeof *k->scopes);
	k->scopes[k->nscopes++] = xstrdup(scope);
}

int memory_summary(const char *path, const char *only, FILE *out)
{
	struct summary_ctx x = { NULL, 0, 0, only };
	int rc = each_lesson(path, summary_one, &x);
	if (rc == -1)
		kopt_error("cannot read %s: %s", path, strerror(errno));
	else if (rc == -2)
		kopt_error("%s: not a memory file of version 1", path);
	else if (rc > 0) {
		fprintf(out, "%s: no lessons yet\n", path);
		return 0;
	}
	struct mem_class *cls = x.cls;
	size_t ncls = x.n;
	if (rc == 0 && only && !ncls)
		fprintf(out, "%s: no lessons for %s\n", path, only);
	if (ncls)
		qsort(cls, ncls, sizeof *cls, cmp_class);
	for (size_t i = 0; i < ncls; i++) {
		struct mem_class *c = &cls[i];
		qsort(c->m.stats, c->m.n, sizeof *c->m.stats, cmp_stat);
		fprintf(out, "%s%s: %d lesson%s from %zu spec%s\n", i ? "\n" : "", c->features, c->lessons,
			c->lessons == 1 ? "" : "s", c->nscopes, c->nscopes == 1 ? "" : "s");
		print_stats(out, &c->m, false);
		bool any = false;
		for (size_t j = 0; j < c->m.n && !any; j++)
			any = c->m.stats[j].strategy[0] == '=';
		if (any)
			print_stats(out, &c->m, true);
		memory_release(&c->m);
		for (size_t j = 0; j < c->nscopes; j++)
			free(c->scopes[j]);
		free(c->scopes);
		free(c->features);
	}
	free(cls);
	return rc;
}
