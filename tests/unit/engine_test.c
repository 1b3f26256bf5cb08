/*
 * tests/unit/engine_test.c: the engine end to end with the simulated
 * worker, on specs built in C: fresh and null builds, what reruns after a
 * change (gates, a model file, the budget, the environment), -d explain,
 * a corrupted cache, early cutoff, the lock, clean and gc; the GPUs and
 * the secrets the rule set hands the engine.
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

#include <sys/file.h>

static char *sim_worker;

struct env {
	char *dir;
	char *simlog;
	struct engine_opts o;
	struct fx_opts fo;
	kopt_spec *spec;
};

static void env_init(struct env *e, const char *tag)
{
	memset(e, 0, sizeof *e);
	e->dir = fx_tmpdir(tag);
	e->simlog = xasprintf("%s/sim.log", e->dir);
	fx_default(&e->fo);
	e->o.worker = sim_worker;
	for (int i = 0; i < e->fo.nmodels; i++)
		fx_write_model(e->dir, i, NULL);
	e->spec = fx_spec(e->dir, &e->fo);
	setenv("KOPT_SIM_LOG", e->simlog, 1);
}

static void env_respec(struct env *e)
{
	fx_free(e->spec);
	e->spec = fx_spec(e->dir, &e->fo);
}

static void env_free(struct env *e)
{
	fx_free(e->spec);
	fx_rmrf(e->dir);
	free(e->dir);
	free(e->simlog);
}

/* runs a build and returns the sim log lines it added */
static char *build(struct env *e, struct fx_result *r)
{
	unlink(e->simlog);
	fx_run(e->dir, e->spec, &e->o, NULL, NULL, 0, r);
	return fx_slurp(e->simlog);
}

static int dry(struct env *e, struct fx_result *r)
{
	struct engine_opts o = e->o;
	o.dry_run = true;
	return fx_run(e->dir, e->spec, &o, NULL, NULL, 0, r);
}

static bool exists(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

static void test_fresh_and_null(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "fresh");
	char *log = build(&e, &r);
	TAP_IS_INT(r.status, 0, "fresh build succeeds");
	if (r.status)
		tap_diag("%s", r.err);
	TAP_IS_INT(fx_count(log, "capture "), 3, "fresh build captures every model");
	TAP_IS_INT(fx_count(log, "profile "), 3, "fresh build profiles every model");
	int nv = fx_count(log, "verify ");
	TAP_OK(nv > 0 && nv % 4 == 0, "fresh build verifies budget candidates per hot kernel (%d)", nv);
	TAP_OK(fx_count(log, "stitch ") >= 3, "fresh build stitches every model");
	TAP_OK(exists(e.dir, "kopt-out/m0/profile.json") && exists(e.dir, "kopt-out/m0/profile.md") &&
	       exists(e.dir, "kopt-out/m0/substitutions.json") && exists(e.dir, "kopt-out/m0/output_code.py") &&
	       exists(e.dir, "kopt-out/m0/report.md") && exists(e.dir, "kopt-out/all/report.json") &&
	       exists(e.dir, "kopt-out/all/report.md"), "outputs are written");
	int steps = fx_count(r.out, "[");
	TAP_OK(steps == 3 + 3 + 2 * nv + 3 + 1, "progress shows every step (%d)", steps);
	fx_result_free(&r);
	free(log);

	dry(&e, &r);
	TAP_IS_STR(r.out, "0 steps would run\n", "null build: -n prints 0 steps would run");
	fx_result_free(&r);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0', "null build runs nothing");
	TAP_OK(strstr(r.out, "nothing to do") != NULL, "null build says nothing to do");
	fx_result_free(&r);
	free(log);

	/* outputs removed by hand come back from the cache without running */
	char *p = xasprintf("%s/kopt-out/all/report.json", e.dir);
	unlink(p);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0' && access(p, F_OK) == 0, "a removed output is restored from the cache");
	free(p);
	fx_result_free(&r);
	free(log);
	env_free(&e);
}


/* lines of text that start with prefix and contain needle */
static int count_with(const char *text, const char *prefix, const char *needle)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		if (strncmp(line, prefix, pl) == 0 && (!needle || strstr(line, needle)))
			n++;
		free(line);
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

