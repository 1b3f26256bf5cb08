/* tests/unit/pick_test.c: the choice across a model's compile variants
 * (rule_pick_variant): times in the first variant's terms, a passed
 * variant's stitched time, else its compiled baseline. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../rules/rules.h"
#include "../../rules/space.h"
#include "../tap.h"

static size_t pick(const double *b, const double *o, const bool *p, size_t n, bool *optimized)
{
	size_t best = 99;
	*optimized = rule_pick_variant(b, o, p, n, 1.03, &best);
	return best;
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
	return tap_done();
}
