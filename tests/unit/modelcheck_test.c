/*
 * tests/unit/modelcheck_test.c: the model check's reading of its
 * interpreter (rules/modelcheck.c) and its memory of the files that passed.
 *
 * - Each finding the interpreter prints becomes an error at its file, line
 *   and column (a column of 0 read as 1, an end at the column or before it as
 *   the column) and a note at the model's declaration, worded for its kind
 *   (model, kernel, helion); a line that is not JSON, has no message or
 *   names a file out of range (-1, n) is none. The files go to it on its
 *   stdin as KIND NUL PATH NUL, in the spec's order.
 * - Its output is read whole: 300 findings (more than one read of the
 *   pipe), findings written only after it closed its stderr, and the last
 *   line of its stderr, written after it closed its stdout, said when it
 *   fails.
 * The interpreters are TEST DOUBLES: shell scripts written here.
 * - A build remembers the files that passed in the cache's env file,
 *   CHECKED_MAX (131072) of them at most: the passes so far and the new
 *   ones while they fit, past that the new ones alone (tests/sim-python,
 *   a TEST DOUBLE, reads the files; the simulated worker builds).
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

#include <jansson.h>
#include <signal.h>
#include <sys/time.h>

#include "../../engine/cache.h"
#include "../../rules/modelcheck.h"

#define CHECKED_MAX 131072

struct seen {
	struct kopt_diag d[16];
	char *msg[16];
	size_t n;
};

static void collect(void *ctx, const struct kopt_diag *d)
{
	struct seen *s = ctx;
	if (s->n < 16) {
		s->d[s->n] = *d;
		s->msg[s->n] = xstrdup(d->message);
	}
	s->n++;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n && i < 16; i++)
		free(s->msg[i]);
	s->n = 0;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static char *script(const char *dir, const char *name, const char *body)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f)
		kopt_die("cannot write %s", p);
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(p, 0755);
	return p;
}

static bool loc_is(const struct kopt_diag *d, enum kopt_severity sev, const char *file, int line, int col, int end)
{
	return d->severity == sev && d->loc.file && strcmp(d->loc.file, file) == 0 && d->loc.line == line &&
	       d->loc.col == col && d->loc.end_line == line && d->loc.end_col == end;
}

static void test_findings(const char *dir)
{
	struct kopt_model m[3];
	memset(m, 0, sizeof m);
	const char *names[3] = { "net", "kern", "hel" };
	const enum kopt_model_kind kinds[3] = { KOPT_MODEL_TORCH, KOPT_MODEL_TRITON, KOPT_MODEL_HELION };
	for (int i = 0; i < 3; i++) {
		m[i].name = (char *)names[i];
		m[i].kind = kinds[i];
		m[i].path = xasprintf("%s/f%d.py", dir, i);
		m[i].loc = (struct kopt_loc){ "spec.kopt", 10 + i, 3, 10 + i, 9 };
	}
	const struct kopt_model *mp[3] = { &m[0], &m[1], &m[2] };
	/* the list it was given, then one finding per file and lines that are none */
	char *list = xasprintf("%s/list", dir);
	char *body = xasprintf("tr '\\0' '\\n' > '%s'\n"
			       "echo '{\"i\": 0, \"line\": 5, \"col\": 0, \"end\": 3, \"msg\": \"expected a colon\"}'\n"
			       "echo 'not json'\n"
			       "echo '{\"i\": 1, \"line\": 7}'\n"
			       "echo '{\"i\": -1, \"line\": 1, \"col\": 1, \"end\": 2, \"msg\": \"below\"}'\n"
			       "echo '{\"i\": 3, \"line\": 1, \"col\": 1, \"end\": 2, \"msg\": \"past\"}'\n"
			       "echo '{\"i\": 1, \"line\": 2, \"col\": 4, \"end\": 4, \"msg\": \"no launch\"}'\n"
			       "echo '{\"i\": 2, \"line\": 3, \"col\": 2, \"end\": 6, \"msg\": \"no kernel\"}'\n",
			       list);
	char *py = script(dir, "lines", body);
	free(body);
	struct seen s = { .n = 0 };
	int nerr = -1;
	int st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	TAP_OK(st == 2 && nerr == 3 && s.n == 6, "three findings: status 2, three errors, each with its note (%d, %d, %zu)",
	       st, nerr, s.n);
	char *got = fx_slurp(list);
	char *want = xasprintf("torch\n%s\ntriton\n%s\nhelion\n%s\n", m[0].path, m[1].path, m[2].path);
	TAP_OK(strcmp(got, want) == 0, "the files on its stdin: kind and path of each, in the spec's order");
	free(got);
	free(want);
	if (s.n == 6) {
		TAP_OK(loc_is(&s.d[0], KOPT_ERROR, m[0].path, 5, 1, 3) && strcmp(s.msg[0], "expected a colon") == 0,
		       "a column of 0: at column 1, to its end; its message");
		TAP_OK(loc_is(&s.d[1], KOPT_NOTE, "spec.kopt", 10, 3, 9) && strcmp(s.msg[1], "model 'net' reads it") == 0,
		       "its note at the declaration: model 'net' reads it");
		TAP_OK(loc_is(&s.d[2], KOPT_ERROR, m[1].path, 2, 4, 4) && strcmp(s.msg[2], "no launch") == 0,
		       "an end at the column: the column alone");
		TAP_OK(loc_is(&s.d[3], KOPT_NOTE, "spec.kopt", 11, 3, 9) && strcmp(s.msg[3], "kernel 'kern' reads it") == 0,
		       "a Triton kernel file's note: kernel 'kern' reads it");
		TAP_OK(loc_is(&s.d[4], KOPT_ERROR, m[2].path, 3, 2, 6) && strcmp(s.msg[4], "no kernel") == 0,
		       "an end past the column: that span");
		TAP_OK(loc_is(&s.d[5], KOPT_NOTE, "spec.kopt", 12, 3, 9) && strcmp(s.msg[5], "helion 'hel' reads it") == 0,
		       "a Helion file's note: helion 'hel' reads it");
	}
	seen_free(&s);
	free(py);

	/* 300 findings at once: more than a read of the pipe takes */
	py = script(dir, "many", "cat > /dev/null\ni=0\nwhile [ $i -lt 300 ]; do\n"
				 "  echo \"{\\\"i\\\": $((i % 3)), \\\"line\\\": $((i + 1)), \\\"col\\\": 1, \\\"end\\\": 2, "
				 "\\\"msg\\\": \\\"finding number $i of three hundred, a line long enough\\\"}\"\n"
				 "  i=$((i + 1))\ndone\n");
	st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	TAP_OK(st == 2 && nerr == 300 && s.n == 600, "300 findings in 25 kB: all of them read (%d, %d, %zu)", st, nerr,
	       s.n);
	seen_free(&s);
	free(py);

	/* its stderr closed first, its findings after: read to the end of both */
	py = script(dir, "late", "cat > /dev/null\nexec 2>&-\nsleep 0.3\n"
				 "echo '{\"i\": 2, \"line\": 4, \"col\": 1, \"end\": 2, \"msg\": \"late\"}'\n");
	st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	TAP_OK(st == 2 && nerr == 1 && s.n == 2 && strcmp(s.msg[0], "late") == 0,
	       "findings written after its stderr closed: read (%d, %d, %zu)", st, nerr, s.n);
	seen_free(&s);
	free(py);

	/* its stdout closed first, its error after: read to the end of both,
	 * its last line said */
	py = script(dir, "quiet", "cat > /dev/null\nexec 1>&-\nsleep 0.3\necho 'an earlier line' >&2\n"
				  "echo 'the interpreter broke' >&2\nexit 1\n");
	struct fx_caught cg;
	char said[4096];
	fx_catch_start(&cg);
	st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	fx_catch_end(&cg, said, sizeof said);
	TAP_OK(st == 1 && s.n == 0 && strstr(said, "cannot read the model files with '") &&
	       strstr(said, "/quiet': the interpreter broke\n") && !strstr(said, "an earlier line"),
	       "its stdout closed first, an error on its stderr after: status 1, its last line said");
	if (st != 1 || !strstr(said, "the interpreter broke"))
		tap_diag("status %d, said: %s", st, said);
	seen_free(&s);
	free(py);

	/* a signal while it waits (a handler without SA_RESTART: the poll
	 * fails with EINTR) ends neither the reading nor, at the end of the
	 * output, makes it wait on to the time limit */
	py = script(dir, "slow", "cat > /dev/null\nsleep 0.4\n"
				 "echo '{\"i\": 0, \"line\": 2, \"col\": 1, \"end\": 2, \"msg\": \"after a signal\"}'\n");
	struct sigaction sa = { .sa_handler = on_alarm }, was;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &was);
	struct itimerval it = { .it_value = { .tv_sec = 0, .tv_usec = 150000 } };
	alarms = 0;
	double t0 = kopt_now();
	setitimer(ITIMER_REAL, &it, NULL);
	st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	double took = kopt_now() - t0;
	sigaction(SIGALRM, &was, NULL);
	TAP_OK(alarms == 1 && st == 2 && nerr == 1 && s.n == 2 && strcmp(s.msg[0], "after a signal") == 0 && took < 10,
	       "a signal while it waits: its finding read, in %.1f s, not at the time limit (%d, %d, %zu)", took, st,
	       nerr, s.n);
	seen_free(&s);
	free(py);

	/* none: status 0 */
	py = script(dir, "none", "cat > /dev/null\n");
	st = rule_check_models(py, mp, 3, collect, &s, &nerr);
	TAP_OK(st == 0 && nerr == 0 && s.n == 0, "no finding: status 0, no error");
	seen_free(&s);
	free(py);
	free(list);
	for (int i = 0; i < 3; i++)
		free(m[i].path);
}

