/*
 * engine/blog.c: the build log, .kopt/log.
 *
 * A first line `# koptmake log 1`, then one record a line, fields separated
 * by tabs (no field holds a tab or a newline):
 *
 *   START_MS DUR_MS OUTCOME KIND PATH KEY WHY INGREDIENTS SUM
 *
 * START_MS: wall-clock start in milliseconds since the epoch. DUR_MS: how
 * long the step ran. OUTCOME: `ok`, `failed: REASON` or `cancelled`. KIND and
 * PATH name the step (`verify softmax/default/k/c3`). KEY: its key, 32 hex
 * digits. WHY: why it was stale, as -d explain prints it. INGREDIENTS:
 * `name=xxxxxxxx,...`, a short hash of each ingredient of the key (engine/
 * hash.h), which the next -d explain compares to name what changed. SUM:
 * XXH3-64 of the bytes of the line before the tab that precedes it, 16 hex
 * digits. Records are appended with one write() each. Loading: a last line
 * without its newline is a torn write, trimmed with a warning; a line whose
 * SUM does not match is reported and skipped; a header of another version
 * starts a new log. Compaction (at close, when the log holds more than 4096
 * records and three times as many as distinct steps) keeps the last record
 * of each step: written to log.tmp, fsync()ed, renamed over the log.
 *
 * The log is read when a step's last run is first asked about, and opened
 * for writing (trimmed, or begun) only when a step is about to run: -n
 * writes nothing. A log that cannot be read or written is an error, said
 * once; the build runs nothing more and fails (blog_ready, blog_failed).
 * It is opened from its folder without following a link (common/
 * nofollow.h): a link at the log, or at log.tmp, is such an error.
 */
#define _GNU_SOURCE
#include <config.h>

#include "blog.h"

#include "../common/nofollow.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_HEADER "# koptmake log 1\n"
#define NFIELDS 9

struct blog_ent {
	char *step;        /* "KIND PATH" */
	char *line;        /* the last record of this step (with newline), for compaction */
	char *ingredients; /* of its last successful run, or NULL */
};

struct kopt_blog {
	char *path;           /* for messages */
	char *dir, *name;     /* its folder, opened as given, and its name there */
	int fd;               /* open for appending; -1 until a step is about to run */
	bool loaded, failed;  /* read; reading or writing it failed (said once) */
	size_t len, good_len; /* its bytes when read, and those before a torn or corrupt tail */
	bool bad_header;      /* not a log of this version: begun anew when written */
	struct blog_ent *ents; /* open-addressed by step */
	size_t cap, n;
	size_t nrecords;
};

static uint64_t str_hash(const char *s)
{
	return hash_sum64(s, strlen(s));
}

static struct blog_ent *ent_find(kopt_blog *b, const char *step, bool create)
{
	if (create && (b->n + 1) * 2 > b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		struct blog_ent *ne = xcalloc(ncap, sizeof *ne);
		for (size_t i = 0; i < b->cap; i++) {
			if (!b->ents[i].step)
				continue;
			size_t s = str_hash(b->ents[i].step) & (ncap - 1);
			while (ne[s].step)
				s = (s + 1) & (ncap - 1);
			ne[s] = b->ents[i];
		}
		free(b->ents);
		b->ents = ne;
		b->cap = ncap;
	}
	if (!b->cap)
		return NULL;
	size_t s = str_hash(step) & (b->cap - 1);
	while (b->ents[s].step) {
		if (strcmp(b->ents[s].step, step) == 0)
			return &b->ents[s];
		s = (s + 1) & (b->cap - 1);
	}
	if (!create)
		return NULL;
	b->ents[s].step = xstrdup(step);
	b->n++;
	return &b->ents[s];
}

