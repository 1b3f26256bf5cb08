/* agents/memory.c: see memory.h for the file format. */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "memory.h"
#include "features.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <xxhash.h>

#include "../common/nofollow.h"
#include "../common/util.h"

/* path split into its folder (opened as given) and its name there, the
 * file opened without following a link (common/nofollow.h): the memory
 * lives in the cache folder, which may be shared */
struct mem_path {
	char *dir;
	const char *name;
};

static void mem_split(struct mem_path *mp, const char *path)
{
	const char *slash = strrchr(path, '/');
	mp->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	if (slash && slash == path) {
		free(mp->dir);
		mp->dir = xstrdup("/");
	}
	mp->name = slash ? slash + 1 : path;
}

static int mem_open(const char *path, int flags, mode_t mode)
{
	struct mem_path mp;
	mem_split(&mp, path);
	int fd = nofollow_open(mp.dir, mp.name, flags, mode);
	int e = errno;
	free(mp.dir);
	errno = e;
	return fd;
}

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

/*
 * The index: the lessons of one file, read once and then only its new
 * lines. A build asks for one feature class per hot kernel; reading the
 * whole file each time made a build quadratic in the memory's size (a
 * 1,000-model build with a 200,000-line memory took over 500 s against
 * 13.7 s). Strings are interned; each class lists its lessons in file
 * order, and keeps the stats it last gave with how many of its lessons
 * they counted, so a later question reads only the lessons since
 * (counted in file order, the sums are those of a full read). A lesson
 * whose verdict (k) came before is counted once.
 */
struct ix_lesson {
	uint32_t features, strategy, scope, shape; /* interned; scope, shape NONE without one */
	uint32_t edit, cls;  /* interned; NONE without one */
	bool pass;
	double x;
	off_t at;            /* where its line starts in the file */
};

struct ix_class {
	uint32_t *lessons;   /* indices into index.lessons, file order */
	size_t n, cap;
	struct memory memo;  /* the stats last given, for scope memo_exclude */
	uint32_t memo_exclude;
	size_t memo_counted; /* of lessons */
	bool memo_ok;
};

#define NONE UINT32_MAX

struct intern {
	char **s;            /* by id */
	uint32_t *slot;      /* open addressing: id + 1, 0 = empty */
	size_t n, cap, scap;
};

static struct index {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t off;           /* read up to here: the end of the last whole line */
	char tail[64];       /* the bytes before off: the file was only appended to */
	size_t ntail;
	int state;           /* 0 no file, 1 lessons, -2 not version 1 (said once) */
	struct intern str;
	struct ix_lesson *lessons;
	size_t n, cap;
	struct ix_class *cls;  /* by the features' interned id */
	size_t ncls;
	uint32_t *skills;      /* the lessons with an edit, file order (indices into lessons) */
	size_t nskills, skcap;
	struct memory_seen keys; /* verdicts seen */
} *ix;

static uint32_t intern(struct intern *t, const char *s, bool add)
{
	if ((t->n + 1) * 2 > t->cap && add) {
		size_t ncap = t->cap ? 2 * t->cap : 256;
		uint32_t *ns = xcalloc(ncap, sizeof *ns);
		for (size_t i = 0; i < t->n; i++) {
			size_t j = (size_t)XXH3_64bits(t->s[i], strlen(t->s[i])) & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = ns;
		t->cap = ncap;
	}
	if (!t->cap)
		return NONE;
	size_t j = (size_t)XXH3_64bits(s, strlen(s)) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
		if (strcmp(t->s[t->slot[j] - 1], s) == 0)
			return t->slot[j] - 1;
	if (!add)
		return NONE;
	t->s = xgrow(t->s, &t->scap, t->n + 1, sizeof *t->s);
	t->s[t->n] = xstrdup(s);
	t->slot[j] = (uint32_t)++t->n;
	return (uint32_t)t->n - 1;
}

static void index_free(struct index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->str.n; i++)
		free(x->str.s[i]);
	free(x->str.s);
	free(x->str.slot);
	for (size_t i = 0; i < x->ncls; i++) {
		free(x->cls[i].lessons);
		memory_release(&x->cls[i].memo);
	}
	free(x->cls);
	free(x->skills);
	free(x->lessons);
	memory_seen_release(&x->keys);
	free(x->path);
	free(x);
}