/* the passes the cache's env file remembers, or -1 */
static long passes(const char *dir)
{
	char *cd = xasprintf("%s/.kopt", dir);
	kopt_cache *c = cache_open(cd);
	free(cd);
	long n = c ? (long)json_object_size(json_object_get(cache_env_get(c, "sources:checked"), "passed")) : -1;
	cache_close(c);
	return n;
}

/* the env file's passes replaced by n made-up ones; 0 or -1 */
static int plant_passes(const char *dir, size_t n)
{
	char *cd = xasprintf("%s/.kopt", dir);
	kopt_cache *c = cache_open(cd);
	free(cd);
	if (!c)
		return -1;
	json_t *set = json_object();
	for (size_t i = 0; i < n; i++) {
		char k[40];
		snprintf(k, sizeof k, "%032zx", i);
		json_object_set_new_nocheck(set, k, json_true());
	}
	json_t *rec = json_pack("{s:o}", "passed", set);
	int r = cache_env_set(c, "sources:checked", rec);
	json_decref(rec);
	cache_close(c);
	return r;
}

static void touch_models(const char *dir, int n, int round)
{
	char extra[64];
	snprintf(extra, sizeof extra, "# round %d\n", round);
	for (int i = 0; i < n; i++)
		fx_write_model(dir, i, extra);
}

