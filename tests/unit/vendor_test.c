/* tests/unit/vendor_test.c: what the analyst says about vendor calls
 * (rule_vendor_rows), on the vendor part of profiles recorded on the H200
 * (tests/fixtures/gpu/vendor-calls.json): cuBLASLt's best algorithm for two
 * attention bmms is 6% and 8% faster than torch's pick; every other GEMM is
 * within gamma of the vendor's best; cuDNN's legacy heuristic, asked for
 * FMA math only, offers one algorithm, 3.6x slower than torch's pick. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"
#include "../../rules/rules.h"
#include "../tap.h"

static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static char *rows(const json_t *models, double gamma)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name;
	json_t *v;
	json_object_foreach((json_t *)models, name, v)
		rule_vendor_rows(&sb, name, json_object_get(v, "calls"), gamma);
	return strbuf_detach(&sb);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/fixtures/gpu/vendor-calls.json", top ? top : ".");
	json_error_t err;
	json_t *fx = json_load_file(path, 0, &err);
	TAP_OK(fx != NULL, "the recorded vendor calls load (%s)", fx ? path : err.text);
	if (!fx)
		return tap_done();
	json_t *models = json_object_get(fx, "models");
	char *md = rows(models, 1.03);
	TAP_IS_INT(count(md, "\n"), 10, "one row per distinct vendor call");
	TAP_OK(strstr(md, "| transformer_block | cuBLASLt bmm | 128x m=1024 n=1024 k=64 | 1 | 524.69 | 515.33 | 493.89 (rank 4) | "
			  "leaves 6% on the table"), "a bmm: torch's pick leaves 6%%, cuBLASLt's 5th-ranked algorithm is the best");
	TAP_OK(strstr(md, "n=64 k=1024 | 1 | 424.37 | 423.97 | 389.93 (rank 1) | leaves 8% on the table"),
	       "the other bmm leaves 8%%");
	TAP_IS_INT(count(md, "at the vendor's best"), 7, "the seven mm calls are within gamma of cuBLASLt's best");
	TAP_OK(strstr(md, "| conv2d_relu | cuDNN convolution | N=32 C=64 H=128 W=128 K=128 3x3 stride 1 pad 1 | 1 | 2106.10 | "
			  "7593.63 | 7593.63 (rank 1) | torch's pick beats every algorithm the heuristic ranked (1 run)"),
	       "the convolution: torch's pick beats the one FMA algorithm cuDNN's heuristic offers");
	free(md);
	md = rows(models, 1.10);
	TAP_IS_INT(count(md, "on the table"), 0, "with gamma 1.10, no call leaves enough on the table");
	TAP_IS_INT(count(md, "at the vendor's best"), 9, "... and the bmms count as at the vendor's best");
	free(md);
	json_t *skipped = json_pack("[{s:s, s:s, s:s, s:i}]", "op", "convolution", "lib", "cuDNN", "skipped",
				    "transposed convolution", "count", 2);
	struct strbuf sb = STRBUF_INIT;
	rule_vendor_rows(&sb, "deconv", skipped, 1.03);
	TAP_OK(strstr(sb.buf, "| deconv | cuDNN convolution | - | 2 | - | - | - | not posed: transposed convolution |"),
	       "a call that cannot be posed says why");
	strbuf_release(&sb);
	json_decref(skipped);
	json_decref(fx);
	free(path);
	return tap_done();
}
