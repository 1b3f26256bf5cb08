/*
 * engine/engine.c: engine_build and the tools (engine.h): opens the cache,
 * builds the graph, runs the scheduler; clean, gc, why, query, and the
 * rule set's own tools.
 */
#define _GNU_SOURCE
#include <config.h>

#include "engine.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/nofollow.h"
#include "blog.h"
#include "cache.h"
#include "dag.h"
#include "hash.h"
#include "remote.h"
#include "sched.h"
#include "worker_pool.h"

static char *spec_rel(const kopt_spec *spec, const char *what)
{
	const char *dir = spec->dir && *spec->dir ? spec->dir : ".";
	return xasprintf("%s/%s", dir, what);
}

char *engine_cache_dir(const kopt_spec *spec, const struct engine_opts *o)
{
	return o->cache_dir ? xstrdup(o->cache_dir) : spec_rel(spec, ".kopt");
}

static char *out_dir_of(const kopt_spec *spec, const struct engine_opts *o)
{
	return o->out_dir ? xstrdup(o->out_dir) : spec_rel(spec, "kopt-out");
}

/* the worker: -opts, $KOPT_WORKER, kopt-worker beside koptmake, the installed one */
static char *worker_program(const struct engine_opts *o)
{
	if (o->worker)
		return xstrdup(o->worker);
	const char *env = getenv("KOPT_WORKER");
	if (env && *env)
		return xstrdup(env);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			char *p = xasprintf("%s/kopt-worker", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xstrdup(KOPT_PKGLIBEXECDIR "/kopt-worker");
}

/*
 * Workers at most without -j: per GPU of the build (the rule set's count:
 * koptmake's, of the largest device), one for every four host cores, 1 to
 * 4. Timing steps run one per GPU whatever the count
 * (engine/worker_pool.c); the others are for captures, whose compiles are
 * the host's work and run side by side (a network's variants: minutes
 * each). Four cores a worker: Inductor compiles a variant's kernels in a
 * pool of its own.
 */
int engine_jobs_for(int gpus, long cpus)
{
	int per_gpu = cpus >= 16 ? 4 : cpus >= 4 ? (int)(cpus / 4) : 1;
	return (gpus > 0 ? gpus : 1) * per_gpu;
}

static int default_jobs(const struct rule_set *rules, const kopt_spec *spec)
{
	return engine_jobs_for(rules->gpus ? rules->gpus(spec) : 0, sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * The host's cores shared among the workers' compiles: Inductor compiles a
 * graph's kernels in a pool of its own, as many processes as the host has
 * cores; workers compiling side by side would each start that many. Each
 * gets the host's cores over the workers (at least 1), unless the user set
 * TORCHINDUCTOR_COMPILE_THREADS. Set before the first worker starts.
 */
static void share_cores(int jobs)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs <= 1 || cpus <= 0)
		return;
	char v[24];
	snprintf(v, sizeof v, "%ld", cpus / jobs > 0 ? cpus / jobs : 1);
	setenv("TORCHINDUCTOR_COMPILE_THREADS", v, 0);
}

/*
 * What workers run under (runtime/sandbox.h): no variable that the rule
 * set names secret (the spec's key_env), and a scratch folder per worker
 * slot below $TMPDIR/koptmake-UID-HASH (HASH: of this cache's path, so that
 * builds on two caches at once do not share one). The compile caches and
 * workers/ below the cache folder are made here when it exists (what
 * writes nothing makes no .kopt/), and a link there is an error: the
 * sandbox lets a worker write the compile caches, wherever they lead.
 * 0, or -1 after an error.
 */
static int sandbox_pool(wpool *pool, const struct rule_set *rules, const kopt_spec *spec, const char *cache_dir,
			bool exists)
{
	const char **deny = rules->secrets ? rules->secrets(spec) : NULL;
	char *real = realpath(cache_dir, NULL);
	const char *tmp = getenv("TMPDIR");
	char *scratch = xasprintf("%s/koptmake-%ld-%016llx", tmp && *tmp ? tmp : "/tmp", (long)getuid(),
				  (unsigned long long)hash_sum64(real ? real : cache_dir,
								 strlen(real ? real : cache_dir)));
	wpool_sandbox(pool, scratch, deny);
	/* Inductor's and Triton's caches beside koptmake's own, for every
	 * worker and build of this cache (runtime/PROTOCOL.md) */
	const char *root = real ? real : cache_dir;
	static const char *const made[] = { "compile/inductor", "compile/triton", "workers" };
	int r = 0;
	for (size_t i = 0; exists && i < sizeof made / sizeof *made && r == 0; i++) {
		int fd = nofollow_dir(root, made[i], true);
		if (fd < 0) {
			kopt_error("cannot make '%s/%s': %s", cache_dir, made[i], nofollow_why(errno));
			r = -1;
		} else {
			close(fd);
		}
	}
	char *compile = xasprintf("%s/compile", root);
	setenv("KOPT_COMPILE_CACHE", compile, 0);
	free(compile);
	/* what the workers may read besides the system's and Python's folders:
	 * the spec's and the ones it allows (runtime/sandbox.h), and the user's */
	struct strbuf reads = STRBUF_INIT;
	for (size_t i = 0; i < spec->nroots; i++)
		strbuf_addf(&reads, "%s%s", i ? ":" : "", spec->roots[i]);
	char *sdir = !spec->nroots && spec->dir ? realpath(spec->dir, NULL) : NULL; /* a spec made in C */
	if (sdir)
		strbuf_addstr(&reads, sdir);
	free(sdir);
	const char *more = getenv("KOPT_SANDBOX_READ");
	if (more && *more)
		strbuf_addf(&reads, "%s%s", reads.len ? ":" : "", more);
	if (reads.len)
		setenv("KOPT_SANDBOX_READ", reads.buf, 1);
	strbuf_release(&reads);
	wpool_log(pool, root);
	free(scratch);
	free(real);
	free(deny);
	return r;
}

struct session {
	kopt_cache *cache;
	kopt_blog *blog;
	char *out_dir;
};

/* write: the run may add to the cache. One that does not (-n, the tools, a
 * build with no steps) opens only a cache that is there, and makes no .kopt
 * folder, as make -n writes nothing. */
static int session_open(struct session *ss, const kopt_spec *spec, const struct engine_opts *o, bool write)
{
	memset(ss, 0, sizeof *ss);
	char *cd = engine_cache_dir(spec, o);
	ss->cache = write ? cache_open(cd) : cache_open_existing(cd);
	if (!ss->cache) {
		free(cd);
		return -1;
	}
	char *lp = xasprintf("%s/log", cd);
	ss->blog = blog_open(lp);
	free(lp);
	free(cd);
	ss->out_dir = out_dir_of(spec, o);
	return 0;
}

static void session_close(struct session *ss)
{
	blog_close(ss->blog);
	cache_close(ss->cache);
	free(ss->out_dir);
}

/* the remote cache a build uses (remote.h): --remote-cache, else the
 * spec's; none for -n. -1 after an error. */
static int remote_of(const kopt_spec *spec, const struct engine_opts *o, kopt_remote **out)
{
	const char *url = o->remote_cache ? o->remote_cache : spec->remote_cache;
	char *why = NULL;
	*out = NULL;
	if (!url || !*url || o->dry_run)
		return 0;
	if (!(*out = remote_new(url, &why))) {
		kopt_error("--remote-cache: %s", why);
		free(why);
		return -1;
	}
	return 0;
}

int engine_build(const kopt_spec *spec, char *const *targets, int ntargets, const struct engine_opts *opts)
{
	struct session ss;
	kopt_remote *remote;
	bool made = false; /* this run made the cache folder */
	if (remote_of(spec, opts, &remote) < 0)
		return 2;
	if (session_open(&ss, spec, opts, false) < 0) {
		remote_free(remote);
		return 2;
	}
	if (!opts->dry_run && !cache_exists(ss.cache)) {
		/* no cache yet: made only for a build that has steps */
		struct dag *d = dag_new(spec, targets, ntargets, opts, ss.cache, ss.blog, ss.out_dir);
		bool steps = d && d->nnodes > 0;
		dag_free(d);
		if (!d) {
			session_close(&ss);
			remote_free(remote);
			return 2;
		}
		if (steps) {
			session_close(&ss);
			if (session_open(&ss, spec, opts, true) < 0) {
				remote_free(remote);
				return 2;
			}
			made = true;
		}
	}
	cache_set_remote(ss.cache, remote);
	signal(SIGPIPE, SIG_IGN);
	wpool *pool = NULL;
	if (!opts->dry_run) {
		char *prog = worker_program(opts);
		int jobs = opts->jobs > 0 ? opts->jobs : default_jobs(opts->rules, spec);
		pool = wpool_new(prog, jobs);
		free(prog);
		share_cores(jobs);
		if (sandbox_pool(pool, opts->rules, spec, cache_path(ss.cache), cache_exists(ss.cache)) < 0) {
			wpool_free(pool);
			session_close(&ss);
			remote_free(remote);
			return 2;
		}
	}
	int status = 2;
	bool idle = true;
	/* a device's workers all tell of one environment (sched.c stops the
	 * build where they do not), so its remembered one changes at most once
	 * a build: one plan, one more per device; a last one to spare */
	int plans = (int)spec->ndevices + 2;
	for (int attempt = 0; attempt < plans; attempt++) {
		struct dag *d = dag_new(spec, targets, ntargets, opts, ss.cache, ss.blog, ss.out_dir);
		if (!d) {
			status = 2;
			break;
		}
		/* before the first step, and before any worker starts */
		if (attempt == 0 && d->nnodes && d->rules->precheck && (status = d->rules->precheck(d)) != 0) {
			dag_free(d);
			break;
		}
		status = sched_run(d, pool, opts->dry_run ? SCHED_DRY : SCHED_BUILD);
		idle = idle && d->idle;
		dag_free(d);
		if (status != SCHED_RESTART)
			break;
		status = 1;
		if (attempt + 1 == plans)
			kopt_error("internal: the worker environment changed at each of %d plans", plans);
	}
	wpool_free(pool);
	/* a run that made the cache folder and ran nothing (the model files
	 * are wrong, or no worker can start here) leaves none */
	bool discard = made && idle && cache_empty(ss.cache);
	char *dir = discard ? xstrdup(cache_path(ss.cache)) : NULL;
	session_close(&ss); /* sends what the remote still lacks */
	if (dir && kopt_remove_tree(dir, NULL, NULL) < 0)
		kopt_warn("cannot remove '%s', which this run made and left empty: %s", dir, strerror(errno));
	free(dir);
	if (remote && opts->verbose)
		remote_summary(remote, stderr);
	remote_free(remote);
	return status;
}

/* ---- tools ---- */

/* every target and model of the spec, evaluated against the cache */
static struct dag *plan_all(const kopt_spec *spec, const struct engine_opts *o, struct session *ss)
{
	char **names = xcalloc(spec->ntargets + spec->nmodels + 1, sizeof *names);
	int n = 0;
	for (size_t i = 0; i < spec->ntargets; i++)
		names[n++] = spec->targets[i].name;
	for (size_t i = 0; i < spec->nmodels; i++)
		names[n++] = spec->models[i].name;
	static struct engine_opts po; /* outlives the dag */
	po = *o;
	po.force = false;
	struct dag *d = dag_new(spec, names, n, &po, ss->cache, ss->blog, ss->out_dir);
	free(names);
	if (d)
		sched_run(d, NULL, SCHED_PLAN);
	return d;
}

static void human(uint64_t b, char *out, size_t n)
{
	if (b >= 10u << 20)
		snprintf(out, n, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 10u << 10)
		snprintf(out, n, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(out, n, "%llu bytes", (unsigned long long)b);
}

/* removes the files koptmake writes under dir; empty folders too */
static void clean_dir(const struct rule_set *rules, const char *dir, uint64_t *bytes, size_t *files)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				clean_dir(rules, p, bytes, files);
				rmdir(p);
			} else if (S_ISREG(st.st_mode) && rules->is_output && rules->is_output(e->d_name) &&
				   unlink(p) == 0) {
				*bytes += (uint64_t)st.st_size;
				(*files)++;
			}
		}
		free(p);
	}
	closedir(d);
}

