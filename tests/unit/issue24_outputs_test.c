/*
 * tests/unit/issue24_outputs_test.c: issue 24's paths and outputs, with the
 * simulated worker (a TEST DOUBLE) on specs built in C.
 *
 * - Output paths: a cache record (with a valid checksum, as a cache copied
 *   from elsewhere would have) whose output is named "../../X", "/abs",
 *   "a/b", ".", "..", "" or holds a NUL is a corrupt record: warned, the step
 *   runs again, nothing is written outside kopt-out/. So is one whose
 *   output's hash is not a hash (a number, too short) or whose size is not
 *   a count of bytes (a string, -1, a real number, null); one whose size
 *   is a count but not its object's is not restored from: the step runs
 *   again.
 * - Symbolic links planted in kopt-out/ (a file and a folder pointing
 *   outside) are replaced, never followed: the files outside stay as they
 *   were.
 * - A cached output of 0 bytes is restored, with no warning, no step run.
 * - Outputs are checked on every build: a hand-edited or emptied output is
 *   restored by a null build, from the cache, without running a step.
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

#include <jansson.h>

#include "../../engine/cache.h"
#include "../../engine/outdir.h"

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
	e->fo.nmodels = 2;
	e->fo.budget = 2;
	e->o.worker = sim_worker;
	for (int i = 0; i < e->fo.nmodels; i++)
		fx_write_model(e->dir, i, NULL);
	e->spec = fx_spec(e->dir, &e->fo);
	setenv("KOPT_SIM_LOG", e->simlog, 1);
}

static void env_free(struct env *e)
{
	fx_free(e->spec);
	fx_rmrf(e->dir);
	free(e->dir);
	free(e->simlog);
}

static char *build(struct env *e, struct fx_result *r)
{
	unlink(e->simlog);
	fx_run(e->dir, e->spec, &e->o, NULL, NULL, 0, r);
	return fx_slurp(e->simlog);
}

static char *read_rel(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	char *s = fx_slurp(p);
	free(p);
	return s;
}

static void write_rel(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	if (!f)
		kopt_die("cannot write %s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

static void test_names(void)
{
	static const char *const good[] = { "a", "report.md", "kb1/19_ReLU", "a/b/c", "..x", ".hidden" };
	static const char *const bad[] = { "", ".", "..", "/abs", "a/", "/", "a//b", "../x", "a/../b", "a/.",
					   "./a" };
	int ok = 0;
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		ok += outdir_rel_ok(good[i]);
	TAP_IS_INT(ok, (int)(sizeof good / sizeof *good), "paths of plain names are accepted");
	int rejected = 0;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		rejected += !outdir_rel_ok(bad[i]);
		if (outdir_rel_ok(bad[i]))
			tap_diag("accepted '%s'", bad[i]);
	}
	TAP_IS_INT(rejected, (int)(sizeof bad / sizeof *bad), "'', '.', '..', absolute and empty components are rejected");
	TAP_OK(!outdir_component_ok("a\0b", 3) && !outdir_component_ok("a/b", 3) && outdir_component_ok("ab", 2),
	       "a component holds no NUL and no slash");
}

/*
 * Appends to .kopt/actions a record for the report step of the target "all"
 * whose outputs are those of the last one with the output key of victim
 * renamed to bad (bad_len bytes: it may hold a NUL); legacy: as a bare hash;
 * value (a reference taken) in place of its value unless NULL (an
 * object without "hash" gets the victim's); victim NULL: the whole list of
 * outputs replaced by value.
 * Through cache_put, so its checksum is valid. 0 or -1.
 */
static int plant(const char *dir, const char *victim, const char *bad, size_t bad_len, bool legacy, json_t *value)
{
	char *ap = xasprintf("%s/.kopt/actions", dir);
	char *text = fx_slurp(ap);
	free(ap);
	char *line = NULL;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strstr(p, "\"kind\":\"report\""))
			line = p;
		p = nl + 1;
	}
	if (!line || strlen(line) < 66 + 17) {
		free(text);
		json_decref(value);
		return -1;
	}
	kopt_hash key, stable;
	line[32] = line[65] = '\0';
	hash_parse(line, &key);
	hash_parse(line + 33, &stable);
	line[strlen(line + 66) + 66 - 17] = '\0';
	json_t *m = json_loads(line + 66, 0, NULL);
	free(text);
	json_t *outs = json_object_get(m, "outputs");
	json_t *v = victim ? json_object_get(outs, victim) : NULL;
	if (!victim) { /* the whole list replaced by value */
		json_object_set_new(m, "outputs", value);
	} else if (!v) {
		json_decref(m);
		json_decref(value);
		return -1;
	}
	if (victim) {
		if (json_is_object(value) && !json_object_get(value, "hash"))
			json_object_set(value, "hash", json_object_get(v, "hash"));
		json_t *nv = value ? value : legacy ? json_incref(json_object_get(v, "hash")) : json_incref(v);
		json_object_del(outs, victim);
		json_object_setn_new_nocheck(outs, bad, bad_len, nv);
	}
	char *js = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	char *cd = xasprintf("%s/.kopt", dir);
	kopt_cache *c = cache_open(cd);
	free(cd);
	int r = c ? cache_put(c, key, stable, js) : -1;
	cache_close(c);
	free(js);
	return r;
}

