#define _GNU_SOURCE
/* tests/unit/util_test.c: strbuf, edit distance, suggestions, diagnostics */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../common/util.h"
#include "../tap.h"

/* issue 24: a long line is cut to a window around the column */
static void test_diag_window(void)
{
	size_t n = 1000000;
	char *src = xmalloc(n + 2);
	memset(src, 'a', n);
	memcpy(src + n - 3, "bad", 3);
	src[n] = '\n';
	src[n + 1] = '\0';
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kopt_diag d = { KOPT_ERROR, { "long.kopt", 1, (int)n - 2, 1, (int)n } , "unexpected 'bad'" };
	kopt_diag_print_src(f, &d, src, n + 1);
	fclose(f);
	char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	TAP_IS_INT(l3 - l2 - 1, 3 + KOPT_DIAG_WIDTH, "a 1 MB line shows as '...' and the last KOPT_DIAG_WIDTH bytes");
	TAP_OK(strncmp(l2, "...aaa", 6) == 0 && strncmp(l3 - 4, "bad\n", 4) == 0, "the cut is marked, the end shown");
	TAP_IS_INT(strlen(l3), 3 + KOPT_DIAG_WIDTH + 1, "the caret line as long as the window");
	TAP_OK(strcmp(l3 + 3 + KOPT_DIAG_WIDTH - 3, "^~~\n") == 0, "the caret and span under 'bad'");
	free(buf);

	/* the middle of a line: cut on both sides, the column in the middle */
	d.loc.col = 500001;
	d.loc.end_col = 500001;
	buf = NULL;
	f = open_memstream(&buf, &len);
	kopt_diag_print_src(f, &d, src, n + 1);
	fclose(f);
	l2 = strchr(buf, '\n') + 1;
	l3 = strchr(l2, '\n') + 1;
	TAP_IS_INT(l3 - l2 - 1, 3 + KOPT_DIAG_WIDTH + 3, "the middle of a line: a window with a cut on either side");
	TAP_OK(strncmp(l3 - 4, "...\n", 4) == 0, "the right cut is marked");
	TAP_IS_INT(strchr(l3, '^') - l3, 3 + KOPT_DIAG_WIDTH / 2, "the caret in the middle of the window");
	free(buf);

	/* a cut never splits a UTF-8 character */
	for (size_t i = 0; i + 2 < n; i += 3)
		memcpy(src + i, "\xe2\x86\x90", 3);
	d.loc.col = 500001;
	buf = NULL;
	f = open_memstream(&buf, &len);
	kopt_diag_print_src(f, &d, src, n + 1);
	fclose(f);
	l2 = strchr(buf, '\n') + 1;
	l3 = strchr(l2, '\n');
	TAP_OK(strncmp(l2, "...\xe2", 4) == 0 && strncmp(l3 - 4, "\x90...", 4) == 0,
	       "UTF-8: the window starts and ends on a character's boundary");
	free(buf);
	free(src);

	/* a short line is shown whole */
	const char *s2 = "device d { gpus = x }\n";
	struct kopt_diag d2 = { KOPT_ERROR, { "s.kopt", 1, 19, 1, 19 }, "expected a number" };
	buf = NULL;
	f = open_memstream(&buf, &len);
	kopt_diag_print_src(f, &d2, s2, strlen(s2));
	fclose(f);
	TAP_IS_STR(buf, "s.kopt:1:19: error: expected a number\ndevice d { gpus = x }\n                  ^\n",
		   "a short line whole");
	free(buf);
}

/* issue 24: a batch of diagnostics reads each file once */
static void test_diag_printer(void)
{
	char path[] = "/tmp/kopt-util-test-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "line one\nline two\nlast line, no newline";
	TAP_OK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "a spec file written");
	close(fd);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kopt_diag_printer pr;
	kopt_diag_printer_init(&pr, f);
	struct kopt_diag d = { KOPT_ERROR, { path, 2, 6, 2, 8 }, "first" };
	kopt_diag_printer_print(&pr, &d);
	unlink(path); /* a printer that read the file again would show no line now */
	d.loc = (struct kopt_loc){ path, 3, 1, 3, 4 };
	d.message = "second";
	kopt_diag_printer_print(&pr, &d);
	d.loc = (struct kopt_loc){ path, 4, 1, 4, 1 };
	d.message = "past the end";
	kopt_diag_printer_print(&pr, &d);
	kopt_diag_printer_release(&pr);
	fclose(f);
	char *want = xasprintf("%s:2:6: error: first\nline two\n     ^~~\n"
			       "%s:3:1: error: second\nlast line, no newline\n^~~~\n"
			       "%s:4:1: error: past the end\n", path, path, path);
	TAP_IS_STR(buf, want, "the printer read the file once: its lines after it is gone, the last without a newline");
	free(want);
	free(buf);
}

/* fd's file is the one of st, and fd does not close on exec */
static bool same_open(int fd, const struct stat *st)
{
	struct stat now;
	int fl = fcntl(fd, F_GETFD);
	return fl >= 0 && !(fl & FD_CLOEXEC) && fstat(fd, &now) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino;
}

