/*
 * tests/tap.h: a tiny TAP producer for C unit tests. Each check prints
 * `ok N - name` or `not ok N - name`; tap_done() prints the plan and returns
 * the exit status. Header-only; include it from one file per test program.
 */
#ifndef KOPT_TAP_H
#define KOPT_TAP_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define KOPT_TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KOPT_TAP_PRINTF(f, a)
#endif

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...) KOPT_TAP_PRINTF(2, 3);

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

#define TAP_OK(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define TAP_IS_INT(got, want, name) \
	(tap_ok((long long)(got) == (long long)(want), "%s", name) ? 1 : \
	 (printf("# got %lld, want %lld\n", (long long)(got), (long long)(want)), 0))
static inline int tap_is_str(const char *got, const char *want, const char *name)
{
	if (tap_ok(got && want && strcmp(got, want) == 0, "%s", name))
		return 1;
	printf("# got '%s'\n# want '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return 0;
}
#define TAP_IS_STR(got, want, name) tap_is_str((got), (want), (name))

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* how many times needle occurs in s (overlaps counted) */
static inline int tap_count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* the process's open file descriptors (Linux: /proc/self/fd, less the
 * one that reads it), -1 where that cannot be read: a test compares the
 * count before and after a call that must close what it opens */
static inline int tap_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
