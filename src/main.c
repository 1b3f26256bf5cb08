/*
 * src/main.c: koptmake's command line. Parses argv, loads the spec, hands
 * over to the engine, and exits: 0 success, 1 a step failed, 2 usage or
 * spec error. Nothing else lives here.
 */
#define _GNU_SOURCE
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/util.h"
#include "../engine/engine.h"
#include "../lang/lang.h"
#include "../rules/rules.h"

static void print_tools(FILE *out);

static void usage(FILE *out)
{
	fprintf(out,
		"usage: koptmake [-f FILE] [-C DIR] [-j N] [-k] [-n] [-B] [-d MODE] [-t TOOL]\n"
		"                [--remote-cache=URL] [--allow-root=DIR] [TARGET...]\n"
		"\n"
		"  -f, --file=FILE         read FILE as the spec (default: Koptfile, else the one *.kopt here)\n"
		"  -C, --directory=DIR     change to DIR before anything else\n"
		"  -j, --jobs=N            run at most N workers at once (default: per GPU, one per 4 cores, 1-4)\n"
		"  -k, --keep-going        keep going past failed steps\n"
		"  -n, --dry-run           print the steps that would run, run none\n"
		"  -B, --always-make       treat every step as stale\n"
		"  -d, --debug=MODE        debug: explain (why each stale step is stale), list\n"
		"  -t, --tool=TOOL         run a tool instead of building (below)\n"
		"  -v, --verbose           more output\n"
		"  --remote-cache=URL      share results through this HTTP cache (URL#readonly: read only;\n"
		"                          an empty URL: none, whatever the spec says)\n"
		"  --allow-root=DIR        the spec's paths may name files below DIR too (again for more)\n"
		"  -V, --version           print the version\n"
		"  -h, --help              print this\n"
		"\n");
	print_tools(out);
	fprintf(out,
		"\n"
		"environment:\n"
		"  KOPT_WORKER          the worker program (default: kopt-worker beside koptmake, else the installed one)\n"
		"  KOPT_LAUNCHER        a command that starts each worker, e.g. an srun line (a device's launcher wins)\n"
		"  KOPT_PYTHON          the Python whose packages the worker uses (torch >= 2.6, triton), and that\n"
		"                       reads the model files before a build\n"
		"  KOPT_PYTHONPATH      where the worker finds the kopt package\n"
		"  KOPT_HELION_PATH     folders (colon-separated) the worker imports Helion from, first\n"
		"  KOPT_TRUST_ENV=1     key captures on the remembered worker environment; start no worker to read it\n"
		"  KOPT_CHECK_ENV=1     start a worker to read its environment even where its witness files say unchanged\n"
		"  KOPT_LOCK_WAIT_MS    how long to wait for another koptmake that holds the cache (default 2000)\n"
		"  KOPT_LLM_BACKOFF_MS  the first wait before an LLM call is retried (default 1000, doubling)\n"
		"  KOPT_REMOTE_CACHE_AUTH  the remote cache's credentials: user:password, or Bearer TOKEN\n"
		"  KOPT_SEAL_KEY        the seal key (64 hex digits) in place of ~/.config/koptmake/seal.key\n"
		"  KOPT_SANDBOX=off     run workers without their sandbox\n"
		"  KOPT_SANDBOX_WRITE   more folders (colon-separated) that workers may write into\n"
		"  KOPT_SANDBOX_READ    more folders (colon-separated) that workers may read\n"
		"  KOPT_SANDBOX_PREINIT 0: no unconfined child starts the driver where /dev/nvidia-uvm is missing\n"
		"  KOPT_WORKER_ENV      more variables that workers get (names and NAME* prefixes)\n"
		"  KOPT_WORKER_STACKS=S every S seconds, each worker's Python stacks into .kopt/workers/\n"
		"  KOPT_COMPILE_PROGRESS=S  every S seconds of a capture's compile, what it has spent so far\n"
		"                       into its worker's log (default 30; 0: never)\n"
		"  KOPT_MEMCHECK        a candidate the static gate cannot prove in bounds: auto (compute-sanitizer\n"
		"                       where installed), require or off\n"
		"  KOPT_COMPUTE_SANITIZER, KOPT_MEMCHECK_TIMEOUT  that program, and its time limit (default 300 s)\n"
		"  KOPT_MEMCHECK_PADDING  bytes past each allocation that are part of none (default 16 MiB)\n"
		"  KOPT_GUARD_LIB       the memcheck's guarded allocator (default: kopt-guard.so beside the worker)\n"
		"  KOPT_GUARD_LIBCUDA   the driver library it loads (default: libcuda.so.1)\n"
		"  KOPT_COMPILE_JOBS    compile children per worker for a screen's next configs (0: none)\n"
		"  KOPT_TEMPLATE_THREADS=0  max-autotune's template choices compiled in Inductor's pool,\n"
		"                       not in threads of the worker (the default)\n"
		"  KOPT_TEMPLATE_CUT=0  every max-autotune template choice timed in full, not by one call\n"
		"                       where that call is 10 times the best so far and 1 ms (the default)\n"
		"  KOPT_TUNE_CACHE=0    a kernel from Inductor's graph cache searches its launch config again,\n"
		"                       not keeping the one coordinate descent found and cached (the default)\n"
		"  KOPT_GRAPH_COPY=0    CUDA graphs copy their inputs with torch's one foreach kernel, not\n"
		"                       a copy of its own for each large input (the default)\n"
		"\n"
		"koptmake(1) and kopt(5) say more.\n");
}