int engine_tool_clean(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)args;
	(void)nargs;
	struct session ss;
	if (session_open(&ss, spec, o, false) < 0)
		return 2;
	uint64_t bytes = 0;
	size_t files = 0;
	clean_dir(o->rules, ss.out_dir, &bytes, &files);
	rmdir(ss.out_dir);
	char h[32];
	human(bytes, h, sizeof h);
	printf("%s: clean: removed %zu output file%s, %s freed\n", kopt_progname, files, kopt_plural(files), h);
	session_close(&ss);
	return 0;
}

/* Removes the cache folder and everything in it, the lock last, held
 * until then (a folder that is a link stays, emptied), and closes c; adds
 * the files' bytes and count. 0, or -1 after saying what stays. */
static int remove_cache(kopt_cache *c, uint64_t *bytes, size_t *files)
{
	cache_drop_writes(c);
	char *dir = xstrdup(cache_path(c)), *lock = xasprintf("%s/lock", dir);
	int r = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "lock"))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (kopt_remove_tree(p, bytes, files) < 0) {
			kopt_error("cannot remove '%s': %s", p, strerror(errno));
			r = -1;
		}
		free(p);
	}
	if (d)
		closedir(d);
	cache_close(c);
	unlink(lock);
	struct stat st;
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && rmdir(dir) < 0 && r == 0) {
		kopt_error("cannot remove '%s': %s", dir, strerror(errno));
		r = -1;
	}
	free(lock);
	free(dir);
	return r;
}

