/*
 * tests/fixture.h: specs built in C (bypassing the spec language) and
 * builds run in a child process, for the engine's tests and benchmarks.
 * Header-only; include from one file per program.
 */
#ifndef KOPT_TEST_FIXTURE_H
#define KOPT_TEST_FIXTURE_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/util.h"
#include "../engine/engine.h"
#include "../lang/spec.h"
#include "../rules/rules.h"

/* a forked build ends with _exit(), which skips LeakSanitizer's check at
 * exit: the child runs it itself (a leak ends it with LSan's exit code) */
#if defined(__SANITIZE_ADDRESS__)
#define FX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FX_ASAN 1
#endif
#endif
#ifdef FX_ASAN
#include <sanitizer/lsan_interface.h>
#define fx_leak_check() __lsan_do_leak_check()
#else
#define fx_leak_check() ((void)0)
#endif

struct fx_opts {
	int nmodels;       /* models m0..m(n-1), files DIR/models/mI.py */
	int nvariants;     /* compile variants per model; 0 = 1 ("default") */
	int budget;
	double gamma;
	double hot;
	int max_kernels;
	int gpus;
	double timeout;
	const char *launcher;
};

static inline void fx_default(struct fx_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nmodels = 3;
	o->budget = 4;
	o->gamma = 1.03;
	o->hot = 0.05;
	o->max_kernels = 10;
	o->gpus = 2;
	o->timeout = 30;
}

/* The simulated worker's model files are "# sim:" lines, not KernelBench
 * models: the worker's Python that reads them before a build is
 * tests/sim-python, a TEST DOUBLE that reads them as fine (its header
 * says more). */
static inline void fx_sim_python(void)
{
	const char *s = getenv("top_srcdir");
	char *p = xasprintf("%s/tests/sim-python", s ? s : ".");
	setenv("KOPT_PYTHON", p, 1);
	free(p);
}

/* writes DIR/models/mI.py: a header line, the index, and extra lines */
static inline void fx_write_model(const char *dir, int i, const char *extra)
{
	char *p = xasprintf("%s/models", dir);
	kopt_mkdirs(p);
	free(p);
	p = xasprintf("%s/models/m%d.py", dir, i);
	FILE *f = fopen(p, "w");
	if (!f)
		kopt_die("cannot write %s", p);
	/* a call of 1 ms unless extra says otherwise: its kernels far from
	 * their bounds, so that each could pass the performance gate
	 * (rules/chains.c leaves out those that could not) */
	fprintf(f, "# a KernelBench-style model, number %d\nimport torch\n%s%s", i, extra ? extra : "",
		extra && strstr(extra, "# sim: time ") ? "" : "# sim: time 1000000\n");
	fclose(f);
	free(p);
}

static inline kopt_spec *fx_spec(const char *dir, const struct fx_opts *o)
{
	kopt_spec *s = xcalloc(1, sizeof *s);
	s->file = xasprintf("%s/test.kopt", dir);
	s->dir = xstrdup(dir);
	s->ndevices = 1;
	s->devices = xcalloc(1, sizeof *s->devices);
	s->devices[0].name = xstrdup("sim");
	s->devices[0].gpus = o->gpus;
	s->devices[0].timeout_s = o->timeout;
	s->devices[0].launcher = o->launcher ? xstrdup(o->launcher) : NULL;
	s->nagents = 1;
	s->agents = xcalloc(1, sizeof *s->agents);
	s->agents[0].name = xstrdup("default");
	s->agents[0].budget = o->budget;
	s->agents[0].hot = o->hot;
	s->agents[0].seed = 1;
	s->agents[0].max_kernels = o->max_kernels;
	s->ngates = 1;
	s->gates = xcalloc(1, sizeof *s->gates);
	struct kopt_gates *g = &s->gates[0];
	*g = lang_gates_default;
	g->name = xstrdup("strict");
	g->gamma = o->gamma;
	s->nmodels = (size_t)o->nmodels;
	s->models = xcalloc(s->nmodels + 1, sizeof *s->models);
	int nv = o->nvariants > 0 ? o->nvariants : 1;
	for (int i = 0; i < o->nmodels; i++) {
		struct kopt_model *m = &s->models[i];
		m->name = xasprintf("m%d", i);
		m->source = xasprintf("models/m%d.py", i);
		m->path = xasprintf("%s/models/m%d.py", dir, i);
		m->device = &s->devices[0];
		m->agents = &s->agents[0];
		m->gates = &s->gates[0];
		m->nvariants = (size_t)nv;
		m->variants = xcalloc((size_t)nv, sizeof *m->variants);
		for (int v = 0; v < nv; v++) {
			m->variants[v].name = v == 0 ? xstrdup("default") : xasprintf("v%d", v);
			m->variants[v].mode = v == 0 ? NULL : xstrdup("max-autotune-no-cudagraphs");
		}
	}
	s->ntargets = 1;
	s->targets = xcalloc(1, sizeof *s->targets);
	s->targets[0].name = xstrdup("all");
	s->targets[0].nmodels = s->nmodels;
	s->targets[0].models = xcalloc(s->nmodels + 1, sizeof *s->targets[0].models);
	for (size_t i = 0; i < s->nmodels; i++)
		s->targets[0].models[i] = &s->models[i];
	s->default_target = &s->targets[0];
	return s;
}

