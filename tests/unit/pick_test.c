/* tests/unit/pick_test.c: the choice across a model's compile variants
 * (rule_pick_variant): times in the first variant's terms, a passed
 * variant's stitched time, else its compiled baseline; with the race's
 * rounds, the noise rule. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../rules/rules.h"
#include "../../rules/space.h"
#include "../tap.h"

static size_t pick(const double *b, const double *o, const bool *p, size_t n, bool *optimized)
{
	size_t best = 99;
	*optimized = rule_pick_variant(b, o, p, NULL, n, 1.03, &best);
	return best;
}

/* the race's rounds of two variants: the first's all 100 us, the
 * second's 100 / r[i] (r: the first's time over the second's, round by
 * round); the second's NULL where r is */
static json_t *rounds2(const double *r, size_t n)
{
	json_t *a = json_array(), *b = r ? json_array() : json_null();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(a, json_real(100.0));
		if (r)
			json_array_append_new(b, json_real(100.0 / r[i]));
	}
	return json_pack("[o, o]", a, b);
}

static size_t pick_raced(const double *b, const double *o, const bool *p, const double *r, size_t nr,
			 bool *optimized)
{
	json_t *rounds = rounds2(r, nr);
	size_t best = 99;
	*optimized = rule_pick_variant(b, o, p, rounds, 2, 1.03, &best);
	json_decref(rounds);
	return best;
}

static void test_noise(void)
{
	bool opt;
	/* the GPT-2 block at b16 (bench/results/2026-12-06k-h200-shapes):
	 * default 903.7 us, max-autotune 856.4 us by the race's medians */
	double b[] = { 903.7, 856.4 };
	bool none[] = { false, false };
	double steady[12], wide[] = { 0.80, 0.85, 0.90, 0.95, 1.00, 1.05, 1.06, 1.10, 1.15, 1.20, 1.25, 1.30 };
	for (size_t i = 0; i < 12; i++)
		steady[i] = 1.055 + (i % 3 == 0 ? -0.004 : i % 3 == 1 ? 0.004 : 0.0);
	TAP_OK(pick_raced(b, b, none, steady, 12, &opt) == 1 && opt,
	       "every round 5.5%% faster: the later variant, optimized");
	TAP_OK(pick_raced(b, b, none, wide, 12, &opt) == 0 && !opt,
	       "the same medians from rounds that disagree (a quarter 6%% or more slower): the first kept, "
	       "not optimized");
	TAP_OK(pick_raced(b, b, none, wide, 5, &opt) == 1 && opt,
	       "five rounds, fewer than the gates' fewest pairs: the medians decide");
	TAP_OK(pick_raced(b, b, none, NULL, 12, &opt) == 1 && opt,
	       "rounds for the first variant only: the medians decide");
	/* the ratios are taken in the times' terms: the first variant's
	 * winners (100 -> 95 us) narrow the later one's lead (90 us) to 5.6%%,
	 * inside these rounds' spread, though 11%% over its baseline is not */
	double b5[] = { 100, 90 }, o5[] = { 95, 90 };
	bool p5[] = { true, false };
	double r5[] = { 1.0, 1.02, 1.04, 1.05, 1.08, 1.10, 1.122, 1.13, 1.15, 1.17, 1.2, 1.22 };
	TAP_OK(pick_raced(b5, o5, p5, r5, 12, &opt) == 0 && opt,
	       "against the first variant's stitched time, not its baseline: it stays, optimized");
	double o6[] = { 100, 90 };
	bool p6[] = { false, false };
	TAP_OK(pick_raced(b5, o6, p6, r5, 12, &opt) == 1 && opt, "... and without its winners the later one wins");
	/* a round that is no time: the medians decide */
	double r7[12];
	for (size_t i = 0; i < 12; i++)
		r7[i] = wide[i];
	r7[4] = INFINITY;
	TAP_OK(pick_raced(b, b, none, r7, 12, &opt) == 1 && opt, "a round of no time (0 us): the medians decide");
	/* six rounds, the gates' fewest pairs, are enough for the rule */
	double r8[] = { 0.80, 0.85, 1.20, 1.25, 1.30, 1.35 };
	TAP_OK(pick_raced(b, b, none, r8, 6, &opt) == 0 && !opt, "six rounds that disagree: the rule applies, the first kept");
	/* rounds for the later variant only: nothing to pair them with */
	json_t *only = json_pack("[n, [f, f, f, f, f, f, f, f]]", 90.0, 91.0, 89.0, 95.0, 85.0, 90.0, 92.0, 88.0);
	size_t best = 99;
	opt = rule_pick_variant(b, b, none, only, 2, 1.03, &best);
	json_decref(only);
	TAP_OK(best == 1 && opt, "rounds for the later variant only: the medians decide");
	/* at exactly 1, as the gates' "at least": a quarter of the rounds
	 * level (ratio 1), the rest 11% faster; the medians 100 and 90 */
	double b9[] = { 100, 90 }, r9[12];
	for (size_t i = 0; i < 12; i++)
		r9[i] = i % 3 == 0 ? 1.0 : 100.0 / 90.0;
	TAP_OK(pick_raced(b9, b9, none, r9, 12, &opt) == 1 && opt, "the rounds' lower quartile at exactly 1: it wins");
}