/* -t distclean: what clean removes, and the whole cache folder (make's
 * distclean: back to what was there before the first build) */
int engine_tool_distclean(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)args;
	(void)nargs;
	struct session ss;
	if (session_open(&ss, spec, o, false) < 0) /* the lock is held from here */
		return 2;
	uint64_t bytes = 0, cbytes = 0;
	size_t files = 0, cfiles = 0;
	clean_dir(o->rules, ss.out_dir, &bytes, &files);
	rmdir(ss.out_dir);
	bool had = cache_exists(ss.cache);
	char *cd = xstrdup(cache_path(ss.cache));
	blog_close(ss.blog); /* nothing of them is written again */
	ss.blog = NULL;
	int r = 0;
	if (had)
		r = remove_cache(ss.cache, &cbytes, &cfiles);
	else
		cache_close(ss.cache);
	ss.cache = NULL;
	char h[32], ch[32];
	human(bytes, h, sizeof h);
	human(cbytes, ch, sizeof ch);
	printf("%s: distclean: removed %zu output file%s (%s) and ", kopt_progname, files, kopt_plural(files), h);
	if (had)
		printf("the cache %s (%zu file%s, %s)\n", cd, cfiles, kopt_plural(cfiles), ch);
	else
		printf("no cache (none at %s)\n", cd);
	free(cd);
	session_close(&ss);
	return r < 0 ? 1 : 0;
}

