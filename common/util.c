/* common/util.c: see util.h */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *kopt_progname = "koptmake";

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", kopt_progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void kopt_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("fatal: ", fmt, ap);
	va_end(ap);
	exit(2);
}

void kopt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void kopt_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		kopt_die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		kopt_die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		kopt_die("out of memory allocating %zu bytes", n);
	return p;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 8;
	while (c < need)
		c *= 2;
	*cap = c;
	return xrealloc(p, c * sz);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = sb->cap = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}

static void strbuf_need(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	size_t c = sb->cap ? sb->cap : 64;
	while (c < need)
		c *= 2;
	if (sb->cap)
		sb->buf = xrealloc(sb->buf, c);
	else {
		char *b = xmalloc(c);
		if (sb->buf && sb->len)
			memcpy(b, sb->buf, sb->len);
		b[sb->len] = '\0';
		sb->buf = b;
	}
	sb->cap = c;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	if (!sb->buf)
		strbuf_init(sb);
	strbuf_need(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	if (!sb->buf)
		strbuf_init(sb);
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		kopt_die("vsnprintf failed");
	strbuf_need(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *r = sb->cap ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return r;
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(sb, buf, n);
	int err = ferror(f);
	int saved = errno;
	fclose(f);
	if (err) {
		errno = saved;
		return -1;
	}
	if (!sb->buf)
		strbuf_init(sb);
	return 0;
}

static const char *sev_name(enum kopt_severity s)
{
	switch (s) {
	case KOPT_NOTE: return "note";
	case KOPT_WARNING: return "warning";
	default: return "error";
	}
}

/* A source file's text and where its lines start (built on first use). */
struct kopt_diag_src {
	char *path;
	struct strbuf text;
	int ok;              /* read */
	size_t *lines;       /* byte offset of each line's start */
	size_t nlines;
};

static void index_lines(struct kopt_diag_src *s)
{
	size_t cap = 0;
	s->lines = xgrow(NULL, &cap, 1, sizeof *s->lines);
	s->lines[s->nlines++] = 0;
	for (const char *p = s->text.buf, *end = s->text.buf + s->text.len;
	     (p = memchr(p, '\n', (size_t)(end - p))) != NULL;) {
		p++;
		s->lines = xgrow(s->lines, &cap, s->nlines + 1, sizeof *s->lines);
		s->lines[s->nlines++] = (size_t)(p - s->text.buf);
	}
}

static int utf8_tail(const char *p)
{
	return ((unsigned char)*p & 0xc0) == 0x80;
}

/* the diagnostic d, its line (p .. e) cut around the column, into sb */
static void format_diag(struct strbuf *sb, const struct kopt_diag *d, const char *p, const char *e)
{
	const struct kopt_loc *l = &d->loc;
	if (l->file && l->line > 0)
		strbuf_addf(sb, "%s:%d:%d: %s: %s\n", l->file, l->line, l->col, sev_name(d->severity), d->message);
	else if (l->file)
		strbuf_addf(sb, "%s: %s: %s\n", l->file, sev_name(d->severity), d->message);
	else
		strbuf_addf(sb, "%s: %s: %s\n", kopt_progname, sev_name(d->severity), d->message);
	if (!p)
		return;
	size_t len = (size_t)(e - p);
	size_t col = l->col > 0 ? (size_t)l->col - 1 : 0; /* bytes before the caret */
	size_t width = 1;
	if (l->end_line == l->line && l->end_col > l->col)
		width = (size_t)(l->end_col - l->col) + 1;
	/* the window: KOPT_DIAG_WIDTH bytes, the column in the middle, never
	 * splitting a UTF-8 character */
	size_t from = 0, to = len;
	if (len > KOPT_DIAG_WIDTH) {
		from = col > KOPT_DIAG_WIDTH / 2 ? col - KOPT_DIAG_WIDTH / 2 : 0;
		if (from > len - KOPT_DIAG_WIDTH)
			from = len - KOPT_DIAG_WIDTH;
		to = from + KOPT_DIAG_WIDTH;
		while (from > 0 && from < len && utf8_tail(p + from))
			from--;
		while (to < len && utf8_tail(p + to))
			to--;
	}
	if (from)
		strbuf_addstr(sb, "...");
	const char *nul = memchr(p + from, '\0', to - from); /* the line shows up to a NUL */
	strbuf_add(sb, p + from, nul ? (size_t)(nul - (p + from)) : to - from);
	if (to < len)
		strbuf_addstr(sb, "...");
	strbuf_addch(sb, '\n');
	if (from)
		strbuf_addstr(sb, "   ");
	for (size_t i = from; i < col; i++)
		strbuf_addch(sb, i < len && p[i] == '\t' ? '\t' : ' ');
	strbuf_addch(sb, '^');
	size_t stop = col + width;
	if (to < len && stop > to)
		stop = to; /* the span's part inside the window */
	for (size_t i = col + 1; i < stop; i++)
		strbuf_addch(sb, '~');
	strbuf_addch(sb, '\n');
}

/* writes the formatted diagnostic in one go */
static void put_diag(FILE *out, const struct strbuf *sb)
{
	fwrite(sb->buf, 1, sb->len, out);
	fflush(out);
}

void kopt_diag_print_src(FILE *out, const struct kopt_diag *d, const char *src, size_t srclen)
{
	const struct kopt_loc *l = &d->loc;
	const char *p = NULL, *e = NULL;
	if (src && l->line > 0) {
		const char *end = src + srclen;
		p = src;
		for (int ln = 1; ln < l->line && p; ln++) {
			p = memchr(p, '\n', (size_t)(end - p));
			if (p)
				p++;
		}
		if (p && p >= end && l->line > 1)
			p = NULL;
		if (p) {
			e = memchr(p, '\n', (size_t)(end - p));
			if (!e)
				e = end;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	format_diag(&sb, d, p, e);
	put_diag(out, &sb);
	strbuf_release(&sb);
}

void kopt_diag_printer_init(struct kopt_diag_printer *pr, FILE *out)
{
	memset(pr, 0, sizeof *pr);
	pr->out = out ? out : stderr;
}

static struct kopt_diag_src *diag_src(struct kopt_diag_printer *pr, const char *path)
{
	for (size_t i = 0; i < pr->nsrcs; i++)
		if (strcmp(pr->srcs[i].path, path) == 0)
			return &pr->srcs[i];
	pr->srcs = xgrow(pr->srcs, &pr->cap, pr->nsrcs + 1, sizeof *pr->srcs);
	struct kopt_diag_src *s = &pr->srcs[pr->nsrcs++];
	memset(s, 0, sizeof *s);
	s->path = xstrdup(path);
	strbuf_init(&s->text);
	s->ok = strbuf_read_file(&s->text, path) == 0;
	if (s->ok)
		index_lines(s);
	return s;
}

void kopt_diag_printer_print(void *ctx, const struct kopt_diag *d)
{
	struct kopt_diag_printer *pr = ctx;
	const struct kopt_loc *l = &d->loc;
	const char *p = NULL, *e = NULL;
	if (l->file && l->line > 0) {
		struct kopt_diag_src *s = diag_src(pr, l->file);
		size_t ln = (size_t)l->line - 1;
		/* a last line without its newline is a line; the end of a file
		 * that ends in one is not */
		if (s->ok && ln < s->nlines && (ln == 0 || s->lines[ln] < s->text.len)) {
			p = s->text.buf + s->lines[ln];
			e = ln + 1 < s->nlines ? s->text.buf + s->lines[ln + 1] - 1 : s->text.buf + s->text.len;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	format_diag(&sb, d, p, e);
	put_diag(pr->out, &sb);
	strbuf_release(&sb);
}

void kopt_diag_printer_release(struct kopt_diag_printer *pr)
{
	for (size_t i = 0; i < pr->nsrcs; i++) {
		free(pr->srcs[i].path);
		strbuf_release(&pr->srcs[i].text);
		free(pr->srcs[i].lines);
	}
	free(pr->srcs);
	memset(pr, 0, sizeof *pr);
}

void kopt_diag_print(void *ctx, const struct kopt_diag *d)
{
	struct kopt_diag_printer pr;
	kopt_diag_printer_init(&pr, ctx);
	kopt_diag_printer_print(&pr, d);
	kopt_diag_printer_release(&pr);
}

const char *kopt_plural(long long n)
{
	return n == 1 ? "" : "s";
}

double kopt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* name in the folder dfd, and what is below it, following no link; the
 * regular files' bytes and count added to *bytes and *files */
static int remove_at(int dfd, const char *name, uint64_t *bytes, size_t *files)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, name, 0) < 0)
			return errno == ENOENT ? 0 : -1;
		if (S_ISREG(st.st_mode)) {
			*bytes += (uint64_t)st.st_size;
			(*files)++;
		}
		return 0;
	}
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int r = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    remove_at(dirfd(d), e->d_name, bytes, files) < 0)
			r = -1;
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -1;
	return r;
}

int kopt_remove_tree(const char *path, uint64_t *bytes, size_t *files)
{
	uint64_t b = 0;
	size_t f = 0;
	int r = remove_at(AT_FDCWD, path, &b, &f);
	if (bytes)
		*bytes += b;
	if (files)
		*files += f;
	return r;
}

int kopt_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777) < 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return r;
}

