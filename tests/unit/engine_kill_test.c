/*
 * tests/unit/engine_kill_test.c: SIGKILL koptmake at up to 20 random points
 * of a build, building again after each; then finish the build: the results
 * equal those of an uninterrupted build, and no run ever reads a torn or
 * corrupt entry (a torn tail may be trimmed; nothing may be reported
 * corrupt). Also SIGINT: running steps are cancelled, finished ones kept.
 *
 * Each signal lands mid-build: every worker request of the simulated
 * worker (a test double) takes 20 ms, the signal goes out a random 0-29 ms
 * after the run's first finished step (a new record in the build log), and
 * a run counts as killed only when it died of the signal; a run that
 * finished first ends the loop.
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

#include <time.h>

static const char *const outputs[] = {
	"kopt-out/all/report.json", "kopt-out/all/report.md",
	"kopt-out/m0/profile.json", "kopt-out/m0/substitutions.json", "kopt-out/m0/output_code.py", "kopt-out/m0/report.md",
	"kopt-out/m1/profile.json", "kopt-out/m1/substitutions.json", "kopt-out/m1/output_code.py", "kopt-out/m1/report.md",
	"kopt-out/m2/profile.md", "kopt-out/m2/substitutions.json", "kopt-out/m2/output_code.py", "kopt-out/m2/report.md",
};

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6) };
	nanosleep(&ts, NULL);
}

/* records in DIR/.kopt/log (lines but the header; 0 before it exists) */
static size_t log_lines(const char *dir)
{
	char *p = xasprintf("%s/.kopt/log", dir);
	char *t = fx_slurp(p);
	size_t n = 0;
	for (const char *c = t; *c; c++)
		n += *c == '\n' && c[1] && c[1] != '#';
	free(t);
	free(p);
	return n;
}

/* the steps the log says finished ok, as "KIND PATH\n" lines */
static char *ok_steps(const char *dir)
{
	char *p = xasprintf("%s/.kopt/log", dir);
	char *t = fx_slurp(p);
	struct strbuf sb = STRBUF_INIT;
	for (char *line = t, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *f[6] = { line };
		int nf = 1;
		for (char *c = line; *c && nf < 6; c++)
			if (*c == '\t') {
				*c = '\0';
				f[nf++] = c + 1;
			}
		if (nf == 6 && strcmp(f[2], "ok") == 0)
			strbuf_addf(&sb, "%s %s\n", f[3], f[4]);
	}
	free(t);
	free(p);
	return strbuf_detach(&sb);
}

/* whether the child has ended, without reaping it */
static bool ended(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* starts a build and waits for its first finished step (or its end) */
static pid_t start_and_wait_step(const char *dir, const kopt_spec *spec, const struct engine_opts *o)
{
	size_t before = log_lines(dir);
	pid_t pid = fx_start(dir, spec, o, NULL, NULL, 0);
	double t0 = kopt_now();
	while (log_lines(dir) <= before && !ended(pid) && kopt_now() - t0 < 60)
		sleep_ms(1);
	return pid;
}

static char *setup(const char *tag, kopt_spec **spec)
{
	char *dir = fx_tmpdir(tag);
	struct fx_opts fo;
	fx_default(&fo);
	for (int i = 0; i < fo.nmodels; i++)
		fx_write_model(dir, i, NULL);
	*spec = fx_spec(dir, &fo);
	return dir;
}

int main(void)
{
	const char *b = getenv("top_builddir");
	char *sim = xasprintf("%s/tests/sim-worker", b ? b : ".");
	fx_sim_python();
	unsetenv("KOPT_WORKER");
	unsetenv("KOPT_LAUNCHER");
	unsetenv("KOPT_SIM_TORCH");
	unsetenv("KOPT_SIM_LOG");
	setenv("KOPT_SIM_DELAY_MS", "20", 1);
	struct engine_opts o = { 0 };
	o.worker = sim;
	struct fx_result r;

	kopt_spec *ref_spec;
	char *ref = setup("killref", &ref_spec);
	fx_run(ref, ref_spec, &o, NULL, NULL, 0, &r);
	TAP_IS_INT(r.status, 0, "the uninterrupted build succeeds");
	fx_result_free(&r);

	kopt_spec *spec;
	char *dir = setup("kill", &spec);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	int killed = 0, bad = 0, runs = 0, other = 0;
	bool done = false;
	for (int i = 0; i < 20 && !done; i++) {
		pid_t pid = start_and_wait_step(dir, spec, &o);
		sleep_ms((double)(rand() % 30));
		kill(pid, SIGKILL);
		fx_wait(dir, pid, &r);
		runs++;
		if (r.status == 128 + SIGKILL)
			killed++;
		else if (r.status == 0)
			done = true; /* it finished before the signal */
		else
			other++;
		if (strstr(r.err, "corrupt") || strstr(r.err, "does not parse")) {
			bad++;
			tap_diag("run %d read something corrupt: %s", i, r.err);
		}
		fx_result_free(&r);
	}
	TAP_OK(killed >= 5 && other == 0, "koptmake died of SIGKILL mid-build %d times in %d runs", killed, runs);
	TAP_IS_INT(bad, 0, "no run read a torn or corrupt entry");
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(r.status == 0 && !strstr(r.err, "corrupt"), "the build after the kills completes");
	if (r.status)
		tap_diag("%s", r.err);
	fx_result_free(&r);
	int same = 0;
	for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
		char *a = xasprintf("%s/%s", ref, outputs[i]), *bb = xasprintf("%s/%s", dir, outputs[i]);
		char *x = fx_slurp(a), *y = fx_slurp(bb);
		if (*x && strcmp(x, y) == 0)
			same++;
		else
			tap_diag("%s differs", outputs[i]);
		free(x);
		free(y);
		free(a);
		free(bb);
	}
	TAP_IS_INT(same, (int)(sizeof outputs / sizeof *outputs), "the results equal those of an uninterrupted build");
	o.dry_run = true;
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_IS_STR(r.out, "0 steps would run\n", "and nothing is stale");
	fx_result_free(&r);
	o.dry_run = false;
	fx_free(spec);
	fx_rmrf(dir);
	free(dir);

	/* SIGINT: cancelled cleanly, finished steps kept */
	dir = setup("sigint", &spec);
	pid_t pid = start_and_wait_step(dir, spec, &o);
	kill(pid, SIGINT);
	fx_wait(dir, pid, &r);
	TAP_OK(r.status == 130 && strstr(r.err, "interrupted: "),
	       "SIGINT mid-build stops it with status 130 (128 + SIGINT, as for ^C) and says so");
	if (r.status != 130)
		tap_diag("status %d: %s", r.status, r.err);
	fx_result_free(&r);
	char *kept = ok_steps(dir);
	o.dry_run = true;
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	int stale_kept = 0;
	for (char *s = kept, *e; *s; s = e + 1) {
		e = strchr(s, '\n');
		*e = '\0';
		char *needle = xasprintf("%s\n", s);
		stale_kept += strstr(r.out, needle) != NULL;
		free(needle);
	}
	TAP_OK(*kept == '\0' ? 0 : stale_kept == 0 && !strstr(r.out, "\n0 steps would run") && strncmp(r.out, "0 steps", 7) != 0,
	       "steps finished before SIGINT are kept, the rest are stale");
	if (stale_kept || !*kept)
		tap_diag("finished: %s; -n after SIGINT: %s", kept, r.out);
	free(kept);
	fx_result_free(&r);
	fx_free(spec);
	fx_rmrf(dir);
	free(dir);

	fx_free(ref_spec);
	fx_rmrf(ref);
	free(ref);
	free(sim);
	return tap_done();
}
