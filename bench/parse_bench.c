/*
 * bench/parse_bench.c: time to parse and check a large spec.
 *
 *   bench/parse_bench [N] [RUNS]
 *
 * Writes N small model files (default 1000) to a temp folder, then two
 * specs: one that declares each model by hand (with a variant, references
 * and a target listing all of them) and one that takes them with a single
 * glob. Prints the median wall time of RUNS (default 7) lang_load() +
 * kopt_spec_free() calls for each, then removes the folder. Not run by the
 * tests: `make bench/parse_bench && bench/parse_bench`.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "lang/lang.h"

static void quiet(void *ctx, const struct kopt_diag *d)
{
	if (d->severity == KOPT_ERROR)
		++*(int *)ctx;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_load(const char *path, int runs, size_t *nmodels)
{
	double *t = xcalloc((size_t)runs, sizeof *t);
	for (int i = 0; i < runs; i++) {
		int errors = 0;
		kopt_spec *spec = NULL;
		double t0 = kopt_now();
		if (lang_load(path, quiet, &errors, &spec) < 0)
			kopt_die("%s: %d errors", path, errors);
		*nmodels = spec->nmodels;
		kopt_spec_free(spec);
		t[i] = kopt_now() - t0;
	}
	qsort(t, (size_t)runs, sizeof *t, cmp);
	double m = t[runs / 2];
	free(t);
	return m;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		kopt_die("cannot write %s", path);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 1 || runs < 1)
		kopt_die("usage: parse_bench [N] [RUNS]");
	char dir[] = "/tmp/parse_bench.XXXXXX";
	if (!mkdtemp(dir))
		kopt_die("mkdtemp failed");
	char *models = xasprintf("%s/models", dir);
	if (mkdir(models, 0777) < 0)
		kopt_die("cannot create %s", models);

	struct strbuf spec = STRBUF_INIT;
	strbuf_addstr(&spec, "device h200 { gpu = \"H200\" timeout = 10m }\n"
			     "agents default { budget = 16 hot = 5% }\n"
			     "gates strict { seeds = 5 gamma = 1.03 }\n"
			     "defaults { device = h200 agents = default gates = strict }\n"
			     "ROOT = \"models\"\n");
	for (int i = 0; i < n; i++) {
		char *py = xasprintf("%s/m%05d.py", models, i);
		write_file(py, "# a model\n");
		free(py);
		strbuf_addf(&spec, "model m%05d {\n  source = \"${ROOT}/m%05d.py\"\n  gates = strict\n"
			    "  variant tuned { mode = \"max-autotune\" options = { \"coordinate_descent_tuning\" = true } }\n}\n",
			    i, i);
	}
	strbuf_addstr(&spec, "target all = [");
	for (int i = 0; i < n; i++)
		strbuf_addf(&spec, "%sm%05d", i ? ", " : "", i);
	strbuf_addstr(&spec, "]\n");
	char *by_hand = xasprintf("%s/by-hand.kopt", dir);
	write_file(by_hand, spec.buf);
	char *by_glob = xasprintf("%s/by-glob.kopt", dir);
	write_file(by_glob, "models kb = glob(\"models/*.py\") { variant tuned { mode = \"max-autotune\" } }\n"
			    "target all = [kb]\n");

	size_t nm = 0;
	double hand = median_load(by_hand, runs, &nm);
	printf("parse+check %zu models declared one by one (%zu bytes): %.2f ms (median of %d)\n",
	       nm, spec.len, hand * 1e3, runs);
	double glob = median_load(by_glob, runs, &nm);
	printf("parse+check %zu models from one glob: %.2f ms (median of %d)\n", nm, glob * 1e3, runs);

	for (int i = 0; i < n; i++) {
		char *py = xasprintf("%s/m%05d.py", models, i);
		unlink(py);
		free(py);
	}
	unlink(by_hand);
	unlink(by_glob);
	rmdir(models);
	rmdir(dir);
	free(models);
	free(by_hand);
	free(by_glob);
	strbuf_release(&spec);
	return 0;
}