static void test_gamma(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "gamma");
	char *log = build(&e, &r);
	int nv = fx_count(log, "verify ");
	fx_result_free(&r);
	free(log);

	e.fo.gamma = 1.0301; /* a change small enough that each kernel can still pass it (rules/chains.c) */
	env_respec(&e);
	struct engine_opts o = e.o;
	o.dry_run = o.explain = true;
	fx_run(e.dir, e.spec, &o, NULL, NULL, 0, &r);
	TAP_OK(fx_count(r.out, "capture ") == 0 && fx_count(r.out, "profile ") == 0 &&
	       fx_count(r.out, "propose ") == 0, "gamma change: -n lists no capture, profile or propose");
	TAP_IS_INT(fx_count(r.out, "verify "), nv, "gamma change: -n lists every verify");
	TAP_OK(fx_count(r.out, "stitch ") == 3 && fx_count(r.out, "report ") == 1,
	       "gamma change: -n lists the stitches and the report");
	TAP_OK(strstr(r.err, "parameter gamma changed") != NULL, "-d explain names the changed parameter");
	fx_result_free(&r);

	log = build(&e, &r);
	TAP_OK(r.status == 0 && fx_count(log, "capture ") == 0 && fx_count(log, "profile ") == 0,
	       "gamma change reruns no capture or profile");
	TAP_IS_INT(fx_count(log, "verify "), nv, "gamma change reruns every verify");
	TAP_OK(fx_count(log, "stitch ") >= 3, "gamma change reruns the stitches");
	TAP_OK(count_with(r.out, "[", "propose ") == 0 && count_with(r.out, "[", "report ") == 1,
	       "gamma change reruns the report, not the proposals");
	if (getenv("DEBUG")) tap_diag("OUT:%s\nERR:%s", r.out, r.err);
	fx_result_free(&r);
	free(log);

	/* -B: everything, with the reason */
	o = e.o;
	o.dry_run = o.explain = o.force = true;
	fx_run(e.dir, e.spec, &o, NULL, NULL, 0, &r);
	TAP_OK(count_with(r.err, "koptmake explain:", "forced by -B") == 3 &&
	       count_with(r.err, "koptmake explain:", "will run first") == fx_count(r.out, "") - 1 - 3 &&
	       fx_count(r.out, "capture ") == 3, "-B -n -d explain: forced by -B, the rest after them");
	if (getenv("DEBUG")) tap_diag("OUT:%s\nERR:%s", r.out, r.err);
	fx_result_free(&r);
	env_free(&e);
}

static void test_model_change(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "model");
	char *log = build(&e, &r);
	fx_result_free(&r);
	free(log);
	fx_write_model(e.dir, 1, "# changed\n");
	struct engine_opts o = e.o;
	o.dry_run = o.explain = true;
	fx_run(e.dir, e.spec, &o, NULL, NULL, 0, &r);
	TAP_OK(strstr(r.err, "capture m1/default: model file changed") != NULL, "-d explain: model file changed");
	TAP_OK(count_with(r.out, "", " m0") == 0 && count_with(r.out, "", " m2") == 0,
	       "model change: -n lists nothing of the other models");
	fx_result_free(&r);
	log = build(&e, &r);
	int all = fx_count(log, ""), m1 = count_with(log, "", " m1 ");
	TAP_OK(r.status == 0 && all > 0 && all == m1, "changing one model file reruns only its chain (%d ops)", all);
	fx_result_free(&r);
	free(log);
	env_free(&e);
}

static void test_budget(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "budget");
	e.fo.budget = 8;
	env_respec(&e);
	char *log = build(&e, &r);
	int nv8 = fx_count(log, "verify ");
	fx_result_free(&r);
	free(log);
	e.fo.budget = 16;
	env_respec(&e);
	dry(&e, &r);
	int low = 0;
	for (int i = 0; i < 8; i++) {
		char c[8];
		snprintf(c, sizeof c, "/c%d\n", i);
		low += strstr(r.out, c) != NULL;
	}
	TAP_OK(fx_count(r.out, "propose ") == nv8 && low == 0,
	       "budget 8 -> 16: -n lists only proposals c8..c15 (%d)", nv8);
	fx_result_free(&r);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && fx_count(log, "verify ") == nv8 && fx_count(log, "capture ") == 0 &&
	       fx_count(log, "profile ") == 0, "budget 8 -> 16 verifies the new candidates only");
	TAP_OK(count_with(r.out, "[", "stitch ") == 3 && count_with(r.out, "[", "report ") == 1,
	       "budget 8 -> 16 reruns their dependents");
	fx_result_free(&r);
	free(log);
	env_free(&e);
}