/* one line of the file (without its newline, starting at at) into the index */
static void index_line(struct index *x, const char *line, size_t len, off_t at)
{
	json_t *o = json_loadb(line, len, 0, NULL);
	if (x->state == 0) {
		x->state = o && json_integer_value(json_object_get(o, "kopt-memory")) == 1 ? 1 : -2;
		if (x->state == -2)
			kopt_warn("%s: not a memory file of version 1; ignored", x->path);
		json_decref(o);
		return;
	}
	const char *f = json_string_value(json_object_get(o, "f"));
	const char *st = json_string_value(json_object_get(o, "s"));
	const char *v = json_string_value(json_object_get(o, "v"));
	const char *k = json_string_value(json_object_get(o, "k"));
	if (x->state != 1 || !f || !st || !v || (k && memory_seen_has(&x->keys, k))) {
		json_decref(o);
		return;
	}
	if (k)
		memory_seen_add(&x->keys, k);
	const char *p = json_string_value(json_object_get(o, "p"));
	const char *c = json_string_value(json_object_get(o, "c"));
	const char *e = json_string_value(json_object_get(o, "e"));
	const char *h = json_string_value(json_object_get(o, "h"));
	uint32_t fi = intern(&x->str, f, true);
	struct ix_lesson l = { fi, intern(&x->str, st, true), p ? intern(&x->str, p, true) : NONE,
			       c ? intern(&x->str, c, true) : NONE, e && *e ? intern(&x->str, e, true) : NONE,
			       h ? intern(&x->str, h, true) : NONE, strcmp(v, "pass") == 0,
			       json_number_value(json_object_get(o, "x")), at };
	json_decref(o);
	if (l.edit != NONE) {
		x->skills = xgrow(x->skills, &x->skcap, x->nskills + 1, sizeof *x->skills);
		x->skills[x->nskills++] = (uint32_t)x->n;
	}
	if (fi >= x->ncls) {
		size_t ncap = x->ncls;
		x->cls = xgrow(x->cls, &ncap, (size_t)fi + 1, sizeof *x->cls);
		memset(x->cls + x->ncls, 0, (ncap - x->ncls) * sizeof *x->cls);
		x->ncls = ncap;
	}
	x->lessons = xgrow(x->lessons, &x->cap, x->n + 1, sizeof *x->lessons);
	x->lessons[x->n] = l;
	struct ix_class *cl = &x->cls[fi];
	cl->lessons = xgrow(cl->lessons, &cl->cap, cl->n + 1, sizeof *cl->lessons);
	cl->lessons[cl->n++] = (uint32_t)x->n++;
}

/* The index of path, brought up to date: read anew when the file is
 * another (a new inode, shorter, or other bytes where the last read
 * ended: -t gc, a removed memory), else its new whole lines. NULL when the
 * file is missing or cannot be read. */
