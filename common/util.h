/*
 * common/util.h: memory, strings and diagnostics shared by every module.
 *
 * Out of memory aborts inside x*alloc (as samurai does): callers never check.
 * Strings returned by x*dup/xasprintf and strbuf_detach belong to the caller,
 * who frees them with free().
 */
#ifndef KOPT_UTIL_H
#define KOPT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define KOPT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define KOPT_NORETURN __attribute__((noreturn))
#else
#define KOPT_PRINTF(f, a)
#define KOPT_NORETURN
#endif

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* grows *p to hold at least need elements of size sz; *cap is updated */
void *xgrow(void *p, size_t *cap, size_t need, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) KOPT_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* program name used in messages: "koptmake" unless set */
extern const char *kopt_progname;
void kopt_die(const char *fmt, ...) KOPT_PRINTF(1, 2) KOPT_NORETURN;
void kopt_warn(const char *fmt, ...) KOPT_PRINTF(1, 2);
void kopt_error(const char *fmt, ...) KOPT_PRINTF(1, 2);

/* A growable NUL-terminated byte string (git's strbuf, cut down). */
struct strbuf {
	char *buf;  /* always NUL-terminated once initialised; never NULL */
	size_t len; /* bytes used, not counting the NUL */
	size_t cap; /* bytes allocated */
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);   /* frees the buffer, back to empty */
void strbuf_reset(struct strbuf *sb);     /* keeps the allocation */
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) KOPT_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
char *strbuf_detach(struct strbuf *sb);   /* caller owns the result */
/* reads a whole file; 0 on success, -1 with errno set */
int strbuf_read_file(struct strbuf *sb, const char *path);

/* ---- diagnostics: every module hands errors to a reporter ---- */

enum kopt_severity { KOPT_NOTE, KOPT_WARNING, KOPT_ERROR };

/* A place in a source file; lines and columns count from 1; 0 = unknown. */
struct kopt_loc {
	const char *file; /* not owned: points into a table that outlives the AST */
	int line, col;    /* start */
	int end_line, end_col; /* end, inclusive; may equal start */
};

struct kopt_diag {
	enum kopt_severity severity;
	struct kopt_loc loc;
	const char *message; /* lowercase, no full stop */
};

/* A reporter receives each diagnostic; ctx is the caller's. */
typedef void kopt_diag_fn(void *ctx, const struct kopt_diag *d);

/*
 * The default reporter: prints `file:line:col: error: message`, then the
 * source line and a caret under the span, to the FILE * passed as ctx
 * (stderr when ctx is NULL). A line longer than KOPT_DIAG_WIDTH bytes is
 * cut to that many, half on either side of the column, `...` marking each
 * cut (a spec line is short; a generated one may be megabytes). Each
 * diagnostic goes out in one write. It reads the source line from the file:
 * a batch of diagnostics uses a kopt_diag_printer, which reads each file
 * once.
 */
#define KOPT_DIAG_WIDTH 160
void kopt_diag_print(void *ctx, const struct kopt_diag *d);
/* same, with the source text given (for in-memory specs) */
void kopt_diag_print_src(FILE *out, const struct kopt_diag *d, const char *src, size_t srclen);

/* A reporter for a batch of diagnostics (one spec's): each file is read
 * once, on its first diagnostic, and its lines indexed. */
struct kopt_diag_src;
struct kopt_diag_printer {
	FILE *out;                   /* where the diagnostics go */
	struct kopt_diag_src *srcs;  /* the files read so far, owned */
	size_t nsrcs, cap;
};
void kopt_diag_printer_init(struct kopt_diag_printer *p, FILE *out);
/* a kopt_diag_fn: ctx is the printer */
void kopt_diag_printer_print(void *ctx, const struct kopt_diag *d);
void kopt_diag_printer_release(struct kopt_diag_printer *p);

/* ---- small helpers ---- */
double kopt_now(void);              /* monotonic seconds */
const char *kopt_plural(long long n); /* a count's noun ending: "" for 1, else "s" */
int kopt_mkdirs(const char *path);  /* mkdir -p; 0 or -1 */
/* rm -r: path and, for a folder, everything below it, following no link
 * (a link is removed, not what it names); 0, or -1 (errno) after removing
 * what it could. The regular files' bytes and count are added to *bytes
 * and *files (either may be NULL). */
int kopt_remove_tree(const char *path, uint64_t *bytes, size_t *files);
/* writes all n bytes of p to fd, again after EINTR; 0 or -1 (errno) */
int kopt_write_all(int fd, const void *p, size_t n);
/* In a forked child before exec: puts in, out and err (-1: left as it is)
 * on descriptors 0, 1 and 2, without close-on-exec. Each is first moved
 * above 2, so that a koptmake started with 0-2 closed, whose pipes and
 * files took those numbers, neither keeps a close-on-exec through dup2
 * onto the same number nor overwrites one before it is moved. 0 or -1. */
int kopt_fds_std(int in, int out, int err);
/* the next of a deterministic sequence (SplitMix64) from *state, which it advances */
uint64_t kopt_splitmix64(uint64_t *state);
/* Levenshtein distance with a cap; for did-you-mean hints */
int kopt_edit_distance(const char *a, const char *b, int cap);
/* best match of name among cands (n of them) within distance 2, or NULL */
const char *kopt_suggest(const char *name, const char *const *cands, size_t n);
/* What is wrong with a remote cache URL (http:// or https://, a host, no
 * credentials, no query, no fragment but #readonly), or NULL when nothing is */
const char *kopt_url_problem(const char *url);

/* A forked child about to exec (or to _exit after exec failed) writes its
 * line counts first in tools/mutate's coverage build (configured with
 * -DKOPT_COVERAGE and --coverage): exec and _exit drop them, so the lines
 * a child runs would look run by no test. Nothing elsewhere. */
#ifdef KOPT_COVERAGE
void __gcov_dump(void);
void __gcov_reset(void);
#define KOPT_COVER_FLUSH() (__gcov_dump(), __gcov_reset())
#else
#define KOPT_COVER_FLUSH() ((void)0)
#endif

#endif
