/*
 * tests/unit/lang_test.c: the lang_ API beyond what the golden tests see:
 * return values and ownership, defaults as spec.h states them, lookups,
 * errors that need no spec text, and that loading writes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "lang/lang.h"
#include "lang/load.h"
#include "tests/tap.h"

struct seen {
	int errors, warnings;
	char last[512];
};

static void collect(void *ctx, const struct kopt_diag *d)
{
	struct seen *s = ctx;
	if (d->severity == KOPT_ERROR)
		s->errors++;
	else if (d->severity == KOPT_WARNING)
		s->warnings++;
	snprintf(s->last, sizeof s->last, "%s", d->message);
}

static const char *cases_dir(void)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/tests/golden/cases", top ? top : ".");
	return buf;
}

static kopt_spec *load(const char *text, struct seen *s)
{
	kopt_spec *spec = (kopt_spec *)1;
	memset(s, 0, sizeof *s);
	int r = lang_load_buffer("unit.kopt", cases_dir(), text, strlen(text), collect, s, &spec);
	TAP_OK((r == 0) == (spec != NULL), "return value and *out agree");
	return spec;
}

static void test_errors_without_text(void)
{
	struct seen s = { 0 };
	kopt_spec *spec = (kopt_spec *)1;
	TAP_IS_INT(lang_load("/nonexistent/spec.kopt", collect, &s, &spec), -1, "missing spec fails");
	TAP_OK(spec == NULL, "missing spec: *out is NULL");
	TAP_IS_STR(s.last, "cannot read spec: No such file or directory", "missing spec message");

	memset(&s, 0, sizeof s);
	TAP_IS_INT(lang_load(cases_dir(), collect, &s, &spec), -1, "a folder as the spec fails");
	TAP_IS_STR(s.last, "cannot read spec: not a regular file", "folder message");

	/* the length is refused before a byte is read */
	memset(&s, 0, sizeof s);
	TAP_IS_INT(lang_load_buffer("big.kopt", ".", "", (size_t)1 << 31, collect, &s, &spec), -1,
		   "a 2 GiB spec is refused");
	TAP_IS_STR(s.last, "file is too large", "too large message");
}

static void test_defaults(void)
{
	struct seen s;
	kopt_spec *spec = load("model m { source = \"models/softmax.py\" }\n", &s);
	if (!TAP_OK(spec != NULL, "minimal spec loads")) {
		tap_diag("last: %s", s.last);
		return;
	}
	TAP_IS_INT(s.errors + s.warnings, 0, "no diagnostics");
	TAP_IS_INT(spec->ndevices, 1, "implicit device");
	TAP_IS_INT(spec->nagents, 1, "implicit agents");
	TAP_IS_INT(spec->ngates, 1, "implicit gates");
	const struct kopt_device *d = &spec->devices[0];
	TAP_IS_STR(d->name, "default", "implicit device name");
	TAP_OK(d->gpu == NULL && d->launcher == NULL, "device gpu, launcher default to NULL");
	TAP_IS_INT(d->gpus, 1, "gpus default");
	TAP_OK(d->timeout_s == 600, "timeout default 600 s");
	const struct kopt_agents *a = &spec->agents[0];
	TAP_IS_INT(a->budget, 16, "budget default");
	TAP_OK(a->hot == 0.05, "hot default");
	TAP_IS_INT(a->seed, 0, "seed default");
	TAP_IS_INT(a->llm_calls, 32, "llm_calls default");
	TAP_IS_INT(a->tokens, 200000, "tokens default");
	TAP_OK(a->wall_s == 1800, "wall default");
	TAP_IS_INT(a->max_kernels, 10, "max_kernels default");
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		TAP_IS_INT(a->roles[r].backend, KOPT_BACKEND_BUILTIN, "roles default to builtin");
	const struct kopt_gates *g = &spec->gates[0];
	TAP_IS_INT(g->seeds, 5, "seeds default");
	TAP_OK(g->atol == 1e-4 && g->rtol == 1e-4, "atol, rtol default");
	TAP_OK(g->atol_half == 1e-2 && g->rtol_half == 1e-2, "half tolerances default");
	TAP_OK(g->fp64_fallback, "fp64_fallback default");
	TAP_OK(g->gamma == 1.03, "gamma default");
	TAP_IS_INT(g->repeats, 10, "repeats default");
	TAP_IS_INT(g->precision, KOPT_PRECISION_STRICT, "precision default");
	const struct kopt_model *m = kopt_spec_model(spec, "m");
	if (TAP_OK(m != NULL, "kopt_spec_model finds m")) {
		TAP_OK(m->device == d && m->agents == a && m->gates == g, "model points into the spec's arrays");
		TAP_IS_INT(m->nvariants, 1, "one variant");
		TAP_IS_STR(m->variants[0].name, "default", "named default");
		TAP_OK(m->group == NULL, "no group");
		TAP_IS_INT(m->loc.line, 1, "model line");
		TAP_IS_STR(m->loc.file, "unit.kopt", "model file");
		TAP_OK(strstr(m->path, "tests/golden/cases/models/softmax.py") != NULL, "path resolved against dir");
	}
	TAP_OK(kopt_spec_model(spec, "nope") == NULL, "absent model is NULL");
	TAP_OK(spec->default_target == NULL, "no default target");
	kopt_spec_free(spec);
}