static struct index *index_sync(const char *path)
{
	int fd = path ? mem_open(path, O_RDONLY, 0) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char tail[64];
	bool same = ix && strcmp(ix->path, path) == 0 && ix->dev == st.st_dev && ix->ino == st.st_ino &&
		    st.st_size >= ix->off &&
		    pread(fd, tail, ix->ntail, ix->off - (off_t)ix->ntail) == (ssize_t)ix->ntail &&
		    memcmp(tail, ix->tail, ix->ntail) == 0;
	if (!same) {
		index_free(ix);
		ix = xcalloc(1, sizeof *ix);
		ix->path = xstrdup(path);
		ix->dev = st.st_dev;
		ix->ino = st.st_ino;
	}
	if (st.st_size > ix->off) {
		size_t len = (size_t)(st.st_size - ix->off);
		char *buf = xmalloc(len + 1);
		ssize_t r = pread(fd, buf, len, ix->off);
		size_t got = r > 0 ? (size_t)r : 0, pos = 0;
		for (char *nl; pos < got && (nl = memchr(buf + pos, '\n', got - pos)); pos = (size_t)(nl - buf) + 1)
			index_line(ix, buf + pos, (size_t)(nl - buf) - pos, ix->off + (off_t)pos);
		/* a torn last line waits for its end; the bytes before the new
		 * end are the old tail's and the whole lines just read */
		ix->off += (off_t)pos;
		size_t keep = sizeof ix->tail, old = pos < keep ? keep - pos : 0;
		if (old > ix->ntail)
			old = ix->ntail;
		memmove(ix->tail, ix->tail + ix->ntail - old, old);
		size_t take = pos < keep ? pos : keep;
		memcpy(ix->tail + old, buf + pos - take, take);
		ix->ntail = old + take;
		free(buf);
	}
	close(fd);
	return ix;
}

/* counts a lesson under its strategy and, with a shape and no edit (a
 * launch config alone), under "=" + shape */
static void count_ix(struct memory *m, const struct index *x, const struct ix_lesson *l)
{
	count(m, x->str.s[l->strategy], l->pass, l->x);
	if (l->shape != NONE && l->edit == NONE) {
		char *key = xasprintf("=%s", x->str.s[l->shape]);
		count(m, key, l->pass, l->x);
		free(key);
	}
}

static void memory_copy(struct memory *dst, const struct memory *src)
{
	memset(dst, 0, sizeof *dst);
	dst->stats = xgrow(NULL, &dst->cap, src->n + 1, sizeof *dst->stats);
	for (size_t i = 0; i < src->n; i++) {
		dst->stats[i] = src->stats[i];
		dst->stats[i].strategy = xstrdup(src->stats[i].strategy);
	}
	dst->n = src->n;
}

int memory_load(struct memory *m, const char *path, const char *features, const char *exclude)
{
	memset(m, 0, sizeof *m);
	struct index *x = index_sync(path);
	if (!x || x->state != 1)
		return 0;
	uint32_t fi = intern(&x->str, features, false);
	if (fi == NONE || fi >= x->ncls)
		return 0;
	struct ix_class *cl = &x->cls[fi];
	uint32_t ex = exclude ? intern(&x->str, exclude, false) : NONE;
	if (!cl->memo_ok || cl->memo_exclude != ex) {
		memory_release(&cl->memo);
		cl->memo_exclude = ex;
		cl->memo_counted = 0;
		cl->memo_ok = true;
	}
	for (; cl->memo_counted < cl->n; cl->memo_counted++) {
		const struct ix_lesson *l = &x->lessons[cl->lessons[cl->memo_counted]];
		if (ex == NONE || l->scope != ex)
			count_ix(&cl->memo, x, l);
	}
	memory_copy(m, &cl->memo);
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
	struct mem_lesson l = { .scope = scope, .features = features, .strategy = strategy, .shape = shape,
				.key = key, .pass = pass, .speedup = speedup };
	return memory_append_lesson(path, &l);
}

int memory_append_lesson(const char *path, const struct mem_lesson *l)
{
	const char *scope = l->scope;
	int fd = mem_open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
	if (fd < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	off_t end = lseek(fd, 0, SEEK_END);
	if (end == 0)
		strbuf_addstr(&sb, "{\"kopt-memory\":1}\n");
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f}", "p", scope ? scope : "", "f", l->features, "s",
			      l->strategy, "v", l->pass ? "pass" : "fail", "x", isfinite(l->speedup) ? l->speedup : 0.0);
	if (l->shape)
		json_object_set_new(o, "c", json_string(l->shape));
	if (l->edit && *l->edit)
		json_object_set_new(o, "e", json_string(l->edit));
	if (l->cls)
		json_object_set_new(o, "h", json_string(l->cls));
	if (l->key)
		json_object_set_new(o, "k", json_string(l->key));
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
	int fd = path ? mem_open(path, O_RDONLY, 0) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !f)
		close(fd);
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