static void test_env_change(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "envchg");
	char *log = build(&e, &r);
	fx_result_free(&r);
	free(log);
	setenv("KOPT_SIM_TORCH", "2.12.0+sim", 1);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && strstr(r.err, "environment of device 'sim' changed"), "a new worker environment is noticed");
	if (getenv("DEBUG")) tap_diag("OUT:%s\nERR:%s\nLOG:%s", r.out, r.err, log);
	TAP_OK(fx_count(log, "capture ") == 3 && fx_count(log, "") == 3,
	       "new environment: captures rerun, same output: nothing below reruns (early cutoff)");
	fx_result_free(&r);
	free(log);
	unsetenv("KOPT_SIM_TORCH");
	env_free(&e);
}

/* flips one byte inside the first action-map record whose manifest has needle */
static int corrupt_record(const char *dir, const char *needle)
{
	char *p = xasprintf("%s/.kopt/actions", dir);
	char *buf = fx_slurp(p);
	char *hit = strstr(buf, needle);
	int ok = -1;
	if (hit) {
		hit[3] ^= 0x20;
		FILE *f = fopen(p, "w");
		fputs(buf, f);
		fclose(f);
		ok = 0;
	}
	free(buf);
	free(p);
	return ok;
}

static void test_corrupt(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "corrupt");
	char *log = build(&e, &r);
	fx_result_free(&r);
	free(log);
	TAP_OK(corrupt_record(e.dir, "\"kind\":\"verify\"") == 0, "a verify entry is corrupted by hand");
	struct engine_opts o = e.o;
	o.dry_run = o.explain = true;
	fx_run(e.dir, e.spec, &o, NULL, NULL, 0, &r);
	TAP_OK(strstr(r.err, "corrupt cache entry ignored") && strstr(r.err, ": cache entry corrupt"),
	       "the corrupt entry is reported and explained");
	fx_result_free(&r);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && fx_count(log, "verify ") == 1 && fx_count(log, "") == 1,
	       "the corrupt step is rebuilt, early cutoff stops there");
	fx_result_free(&r);
	free(log);
	dry(&e, &r);
	TAP_IS_STR(r.out, "0 steps would run\n", "after the rebuild nothing is stale");
	TAP_OK(strstr(r.err, "corrupt") == NULL, "and nothing corrupt is read again");
	if (getenv("DEBUG")) tap_diag("OUT:%s\nERR:%s", r.out, r.err);
	fx_result_free(&r);

	/* a torn tail: half a record */
	char *ap = xasprintf("%s/.kopt/actions", e.dir);
	FILE *f = fopen(ap, "r");
	int lines = 0;
	for (int ch; f && (ch = fgetc(f)) != EOF;)
		lines += ch == '\n';
	if (f)
		fclose(f);
	f = fopen(ap, "a");
	fputs("0123456789abcdef0123456789abcdef 01234", f);
	fclose(f);
	dry(&e, &r);
	/* said at its own line of the file: the header is line 1 */
	char *at = xasprintf("actions:%d: torn last record trimmed (38 bytes)", lines + 1);
	TAP_OK(strstr(r.err, at) && strcmp(r.out, "0 steps would run\n") == 0,
	       "a torn tail is trimmed with a warning at its line (%s)", at);
	free(at);
	fx_result_free(&r);
	dry(&e, &r);
	TAP_OK(*r.err == '\0', "and is gone afterwards");
	fx_result_free(&r);
	free(ap);

	/* a corrupt object: the report's output */
	char *rp = xasprintf("%s/kopt-out/all/report.json", e.dir);
	char *content = fx_slurp(rp);
	char *cmd = xasprintf("grep -rl -F -- '\"geomean_speedup\"' '%s/.kopt/objects' | head -n 1", e.dir);
	FILE *pp = popen(cmd, "r");
	char obj[4096] = "";
	if (pp && fgets(obj, sizeof obj, pp))
		obj[strcspn(obj, "\n")] = '\0';
	if (pp)
		pclose(pp);
	f = *obj ? fopen(obj, "w") : NULL;
	if (f) {
		fputs("garbage", f);
		fclose(f);
	}
	unlink(rp);
	log = build(&e, &r);
	char *again = fx_slurp(rp);
	TAP_OK(r.status == 0 && strstr(r.err, "is corrupt") && strcmp(content, again) == 0,
	       "a corrupt object is detected and its step rebuilt");
	fx_result_free(&r);
	free(log);
	free(again);
	free(content);
	free(cmd);
	free(rp);
	env_free(&e);
}