/* a model's shapes read back, each with its settings; the spec frees
 * them all (under the sanitizers or valgrind, a shape not freed fails) */
static void test_shapes_read(void)
{
	struct seen s;
	kopt_spec *spec = load("model m { source = \"models/shaped.py\"\n"
			       "  shape b1 { batch_size = 1 }\n  shape b8 { batch_size = 8  dim = 64 }\n}\n", &s);
	const struct kopt_model *m = spec ? kopt_spec_model(spec, "m") : NULL;
	TAP_OK(m && m->nshapes == 2 && !strcmp(m->shapes[0].name, "b1") && m->shapes[0].nset == 1 &&
		       !strcmp(m->shapes[0].set[0].key, "batch_size") && !strcmp(m->shapes[0].set[0].json, "1") &&
		       !strcmp(m->shapes[1].name, "b8") && m->shapes[1].nset == 2 && !strcmp(m->shapes[1].set[1].key, "dim") &&
		       !strcmp(m->shapes[1].set[1].json, "64"),
	       "shapes: two read back in order, each with its settings as written (%s)", s.last);
	kopt_spec_free(spec);
	/* a name may begin with a capital (KernelBench's M, N, K) */
	spec = load("model m { source = \"models/shaped.py\"\n  shape big { N = 4096 }\n}\n", &s);
	m = spec ? kopt_spec_model(spec, "m") : NULL;
	TAP_OK(m && m->nshapes == 1 && m->shapes[0].nset == 1 && !strcmp(m->shapes[0].set[0].key, "N") &&
		       !strcmp(m->shapes[0].set[0].json, "4096"),
	       "shapes: a name that begins with a capital is a Python name (%s)", s.last);
	kopt_spec_free(spec);
}

static void test_targets_and_dump(void)
{
	struct seen s;
	const char *text =
		"device d { gpus = 2 }\n"
		"agents a { coder = llm(\"anthropic\", model = \"c\")\n"
		"           debugger = llm(\"openai\", model = \"c\", url = \"http://gpu-box:8000/v1\", insecure_http = true) }\n"
		"models g = glob(\"kb/level1/*.py\")\n"
		"model m { source = \"models/matmul.py\" }\n"
		"target all = [g, m, g]\n"
		"target t = [m]\n";
	kopt_spec *spec = load(text, &s);
	if (!TAP_OK(spec != NULL, "spec with targets loads"))
		return;
	const struct kopt_target *all = kopt_spec_target(spec, "all");
	TAP_OK(all && spec->default_target == all, "a target named all is the default");
	TAP_IS_INT(all ? all->nmodels : 0, 4, "group expanded, duplicates dropped");
	TAP_OK(kopt_spec_target(spec, "t") && kopt_spec_target(spec, "t")->models[0] == kopt_spec_model(spec, "m"),
	       "target points at the model");
	TAP_OK(kopt_spec_target(spec, "m") == NULL, "a model is not a target");
	const struct kopt_model *k = kopt_spec_model(spec, "g/2_Softmax");
	TAP_OK(k && strcmp(k->group, "g") == 0, "glob member named group/stem");
	const struct kopt_llm *l = &spec->agents[0].roles[KOPT_ROLE_CODER].llm;
	TAP_IS_STR(l->key_env, "ANTHROPIC_API_KEY", "anthropic key variable by default");
	TAP_OK(l->url == NULL, "url NULL by default");
	TAP_OK(!l->insecure_http && spec->agents[0].roles[KOPT_ROLE_DEBUGGER].llm.insecure_http,
	       "insecure_http: false by default, set when the spec says so");

	char *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	FILE *f1 = open_memstream(&b1, &n1), *f2 = open_memstream(&b2, &n2);
	lang_dump(spec, f1);
	lang_dump(spec, f2);
	fclose(f1);
	fclose(f2);
	TAP_OK(n1 > 0 && n1 == n2 && memcmp(b1, b2, n1) == 0, "dump is deterministic");
	free(b1);
	free(b2);
	kopt_spec_free(spec);
	kopt_spec_free(NULL); /* a no-op: a crash here fails the program */
}