static void test_bad_records(void)
{
	static const struct {
		const char *name;
		size_t len; /* 0: strlen */
		const char *what;
		bool legacy;
	} bad[] = {
		{ "../../issue24-X", 0, "'../../X'", false },
		{ "all/../../issue24-X", 0, "'all/../../X'", false },
		{ "/tmp/issue24-X", 0, "an absolute path", false },
		{ "all/a/b", 0, "'a/b' in the step's folder", false },
		{ "m0/report.md", 0, "another step's folder", false },
		{ "all/.", 0, "'.'", false },
		{ "all/..", 0, "'..'", false },
		{ "all/", 0, "an empty name", false },
		{ "", 0, "an empty path", false },
		{ "all/x\0../../issue24-X", 22, "a NUL", false },
		{ "../../issue24-X", 0, "'../../X' in a record of the older form", true },
	};
	struct env e;
	struct fx_result r;
	env_init(&e, "i24-records");
	char *log = build(&e, &r);
	TAP_IS_INT(r.status, 0, "records: the first build succeeds");
	fx_result_free(&r);
	free(log);
	char *want = read_rel(e.dir, "kopt-out/all/report.md");
	/* where "../../X" would land from kopt-out/ and from kopt-out/all/ */
	char *parent = xstrdup(e.dir);
	*strrchr(parent, '/') = '\0';
	char *out1 = xasprintf("%s/issue24-X", parent), *out2 = xasprintf("%s/issue24-X", e.dir);
	unlink(out1);
	unlink(out2);
	unlink("/tmp/issue24-X");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].name);
		int p = plant(e.dir, "all/report.md", bad[i].name, len, bad[i].legacy, NULL);
		char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
		unlink(rp); /* the build must restore it: with the bad record, it cannot */
		log = build(&e, &r);
		char *got = read_rel(e.dir, "kopt-out/all/report.md");
		TAP_OK(p == 0 && r.status == 0 && strstr(r.err, "corrupt cache entry for report all") &&
		       strstr(r.out, "report all") && strcmp(got, want) == 0,
		       "a record naming %s: warned, the step runs again, its outputs are whole", bad[i].what);
		if (p || r.status || !strstr(r.err, "corrupt cache entry"))
			tap_diag("plant %d, status %d, err: %s", p, r.status, r.err);
		TAP_OK(access(out1, F_OK) < 0 && access(out2, F_OK) < 0 && access("/tmp/issue24-X", F_OK) < 0,
		       "a record naming %s: nothing is written outside kopt-out", bad[i].what);
		free(got);
		free(rp);
		fx_result_free(&r);
		free(log);
		log = build(&e, &r);
		TAP_OK(r.status == 0 && strstr(r.out, "nothing to do") && !strstr(r.err, "corrupt"),
		       "a record naming %s: the next build has nothing to do", bad[i].what);
		fx_result_free(&r);
		free(log);
	}
	/* a record whose output has a hash that is not one, or a size that is
	 * not a count of bytes: corrupt, warned, the step runs again */
	size_t size = strlen(want);
	const struct {
		json_t *value;
		const char *what;
	} badv[] = {
		{ json_pack("{s:i, s:I}", "hash", 12, "size", (json_int_t)size), "a hash that is a number" },
		{ json_pack("{s:s, s:I}", "hash", "0123", "size", (json_int_t)size), "a hash of 4 hex digits" },
		{ json_pack("{s:s}", "size", "12"), "a size that is a string" },
		{ json_pack("{s:I}", "size", (json_int_t)-1), "a size of -1" },
		{ json_pack("{s:f}", "size", (double)size), "a size that is a real number" },
		{ json_pack("{s:n}", "size"), "a size of null" },
	};
	for (size_t i = 0; i < sizeof badv / sizeof *badv; i++) {
		int p = plant(e.dir, "all/report.md", "all/report.md", strlen("all/report.md"), false, badv[i].value);
		char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
		unlink(rp);
		log = build(&e, &r);
		char *got = read_rel(e.dir, "kopt-out/all/report.md");
		TAP_OK(p == 0 && r.status == 0 &&
		       strstr(r.err, "corrupt cache entry for report all: output 'all/report.md' is not a file name in the "
				     "step's folder 'all'; the step will run again") &&
		       strstr(r.out, "report all") && strcmp(got, want) == 0,
		       "a record whose output has %s: warned, the step runs again, its outputs are whole", badv[i].what);
		if (p || r.status || !strstr(r.err, "corrupt cache entry"))
			tap_diag("plant %d, status %d, err: %s", p, r.status, r.err);
		free(got);
		free(rp);
		fx_result_free(&r);
		free(log);
	}
	/* a size of 0 or one byte off, a sound record of another object: not
	 * restored from it (the object is not that size); the step runs again,
	 * with no warning */
	const json_int_t off[] = { (json_int_t)size + 1, (json_int_t)size - 1, 0 };
	for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
		int p = plant(e.dir, "all/report.md", "all/report.md", strlen("all/report.md"), false,
			      json_pack("{s:I}", "size", off[i]));
		char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
		unlink(rp);
		log = build(&e, &r);
		char *got = read_rel(e.dir, "kopt-out/all/report.md");
		TAP_OK(p == 0 && r.status == 0 && !strstr(r.err, "corrupt") && strstr(r.out, "report all") &&
		       strcmp(got, want) == 0,
		       "a record whose output's size is %lld, the object's %zu: the step runs again, its outputs are whole",
		       (long long)off[i], size);
		free(got);
		free(rp);
		fx_result_free(&r);
		free(log);
	}
	/* a record whose list of outputs is not a list (a string, as a cache
	 * from elsewhere could hold): corrupt, warned, the step runs again */
	int p = plant(e.dir, NULL, NULL, 0, false, json_string("report.md"));
	char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
	unlink(rp);
	log = build(&e, &r);
	char *got = read_rel(e.dir, "kopt-out/all/report.md");
	TAP_OK(p == 0 && r.status == 0 &&
	       strstr(r.err, "corrupt cache entry for report all: its outputs cannot be read; the step will run again") &&
	       strstr(r.out, "report all") && strcmp(got, want) == 0,
	       "a record whose outputs are not a list: warned, the step runs again, its outputs are whole");
	free(got);
	free(rp);
	fx_result_free(&r);
	free(log);
	free(out1);
	free(out2);
	free(parent);
	free(want);
	env_free(&e);
}