static void test_lock(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "lock");
	char *kd = xasprintf("%s/.kopt", e.dir), *lp = xasprintf("%s/.kopt/lock", e.dir);
	kopt_mkdirs(kd);
	int fd = open(lp, O_RDWR | O_CREAT, 0644);
	flock(fd, LOCK_EX);
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (write(fd, pid, (size_t)n) != n)
		tap_diag("cannot write the pid");
	setenv("KOPT_LOCK_WAIT_MS", "300", 1);
	dry(&e, &r);
	pid[n - 1] = '\0';
	char *want = xasprintf("in use by another koptmake (pid %s)", pid);
	TAP_OK(r.status == 2 && strstr(r.err, want), "a second koptmake waits, then says who holds the lock");
	free(want);
	fx_result_free(&r);
	close(fd);
	dry(&e, &r);
	TAP_OK(r.status == 0, "once released the cache can be used");
	fx_result_free(&r);
	unsetenv("KOPT_LOCK_WAIT_MS");
	free(kd);
	free(lp);
	env_free(&e);
}

static void test_clean_gc(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "cleangc");
	char *log = build(&e, &r);
	fx_result_free(&r);
	free(log);
	fx_run(e.dir, e.spec, &e.o, engine_tool_clean, NULL, 0, &r);
	TAP_OK(r.status == 0 && strstr(r.out, "clean: removed ") && strstr(r.out, "freed") &&
	       !exists(e.dir, "kopt-out/m0/report.md"), "-t clean removes the outputs and says how much");
	fx_result_free(&r);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0' && exists(e.dir, "kopt-out/m0/report.md"),
	       "after clean a build restores the outputs without running a step");
	fx_result_free(&r);
	free(log);
	e.fo.gamma = 1.3;
	env_respec(&e);
	log = build(&e, &r);
	fx_result_free(&r);
	free(log);
	fx_run(e.dir, e.spec, &e.o, engine_tool_gc, NULL, 0, &r);
	int ne = -1;
	const char *g = strstr(r.out, "gc: removed ");
	if (g)
		ne = atoi(g + 12);
	TAP_OK(r.status == 0 && ne > 0 && strstr(r.out, "freed"), "-t gc removes unreachable entries (%d)", ne);
	fx_result_free(&r);
	dry(&e, &r);
	TAP_IS_STR(r.out, "0 steps would run\n", "after gc the current spec is still fully cached");
	fx_result_free(&r);
	fx_run(e.dir, e.spec, &e.o, engine_tool_gc, NULL, 0, &r);
	TAP_OK(strstr(r.out, "gc: removed 0 cache entries and 0 objects") != NULL, "a second gc frees nothing");
	fx_result_free(&r);

	char *args[] = { "stitch m0" };
	fx_run(e.dir, e.spec, &e.o, engine_tool_why, args, 1, &r);
	TAP_OK(r.status == 0 && strstr(r.out, "stitch m0: ") && strstr(r.out, "speedup"), "-t why explains a stitch verdict");
	fx_result_free(&r);
	fx_run(e.dir, e.spec, &e.o, engine_tool_query, NULL, 0, &r);
	char *vpath = NULL;
	for (const char *p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "fresh   verify ", 15) == 0) {
			vpath = xstrndup(p + 8, strcspn(p + 8, "\n"));
			break;
		}
	fx_result_free(&r);
	TAP_OK(vpath != NULL, "-t query lists the steps");
	/* a step's inputs, each named once, its first too: a profile has one,
	 * its variant's capture */
	char *pq[] = { "profile m0/default" };
	fx_run(e.dir, e.spec, &e.o, engine_tool_query, pq, 1, &r);
	TAP_OK(r.status == 0 && fx_count(r.out, "  input   ") == 1 && strstr(r.out, "\n  input   capture m0/default\n"),
	       "-t query STEP: a profile's one input, its capture");
	if (!strstr(r.out, "\n  input   capture m0/default\n"))
		tap_diag("status %d out:\n%s\nerr:\n%s", r.status, r.out, r.err);
	fx_result_free(&r);
	if (vpath) {
		char *a2[] = { vpath };
		fx_run(e.dir, e.spec, &e.o, engine_tool_why, a2, 1, &r);
		TAP_OK(r.status == 0 && (strstr(r.out, ": pass") || strstr(r.out, ": fail at gate")) &&
		       strstr(r.out, "reason") && strstr(r.out, "speedup"), "-t why explains a verify verdict");
		fx_result_free(&r);
		free(vpath);
	}
	env_free(&e);
}