int memory_compact(const char *path, size_t *kept, size_t *dropped)
{
	*kept = *dropped = 0;
	struct strbuf sb = STRBUF_INIT, outb = STRBUF_INIT;
	struct mem_path mp;
	mem_split(&mp, path);
	if (nofollow_read(mp.dir, mp.name, &sb) < 0) {
		int e = errno;
		strbuf_release(&sb);
		free(mp.dir);
		if (e == ENOENT)
			return 1;
		kopt_error("cannot read %s: %s", path, nofollow_why(e));
		return -1;
	}
	struct memory_seen seen = { 0 };
	int rc = 0;
	size_t pos = 0;
	for (char *nl; pos < sb.len && (nl = memchr(sb.buf + pos, '\n', sb.len - pos)); pos = (size_t)(nl - sb.buf) + 1) {
		const char *line = sb.buf + pos;
		size_t len = (size_t)(nl - line);
		json_t *o = json_loadb(line, len, 0, NULL);
		if (pos == 0) {
			if (!o || json_integer_value(json_object_get(o, "kopt-memory")) != 1) {
				kopt_error("%s: not a memory file of version 1; left as it is", path);
				rc = -1;
			}
			strbuf_add(&outb, line, len + 1);
			json_decref(o);
			if (rc < 0)
				break;
			continue;
		}
		const char *k = json_string_value(json_object_get(o, "k"));
		bool ok = json_is_string(json_object_get(o, "f")) && json_is_string(json_object_get(o, "s")) &&
			  json_is_string(json_object_get(o, "v")) && !(k && memory_seen_has(&seen, k));
		if (ok) {
			if (k)
				memory_seen_add(&seen, k);
			strbuf_add(&outb, line, len + 1);
			++*kept;
		} else {
			++*dropped;
		}
		json_decref(o);
	}
	if (pos < sb.len)
		++*dropped; /* a torn last line */
	memory_seen_release(&seen);
	if (rc == 0 && *dropped) {
		char *tmp = xasprintf("%s.tmp", mp.name);
		int fd = nofollow_open(mp.dir, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || kopt_write_all(fd, outb.buf, outb.len) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
		    (fd = -1, nofollow_rename(mp.dir, tmp, mp.name) < 0)) {
			kopt_error("cannot compact %s: %s", path, nofollow_why(errno));
			if (fd >= 0)
				close(fd);
			nofollow_unlink(mp.dir, tmp);
			rc = -1;
		} else {
			int dfd = nofollow_dir(mp.dir, NULL, false);
			if (dfd >= 0) {
				fsync(dfd);
				close(dfd);
			}
		}
		free(tmp);
	}
	free(mp.dir);
	strbuf_release(&sb);
	strbuf_release(&outb);
	return rc;
}

/* one feature class's stats, for memory_summary */
struct mem_class {
	char *features;
	struct memory m;
	struct memory skills; /* per edit: the lessons with one */
	char **scopes;
	size_t nscopes, scap;
	int lessons;
};

static int cmp_class(const void *a, const void *b)
{
	return strcmp(((const struct mem_class *)a)->features, ((const struct mem_class *)b)->features);
}

/* what: "strategy", "launch config (problem's terms)" (the "=" rows) or
 * "skill (its edit)" */
