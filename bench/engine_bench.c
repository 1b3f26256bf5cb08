/*
 * bench/engine_bench.c: the engine's benchmarks, with the simulated worker
 * (tests/sim-worker) and specs built in C.
 *
 *   1. engine overhead per step in a first build: koptmake's own CPU time
 *      (user + system, the workers' excluded) divided by the steps run;
 *   2. a null build of 250 models x 10 hot kernels x 16 candidates (40,000
 *      candidates, 80,750 nodes): wall time and peak RSS, with -n and for
 *      a real build (which also starts one worker to check its environment).
 *
 * usage: engine_bench [-m MODELS] [-o OVERHEAD_MODELS] [-k] [DIR]
 * DIR keeps the populated cache between runs (default: a temporary folder).
 */
#include <config.h>

#include "../tests/fixture.h"

#include <getopt.h>
#include <sys/resource.h>
#include <time.h>

struct figures {
	int status;
	double wall;      /* s */
	double cpu;       /* s, this process only */
	long maxrss_kb;
	size_t nodes;
};

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* runs engine_build in a child and reports its own figures through a pipe */
static struct figures run(const kopt_spec *spec, const struct engine_opts *o, const char *dir)
{
	int p[2];
	struct figures f = { 0 };
	if (pipe(p) < 0)
		kopt_die("pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		char *op = xasprintf("%s/bench.out", dir);
		int fo = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fo, 1);
		close(fo);
		double t0 = kopt_now();
		f.status = engine_build(spec, NULL, 0, o);
		f.wall = kopt_now() - t0;
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		f.cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
		f.maxrss_kb = ru.ru_maxrss;
		fflush(NULL);
		if (write(p[1], &f, sizeof f) != (ssize_t)sizeof f)
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &f, sizeof f) != (ssize_t)sizeof f)
		f.status = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return f;
}

static int count_lines(const char *path, const char *prefix)
{
	char *s = fx_slurp(path);
	int n = fx_count(s, prefix);
	free(s);
	return n;
}

static kopt_spec *big_spec(const char *dir, int nmodels)
{
	struct fx_opts fo;
	fx_default(&fo);
	fo.nmodels = nmodels;
	fo.budget = 16;
	fo.max_kernels = 10;
	fo.gpus = 2;
	for (int i = 0; i < nmodels; i++) {
		char *p = xasprintf("%s/models/m%d.py", dir, i);
		if (access(p, F_OK) != 0)
			fx_write_model(dir, i, "# sim: kernels 10\n");
		free(p);
	}
	return fx_spec(dir, &fo);
}

/* the node count of the spec's graph, from -t query */
static void on_nodes(const char *dir, const kopt_spec *spec)
{
	struct engine_opts q = { 0 };
	struct fx_result r;
	fx_run(dir, spec, &q, engine_tool_query, NULL, 0, &r);
	int fresh = fx_count(r.out, "fresh "), cand = fx_count(r.out, "fresh   verify ");
	printf("graph: %d nodes (%d candidates, each a propose and a verify step), all fresh\n", fresh, cand);
	fx_result_free(&r);
}