static inline void fx_free(kopt_spec *s)
{
	for (size_t i = 0; i < s->nmodels; i++) {
		struct kopt_model *m = &s->models[i];
		for (size_t v = 0; v < m->nvariants; v++) {
			free(m->variants[v].name);
			free(m->variants[v].mode);
		}
		free(m->variants);
		free(m->name);
		free(m->source);
		free(m->path);
	}
	free(s->models);
	free(s->targets[0].models);
	free(s->targets[0].name);
	free(s->targets);
	free(s->gates[0].name);
	free(s->gates);
	free(s->agents[0].name);
	free(s->agents);
	free(s->devices[0].name);
	free(s->devices[0].launcher);
	free(s->devices);
	free(s->file);
	free(s->dir);
	free(s);
}

struct fx_result {
	int status;      /* exit status, or 128+signal */
	char *out, *err; /* what it printed */
};

static inline void fx_result_free(struct fx_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static inline char *fx_slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0)
		return xstrdup("");
	return strbuf_detach(&sb);
}

/* starts a build (tool NULL) or a tool in a child; output to DIR/out, DIR/err */
static inline pid_t fx_start(const char *dir, const kopt_spec *spec, const struct engine_opts *o,
		      engine_tool_fn *tool, char *const *args, int nargs)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char *op = xasprintf("%s/out", dir), *ep = xasprintf("%s/err", dir);
		int fo = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		free(op);
		free(ep);
		dup2(fo, 1);
		dup2(fe, 2);
		close(fo);
		close(fe);
		struct engine_opts oo = *o;
		if (!oo.rules)
			oo.rules = &rule_pipeline;
		int st = tool ? tool(spec, &oo, args, nargs) : engine_build(spec, NULL, 0, &oo);
		fflush(NULL);
		fx_leak_check();
		KOPT_COVER_FLUSH(); /* a coverage build's counts, which _exit would lose */
		_exit(st < 0 ? 99 : st);
	}
	return pid;
}

static inline void fx_wait(const char *dir, pid_t pid, struct fx_result *r)
{
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	char *op = xasprintf("%s/out", dir), *ep = xasprintf("%s/err", dir);
	r->out = fx_slurp(op);
	r->err = fx_slurp(ep);
	free(op);
	free(ep);
}

static inline int fx_run(const char *dir, const kopt_spec *spec, const struct engine_opts *o, engine_tool_fn *tool,
		  char *const *args, int nargs, struct fx_result *r)
{
	fx_wait(dir, fx_start(dir, spec, o, tool, args, nargs), r);
	return r->status;
}

/* lines of text starting with prefix */
static inline int fx_count(const char *text, const char *prefix)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

/* a fresh temporary folder */
static inline char *fx_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *t = xasprintf("%s/kopt-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(t))
		kopt_die("mkdtemp: %s", strerror(errno));
	return t;
}

/* entries of folder path whose name holds part ("" : every entry, . and .. too) */
static inline int fx_files_with(const char *path, const char *part)
{
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strstr(e->d_name, part) != NULL;
	if (d)
		closedir(d);
	return n;
}

/* stderr caught while a part of a test runs: into buf (len bytes at most,
 * NUL-terminated) at fx_catch_end */
struct fx_caught {
	FILE *tmp;
	int saved;
};

static inline void fx_catch_start(struct fx_caught *c)
{
	c->tmp = tmpfile();
	fflush(stderr);
	c->saved = dup(2);
	dup2(fileno(c->tmp), 2);
}

static inline void fx_catch_end(struct fx_caught *c, char *buf, size_t len)
{
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->tmp);
	size_t got = fread(buf, 1, len - 1, c->tmp);
	buf[got] = 0;
	fclose(c->tmp);
}

static inline void fx_rmrf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
}

#endif
