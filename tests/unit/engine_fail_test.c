/*
 * tests/unit/engine_fail_test.c: workers that crash, hang, answer garbage
 * or report errors (the simulated worker misbehaves on request), a
 * launcher that cannot run, and -k: each bad step fails with a clear
 * reason and the rest of the build goes on.
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

static char *sim_worker;

static int run_with(const char *tag, const char *bad, const char *launcher, bool keep_going,
		    struct fx_result *r, char **dir_out)
{
	char *dir = fx_tmpdir(tag);
	struct fx_opts fo;
	fx_default(&fo);
	fo.timeout = 1;
	fo.launcher = launcher;
	fx_write_model(dir, 0, bad);
	fx_write_model(dir, 1, NULL);
	fx_write_model(dir, 2, NULL);
	kopt_spec *spec = fx_spec(dir, &fo);
	struct engine_opts o = { 0 };
	o.worker = sim_worker;
	o.keep_going = keep_going;
	fx_run(dir, spec, &o, NULL, NULL, 0, r);
	fx_free(spec);
	*dir_out = dir;
	return r->status;
}

static bool exists(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

static void check(const char *tag, const char *bad, const char *want_step, const char *want_reason,
		  const char *want_tail)
{
	struct fx_result r;
	char *dir;
	run_with(tag, bad, NULL, true, &r, &dir);
	TAP_IS_INT(r.status, 1, tag);
	char *line = xasprintf("koptmake: error: %s", want_step);
	char *sp = strstr(line, " failed");
	char *step = xstrndup(want_step, sp ? strlen(want_step) - strlen(" failed") : strlen(want_step));
	const char *at = strstr(r.err, line);
	TAP_OK(at && strstr(at, want_reason), "%s: the step fails with '%s'", tag, want_reason);
	if (!at || !strstr(at, want_reason))
		tap_diag("stderr: %s", r.err);
	if (want_tail)
		TAP_OK(strstr(r.err, want_tail) != NULL, "%s: the worker's last stderr lines are shown", tag);
	TAP_OK(exists(dir, "kopt-out/m1/report.md") && exists(dir, "kopt-out/m2/report.md"),
	       "%s: with -k the other models complete", tag);
	fx_result_free(&r);
	/* the failure is not cached: the next build tries again */
	struct fx_opts fo;
	fx_default(&fo);
	kopt_spec *spec = fx_spec(dir, &fo);
	struct engine_opts o = { 0 };
	o.worker = sim_worker;
	o.dry_run = true;
	fx_run(dir, spec, &o, NULL, NULL, 0, &r);
	TAP_OK(strstr(r.out, step) != NULL, "%s: the failed step is still stale", tag);
	free(step);
	fx_result_free(&r);
	fx_free(spec);
	fx_rmrf(dir);
	free(line);
	free(dir);
}

int main(void)
{
	const char *b = getenv("top_builddir");
	sim_worker = xasprintf("%s/tests/sim-worker", b ? b : ".");
	fx_sim_python();
	unsetenv("KOPT_WORKER");
	unsetenv("KOPT_LAUNCHER");
	unsetenv("KOPT_SIM_DELAY_MS");
	unsetenv("KOPT_SIM_TORCH");
	unsetenv("KOPT_SIM_LOG");

	check("crash", "# sim: crash capture\n", "capture m0/default failed",
	      "worker killed by signal 6 (Aborted) during capture", "simulated crash during capture");
	check("hang", "# sim: hang verify\n", "verify m0/default/",
	      "worker did not answer verify within 1s (timeout); killed", "simulated hang during verify");
	check("garbage", "# sim: garbage profile\n", "profile m0/default failed",
	      "worker answered a line that is not a JSON object during profile: 'Traceback", NULL);
	/* a garbage line is quoted up to 60 bytes, then "...": this one has 61 */
	check("garbage61", "# sim: garbage profile Traceback (most recent call last): MemoryError: out of memory\n",
	      "profile m0/default failed",
	      "worker answered a line that is not a JSON object during profile: "
	      "'Traceback (most recent call last): MemoryError: out of memor...'", NULL);
	check("fatal", "# sim: fatal stitch\n", "stitch m0 failed",
	      "fatal worker error (worker replaced): CUDA error: an illegal memory access", NULL);
	check("fatalverify", "# sim: fatal verify\n", "verify m0/default/",
	      "fatal worker error (worker replaced): CUDA error: an illegal memory access", NULL);
	check("error", "# sim: error capture\n", "capture m0/default failed",
	      "worker error: simulated failure in capture", "Traceback: simulated");

	/* a candidate whose verify fails (the worker crashed on it) does not
	 * stop its model: the stitch goes on without it */
	{
		struct fx_result rr;
		char *dd;
		run_with("verifycrash", "# sim: crash verify\n", NULL, true, &rr, &dd);
		TAP_OK(rr.status == 1 && exists(dd, "kopt-out/m0/report.md") && exists(dd, "kopt-out/all/report.json"),
		       "crashing verifies fail their candidates; the model is still stitched and reported");
		char *rp = xasprintf("%s/kopt-out/m0/report.md", dd);
		char *txt = fx_slurp(rp);
		TAP_OK(strstr(txt, "error ") != NULL, "the model report counts the failed candidates as errors");
		free(txt);
		free(rp);
		fx_result_free(&rr);
		fx_rmrf(dd);
		free(dd);
	}

	/* without -k: stops starting steps after the first failure */
	struct fx_result r;
	char *dir;
	run_with("stop", "# sim: crash capture\n", NULL, false, &r, &dir);
	TAP_OK(r.status == 1 && !exists(dir, "kopt-out/all/report.json"), "without -k the build stops with status 1");
	fx_result_free(&r);
	fx_rmrf(dir);
	free(dir);

	/* a launcher prefix is used; one that cannot run fails the steps clearly */
	run_with("launcher", NULL, "env KOPT_LAUNCHED=1", false, &r, &dir);
	TAP_OK(r.status == 0 && exists(dir, "kopt-out/all/report.json"), "a launcher command prefix runs the workers");
	fx_result_free(&r);
	fx_rmrf(dir);
	free(dir);
	run_with("badlauncher", NULL, "/nonexistent/srun --gpus=1", true, &r, &dir);
	TAP_OK(r.status == 1 && strstr(r.err, "exited with status 127 before its hello") &&
	       strstr(r.err, "cannot run '/nonexistent/srun'"), "a launcher that cannot run: clear reason");
	fx_result_free(&r);
	fx_rmrf(dir);
	free(dir);
	free(sim_worker);
	return tap_done();
}