/* the spec's diagnostics, printed and counted for the closing line */
struct diag_count {
	int errors, warnings;
	struct kopt_diag_printer pr; /* reads each file once */
};

static void count_diag(void *ctx, const struct kopt_diag *d)
{
	struct diag_count *c = ctx;
	c->errors += d->severity == KOPT_ERROR;
	c->warnings += d->severity == KOPT_WARNING;
	kopt_diag_printer_print(&c->pr, d);
}

/* The spec file rule: -f, else ./Koptfile, else the only *.kopt in the folder. */
static char *find_spec(void)
{
	if (access("Koptfile", F_OK) == 0)
		return xstrdup("Koptfile");
	DIR *d = opendir(".");
	if (!d)
		return NULL;
	char *found = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".kopt") == 0 && e->d_name[0] != '.') {
			if (++n == 1)
				found = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (n > 1) {
		kopt_error("%d *.kopt files here; name one with -f, or call it Koptfile", n);
		free(found);
		return NULL;
	}
	if (n == 0)
		kopt_error("no spec: no Koptfile and no *.kopt file here (use -f FILE)");
	return found;
}

/*
 * The tools (`-t NAME`), ninja's tool table: each row says when the tool
 * runs. A tool that runs before the spec is loaded gets no spec.
 */
enum tool_when {
	TOOL_BEFORE_LOAD, /* needs no spec */
	TOOL_AFTER_LOAD   /* runs on the checked spec */
};

struct tool {
	const char *name;
	const char *help;
	enum tool_when when;
	engine_tool_fn *fn;
};

static int tool_dump(const kopt_spec *, const struct engine_opts *, char *const *, int);
static int tool_list(const kopt_spec *, const struct engine_opts *, char *const *, int);

static const struct tool tools[] = {
	{ "check", "check the spec and read its model files with Python's parser, run nothing", TOOL_AFTER_LOAD,
	  rule_tool_check },
	{ "dump", "print the checked spec in canonical form", TOOL_AFTER_LOAD, tool_dump },
	{ "clean", "remove the outputs in kopt-out", TOOL_AFTER_LOAD, engine_tool_clean },
	{ "distclean", "remove the outputs and the whole cache (.kopt: results, log, agents' memory, compile caches)",
	  TOOL_AFTER_LOAD, engine_tool_distclean },
	{ "gc", "remove cache entries no step of this spec reaches and remembered stitch measurements; compact the agents' memory",
	  TOOL_AFTER_LOAD, engine_tool_gc },
	{ "why", "PATH: a step's verdict, gates, numbers and reason (e.g. verify M/V/K/c3, stitch M)",
	  TOOL_AFTER_LOAD, engine_tool_why },
	{ "query", "[PATH]: every step, fresh or stale; or one step's key, inputs and result",
	  TOOL_AFTER_LOAD, engine_tool_query },
	{ "memory", "[CLASS]: the agents' long-term memory in this cache, by kernel feature class",
	  TOOL_AFTER_LOAD, rule_tool_memory },
	{ "list", "this list", TOOL_BEFORE_LOAD, tool_list },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

static int tool_dump(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)o;
	(void)args;
	(void)nargs;
	lang_dump(spec, stdout);
	return 0;
}

static int tool_list(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)spec;
	(void)o;
	(void)args;
	(void)nargs;
	print_tools(stdout);
	return 0;
}

static void print_tools(FILE *out)
{
	fprintf(out, "koptmake tools:\n");
	for (size_t i = 0; i < NTOOLS; i++)
		fprintf(out, "  %-9s %s\n", tools[i].name, tools[i].help);
}

/* the row named name; NULL after saying so, with a did-you-mean */
static const struct tool *find_tool(const char *name)
{
	const char *names[NTOOLS];
	for (size_t i = 0; i < NTOOLS; i++) {
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
		names[i] = tools[i].name;
	}
	const char *hint = kopt_suggest(name, names, NTOOLS);
	if (hint)
		kopt_error("unknown tool '%s' (did you mean '%s'?)", name, hint);
	else
		kopt_error("unknown tool '%s' (use -t list)", name);
	return NULL;
}

/* --allow-root=DIR, resolved now (a later -C does not move it); NULL
 * after an error */