static void test_variants(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "variants");
	e.fo.nvariants = 2;
	e.fo.nmodels = 1;
	env_respec(&e);
	char *log = build(&e, &r);
	if (!TAP_OK(r.status == 0 && fx_count(log, "capture ") == 2 && fx_count(log, "profile ") == 2,
		    "two compile variants: two captures and profiles"))
		tap_diag("status %d\nlog:\n%s\nerr:\n%s", r.status, log, r.err);
	TAP_OK(exists(e.dir, "kopt-out/m0/profile.json") && exists(e.dir, "kopt-out/m0/profile-v1.json"),
	       "a profile per variant");
	fx_result_free(&r);
	free(log);
	env_free(&e);
}

/* a rule set that hands the engine what it is asked for: koptmake's
 * rules, the GPUs and the secrets of a test double's choosing; each time
 * the engine asks for the GPUs, a line in asked_log (the build runs in a
 * child process) */
static char *asked_log;
static int gpus_of(const kopt_spec *spec)
{
	(void)spec;
	FILE *f = fopen(asked_log, "a");
	if (f) {
		fputs("gpus\n", f);
		fclose(f);
	}
	return 1;
}

static const char **secrets_of(const kopt_spec *spec)
{
	(void)spec;
	const char **deny = xcalloc(2, sizeof *deny);
	deny[0] = "KOPT_HANDED_SECRET";
	return deny;
}

/* the engine takes the GPUs and the secrets from the rule set
 * (engine/rule.h): it asks for the GPUs where -j gives no count, and the
 * workers' environments, as the simulated worker logs them, have no
 * variable the rule set names; and koptmake's rule set gives the most GPUs
 * of a device and every key_env of the spec's llm() blocks */
static void test_handed(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "handed");
	struct rule_set rs = rule_pipeline;
	rs.gpus = gpus_of;
	rs.secrets = secrets_of;
	e.o.rules = &rs;
	char *envlog = xasprintf("%s/env.log", e.dir);
	asked_log = xasprintf("%s/asked.log", e.dir);
	setenv("KOPT_SIM_ENV_LOG", envlog, 1);
	setenv("KOPT_HANDED_SECRET", "sk-handed", 1);
	char *log = build(&e, &r);
	char *seen = fx_slurp(envlog), *asked = fx_slurp(asked_log);
	TAP_OK(r.status == 0 && fx_count(seen, "pid ") >= 1 && !strstr(seen, "KOPT_HANDED_SECRET"),
	       "the rule set's secrets reach no worker");
	TAP_OK(fx_count(asked, "gpus") == 1, "the engine asks the rule set for the GPUs where -j gives no count");
	free(asked);
	free(seen);
	free(log);
	fx_result_free(&r);
	e.o.jobs = 2;
	e.o.force = true;
	log = build(&e, &r);
	asked = fx_slurp(asked_log);
	TAP_OK(r.status == 0 && fx_count(asked, "gpus") == 1, "... and not where it does");
	free(asked);
	free(asked_log);
	free(log);
	fx_result_free(&r);
	unsetenv("KOPT_SIM_ENV_LOG");
	unsetenv("KOPT_HANDED_SECRET");
	free(envlog);

	e.spec->devices[0].gpus = 3;
	e.spec->agents[0].roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	e.spec->agents[0].roles[KOPT_ROLE_CODER].llm.key_env = (char *)"KOPT_CODER_KEY";
	e.spec->agents[0].roles[KOPT_ROLE_TUNER].backend = KOPT_BACKEND_LLM;
	e.spec->agents[0].roles[KOPT_ROLE_TUNER].llm.key_env = (char *)"KOPT_TUNER_KEY";
	const char **deny = rule_pipeline.secrets(e.spec);
	TAP_OK(rule_pipeline.gpus(e.spec) == 3, "koptmake's rule set: the GPUs are the most a device has");
	TAP_OK(deny[0] && deny[1] && !deny[2] && strcmp(deny[0], "KOPT_CODER_KEY") == 0 &&
	       strcmp(deny[1], "KOPT_TUNER_KEY") == 0, "koptmake's rule set: the secrets are every llm()'s key_env");
	free(deny);
	e.spec->agents[0].roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_BUILTIN;
	e.spec->agents[0].roles[KOPT_ROLE_TUNER].backend = KOPT_BACKEND_BUILTIN;
	e.spec->agents[0].roles[KOPT_ROLE_CODER].llm.key_env = NULL;
	e.spec->agents[0].roles[KOPT_ROLE_TUNER].llm.key_env = NULL;
	env_free(&e);
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
	test_fresh_and_null();
	test_gamma();
	test_model_change();
	test_budget();
	test_env_change();
	test_corrupt();
	test_lock();
	test_clean_gc();
	test_variants();
	test_handed();
	free(sim_worker);
	return tap_done();
}