/* splits a record (without newline) into fields; checks the sum */
static int parse_line(char *line, size_t n, char **f)
{
	char *tab = memrchr(line, '\t', n);
	if (!tab || (size_t)(line + n - tab - 1) != 16)
		return -1;
	uint64_t sum = 0;
	for (int i = 1; i <= 16; i++) {
		int c = (unsigned char)tab[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		sum = sum << 4 | (uint64_t)d;
	}
	if (hash_sum64(line, (size_t)(tab - line)) != sum)
		return -1;
	int k = 0;
	char *p = line, *end = line + n;
	while (k < NFIELDS && p <= end) {
		char *t = memchr(p, '\t', (size_t)(end - p));
		f[k++] = p;
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	line[n] = '\0';
	return k == NFIELDS ? 0 : -1;
}

/* parses buf (modified in place); with b, records the index */
static size_t parse_buf(kopt_blog *b, const char *name, char *buf, size_t len, size_t *ncorrupt,
			size_t *good_len, bool *bad_header)
{
	size_t hl = strlen(LOG_HEADER), good = 0, lineno = 1, pos;
	*ncorrupt = 0;
	*good_len = 0;
	*bad_header = false;
	if (len == 0)
		return 0;
	if (len < hl || memcmp(buf, LOG_HEADER, hl) != 0) {
		kopt_warn("%s: not a build log of version 1; starting a new one", name);
		*bad_header = true;
		return 0;
	}
	pos = *good_len = hl;
	while (pos < len) {
		char *line = buf + pos;
		char *nl = memchr(line, '\n', len - pos);
		lineno++;
		if (!nl) {
			kopt_warn("%s:%zu: torn last record trimmed (%zu bytes)", name, lineno, len - pos);
			break;
		}
		size_t n = (size_t)(nl - line);
		char *copy = b ? xstrndup(line, n + 1) : NULL;
		char *f[NFIELDS];
		if (parse_line(line, n, f) == 0) {
			good++;
			if (b) {
				char *step = xasprintf("%s %s", f[3], f[4]);
				struct blog_ent *e = ent_find(b, step, true);
				free(step);
				free(e->line);
				e->line = copy;
				copy = NULL;
				if (strcmp(f[2], "ok") == 0) {
					free(e->ingredients);
					e->ingredients = xstrdup(f[7]);
				}
			}
		} else if ((*ncorrupt)++ < 5) {
			kopt_warn("%s:%zu: corrupt build log record skipped", name, lineno);
		}
		free(copy);
		pos += n + 1;
		*good_len = pos;
	}
	return good;
}

size_t blog_parse(const char *name, const char *buf, size_t len, size_t *ncorrupt, size_t *good_len)
{
	char *copy = xmalloc(len + 1);
	bool bad;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	size_t n = parse_buf(NULL, name, copy, len, ncorrupt, good_len, &bad);
	free(copy);
	return n;
}

kopt_blog *blog_open(const char *path)
{
	kopt_blog *b = xcalloc(1, sizeof *b);
	b->path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	b->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	b->name = xstrdup(slash ? slash + 1 : path);
	b->fd = -1;
	return b;
}

static int blog_load(kopt_blog *b)
{
	if (b->loaded)
		return b->failed ? -1 : 0;
	b->loaded = true;
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	const char *why = NULL;
	if (nofollow_stat(b->dir, b->name, &st) < 0)
		why = errno == ENOENT ? NULL : nofollow_why(errno); /* none yet: an empty log */
	else if (S_ISLNK(st.st_mode))
		why = nofollow_why(ELOOP);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (nofollow_read(b->dir, b->name, &sb) < 0)
		why = nofollow_why(errno);
	if (why) {
		kopt_error("cannot read the build log '%s': %s", b->path, why);
		b->failed = true;
		strbuf_release(&sb);
		return -1;
	}
	size_t ncorrupt;
	b->len = sb.len;
	b->nrecords = parse_buf(b, b->path, sb.buf, sb.len, &ncorrupt, &b->good_len, &b->bad_header);
	strbuf_release(&sb);
	return 0;
}

int blog_ready(kopt_blog *b)
{
	if (b->fd >= 0)
		return 0;
	if (blog_load(b) < 0)
		return -1;
	b->fd = nofollow_open(b->dir, b->name, O_WRONLY | O_CREAT | O_APPEND, 0644);
	bool fresh = b->bad_header || b->len == 0;
	if (b->fd < 0 || (fresh && (ftruncate(b->fd, 0) < 0 ||
				    kopt_write_all(b->fd, LOG_HEADER, strlen(LOG_HEADER)) < 0)) ||
	    (!fresh && b->good_len < b->len && ftruncate(b->fd, (off_t)b->good_len) < 0)) {
		kopt_error("cannot write the build log '%s': %s", b->path, nofollow_why(errno));
		if (b->fd >= 0)
			close(b->fd);
		b->fd = -1;
		b->failed = true;
		return -1;
	}
	return 0;
}

bool blog_failed(const kopt_blog *b)
{
	return b->failed;
}

static void add_field(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(sb, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
	strbuf_addch(sb, '\t');
}

int blog_append(kopt_blog *b, const struct blog_record *r)
{
	if (b->failed || blog_ready(b) < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	char kh[HASH_HEX];
	hash_hex(r->key, kh);
	strbuf_addf(&sb, "%.0f\t%.0f\t", r->start * 1000.0, r->dur * 1000.0);
	add_field(&sb, r->outcome);
	add_field(&sb, r->kind);
	add_field(&sb, r->path);
	add_field(&sb, kh);
	add_field(&sb, r->why);
	add_field(&sb, r->ingredients);
	strbuf_addf(&sb, "%016" PRIx64 "\n", hash_sum64(sb.buf, sb.len - 1));
	ssize_t w = write(b->fd, sb.buf, sb.len);
	int ret = 0;
	if (w != (ssize_t)sb.len) {
		kopt_error("cannot append to the build log '%s': %s", b->path,
			   w < 0 ? strerror(errno) : "a short write");
		b->failed = true;
		ret = -1;
	} else {
		char *step = xasprintf("%s %s", r->kind, r->path);
		struct blog_ent *e = ent_find(b, step, true);
		free(step);
		free(e->line);
		e->line = xstrdup(sb.buf);
		if (strcmp(r->outcome, "ok") == 0) {
			free(e->ingredients);
			e->ingredients = xstrdup(r->ingredients ? r->ingredients : "");
		}
		b->nrecords++;
	}
	strbuf_release(&sb);
	return ret;
}

const char *blog_last_ingredients(kopt_blog *b, const char *kind, const char *path)
{
	if (blog_load(b) < 0)
		return NULL;
	char *step = xasprintf("%s %s", kind, path);
	struct blog_ent *e = ent_find(b, step, false);
	free(step);
	return e ? e->ingredients : NULL;
}

static void compact(kopt_blog *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, LOG_HEADER);
	for (size_t i = 0; i < b->cap; i++)
		if (b->ents[i].line)
			strbuf_addstr(&sb, b->ents[i].line);
	char *tmp = xasprintf("%s.tmp", b->name);
	int fd = nofollow_open(b->dir, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, sb.buf, sb.len) != (ssize_t)sb.len || fsync(fd) < 0 ||
	    nofollow_rename(b->dir, tmp, b->name) < 0) {
		kopt_warn("cannot compact the build log '%s': %s", b->path, nofollow_why(errno));
		nofollow_unlink(b->dir, tmp);
	}
	if (fd >= 0)
		close(fd);
	free(tmp);
	strbuf_release(&sb);
}

void blog_close(kopt_blog *b)
{
	if (!b)
		return;
	if (b->fd >= 0 && !b->failed && b->nrecords > 4096 && b->nrecords > 3 * b->n)
		compact(b);
	if (b->fd >= 0)
		close(b->fd);
	for (size_t i = 0; i < b->cap; i++) {
		free(b->ents[i].step);
		free(b->ents[i].line);
		free(b->ents[i].ingredients);
	}
	free(b->ents);
	free(b->path);
	free(b->dir);
	free(b->name);
	free(b);
}
