/* tests/unit/gain_test.c: the rules' priorities (rules.h): what a hot kernel
 * can win, t = share x (1 - frac of the copy bandwidth), a model variant's
 * -log(1 - sum of t), on a profile result made up here. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../rules/plan.h"
#include "../tap.h"

/* a profile with five rows: frac_peak given, only achieved_gbps, neither,
 * above 1, below 0 */
static const char profile[] =
	"{\"kind\":\"profile\",\"path\":\"m/default\",\"stable\":{\"kernels\":[]},\"meas\":{\"peak_copy_gbps\":4000,"
	"\"rows\":[{\"name\":\"k1\",\"share\":0.5,\"frac_peak\":0.2},"
	"{\"name\":\"k2\",\"share\":0.3,\"achieved_gbps\":3000},"
	"{\"name\":\"k3\",\"share\":0.1},"
	"{\"name\":\"k4\",\"share\":0.05,\"frac_peak\":1.3},"
	"{\"name\":\"k5\",\"share\":1.0,\"frac_peak\":-0.1}]}}";

static int close_to(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

int main(void)
{
	struct dag d;
	struct dag_node pn;
	memset(&d, 0, sizeof d);
	memset(&pn, 0, sizeof pn);
	pn.manifest = profile;
	pn.manifest_len = strlen(profile);
	struct rule_mv mv;
	memset(&mv, 0, sizeof mv);
	mv.profile = &pn;
	struct rule_kernel ks[4];
	const char *names[] = { "k1", "k2", "k3", "k4" };
	const double shares[] = { 0.5, 0.3, 0.1, 0.05 };
	memset(ks, 0, sizeof ks);
	for (int i = 0; i < 4; i++) {
		ks[i].mv = &mv;
		ks[i].name = names[i];
		ks[i].share = shares[i];
	}
	mv.kernels = ks;
	mv.nkernels = 4;
	TAP_OK(close_to(rule_kernel_gain(&d, &ks[0]), 0.5 * 0.8), "a kernel at a fifth of the copy bandwidth: share x 0.8");
	TAP_OK(close_to(rule_kernel_gain(&d, &ks[1]), 0.3 * 0.25),
	       "without frac_peak: achieved over the profile's copy bandwidth (3000 of 4000)");
	TAP_OK(close_to(rule_kernel_gain(&d, &ks[2]), 0.1 * 0.5), "no bandwidth known: half its share");
	TAP_OK(close_to(rule_kernel_gain(&d, &ks[3]), 0), "above the copy bandwidth: nothing to win");
	double g = rule_gain(&d, &mv);
	TAP_OK(close_to(g, -log(1 - (0.4 + 0.075 + 0.05))), "the variant: -log(1 - sum of t) = %.4f", g);

	struct rule_mv all;
	memset(&all, 0, sizeof all);
	all.profile = &pn;
	struct rule_kernel whole = { .mv = &all, .name = "k5", .share = 1.0 };
	all.kernels = &whole;
	all.nkernels = 1;
	TAP_OK(close_to(rule_kernel_gain(&d, &whole), 1.0), "a frac_peak below 0 counts as 0");
	TAP_OK(close_to(rule_gain(&d, &all), -log(0.001)), "a kernel that could take all of the time: held at 0.999");
	json_decref(pn.result);
	return tap_done();
}