int engine_tool_gc(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	(void)args;
	(void)nargs;
	struct session ss;
	if (session_open(&ss, spec, o, false) < 0)
		return 2;
	struct dag *d = plan_all(spec, o, &ss);
	if (!d) {
		session_close(&ss);
		return 2;
	}
	for (size_t i = 0; i < d->nnodes; i++)
		if (d->all[i]->flags & DAG_DONE)
			cache_mark(ss.cache, d->all[i]->key);
	uint64_t freed;
	size_t ne, no;
	int r = cache_gc(ss.cache, &freed, &ne, &no);
	char h[32];
	human(freed, h, sizeof h);
	if (!cache_exists(ss.cache))
		printf("%s: gc: no cache here yet (%s), nothing to remove\n", kopt_progname, cache_path(ss.cache));
	else
		printf("%s: gc: removed %zu cache entr%s and %zu object%s, %s freed\n", kopt_progname, ne,
	       ne == 1 ? "y" : "ies", no, kopt_plural(no), h);
	if (cache_exists(ss.cache) && d->rules->gc && d->rules->gc(d, stdout) < 0)
		r = -1;
	dag_free(d);
	session_close(&ss);
	return r < 0 ? 1 : 0;
}

/* "verify" "m/default/k/c3" typed as two words: one step name */
static char **step_args(const struct rule_set *rules, char *const *args, int nargs, int *nout)
{
	char **v = xcalloc((size_t)nargs + 1, sizeof *v);
	int n = 0;
	for (int i = 0; i < nargs; i++) {
		bool kind = false;
		for (size_t k = 0; k < rules->nrules; k++)
			kind |= strcmp(args[i], rules->rules[k]->name) == 0;
		if (kind && i + 1 < nargs)
			v[n++] = xasprintf("%s %s", args[i], args[i + 1]), i++;
		else
			v[n++] = xstrdup(args[i]);
	}
	*nout = n;
	return v;
}

