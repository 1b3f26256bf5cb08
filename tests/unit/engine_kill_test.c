/*
 * tests/unit/engine_kill_test.c: SIGKILL koptmake at 20 random points of a
 * build, building again after each; then finish the build: the results
 * equal those of an uninterrupted build, and no run ever reads a torn or
 * corrupt entry (a torn tail may be trimmed; nothing may be reported
 * corrupt). Also SIGINT: running steps are cancelled, finished ones kept.
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
	unsetenv("KOPT_WORKER");
	unsetenv("KOPT_LAUNCHER");
	unsetenv("KOPT_SIM_TORCH");
	unsetenv("KOPT_SIM_LOG");
	setenv("KOPT_SIM_DELAY_MS", "3", 1);
	struct engine_opts o = { 0 };
	o.worker = sim;
	struct fx_result r;

	kopt_spec *ref_spec;
	char *ref = setup("killref", &ref_spec);
	double t0 = kopt_now();
	fx_run(ref, ref_spec, &o, NULL, NULL, 0, &r);
	double full = kopt_now() - t0;
	TAP_IS_INT(r.status, 0, "the uninterrupted build succeeds");
	fx_result_free(&r);

	kopt_spec *spec;
	char *dir = setup("kill", &spec);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	int killed = 0, bad = 0;
	for (int i = 0; i < 20; i++) {
		pid_t pid = fx_start(dir, spec, &o, NULL, NULL, 0);
		sleep_ms(1000.0 * full * (double)rand() / RAND_MAX);
		if (kill(pid, SIGKILL) == 0)
			killed++;
		fx_wait(dir, pid, &r);
		if (strstr(r.err, "corrupt") || strstr(r.err, "does not parse")) {
			bad++;
			tap_diag("run %d read something corrupt: %s", i, r.err);
		}
		fx_result_free(&r);
	}
	TAP_OK(killed >= 1, "koptmake was killed mid-build (%d of 20 times)", killed);
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
	pid_t pid = fx_start(dir, spec, &o, NULL, NULL, 0);
	sleep_ms(1000.0 * full / 2);
	kill(pid, SIGINT);
	fx_wait(dir, pid, &r);
	bool finished = r.status == 0; /* too fast to interrupt: fine */
	TAP_OK(finished || (r.status == 130 && strstr(r.err, "interrupted: ")),
	       "SIGINT stops the build with status 130 (128 + SIGINT, as for ^C) and says so");
	fx_result_free(&r);
	o.dry_run = true;
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(finished || !strstr(r.out, "capture m0"), "steps finished before SIGINT are kept");
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