static void test_errors_and_warnings(void)
{
	struct seen s;
	kopt_spec *spec = load("models g = glob(\"nothing/*.py\")\n", &s);
	TAP_OK(spec != NULL, "a warning does not fail the load");
	TAP_IS_INT(s.warnings, 1, "one warning");
	kopt_spec_free(spec);

	spec = load("device d { gpus = 0 }\ndevice e { gpus = -1 }\nbogus\n", &s);
	TAP_OK(spec == NULL, "errors fail the load");
	TAP_IS_INT(s.errors, 3, "every error reported");
}

/* regression: target expansion recursed once per link and overflowed the
 * stack on a long chain of targets each naming the next */
static void test_long_target_chain(void)
{
	struct strbuf sb = STRBUF_INIT;
	const int n = 300000;
	strbuf_addstr(&sb, "model m { source = \"models/softmax.py\" }\n");
	for (int i = 0; i < n - 1; i++)
		strbuf_addf(&sb, "target t%d = t%d\n", i, i + 1);
	strbuf_addf(&sb, "target t%d = m\n", n - 1);
	struct seen s;
	kopt_spec *spec = load(sb.buf, &s);
	TAP_OK(spec != NULL, "a chain of %d targets loads", n);
	if (spec)
		TAP_OK(spec->targets[0].nmodels == 1 && spec->targets[0].models[0] == &spec->models[0],
		       "the head of the chain reaches the model");
	kopt_spec_free(spec);
	strbuf_release(&sb);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_writes_nothing(void)
{
	char dir[] = "/tmp/lang_test.XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char *path = xasprintf("%s/spec.kopt", dir);
	FILE *f = fopen(path, "w");
	fputs("include \"nope.kopt\"\nmodel m { source = \"m.py\" }\n", f);
	fclose(f);
	int before = count_entries(dir);
	struct seen s = { 0 };
	kopt_spec *spec = NULL;
	TAP_IS_INT(lang_load(path, collect, &s, &spec), -1, "bad spec on disk fails");
	TAP_IS_INT(count_entries(dir), before, "a spec with errors changes nothing on disk");
	unlink(path);
	rmdir(dir);
	free(path);
}

/* issue 24: a chain of 20,000 includes overflowed the stack; at most 200
 * files deep, with an error naming where the chain went too deep */
static int write_chain(const char *dir, int n)
{
	for (int k = 0; k <= n; k++) {
		char *p = xasprintf("%s/%d.kopt", dir, k);
		FILE *f = fopen(p, "w");
		free(p);
		if (!f)
			return -1;
		if (k < n)
			fprintf(f, "include \"%d.kopt\"\n", k + 1);
		else
			fputs("device d { gpus = 1 }\n", f);
		fclose(f);
	}
	return 0;
}

static void remove_chain(const char *dir, int n)
{
	for (int k = 0; k <= n; k++) {
		char *p = xasprintf("%s/%d.kopt", dir, k);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

static void test_include_chain(void)
{
	char dir[] = "/tmp/lang_test.XXXXXX";
	if (!mkdtemp(dir) || write_chain(dir, 20000) < 0) {
		TAP_OK(0, "a chain of 20,000 include files written");
		return;
	}
	char *top = xasprintf("%s/0.kopt", dir);
	struct seen s = { 0 };
	kopt_spec *spec = NULL;
	TAP_IS_INT(lang_load(top, collect, &s, &spec), -1, "a chain of 20,000 includes fails, and does not crash");
	char *want = xasprintf("include '%s/200.kopt' nested too deeply: more than 200 files", dir);
	TAP_IS_STR(s.last, want, "it says where the chain went too deep");
	TAP_IS_INT(s.errors, 1, "once");
	free(want);
	/* the last file 199 includes: 200 files deep is allowed */
	char *last = xasprintf("%s/199.kopt", dir);
	FILE *f = fopen(last, "w");
	fputs("device d { gpus = 1 }\n", f);
	fclose(f);
	memset(&s, 0, sizeof s);
	TAP_IS_INT(lang_load(top, collect, &s, &spec), 0, "a chain of 200 files loads");
	TAP_IS_INT(spec ? (long long)spec->nfiles : -1, 200, "all 200 read");
	kopt_spec_free(spec);
	free(last);
	free(top);
	remove_chain(dir, 20000);
}

/* a glob whose pattern walks a folder that cannot be read: that folder
 * gives nothing, the others' matches are members all the same, and no
 * warning or error is said (glob(3) without GLOB_ERR). The spec is read in
 * a child; as root, one that has become nobody, since root reads any
 * folder. */
static int glob_in_child(const char *dir, const char *unreadable, int fd)
{
	if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 3;
	DIR *d = opendir(unreadable);
	if (d) {
		closedir(d);
		return 4; /* the folder is read all the same: nothing to see */
	}
	const char *text = "models g = glob(\"kb/*/*.py\")\n";
	struct seen s = { 0 };
	kopt_spec *spec = NULL;
	lang_load_buffer("unit.kopt", dir, text, strlen(text), collect, &s, &spec);
	char out[600];
	int n = snprintf(out, sizeof out, "%zu %s %d %d %s", spec ? spec->nmodels : 0,
			 spec && spec->nmodels ? spec->models[0].name : "-", s.errors, s.warnings, s.last);
	kopt_spec_free(spec);
	return write(fd, out, (size_t)n) == n ? 0 : 5;
}

static void test_glob_unreadable_folder(void)
{
	char dir[] = "/tmp/lang_test.XXXXXX";
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	char make[256], c[64];
	snprintf(make, sizeof make, "cd '%s' && mkdir -p kb/a kb/c && : > kb/a/m.py && : > kb/c/n.py && chmod 0 kb/c", dir);
	snprintf(c, sizeof c, "%s/kb/c", dir);
	int fd[2] = { -1, -1 };
	char got[600] = "";
	int st = 0;
	if (system(make) == 0 && pipe(fd) == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			close(fd[0]);
			int r = glob_in_child(dir, c, fd[1]);
			KOPT_COVER_FLUSH();
			_exit(r);
		}
		close(fd[1]);
		ssize_t r = pid > 0 ? read(fd[0], got, sizeof got - 1) : -1;
		got[r > 0 ? r : 0] = '\0';
		close(fd[0]);
		if (pid > 0)
			waitpid(pid, &st, 0);
	}
	if (WIFEXITED(st) && (WEXITSTATUS(st) == 3 || WEXITSTATUS(st) == 4))
		TAP_OK(1, "glob: a folder that cannot be read gives nothing, the others' matches are members # SKIP %s",
		       WEXITSTATUS(st) == 3 ? "cannot become nobody" : "the folder can be read all the same");
	else
		TAP_IS_STR(got, "1 g/m 0 0 ", "glob: a folder that cannot be read gives nothing, the others' matches are "
			   "members, nothing said");
	snprintf(make, sizeof make, "chmod -R u+rwx '%s' && rm -rf '%s'", dir, dir);
	if (system(make) != 0)
		tap_diag("could not remove %s", dir);
}

/* paths: a file's folder and a path under a folder, at their edges */
static void test_paths(void)
{
	static const char *const dirs[][2] = { { "a/b/c.kopt", "a/b" }, { "c.kopt", "." }, { "/c.kopt", "/" },
					       { "/a/c.kopt", "/a" }, { "a/", "a" } };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char *d = lang_dir_of(dirs[i][0]);
		TAP_IS_STR(d, dirs[i][1], "lang_dir_of: a file's folder");
		free(d);
	}
	static const char *const joins[][3] = { { "a", "b", "a/b" },	 { "a/", "b", "a/b" }, { "/", "b", "/b" },
						{ ".", "b", "b" },	 { "", "b", "b" },     { "a", "/b", "/b" },
						{ "a//", "b", "a//b" }, { "./a", "b", "./a/b" } };
	for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
		char *j = lang_join(joins[i][0], joins[i][1]);
		TAP_IS_STR(j, joins[i][2], "lang_join: one slash between, none added after one, none for . or nothing, an absolute path as it is");
		free(j);
	}
}

