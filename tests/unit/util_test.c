#define _GNU_SOURCE
/* tests/unit/util_test.c: strbuf, edit distance, suggestions, diagnostics */
#include <stdlib.h>
#include <string.h>
#include "../../common/util.h"
#include "../tap.h"

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
	return tap_done();
}