/*
 * A cached output of 0 bytes ({"hash": the empty object's, "size": 0}) is a
 * sound record: a null build restores it, as an empty file, with no
 * warning and no step run
 */
static void test_empty_output(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "i24-empty");
	char *log = build(&e, &r);
	TAP_IS_INT(r.status, 0, "empty output: the first build succeeds");
	fx_result_free(&r);
	free(log);
	char *cd = xasprintf("%s/.kopt", e.dir);
	kopt_cache *c = cache_open(cd);
	free(cd);
	kopt_hash h;
	int put = c ? cache_object_put(c, "", 0, &h) : -1;
	cache_close(c);
	char hex[HASH_HEX];
	hash_hex(h, hex);
	int p = put < 0 ? -1 : plant(e.dir, "all/report.md", "all/report.md", strlen("all/report.md"), false,
				     json_pack("{s:s, s:i}", "hash", hex, "size", 0));
	char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
	unlink(rp);
	log = build(&e, &r);
	struct stat st;
	int there = stat(rp, &st) == 0;
	TAP_OK(p == 0 && r.status == 0 && *log == '\0' && r.err[0] == '\0' && there && st.st_size == 0 &&
	       strstr(r.out, "nothing to run; 1 output file restored from the cache"),
	       "a cached output of 0 bytes is restored empty, with no warning and no step run");
	if (p || r.status || *log || r.err[0] || !there || st.st_size)
		tap_diag("plant %d, status %d, %s, steps run: %s, out: %s, err: %s", p, r.status,
			 there ? "there" : "missing", log, r.out, r.err);
	fx_result_free(&r);
	free(log);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0' && r.err[0] == '\0' && strstr(r.out, "nothing to do"),
	       "... and the next build finds it as recorded: nothing to do");
	fx_result_free(&r);
	free(log);
	free(rp);
	env_free(&e);
}