static void test_memory(const char *sim_worker)
{
	char *dir = fx_tmpdir("modelcheck-mem");
	struct fx_opts fo;
	fx_default(&fo);
	fo.budget = 0;
	struct engine_opts o;
	memset(&o, 0, sizeof o);
	o.worker = sim_worker;
	touch_models(dir, fo.nmodels, 0);
	kopt_spec *spec = fx_spec(dir, &fo);
	struct fx_result r;
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(r.status == 0 && passes(dir) == 3, "a first build remembers its three files' passes");
	fx_result_free(&r);
	/* three new passes on top of CHECKED_MAX - 3: they fit, all kept */
	int p = plant_passes(dir, CHECKED_MAX - 3);
	touch_models(dir, fo.nmodels, 1);
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(p == 0 && r.status == 0 && passes(dir) == CHECKED_MAX,
	       "%d passes and three new ones: all %d remembered (%ld)", CHECKED_MAX - 3, CHECKED_MAX, passes(dir));
	fx_result_free(&r);
	/* three more on top of CHECKED_MAX: past it, the new ones alone */
	touch_models(dir, fo.nmodels, 2);
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(r.status == 0 && passes(dir) == 3, "%d passes and three new ones: the three alone remembered (%ld)",
	       CHECKED_MAX, passes(dir));
	fx_result_free(&r);
	fx_free(spec);
	fx_rmrf(dir);
	free(dir);
}

int main(void)
{
	const char *b = getenv("top_builddir");
	char *sim_worker = xasprintf("%s/tests/sim-worker", b ? b : ".");
	char *dir = fx_tmpdir("modelcheck");
	test_findings(dir);
	fx_rmrf(dir);
	free(dir);
	fx_sim_python();
	test_memory(sim_worker);
	free(sim_worker);
	return tap_done();
}