int main(void)
{
	bool opt;
	/* softmax on the H200: default stitched 361 (passed), autotune's code 380 */
	double b1[] = { 396, 380 }, o1[] = { 361, 380 };
	bool p1[] = { true, false };
	TAP_OK(pick(b1, o1, p1, 2, &opt) == 0 && opt, "the first variant's stitch beats the second's code: first, optimized");
	/* cross_entropy: default's code 332, autotune's 269, no winners */
	double b2[] = { 332, 269 }, o2[] = { 332, 269 };
	bool p2[] = { false, false };
	TAP_OK(pick(b2, o2, p2, 2, &opt) == 1 && opt, "max-autotune's code faster by gamma: it, optimized");
	/* equal to the float's last bit: the earlier stays */
	double b3[] = { 132.705, 132.705 }, o3[] = { 112.488, 112.488 - 1e-12 };
	bool p3[] = { true, true };
	TAP_OK(pick(b3, o3, p3, 2, &opt) == 0 && opt, "two passed variants within the noise: the earlier stays");
	double o4[] = { 112.488, 110.0 };
	TAP_OK(pick(b3, o4, p3, 2, &opt) == 0, "a later variant 2%% faster (gamma 3%%) does not displace it");
	double o5[] = { 112.488, 108.0 };
	TAP_OK(pick(b3, o5, p3, 2, &opt) == 1 && opt, "one 4%% faster does");
	/* nothing passed, the other variants within the noise: the baseline stays */
	double b6[] = { 100, 98.5, 99 }, o6[] = { 100, 98.5, 99 };
	bool p6[] = { false, false, false };
	TAP_OK(pick(b6, o6, p6, 3, &opt) == 0 && !opt, "no winner, no variant faster by gamma: baseline kept");
	/* the third variant counts against the best so far, not only the first */
	double b7[] = { 100, 96, 95 }, o7[] = { 100, 96, 95 };
	TAP_OK(pick(b7, o7, p6, 3, &opt) == 1 && opt, "the second by gamma over the first; the third within the noise of the second");
	double b8[] = { 100, NAN, 90 }, o8[] = { 100, NAN, 90 };
	TAP_OK(pick(b8, o8, p6, 3, &opt) == 2 && opt, "a variant without a time is skipped");
	/* no variant with a time: the first, as it is, whatever the others passed */
	double b9[] = { NAN, NAN }, o9[] = { NAN, NAN };
	bool p9[] = { false, true };
	TAP_OK(pick(b9, o9, p9, 2, &opt) == 0 && !opt, "no variant with a time: the first, not optimized");
	bool p10[] = { true };
	TAP_OK(pick(b9, o9, p10, 1, &opt) == 0 && opt, "... one variant without a time: it, optimized as it passed");
	double b11[] = { 100, 0 }, b12[] = { 2.0, 0.9 }, b13[] = { 103, 100 };
	TAP_OK(pick(b11, b11, p6, 2, &opt) == 0 && !opt, "a variant of 0 (an untimed stitch's answer) is no time: skipped");
	TAP_OK(pick(b12, b12, p6, 2, &opt) == 1 && opt, "times in any unit: one under 1 counts");
	TAP_OK(pick(b13, b13, p6, 2, &opt) == 1 && opt, "faster by exactly gamma (103 against 100): at least gamma, it wins");
	test_noise();
	return tap_done();
}