static void test_symlinks(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "i24-links");
	char *log = build(&e, &r);
	TAP_IS_INT(r.status, 0, "links: the first build succeeds");
	fx_result_free(&r);
	free(log);
	char *want_md = read_rel(e.dir, "kopt-out/all/report.md");
	char *want_prof = read_rel(e.dir, "kopt-out/m0/profile.md");
	char *outside = xasprintf("%s/outside", e.dir);
	kopt_mkdirs(outside);
	write_rel(e.dir, "outside/secret", "not koptmake's\n");

	/* a file: kopt-out/all/report.md -> outside/secret */
	char *rp = xasprintf("%s/kopt-out/all/report.md", e.dir);
	char *sp = xasprintf("%s/secret", outside);
	unlink(rp);
	TAP_OK(symlink(sp, rp) == 0, "links: planted kopt-out/all/report.md -> a file outside");
	/* a folder: kopt-out/m0 -> outside */
	char *m0 = xasprintf("%s/kopt-out/m0", e.dir);
	fx_rmrf(m0);
	TAP_OK(symlink(outside, m0) == 0, "links: planted kopt-out/m0 -> a folder outside");
	log = build(&e, &r);
	char *secret = read_rel(e.dir, "outside/secret");
	TAP_IS_STR(secret, "not koptmake's\n", "links: the file outside is untouched");
	struct stat st;
	TAP_OK(lstat(rp, &st) == 0 && S_ISREG(st.st_mode), "links: kopt-out/all/report.md is a file again");
	char *got = read_rel(e.dir, "kopt-out/all/report.md");
	TAP_IS_STR(got, want_md, "links: with the build's report");
	free(got);
	TAP_OK(lstat(m0, &st) == 0 && S_ISDIR(st.st_mode), "links: kopt-out/m0 is a folder again");
	got = read_rel(e.dir, "kopt-out/m0/profile.md");
	TAP_IS_STR(got, want_prof, "links: with the model's outputs");
	free(got);
	char *ls = xasprintf("%s/profile.md", outside);
	TAP_OK(access(ls, F_OK) < 0, "links: nothing was written into the folder outside");
	free(ls);
	TAP_OK(r.status == 0 && *log == '\0' && strstr(r.err, "is a symbolic link") &&
	       strstr(r.err, "is not a folder"), "links: no step ran, and the build said what it replaced");
	if (r.status || *log)
		tap_diag("status %d, ran: %s, err: %s", r.status, log, r.err);
	fx_result_free(&r);
	free(log);
	free(secret);
	free(m0);
	free(sp);
	free(rp);
	free(outside);
	free(want_md);
	free(want_prof);
	env_free(&e);
}

static void test_checked(void)
{
	struct env e;
	struct fx_result r;
	env_init(&e, "i24-checked");
	char *log = build(&e, &r);
	TAP_IS_INT(r.status, 0, "checked: the first build succeeds");
	fx_result_free(&r);
	free(log);
	char *md = read_rel(e.dir, "kopt-out/all/report.md");
	char *js = read_rel(e.dir, "kopt-out/all/report.json");
	char *sub = read_rel(e.dir, "kopt-out/m1/substitutions.json");
	/* an edit that keeps the size, an emptied file, an appended line */
	char *edited = xstrdup(md);
	edited[0] = edited[0] == '#' ? '%' : '#';
	write_rel(e.dir, "kopt-out/all/report.md", edited);
	write_rel(e.dir, "kopt-out/all/report.json", "");
	char *longer = xasprintf("%sby hand\n", sub);
	write_rel(e.dir, "kopt-out/m1/substitutions.json", longer);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0' && strstr(r.out, "nothing to run; 3 output files restored from the cache"),
	       "checked: the null build runs no step, and says it restored the three files");
	char *got = read_rel(e.dir, "kopt-out/all/report.md");
	TAP_IS_STR(got, md, "checked: a hand-edited report.md (same size) is restored");
	free(got);
	got = read_rel(e.dir, "kopt-out/all/report.json");
	TAP_IS_STR(got, js, "checked: an emptied report.json is restored");
	free(got);
	got = read_rel(e.dir, "kopt-out/m1/substitutions.json");
	TAP_IS_STR(got, sub, "checked: a longer substitutions.json is restored");
	free(got);
	TAP_OK(strstr(r.err, "report.md' does not match the build's output (its bytes changed)") &&
	       strstr(r.err, "report.json' does not match the build's output (it is empty)") &&
	       strstr(r.err, "substitutions.json' does not match the build's output (its size changed)"),
	       "checked: each restore is said, with why");
	if (!strstr(r.err, "its bytes changed"))
		tap_diag("%s", r.err);
	fx_result_free(&r);
	free(log);
	log = build(&e, &r);
	TAP_OK(r.status == 0 && *log == '\0' && !strstr(r.err, "does not match"),
	       "checked: the build after has nothing to restore");
	fx_result_free(&r);
	free(log);
	free(longer);
	free(edited);
	free(md);
	free(js);
	free(sub);
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
	test_names();
	test_bad_records();
	test_empty_output();
	test_symlinks();
	test_checked();
	free(sim_worker);
	return tap_done();
}