int kopt_edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return cap + 1;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0], best;
		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int sub = prev + (a[i - 1] != b[j - 1]);
			int ins = row[j - 1] + 1, del = row[j] + 1;
			row[j] = sub < ins ? (sub < del ? sub : del) : (ins < del ? ins : del);
			if (row[j] < best)
				best = row[j];
			prev = cur;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

const char *kopt_suggest(const char *name, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int bd = 3;
	for (size_t i = 0; i < n; i++) {
		int d = kopt_edit_distance(name, cands[i], 2);
		if (d < bd) {
			bd = d;
			best = cands[i];
		}
	}
	return best;
}

const char *kopt_url_problem(const char *url)
{
	const char *p;
	if (strncmp(url, "http://", 7) == 0)
		p = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		p = url + 8;
	else
		return "a remote cache URL starts with http:// or https://";
	for (const char *q = url; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return "a URL has no blanks or control characters (write a space as %20)";
	size_t auth = strcspn(p, "/?#");
	if (auth == 0)
		return "the URL names no host";
	if (memchr(p, '@', auth))
		return "credentials do not belong in the URL: put them in ~/.netrc or KOPT_REMOTE_CACHE_AUTH";
	const char *frag = strchr(url, '#');
	if (frag && strcmp(frag, "#readonly") != 0)
		return "the only flag after '#' is #readonly";
	if (strchr(url, '?'))
		return "a remote cache URL has no query ('?'): ac/ and cas/ go after its path";
	return NULL;
}

uint64_t kopt_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int kopt_fds_std(int in, int out, int err)
{
	int src[3] = { in, out, err };
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && src[i] <= 2 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 3)) < 0)
			return -1;
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && dup2(src[i], i) < 0)
			return -1;
	return 0;
}

int kopt_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