/* kopt_fds_std in a child whose descriptors 0 (case 0) or 0 and 1 (case 1)
 * were closed, so that its pipe and file land there; the child's exit
 * status is the first check that failed (0: none) */
static int fds_child(int which)
{
	pid_t pid = fork();
	if (pid == 0) {
		close(0);
		if (which == 1)
			close(1);
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			_exit(10);
		int f = open("/dev/null", O_WRONLY | O_CLOEXEC);
		struct stat ps, fs;
		if (f < 0 || fstat(p[0], &ps) < 0 || fstat(f, &fs) < 0)
			_exit(11);
		/* case 0: the pipe's read end at 0 goes to 0; case 1: the read
		 * end is at 0 and /dev/null at 1 go the other way round, each
		 * onto the number the other holds */
		int r = which == 0 ? kopt_fds_std(p[0], f, -1) : kopt_fds_std(f, p[0], -1);
		if (r < 0)
			_exit(12);
		if (!same_open(which == 0 ? 0 : 1, &ps))
			_exit(13);
		if (!same_open(which == 0 ? 1 : 0, &fs))
			_exit(14);
		_exit(0);
	}
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "abc");
	strbuf_addf(&sb, "-%d-", 42);
	strbuf_addch(&sb, 'z');
	TAP_IS_STR(sb.buf, "abc-42-z", "strbuf appends");
	TAP_IS_INT(sb.len, 8, "strbuf length");
	strbuf_release(&sb);
	TAP_IS_INT(sb.len, 0, "strbuf release empties");
	TAP_OK(!strcmp(kopt_plural(1), "") && !strcmp(kopt_plural(0), "s") && !strcmp(kopt_plural(2), "s") &&
	       !strcmp(kopt_plural(-1), "s") && !strcmp(kopt_plural(1LL << 40), "s"),
	       "a count's ending: none for 1, s for 0, 2, -1 and 2^40");

	TAP_IS_INT(kopt_edit_distance("strict", "strcit", 5), 2, "transposition costs 2");
	TAP_IS_INT(kopt_edit_distance("gamma", "gamma", 5), 0, "equal strings");
	const char *cands[] = { "strict", "loose", "default" };
	TAP_IS_STR(kopt_suggest("strcit", cands, 3), "strict", "did-you-mean finds strict");
	TAP_OK(kopt_suggest("zzzzzz", cands, 3) == NULL, "no suggestion for far names");

	char buf[4096];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	const char *src = "gates g {\n  gamma = x\n}\n";
	struct kopt_diag d = { KOPT_ERROR, { "s.kopt", 2, 11, 2, 11 }, "expected a number" };
	kopt_diag_print_src(f, &d, src, 26);
	fclose(f);
	TAP_IS_STR(buf, "s.kopt:2:11: error: expected a number\n  gamma = x\n          ^\n", "diagnostic with caret");

	test_diag_window();
	test_diag_printer();

	/* remote cache URLs (issue 20) */
	TAP_OK(kopt_url_problem("http://127.0.0.1:8080/kopt") == NULL, "url: http with a port and a path");
	TAP_OK(kopt_url_problem("https://cache.example.org") == NULL, "url: https, no path");
	TAP_OK(kopt_url_problem("https://cache.example.org/kopt#readonly") == NULL, "url: #readonly");
	TAP_OK(kopt_url_problem("http://[::1]:9092/") == NULL, "url: an IPv6 host");
	TAP_OK(kopt_url_problem("ftp://cache/kopt") != NULL, "url: not http");
	TAP_OK(kopt_url_problem("cache.example.org/kopt") != NULL, "url: no scheme");
	TAP_OK(kopt_url_problem("http:///kopt") != NULL, "url: no host");
	TAP_OK(kopt_url_problem("http://") != NULL, "url: nothing after the scheme");
	TAP_OK(strstr(kopt_url_problem("https://team:pw@cache/kopt"), "netrc") != NULL,
	       "url: credentials, and where they go instead");
	TAP_OK(kopt_url_problem("https://team@cache/kopt") != NULL, "url: a user alone");
	TAP_OK(kopt_url_problem("https://cache/kopt/a@b") == NULL, "url: an @ in the path is not userinfo");
	TAP_OK(kopt_url_problem("https://cache/kopt?x=1") != NULL, "url: a query");
	TAP_OK(kopt_url_problem("http://cache/kopt#ro") != NULL, "url: a flag other than #readonly");
	TAP_OK(kopt_url_problem("http://cache/my kopt") != NULL, "url: a blank");

	/* a child's standard descriptors from ends that took 0-2 */
	int r = fds_child(0);
	TAP_OK(r == 0, "fds: a pipe already at 0 stays there without close-on-exec (the check that failed: %d, 0 none)", r);
	r = fds_child(1);
	TAP_OK(r == 0, "fds: ends at 0 and 1 put the other way round, neither overwritten first (the check that failed: %d, 0 none)", r);
	return tap_done();
}