static void free_args(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int tool_why_steps(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs);

static int tool_query_steps(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs);

int engine_tool_why(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	int n;
	char **v = step_args(o->rules, args, nargs, &n);
	int r = tool_why_steps(spec, o, v, n);
	free_args(v, n);
	return r;
}

int engine_tool_query(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	int n;
	char **v = step_args(o->rules, args, nargs, &n);
	int r = tool_query_steps(spec, o, v, n);
	free_args(v, n);
	return r;
}

/* "no step 'X'", with the nearest step's name where one is near (a typo),
 * else how to find one */
static void no_step(struct dag *d, const char *what, const char *otherwise)
{
	bool kind = strchr(what, ' ') != NULL;
	char **names = xcalloc(d->nnodes + 1, sizeof *names);
	for (size_t i = 0; i < d->nnodes; i++)
		names[i] = kind ? xasprintf("%s %s", d->all[i]->rule->name, d->all[i]->path) : xstrdup(d->all[i]->path);
	const char *near = kopt_suggest(what, (const char *const *)names, d->nnodes);
	if (near)
		kopt_error("no step '%s' (did you mean '%s'?)", what, near);
	else
		kopt_error("no step '%s'%s", what, otherwise);
	for (size_t i = 0; i < d->nnodes; i++)
		free(names[i]);
	free(names);
}

static int tool_why_steps(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	if (nargs < 1) {
		kopt_error("usage: koptmake -t why PATH (e.g. verify softmax/default/KERNEL/c3, or stitch softmax)");
		return 2;
	}
	struct session ss;
	if (session_open(&ss, spec, o, false) < 0)
		return 2;
	struct dag *d = plan_all(spec, o, &ss);
	int status = 0;
	for (int a = 0; d && a < nargs; a++) {
		struct dag_node *n = dag_find(d, args[a]);
		if (!n) {
			no_step(d, args[a], " (some are known once an earlier step has run; try -t query)");
			status = 2;
			continue;
		}
		if (!(n->flags & DAG_DONE)) {
			printf("%s %s: no result for the current inputs (%s)\n", n->rule->name, n->path,
			       n->why ? n->why : "not evaluated");
			status = 1;
			continue;
		}
		if (n->rule->why) {
			n->rule->why(d, n, stdout);
		} else if (n->flags & DAG_NONE) {
			printf("%s %s: nothing to do\n", n->rule->name, n->path);
		} else {
			char *js = json_dumps(dag_result(d, n), JSON_INDENT(2) | JSON_SORT_KEYS);
			printf("%s %s:\n%s\n", n->rule->name, n->path, js);
			free(js);
		}
	}
	if (!d)
		status = 2;
	dag_free(d);
	session_close(&ss);
	return status;
}

static int tool_query_steps(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	struct session ss;
	if (session_open(&ss, spec, o, false) < 0)
		return 2;
	struct dag *d = plan_all(spec, o, &ss);
	int status = d ? 0 : 2;
	if (d && nargs == 0) {
		/* every step with its state */
		for (size_t i = 0; i < d->nnodes; i++) {
			struct dag_node *n = d->all[i];
			printf("%-7s %s %s\n", n->flags & DAG_DONE ? "fresh" : n->flags & DAG_STALE ? "stale" : "waiting",
			       n->rule->name, n->path);
		}
	}
	for (int a = 0; d && a < nargs; a++) {
		struct dag_node *n = dag_find(d, args[a]);
		if (!n) {
			no_step(d, args[a], "");
			status = 2;
			continue;
		}
		char kh[HASH_HEX] = "-", oh[HASH_HEX] = "-";
		if (n->flags & DAG_EVALUATED && !(n->flags & DAG_NOKEY))
			hash_hex(n->key, kh);
		if (n->flags & DAG_DONE)
			hash_hex(n->out, oh);
		printf("%s %s\n  state   %s\n  key     %s\n  stable  %s\n", n->rule->name, n->path,
		       n->flags & DAG_DONE ? "fresh" : n->flags & DAG_STALE ? "stale" : "waiting on inputs", kh, oh);
		if (n->why)
			printf("  why     %s\n", n->why);
		for (uint32_t i = 0; i < n->ndeps; i++)
			printf("  input   %s %s\n", n->deps[i].node->rule->name, n->deps[i].node->path);
		json_t *r = dag_result(d, n);
		if (r) {
			char *js = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS);
			printf("%s\n", js);
			free(js);
		}
	}
	dag_free(d);
	session_close(&ss);
	return status;
}