static void print_stats(FILE *out, const struct memory *m, const char *what)
{
	bool shapes = what[0] == 'l';
	fprintf(out, "  %-52s %5s %6s  %s\n", what, "tried", "passed", "mean speedup of passes");
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

int memory_summary(const char *path, const char *only, FILE *out)
{
	errno = 0;
	struct index *x = index_sync(path);
	int rc = x ? (x->state == -2 ? -2 : 0) : errno == ENOENT ? 1 : -1;
	if (rc == -1)
		kopt_error("cannot read %s: %s", path, strerror(errno));
	else if (rc == -2)
		kopt_error("%s: not a memory file of version 1", path);
	else if (rc > 0) {
		fprintf(out, "%s: no lessons yet\n", path);
		return 0;
	}
	/* each class's stats and specs, from the index */
	struct mem_class *cls = NULL;
	size_t ncls = 0, ccap = 0, *at = rc == 0 ? xcalloc(x->ncls + 1, sizeof *at) : NULL;
	for (size_t i = 0; rc == 0 && i < x->n; i++) {
		const struct ix_lesson *l = &x->lessons[i];
		const char *f = x->str.s[l->features];
		if (only && strcmp(f, only) != 0)
			continue;
		if (!at[l->features]) {
			cls = xgrow(cls, &ccap, ncls + 1, sizeof *cls);
			memset(&cls[ncls], 0, sizeof *cls);
			cls[ncls].features = xstrdup(f);
			at[l->features] = ++ncls;
		}
		struct mem_class *k = &cls[at[l->features] - 1];
		count_ix(&k->m, x, l);
		if (l->edit != NONE)
			count(&k->skills, x->str.s[l->edit], l->pass, l->x);
		k->lessons++;
		const char *scope = l->scope == NONE ? "" : x->str.s[l->scope];
		bool known = false;
		for (size_t j = 0; j < k->nscopes && !known; j++)
			known = strcmp(k->scopes[j], scope) == 0;
		if (!known) {
			k->scopes = xgrow(k->scopes, &k->scap, k->nscopes + 1, sizeof *k->scopes);
			k->scopes[k->nscopes++] = xstrdup(scope);
		}
	}
	free(at);
	if (rc == 0 && only && !ncls)
		fprintf(out, "%s: no lessons for %s\n", path, only);
	if (ncls)
		qsort(cls, ncls, sizeof *cls, cmp_class);
	for (size_t i = 0; i < ncls; i++) {
		struct mem_class *c = &cls[i];
		memory_sort(&c->m);
		fprintf(out, "%s%s: %d lesson%s from %zu spec%s\n", i ? "\n" : "", c->features, c->lessons,
			kopt_plural(c->lessons), c->nscopes, kopt_plural(c->nscopes));
		print_stats(out, &c->m, "strategy");
		bool any = false;
		for (size_t j = 0; j < c->m.n && !any; j++)
			any = c->m.stats[j].strategy[0] == '=';
		if (any)
			print_stats(out, &c->m, "launch config (problem's terms)");
		if (c->skills.n) {
			memory_sort(&c->skills);
			print_stats(out, &c->skills, "skill (its edit)");
		}
		memory_release(&c->m);
		memory_release(&c->skills);
		for (size_t j = 0; j < c->nscopes; j++)
			free(c->scopes[j]);
		free(c->scopes);
		free(c->features);
	}
	free(cls);
	return rc;
}

static int cmp_stat(const void *a, const void *b)
{
	const struct mem_stat *x = a, *y = b;
	if (x->wins != y->wins)
		return y->wins - x->wins;
	if (x->tries != y->tries)
		return y->tries - x->tries;
	return strcmp(x->strategy, y->strategy);
}

void memory_sort(struct memory *m)
{
	if (m->n)
		qsort(m->stats, m->n, sizeof *m->stats, cmp_stat);
}

int memory_lessons(const struct memory *m)
{
	int lessons = 0;
	for (size_t i = 0; i < m->n; i++)
		lessons += m->stats[i].strategy[0] != '=' ? m->stats[i].tries : 0;
	return lessons;
}

void memory_rank(size_t *order, const double *score, size_t n)
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++) {
		size_t o = order[i], j = i;
		while (j > 0 && score[order[j - 1]] < score[o]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = o;
	}
}

