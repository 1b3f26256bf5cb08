/*
 * gates/perf.c: gate 4, faster by at least gamma and outside the noise.
 *
 * The worker times baseline and candidate interleaved (b0 c0 b1 c1 ...), with
 * the L2 flushed before each run, and sends the samples in order, so base[i]
 * and cand[i] form a pair measured back to back under the same conditions
 * (clocks, temperature, whatever else shares the machine).
 *
 * The speedup is median(base) / median(cand): medians, because one run caught
 * by a clock change or a neighbour must not move the figure.
 *
 * The noise rule. The speedup must be at least gamma, and the lower quartile
 * of the per-pair ratios r_i = base_i / cand_i must be at least 1: in about
 * three pairs out of four the candidate ran faster than the baseline it was
 * paired with. Why this rule:
 *
 *   - Pairing cancels drift that slows both sides alike, which the two
 *     medians taken apart do not: a candidate timed while the GPU clocked
 *     down looks slower or faster by the drift, but its ratio to the
 *     baseline next to it does not.
 *   - It is a sign test in quantile form. If the candidate were no faster,
 *     each pair would be a coin flip; three wins in four is unlikely by
 *     chance: with 10 pairs, P(at least 8 wins) = 56/1024 = 5.5%, with 20
 *     pairs P(at least 15) = 2.1%. (The quartile is interpolated, so the
 *     correspondence with a win count is close, not exact.)
 *   - It needs no distribution and no resampling: deterministic, so a
 *     verdict replays the same from the recorded samples.
 *   - It catches what the medians miss: a bimodal candidate, or a baseline
 *     with a few slow samples, whose medians differ by gamma while the pairs
 *     disagree with each other.
 *
 * Quartiles interpolate linearly between order statistics (R's type 7,
 * numpy's default). Too few pairs is a failure. The worker times up to
 * `repeats` pairs but stops early when the question is settled: the lower
 * quartile of the ratios at gamma or more (a stronger condition than the
 * rule above: with 6 pairs at least five are faster by gamma), or the upper
 * quartile below gamma (the median cannot reach it). So fewer pairs reach
 * this rule only where the evidence is one-sided; a close call gets every
 * pair. The fewest accepted is gate_min_pairs() (gates.h).
 */
#include "gates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* q-quantile of sorted x[0..n-1], n >= 1 */
static double quantile(const double *x, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	double frac = pos - (double)lo;
	return x[lo] + (x[hi] - x[lo]) * frac;
}

static double median_of(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof *s);
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double m = quantile(s, n, 0.5);
	free(s);
	return m;
}

static bool positive_time(double x)
{
	return isfinite(x) && x > 0;
}

int gate_timing_stats(const double *base, const double *cand, size_t n, struct gate_timing *t)
{
	memset(t, 0, sizeof *t);
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!positive_time(base[i]) || !positive_time(cand[i]))
			return -1;
	double *r = xmalloc(n * sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = base[i] / cand[i];
	qsort(r, n, sizeof *r, cmp_double);
	t->pairs = n;
	t->base_median = median_of(base, n);
	t->cand_median = median_of(cand, n);
	t->speedup = t->base_median / t->cand_median;
	t->ratio_q25 = quantile(r, n, 0.25);
	t->ratio_median = quantile(r, n, 0.5);
	t->ratio_q75 = quantile(r, n, 0.75);
	t->noise = (t->ratio_q75 - t->ratio_q25) / t->ratio_median;
	free(r);
	return 0;
}

/* "12.3 us", "1.46 ms", "850 ns" */
static const char *fmt_ns(char *buf, size_t n, double ns)
{
	if (ns < 1e4)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e7)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	return buf;
}

/* Common checks of one level; fills the level's timing. false = failed (reason set). */
static bool level_stats(const double *base, size_t nbase, const double *cand, size_t ncand,
			size_t min_pairs, const char *lvl, struct gate_timing *t, struct gate_verdict *v)
{
	if (nbase != ncand) {
		gate_reason(v, "perf: %s samples are not pairs (%zu baseline, %zu candidate)", lvl, nbase, ncand);
		return false;
	}
	if (nbase < min_pairs) {
		gate_reason(v, "perf: %s has %zu timing pairs, gates ask for %zu", lvl, nbase, min_pairs);
		return false;
	}
	for (size_t i = 0; i < nbase; i++) {
		if (!positive_time(base[i]) || !positive_time(cand[i])) {
			gate_reason(v, "perf: %s sample %zu is not a positive time", lvl, i);
			return false;
		}
	}
	gate_timing_stats(base, cand, nbase, t);
	return true;
}

bool gate_perf(const double *base, size_t nbase, const double *cand, size_t ncand,
	       double gamma, size_t min_pairs, enum gate_level level, struct gate_verdict *v)
{
	const char *lvl = level == GATE_LEVEL_MODEL ? "model" : "kernel";
	struct gate_timing *t = level == GATE_LEVEL_MODEL ? &v->model : &v->kernel;
	char b1[32], b2[32];

	v->gate = GATE_PERF;
	v->gates_run |= 1u << GATE_PERF;
	v->gamma = gamma;
	v->pass = false;
	if (!level_stats(base, nbase, cand, ncand, min_pairs, lvl, t, v))
		return false;
	if (t->speedup < gamma) {
		gate_reason(v, "perf: %s speedup %.3fx < gamma %.3g (baseline %s, candidate %s)",
			    lvl, t->speedup, gamma, fmt_ns(b1, sizeof b1, t->base_median),
			    fmt_ns(b2, sizeof b2, t->cand_median));
		return false;
	}
	if (t->ratio_q25 < 1.0) {
		gate_reason(v, "perf: %s speedup %.3fx is within the noise: pair ratios' lower quartile %.3f < 1 (spread %.0f%%)",
			    lvl, t->speedup, t->ratio_q25, 100 * t->noise);
		return false;
	}
	gate_reason(v, "perf: %s %.3fx >= gamma %.3g (pair ratios' lower quartile %.3f, spread %.0f%%)",
		    lvl, t->speedup, gamma, t->ratio_q25, 100 * t->noise);
	v->pass = true;
	return true;
}

bool gate_no_regression(const double *base, size_t nbase, const double *cand, size_t ncand,
			size_t min_pairs, struct gate_verdict *v)
{
	struct gate_timing *t = &v->model;
	v->gate = GATE_PERF;
	v->gates_run |= 1u << GATE_PERF;
	v->pass = false;
	if (!level_stats(base, nbase, cand, ncand, min_pairs, "model", t, v))
		return false;
	if (t->speedup < 1.0 && t->ratio_q75 < 1.0) {
		gate_reason(v, "perf: model slower: %.3fx, pair ratios' upper quartile %.3f < 1",
			    t->speedup, t->ratio_q75);
		return false;
	}
	gate_reason(v, "perf: model %.3fx, not slower (pair ratios' upper quartile %.3f)",
		    t->speedup, t->ratio_q75);
	v->pass = true;
	return true;
}