static char *allow_root(const char *dir)
{
	struct stat st;
	char *real = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? realpath(dir, NULL) : NULL;
	if (!real)
		kopt_error("--allow-root: '%s' is not a folder", dir);
	return real;
}

/* --allow-root's folders, for the spec's load: freed at exit, whichever
 * return main takes */
static struct lang_opts lo;

static void free_roots(void)
{
	for (size_t i = 0; i < lo.nroots; i++)
		free((char *)lo.roots[i]);
	free((void *)lo.roots);
	lo.roots = NULL;
	lo.nroots = 0;
}

/* descriptors 0, 1 and 2 open, on /dev/null where the caller closed them
 * (git's sanitize_stdfds): else the first file koptmake opens takes one,
 * and what it prints, or a worker's stdin, lands in the cache (a build run
 * with >&- wrote its progress into .kopt/lock) */
static void sanitize_stdfds(void)
{
	int fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd < 2)
		fd = dup(fd);
	if (fd < 0)
		kopt_die("cannot open /dev/null: %s", strerror(errno));
	if (fd > 2)
		close(fd);
}

int main(int argc, char **argv)
{
	sanitize_stdfds();
	struct engine_opts opts = { .rules = &rule_pipeline };
	const char *file = NULL, *tool = NULL;
	const char **roots = xcalloc((size_t)argc + 1, sizeof *roots);
	lo.roots = roots;
	atexit(free_roots);
	/* make's long names where make has the option (GNU make's --file,
	 * --directory, --jobs, --keep-going, --dry-run, --always-make, --debug) */
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "directory", required_argument, NULL, 'C' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "always-make", no_argument, NULL, 'B' },
		{ "debug", required_argument, NULL, 'd' },
		{ "tool", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "remote-cache", required_argument, NULL, 'R' },
		{ "allow-root", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	/* options and targets in any order, as make and cargo take them
	 * (`koptmake softmax -n`); `--` ends the options */
	while ((c = getopt_long(argc, argv, "f:C:j:knBd:t:vVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': file = optarg; break;
		case 'C':
			if (chdir(optarg) < 0) {
				kopt_error("cannot change to '%s': %s", optarg, strerror(errno));
				return 2;
			}
			break;
		case 'j': {
			char *end;
			long j = strtol(optarg, &end, 10);
			if (*end || j < 0 || j > 4096) {
				kopt_error("-j wants a number of jobs, not '%s'", optarg);
				return 2;
			}
			opts.jobs = (int)j;
			break;
		}
		case 'k': opts.keep_going = true; break;
		case 'n': opts.dry_run = true; break;
		case 'B': opts.force = true; break;
		case 'd':
			if (strcmp(optarg, "explain") == 0)
				opts.explain = true;
			else if (strcmp(optarg, "list") == 0) {
				fprintf(stdout, "debug modes:\n  explain  why each stale step is stale\n");
				return 0;
			} else {
				kopt_error("unknown debug mode '%s' (use -d list)", optarg);
				return 2;
			}
			break;
		case 't': tool = optarg; break;
		case 'v': opts.verbose++; break;
		case 'R':
			if (*optarg && kopt_url_problem(optarg)) {
				kopt_error("--remote-cache: %s", kopt_url_problem(optarg));
				return 2;
			}
			opts.remote_cache = optarg;
			break;
		case 'A':
			if (!(roots[lo.nroots++] = allow_root(optarg)))
				return 2;
			break;
		case 'V': printf("koptmake %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "%s: 'koptmake --help' lists the options\n", kopt_progname);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;

	const struct tool *t = NULL;
	if (tool && !(t = find_tool(tool)))
		return 2;
	if (t && t->when == TOOL_BEFORE_LOAD)
		return t->fn(NULL, &opts, argv, argc);

	char *path = file ? xstrdup(file) : find_spec();
	if (!path)
		return 2;
	kopt_spec *spec = NULL;
	struct diag_count dc = { 0, 0, { 0 } };
	kopt_diag_printer_init(&dc.pr, stderr);
	int loaded = lang_load_opts(path, &lo, count_diag, &dc, &spec);
	free_roots();
	kopt_diag_printer_release(&dc.pr);
	if (loaded < 0) {
		/* the closing count, as a compiler gives it: nothing ran */
		if (dc.errors) {
			char w[48] = "";
			if (dc.warnings)
				snprintf(w, sizeof w, " and %d warning%s", dc.warnings, kopt_plural(dc.warnings));
			fprintf(stderr, "%s: %d error%s%s in %s; nothing was run\n", kopt_progname, dc.errors,
				kopt_plural(dc.errors), w, path);
		}
		free(path);
		return 2;
	}
	free(path);

	int status = t ? t->fn(spec, &opts, argv, argc) : engine_build(spec, argv, argc, &opts);
	kopt_spec_free(spec);
	return status;
}