/* one skill while memory_skills gathers it: an edit over the lessons
 * that match, the class's apart from the feature class's */
struct skill_acc {
	char *edit;
	bool by_class;
	int wins, tries;
	double gain, best;  /* the sum of log speedups of the wins; the best win */
	uint32_t shape;     /* the best win's config, or NONE */
};

static int cmp_skill(const void *a, const void *b)
{
	const struct skill_acc *x = a, *y = b;
	if (x->by_class != y->by_class)
		return x->by_class ? -1 : 1;
	double rx = (double)x->wins / x->tries, ry = (double)y->wins / y->tries;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	double gx = x->wins ? x->gain / x->wins : 0, gy = y->wins ? y->gain / y->wins : 0;
	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(x->edit, y->edit);
}

json_t *memory_skills(const char *path, const char *features, const char *cls, size_t max, long long upto)
{
	json_t *out = json_array();
	struct index *x = index_sync(path);
	if (!x || x->state != 1 || !max)
		return out;
	uint32_t fi = features ? intern(&x->str, features, false) : NONE;
	uint32_t ci = cls ? intern(&x->str, cls, false) : NONE;
	struct skill_acc *acc = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; (fi != NONE || ci != NONE) && i < x->nskills; i++) {
		const struct ix_lesson *l = &x->lessons[x->skills[i]];
		if (upto >= 0 && l->at >= upto)
			break; /* learned after the asking build began (file order) */
		bool by_class = ci != NONE && l->cls == ci;
		if (!by_class && (fi == NONE || l->features != fi))
			continue;
		/* on another kernel of the feature class, the kernel-wide knobs alone */
		char *edit = by_class ? xstrdup(x->str.s[l->edit]) : agent_skill_edit(x->str.s[l->edit]);
		if (!edit)
			continue;
		struct skill_acc *a = NULL;
		for (size_t j = 0; j < n && !a; j++)
			if (acc[j].by_class == by_class && strcmp(acc[j].edit, edit) == 0)
				a = &acc[j];
		if (a) {
			free(edit);
		} else {
			acc = xgrow(acc, &cap, n + 1, sizeof *acc);
			a = &acc[n++];
			*a = (struct skill_acc){ .edit = edit, .by_class = by_class, .shape = NONE };
		}
		a->tries++;
		if (l->pass && l->x > 0) {
			a->wins++;
			a->gain += log(l->x);
			if (l->x > a->best) {
				a->best = l->x;
				a->shape = l->shape;
			}
		}
	}
	if (n)
		qsort(acc, n, sizeof *acc, cmp_skill);
	for (size_t j = 0; j < n; j++) {
		struct skill_acc *a = &acc[j];
		bool dup = false; /* the class's entry for the same edit came first */
		for (size_t i = 0; i < j && !dup; i++)
			dup = strcmp(acc[i].edit, a->edit) == 0;
		if (!dup && a->wins && a->gain > 0 && json_array_size(out) < max) {
			json_t *e = json_pack("{s:s, s:i, s:i, s:f, s:f, s:s}", "edit", a->edit, "wins", a->wins, "tries",
					      a->tries, "x", exp(a->gain / a->wins), "best", a->best, "match",
					      a->by_class ? "class" : "features");
			if (a->shape != NONE)
				json_object_set_new(e, "shape", json_string(x->str.s[a->shape]));
			json_array_append_new(out, e);
		}
	}
	/* freed only now: each entry's edit is compared with the earlier ones' */
	for (size_t j = 0; j < n; j++)
		free(acc[j].edit);
	free(acc);
	return out;
}

long long memory_length(const char *path)
{
	int fd = path ? mem_open(path, O_RDONLY, 0) : -1;
	struct stat st;
	long long n = fd >= 0 && fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
	if (fd >= 0)
		close(fd);
	return n;
}
