/*
 * tests/unit/gates_edge_test.c: the gates at the edges the design names
 * (gates/gates.h), each worked out by hand:
 *   - strict precision: a candidate's RMSE to fp64 may be m times the
 *     baseline's plus 4 ulps of the outputs' scale, m = 2 for fp32 and 3
 *     for half types;
 *   - the noise rule: the lower quartile of the pairs' ratios must be at
 *     least 1, and exactly 1 passes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gates/gates.h"
#include "../tap.h"

static int precision(const char *dtype, double cand, double base)
{
	char text[256];
	/* ref_rms 1e-9: the ulp term (4 x 2^-10 x 1e-9 at most) is far below the margins here */
	snprintf(text, sizeof text, "{\"outputs\":[{\"index\":0,\"dtype\":\"%s\",\"rmse_cand\":%.17g,\"rmse_base\":%.17g,\"ref_rms\":1e-9}]}",
		 dtype, cand, base);
	json_t *n = json_loads(text, 0, NULL);
	struct kopt_gates cfg;
	gate_config_default(&cfg);
	struct gate_verdict v;
	gate_verdict_init(&v);
	int ok = gate_precision_json(n, &cfg, &v);
	json_decref(n);
	return ok;
}

int main(void)
{
	/* fp16: m = 3. A candidate 2.5x the baseline's error passes, 3.5x fails */
	TAP_OK(precision("float16", 2.5e-3, 1e-3), "precision: fp16 at 2.5x the baseline's RMSE passes (m = 3)");
	TAP_OK(!precision("float16", 3.5e-3, 1e-3), "precision: fp16 at 3.5x fails");
	/* fp32: m = 2. 1.9x passes, 2.5x fails */
	TAP_OK(precision("float32", 1.9e-6, 1e-6), "precision: fp32 at 1.9x passes (m = 2)");
	TAP_OK(!precision("float32", 2.5e-6, 1e-6), "precision: fp32 at 2.5x fails");

	/* five pairs, ratios 1.0 1.0 1.2 1.2 1.2: the lower quartile sits at
	 * the second sorted ratio, (5 - 1) / 4 = 1 exactly: 1.0; the speedup,
	 * median 120 over median 100, is 1.2 */
	double base[] = { 100, 120, 100, 120, 120 }, cand[] = { 100, 100, 100, 100, 100 };
	struct gate_verdict v;
	gate_verdict_init(&v);
	TAP_OK(gate_perf(base, 5, cand, 5, 1.03, 3, GATE_LEVEL_KERNEL, &v), "perf: a lower quartile of exactly 1 passes");
	TAP_OK(v.kernel.ratio_q25 == 1.0 && fabs(v.kernel.speedup - 1.2) < 1e-12, "perf: q25 1.0, speedup 1.2 (%g, %g)",
	       v.kernel.ratio_q25, v.kernel.speedup);
	/* two pairs at 0.99: the quartile falls under 1 */
	double base2[] = { 99, 120, 99, 120, 120 };
	gate_verdict_init(&v);
	TAP_OK(!gate_perf(base2, 5, cand, 5, 1.03, 3, GATE_LEVEL_KERNEL, &v) && strstr(v.reason, "within the noise"),
	       "perf: a lower quartile under 1 fails as noise");
	return tap_done();
}
