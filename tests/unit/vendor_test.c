/* tests/unit/vendor_test.c: what the analyst says about vendor calls
 * (and, at the end, about the implementation space: eager against compiled)
 * (rule_vendor_rows), on the vendor part of profiles recorded on the H200
 * (tests/fixtures/gpu/vendor-calls.json): cuBLASLt's best algorithm for two
 * attention bmms is 6% and 8% faster than torch's pick; every other GEMM is
 * within gamma of the vendor's best; cuDNN's legacy heuristic, asked for
 * FMA math only, offers one algorithm, 3.6x slower than torch's pick. */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"
#include "../../rules/rules.h"
#include "../../rules/space.h"
#include "../../rules/vendor.h"
#include "../tap.h"

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
	/* the recording is what the manifest says the GPU machine wrote */
	char *check = xasprintf("python3 '%s/tests/gpu/manifest.py' check '%s/tests/fixtures/gpu' >&2", top ? top : ".",
				top ? top : ".");
	if (system(check) != 0) {
		printf("Bail out! the GPU fixtures do not match their manifest\n");
		return 1;
	}
	free(check);
	json_error_t err;
	json_t *fx = json_load_file(path, 0, &err);
	TAP_OK(fx != NULL, "the recorded vendor calls load (%s)", fx ? path : err.text);
	if (!fx)
		return tap_done();
	json_t *models = json_object_get(fx, "models");
	char *md = rows(models, 1.03);
	TAP_IS_INT(tap_count(md, "\n"), 10, "one row per distinct vendor call");
	TAP_OK(strstr(md, "| transformer_block | cuBLASLt bmm | 128x m=1024 n=1024 k=64 | 1 | 524.69 | 515.33 | 493.89 (rank 4) | "
			  "leaves 6% on the table"), "a bmm: torch's pick leaves 6%%, cuBLASLt's 5th-ranked algorithm is the best");
	TAP_OK(strstr(md, "n=64 k=1024 | 1 | 424.37 | 423.97 | 389.93 (rank 1) | leaves 8% on the table"),
	       "the other bmm leaves 8%%");
	TAP_IS_INT(tap_count(md, "on the table: torch picks its own cuBLAS algorithm; a max-autotune variant tries Triton GEMMs |"), 2,
		   "a cuBLAS call that leaves room: the advice is a max-autotune variant's Triton GEMMs");
	TAP_IS_INT(tap_count(md, "at the vendor's best"), 7, "the seven mm calls are within gamma of cuBLASLt's best");
	TAP_OK(strstr(md, "| conv2d_relu | cuDNN convolution | N=32 C=64 H=128 W=128 K=128 3x3 stride 1 pad 1 | 1 | 2106.10 | "
			  "7593.63 | 7593.63 (rank 1) | torch's pick beats every algorithm the heuristic ranked (1 run)"),
	       "the convolution: torch's pick beats the one FMA algorithm cuDNN's heuristic offers");
	free(md);
	{
		json_t *conv = json_deep_copy(json_array_get(json_object_get(json_object_get(models, "conv2d_relu"), "calls"), 0));
		json_object_set_new(conv, "torch_ns", json_real(9000000.0));
		json_t *calls = json_pack("[o]", conv);
		struct strbuf sb = STRBUF_INIT;
		rule_vendor_rows(&sb, "slow_conv", calls, 1.03);
		TAP_OK(strstr(sb.buf, "| slow_conv | cuDNN convolution | ") &&
			       strstr(sb.buf, "leaves 16% on the table: a variant with cudnn_benchmark = true may find it |"),
		       "a cuDNN call that leaves room: the advice is cudnn_benchmark ('%s')", sb.buf);
		strbuf_release(&sb);
		json_decref(calls);
	}
	md = rows(models, 1.10);
	TAP_IS_INT(tap_count(md, "on the table"), 0, "with gamma 1.10, no call leaves enough on the table");
	TAP_IS_INT(tap_count(md, "at the vendor's best"), 9, "... and the bmms count as at the vendor's best");
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

	/* implementation space: avgpool2d's default variant against eager's
	 * kernel, as measured on the H200 (735.8 us and 337.8 us) */
	struct kopt_variant dflt = { .name = "default" };
	struct kopt_agents manual = { .name = "manual", .auto_variants = false };
	struct kopt_model m = { .name = "avgpool2d", .variants = &dflt, .nvariants = 1, .agents = &manual };
	json_t *pm = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s]}, {s:f, s:[s]}]}", "eager", "compiled_ns", 735840.0,
			       "eager_ns", 337760.0, "rows", "share", 0.97, "aten", "aten.avg_pool2d", "share", 0.03,
			       "aten", "aten.max_pool2d_with_indices");
	const json_t *meas[2] = { pm, NULL };
	sb = (struct strbuf)STRBUF_INIT;
	TAP_OK(rule_space_rows(&sb, &m, meas, 1, 1.03, NULL) == 1 &&
	       strstr(sb.buf, "| avgpool2d | 735.84 | 337.76 | 2.18x | \"aten.avg_pool2d\" | eager's kernels win: "
			      "try `variant aten { aten_fallback = [\"aten.avg_pool2d\"] }`"),
	       "space: eager 2.18x faster, the hot kernel's op to keep (a 3%% kernel's op left out)");
	strbuf_release(&sb);
	m.agents = NULL; /* the default agents add the variant themselves */
	sb = (struct strbuf)STRBUF_INIT;
	rule_space_rows(&sb, &m, meas, 1, 1.03, NULL);
	TAP_OK(strstr(sb.buf, "the agents add variant `aten-auto`") != NULL, "space: with auto variants on, no suggestion to declare");
	strbuf_release(&sb);
	sb = (struct strbuf)STRBUF_INIT;
	rule_space_rows(&sb, &m, meas, 1, 1.03, "aten-auto");
	TAP_OK(strstr(sb.buf, "the agents added variant `aten-auto`") != NULL, "space: the added variant is named");
	strbuf_release(&sb);
	json_t *ops = rule_space_pick(&m, meas, 1, 1.03);
	TAP_OK(json_array_size(ops) == 1 && strcmp(json_string_value(json_array_get(ops, 0)), "aten.avg_pool2d") == 0,
	       "space pick: eager beats the only variant: keep aten.avg_pool2d");
	json_decref(ops);

	/* the same decision from the profile summaries' "eager" lines */
	char *line = rule_space_line(pm);
	TAP_IS_STR(line, "cudnn\t0\t0\t-\neager\t2.17858835\t-\taten.avg_pool2d\nbaseline\tunchecked\t-\t-\n",
		   "summary lines: no cuDNN; the eager ratio and the distinctive ops");
	free(line);
	double r1[] = { 735840.0 / 337760.0 };
	ops = rule_space_pick_lines(&m, r1, 1, "aten.avg_pool2d", 1.03);
	TAP_OK(json_array_size(ops) == 1 && strcmp(json_string_value(json_array_get(ops, 0)), "aten.avg_pool2d") == 0,
	       "space pick from summary lines: the same op");
	json_decref(ops);
	double r2[] = { 2.18, 0.37 };
	struct kopt_variant two_v[2] = { { .name = "default" }, { .name = "autotune" } };
	m.variants = two_v;
	m.nvariants = 2;
	TAP_OK(rule_space_pick_lines(&m, r2, 2, "aten.avg_pool2d", 1.03) == NULL, "... and nothing where a variant beats eager");
	double r3[] = { 1.2, 1.1 };
	ops = rule_space_pick_lines(&m, r3, 2, "aten.sum,aten.mean", 1.03);
	TAP_OK(json_array_size(ops) == 2, "... two ops, comma-separated");
	json_decref(ops);
	double r4[] = { NAN, 1.1 };
	TAP_OK(rule_space_pick_lines(&m, r4, 2, "aten.sum", 1.03) == NULL, "... a variant without an eager run: nothing added");
	TAP_OK(rule_space_pick_lines(&m, r3, 2, "-", 1.03) == NULL, "... no op: nothing added");
	/* the automatic ATen-fallback rule leaves the choice to the spec
	 * wherever any variant declares fallbacks, the first one included:
	 * eager beats every variant, and nothing is added */
	{
		char *afb[] = { "aten.avg_pool2d" };
		double rr[] = { 2.0, 2.0, 2.0 };
		int right = 0, cases = 0;
		for (size_t nv = 1; nv <= 3; nv++)
			for (size_t at = 0; at <= nv; at++) { /* at == nv: none declares */
				struct kopt_variant vs[3] = { { .name = "default" }, { .name = "autotune" }, { .name = "third" } };
				if (at < nv) {
					vs[at].aten_fallback = afb;
					vs[at].naten_fallback = 1;
				}
				m.variants = vs;
				m.nvariants = nv;
				json_t *got = rule_space_pick_lines(&m, rr, nv, "aten.avg_pool2d", 1.03);
				cases++;
				if ((got == NULL) == (at < nv))
					right++;
				else
					tap_diag("%zu variants, fallbacks declared by variant %zu: %s", nv, at,
						 got ? "aten-auto picked" : "nothing picked");
				json_decref(got);
			}
		TAP_IS_INT(right, cases, "space pick: a variant that declares ATen fallbacks, the first or any other, "
			   "leaves the choice to the spec; with none, eager's ops are picked");
		m.variants = two_v;
		m.nvariants = 2;
	}
	/* poolings count for the pool rewrite only where the compiled code runs
	 * one in ATen's kernel: level 1's 3-D average pooling (ATen's
	 * AveragePool3d, 3.00x with the rewrite) against its 1-D max pooling
	 * (Inductor's own kernel, 1.75x slower with it) */
	json_t *apool = json_pack("{s:{s:i}, s:[{s:s, s:s, s:f}]}", "facts", "poolings", 1, "rows", "name",
				  "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8ea", "kind", "aten",
				  "share", 1.0);
	json_t *tpool = json_pack("{s:{s:i}, s:[{s:s, s:s, s:f}]}", "facts", "poolings", 1, "rows", "name",
				  "triton_poi_fused_max_pool2d_with_indices_unsqueeze_0", "kind", "triton", "share", 1.0);
	line = rule_space_line(apool);
	TAP_OK(strstr(line, ",pool=1,") != NULL, "facts: a pooling in ATen's kernel counts for the pool rewrite (%s)",
	       strstr(line, "facts") ? strstr(line, "facts") : line);
	free(line);
	line = rule_space_line(tpool);
	TAP_OK(strstr(line, ",pool=0,") != NULL, "facts: one Inductor lowers itself does not");
	free(line);
	json_decref(apool);
	json_decref(tpool);
	json_t *noe = json_pack("{s:[]}", "rows");
	line = rule_space_line(noe);
	TAP_IS_STR(line, "cudnn\t0\t0\t-\neager\t-\t-\t-\nbaseline\tunchecked\t-\t-\n", "summary lines of a profile without an eager run");
	free(line);
	json_decref(noe);
	/* conv2d_relu on the H200: torch's cuDNN convolution 2107 us of a 2318 us call */
	json_t *conv = json_pack("{s:f, s:{s:[{s:s, s:f, s:i}, {s:s, s:f, s:i}]}}", "device_ns_per_call", 2318309.0,
				 "vendor", "calls", "lib", "cuDNN", "torch_ns", 2107252.0, "count", 1, "lib", "cuBLASLt",
				 "torch_ns", 100000.0, "count", 1);
	TAP_OK(fabs(rule_cudnn_share(conv) - 2107252.0 / 2318309.0) < 1e-9, "cuDNN share: torch's cuDNN calls only (0.909)");
	line = rule_space_line(conv);
	/* its call names no shape: none of it is a 1x1 convolution's (0) */
	TAP_OK(strncmp(line, "cudnn\t0.908961\t0\t-\n", 19) == 0, "... in the summary, with a 1x1 share of 0: %.19s", line);
	free(line);
	json_decref(conv);
	m.variants = &dflt;
	m.nvariants = 1;

	/* a max-autotune variant that beats eager (maxpool3d: 1.44 ms against
	 * eager's 3.91): nothing to add, and the report names the variant */
	struct kopt_variant dv[2] = { { .name = "default" }, { .name = "autotune", .mode = "max-autotune-no-cudagraphs" } };
	m.variants = dv;
	m.nvariants = 2;
	json_t *pa = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s]}]}", "eager", "compiled_ns", 1440000.0, "eager_ns",
			       3910000.0, "rows", "share", 1.0, "aten", "aten.max_pool3d_with_indices");
	meas[1] = pa;
	TAP_OK(rule_space_pick(&m, meas, 2, 1.03) == NULL, "space pick: a declared variant beats eager: no variant added");
	sb = (struct strbuf)STRBUF_INIT;
	rule_space_rows(&sb, &m, meas, 2, 1.03, NULL);
	TAP_OK(strstr(sb.buf, "variant `autotune` beats eager: nothing to keep") != NULL, "space: the variant that beats eager is named");
	strbuf_release(&sb);
	json_decref(pa);
	/* avgpool2d's max-autotune variant: 437 us against eager's 338 */
	pa = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s]}]}", "eager", "compiled_ns", 437000.0, "eager_ns", 338000.0,
		       "rows", "share", 1.0, "aten", "aten.avg_pool2d");
	meas[1] = pa;
	ops = rule_space_pick(&m, meas, 2, 1.03);
	TAP_OK(json_array_size(ops) == 1, "space pick: eager beats every declared variant by gamma: one op kept");
	json_decref(ops);
	json_decref(pa);
	pa = json_pack("{s:{s:f, s:f}, s:[]}", "eager", "compiled_ns", 340000.0, "eager_ns", 338000.0, "rows");
	meas[1] = pa;
	TAP_OK(rule_space_pick(&m, meas, 2, 1.03) == NULL, "space pick: eager within gamma of one variant: nothing added");
	json_decref(pa);

	char *fb[] = { "aten.avg_pool2d" };
	struct kopt_variant two[2] = { { .name = "default" }, { .name = "aten", .aten_fallback = fb, .naten_fallback = 1 } };
	m.variants = two;
	m.nvariants = 2;
	sb = (struct strbuf)STRBUF_INIT;
	rule_space_rows(&sb, &m, meas, 1, 1.03, NULL);
	TAP_OK(strstr(sb.buf, "an ATen-fallback variant is declared") != NULL, "space: a declared fallback variant is noted, not suggested again");
	strbuf_release(&sb);
	TAP_OK(rule_space_pick(&m, meas, 1, 1.03) == NULL, "space pick: the spec declares fallbacks: the agents add none");
	json_decref(pm);
	pm = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s, s, s, s]}]}", "eager", "compiled_ns", 300000.0, "eager_ns", 200000.0,
		       "rows", "share", 1.0, "aten", "prims.prepare_softmax_online", "aten.sub", "aten.exp", "aten._softmax");
	meas[0] = pm;
	m.variants = &dflt;
	m.nvariants = 1;
	sb = (struct strbuf)STRBUF_INIT;
	rule_space_rows(&sb, &m, meas, 1, 1.03, NULL);
	TAP_OK(strstr(sb.buf, "| \"aten._softmax\" |") != NULL, "space: prims and pointwise ops are not offered to keep");
	strbuf_release(&sb);
	json_decref(pm);
	pm = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s, s]}]}", "eager", "compiled_ns", 300000.0, "eager_ns", 200000.0,
		       "rows", "share", 1.0, "aten", "aten.add", "prims.convert_element_type");
	meas[0] = pm;
	TAP_OK(rule_space_pick(&m, meas, 1, 1.03) == NULL, "space pick: no distinctive op: nothing added");
	json_decref(pm);
	m.kind = KOPT_MODEL_TRITON;
	pm = json_pack("{s:{s:f, s:f}, s:[{s:f, s:[s]}]}", "eager", "compiled_ns", 300000.0, "eager_ns", 200000.0,
		       "rows", "share", 1.0, "aten", "aten._softmax");
	meas[0] = pm;
	TAP_OK(rule_space_pick(&m, meas, 1, 1.03) == NULL, "space pick: only torch models have an implementation space");
	m.kind = KOPT_MODEL_TORCH;
	json_decref(pm);
	/* event times with the host's overhead say eager wins; device spans say
	 * the kernels are even (softmax on the H200: 450 against 369 us by
	 * events, the compiled kernel alone 300 us) */
	pm = json_pack("{s:{s:f, s:f, s:f, s:f}, s:[{s:f, s:[s]}]}", "eager", "compiled_ns", 450000.0, "eager_ns",
		       369000.0, "compiled_device_ns", 300000.0, "eager_device_ns", 298000.0, "rows", "share", 1.0,
		       "aten", "aten._softmax");
	meas[0] = pm;
	TAP_OK(rule_space_pick(&m, meas, 1, 1.03) == NULL, "space pick: device spans, where present, decide over event times");
	json_decref(pm);
	pm = json_pack("{s:{s:f, s:f}, s:[]}", "eager", "compiled_ns", 300000.0, "eager_ns", 295000.0, "rows");
	meas[0] = pm;
	sb = (struct strbuf)STRBUF_INIT;
	TAP_OK(rule_space_rows(&sb, &m, meas, 1, 1.03, NULL) == 0 && sb.len == 0, "space: eager within gamma says nothing");
	strbuf_release(&sb);
	json_decref(pm);
	return tap_done();
}