int main(int argc, char **argv)
{
	int nmodels = 250, nover = 20, c;
	bool keep = false;
	while ((c = getopt(argc, argv, "m:o:k")) != -1) {
		if (c == 'm')
			nmodels = atoi(optarg);
		else if (c == 'o')
			nover = atoi(optarg);
		else if (c == 'k')
			keep = true;
		else {
			fprintf(stderr, "usage: engine_bench [-m MODELS] [-o OVERHEAD_MODELS] [-k] [DIR]\n");
			return 2;
		}
	}
	const char *b = getenv("top_builddir");
	char *sim = xasprintf("%s/tests/sim-worker", b ? b : ".");
	fx_sim_python();
	if (access(sim, X_OK) != 0) {
		fprintf(stderr, "engine_bench: no simulated worker at %s (set top_builddir)\n", sim);
		return 2;
	}
	unsetenv("KOPT_SIM_LOG");
	unsetenv("KOPT_SIM_DELAY_MS");
	unsetenv("KOPT_LAUNCHER");
	struct engine_opts o = { 0 };
	o.worker = sim;
	o.rules = &rule_pipeline;

	/* 1. overhead per step in a first build */
	char *odir = fx_tmpdir("bench-overhead");
	kopt_spec *os = big_spec(odir, nover);
	struct figures f = run(os, &o, odir);
	char *out = xasprintf("%s/bench.out", odir);
	int steps = count_lines(out, "[");
	printf("first build: %d models, %d steps, status %d, wall %.2f s, koptmake cpu %.3f s\n", nover, steps,
	       f.status, f.wall, f.cpu);
	printf("engine overhead per step (koptmake cpu / steps, workers excluded): %.3f ms\n",
	       steps ? 1000.0 * f.cpu / steps : 0.0);
	printf("wall per step (workers included, -j 2): %.3f ms\n", steps ? 1000.0 * f.wall / steps : 0.0);
	free(out);
	fx_free(os);
	fx_rmrf(odir);
	free(odir);

	/* 2. null build of the big spec */
	char *dir = optind < argc ? xstrdup(argv[optind]) : fx_tmpdir("bench-null");
	kopt_mkdirs(dir);
	kopt_spec *spec = big_spec(dir, nmodels);
	double t0 = kopt_now();
	f = run(spec, &o, dir);
	printf("populate: %d models, status %d, %.1f s\n", nmodels, f.status, kopt_now() - t0);
	on_nodes(dir, spec);
	struct engine_opts on = o;
	on.dry_run = true;
	for (int rep = 0; rep < 3; rep++) {
		f = run(spec, &on, dir);
		char *bo = xasprintf("%s/bench.out", dir);
		char *txt = fx_slurp(bo);
		txt[strcspn(txt, "\n")] = '\0';
		printf("null build -n: %.1f ms, peak RSS %.1f MB (%s)\n", 1000.0 * f.wall, f.maxrss_kb / 1024.0, txt);
		free(txt);
		free(bo);
	}
	for (int rep = 0; rep < 3; rep++) {
		f = run(spec, &o, dir);
		printf("null build: %.1f ms, peak RSS %.1f MB, status %d\n", 1000.0 * f.wall, f.maxrss_kb / 1024.0,
		       f.status);
	}
	/* the real path: the koptmake program on a .kopt file naming the same models */
	char *kopt = xasprintf("%s/bench.kopt", dir);
	FILE *kf = fopen(kopt, "w");
	fprintf(kf, "device sim { gpus = 2  timeout = 30s }\n"
		    "agents default { budget = 16  hot = 0.05  seed = 1  max_kernels = 10 }\n"
		    "gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10 }\n"
		    "defaults { device = sim  agents = default  gates = strict }\n");
	for (int i = 0; i < nmodels; i++)
		fprintf(kf, "model m%d { source = \"models/m%d.py\" }\n", i, i);
	fprintf(kf, "target all = [");
	for (int i = 0; i < nmodels; i++)
		fprintf(kf, "%sm%d", i ? ", " : "", i);
	fprintf(kf, "]\ndefault all\n");
	fclose(kf);
	char *prog = xasprintf("%s/koptmake", b ? b : ".");
	for (int rep = 0; rep < 3 && access(prog, X_OK) == 0; rep++) {
		for (int dry_run = 1; dry_run >= 0; dry_run--) {
			double t1 = kopt_now();
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0) {
				int null = open("/dev/null", O_WRONLY);
				dup2(null, 1);
				setenv("KOPT_WORKER", sim, 1);
				execl(prog, prog, "-C", dir, "-f", "bench.kopt", dry_run ? "-n" : "-k", (char *)NULL);
				_exit(127);
			}
			int st;
			struct rusage ru;
			wait4(pid, &st, 0, &ru);
			printf("koptmake -f bench.kopt%s (the whole process, spec language included): %.1f ms, peak RSS %.1f MB, status %d\n",
			       dry_run ? " -n" : "", 1000.0 * (kopt_now() - t1), ru.ru_maxrss / 1024.0,
			       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
	}
	free(prog);
	free(kopt);
	setenv("KOPT_TRUST_ENV", "1", 1);
	f = run(spec, &o, dir);
	printf("null build, KOPT_TRUST_ENV=1 (no worker started): %.1f ms, peak RSS %.1f MB\n", 1000.0 * f.wall,
	       f.maxrss_kb / 1024.0);
	unsetenv("KOPT_TRUST_ENV");
	char *cmd = xasprintf("du -sh '%s/.kopt' | cut -f1", dir);
	fflush(NULL);
	printf("cache size: ");
	fflush(stdout);
	if (system(cmd) != 0)
		printf("?\n");
	free(cmd);
	fx_free(spec);
	if (!keep && optind >= argc)
		fx_rmrf(dir);
	free(dir);
	free(sim);
	return 0;
}