/* the names a spec file has (what an include may name): a Koptfile, in
 * any folder and by an absolute path (an include is checked by its real
 * path too), or a *.kopt file with a name before the suffix */
static void test_spec_names(void)
{
	static const struct { const char *path; bool spec; } n[] = {
		{ "Koptfile", true },       { "sub/Koptfile", true },  { "/abs/dir/Koptfile", true },
		{ "x.kopt", true },         { "dir/x.kopt", true },    { "/abs/x.kopt", true },
		{ "sub/Koptfile.bak", false }, { "sub/MyKoptfile", false }, { "dir/.kopt", false },
		{ "x.kopt.txt", false },    { "dir/kopt", false },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
		if (lang_spec_name(n[i].path) == n[i].spec)
			right++;
		else
			tap_diag("%s: %s", n[i].path, n[i].spec ? "a spec's name, not taken" : "taken for a spec's name");
	}
	TAP_OK(right == (int)(sizeof n / sizeof *n), "spec names: a Koptfile in any folder or by an absolute path, a *.kopt file");
}

/* public_env: env() of names that look like secrets' reads each name the
 * defaults list, first and last; a name it leaves out is still refused.
 * The loader owns the list and frees every name of it, whether the load
 * succeeds or fails (under the sanitizers, a name not freed fails) */
static void test_public_env(void)
{
	struct seen s;
	setenv("KOPT_UNIT_TOKEN_SRC", "models/shaped.py", 1);
	kopt_spec *spec = load("S = env(\"KOPT_UNIT_TOKEN_SRC\", \"models/softmax.py\")\n"
			       "T = env(\"KOPT_UNIT_SECRET_SRC\", \"models/softmax.py\")\n"
			       "defaults { public_env = [\"KOPT_UNIT_TOKEN_SRC\", \"KOPT_UNIT_PASSWORD\", \"KOPT_UNIT_SECRET_SRC\"] }\n"
			       "model m { source = \"${S}\" }\nmodel n { source = \"${T}\" }\n", &s);
	const struct kopt_model *m = spec ? kopt_spec_model(spec, "m") : NULL, *n = spec ? kopt_spec_model(spec, "n") : NULL;
	if (!TAP_OK(m && n && s.errors == 0 && !strcmp(m->source, "models/shaped.py") && !strcmp(n->source, "models/softmax.py"),
		    "public_env: env() reads the secret-looking names it lists, the first and the last"))
		tap_diag("last: %s", s.last);
	kopt_spec_free(spec);
	spec = load("S = env(\"KOPT_UNIT_TOKEN_SRC\", \"models/softmax.py\")\n"
		    "defaults { public_env = [\"KOPT_UNIT_PASSWORD\", \"KOPT_UNIT_SECRET_SRC\"] }\n"
		    "model m { source = \"${S}\" }\n", &s);
	TAP_OK(!spec && s.errors == 1 && strstr(s.last, "env(\"KOPT_UNIT_TOKEN_SRC\") would keep a secret"),
	       "public_env: a secret-looking name it does not list is refused (%s)", s.last);
	kopt_spec_free(spec);
	unsetenv("KOPT_UNIT_TOKEN_SRC");
}

int main(void)
{
	test_spec_names();
	test_errors_without_text();
	test_defaults();
	test_shapes_read();
	test_targets_and_dump();
	test_errors_and_warnings();
	test_long_target_chain();
	test_writes_nothing();
	test_include_chain();
	test_paths();
	test_glob_unreadable_folder();
	test_public_env();
	return tap_done();
}
