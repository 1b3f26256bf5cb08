/* tests/unit/space_facts_test.c: the implementation-space figures a
 * profile's measurements give (rules/space_pick.c), each to the value: the
 * cuDNN share (cuDNN calls only, times their counts, capped at 1) and the
 * most a cuDNN call leaves on the table (cuDNN calls the probe timed only);
 * the large float32 products' share (cuBLAS's float32 calls of m and n 128
 * or more, times their counts) and its summary line;
 * compiled over eager (device spans first, else event times); the hot
 * kernels' distinctive ops (share 5% and up, incidental ops and prims left
 * out, once each); the pooling fact kept only where ATen runs a pooling;
 * the report's eager row at gamma and its analyst's words; and which
 * modes are max-autotune and which run as CUDA graphs. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../rules/summary.h"
#include "../../rules/space.h"
#include "../tap.h"

static json_t *J(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j) {
		fprintf(stderr, "bad json in test: %s: %s\n", e.text, text);
		exit(2);
	}
	return j;
}

static double share(const char *text)
{
	json_t *j = J(text);
	double r = rule_cudnn_share(j);
	json_decref(j);
	return r;
}

/* the summary's figures of a profile; release with rule_summary_release */
static void summarize(const char *text, struct rule_summary *s)
{
	json_t *j = J(text);
	memset(s, 0, sizeof *s);
	rule_summary_space(s, j);
	json_decref(j);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12 * (fabs(b) + 1);
}

static void cudnn(void)
{
	TAP_OK(near(share("{\"device_ns_per_call\": 1000, \"vendor\": {\"calls\": ["
			  "{\"lib\": \"cuDNN\", \"torch_ns\": 100, \"count\": 3},"
			  "{\"lib\": \"cuBLAS\", \"torch_ns\": 400, \"count\": 1},"
			  "{\"lib\": \"cuDNN\", \"torch_ns\": 50}]}}"),
		    0.35),
	       "cuDNN share: cuDNN calls' times by their counts (a call without a count once), cuBLAS's left out");
	TAP_OK(near(share("{\"device_ns_per_call\": 1000, \"vendor\": {\"calls\": ["
			  "{\"lib\": \"cuDNN\", \"torch_ns\": 100, \"count\": 0},"
			  "{\"lib\": \"cuDNN\", \"torch_ns\": 0, \"count\": 5},"
			  "{\"lib\": \"cuDNN\", \"count\": 5}]}}"),
		    0.1),
	       "cuDNN share: a count of 0 counts once; a call of 0 ns or without a time adds nothing");
	TAP_OK(share("{\"device_ns_per_call\": 1000, \"vendor\": {\"calls\": ["
		      "{\"lib\": \"cuDNN\", \"torch_ns\": 600, \"count\": 2}]}}") == 1,
	       "cuDNN share: more than the device time is all of it (1)");
	TAP_OK(near(share("{\"device_ns_per_call\": 1200, \"vendor\": {\"calls\": ["
			  "{\"lib\": \"cuDNN\", \"torch_ns\": 600, \"count\": 2}]}}"),
		    1),
	       "cuDNN share: exactly the device time is 1");
	TAP_OK(near(share("{\"device_ns_per_call\": 1, \"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 0.5}]}}"),
		    0.5),
	       "cuDNN share: of a 1 ns device time, a call of half a nanosecond is half");
	TAP_OK(share("{\"device_ns_per_call\": 0, \"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 6}]}}") == 0 &&
		       share("{\"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 6}]}}") == 0,
	       "cuDNN share: 0 without a device time (0 or absent)");

	/* the 1x1 convolutions of stride 1, no padding and one group, by their
	 * shape as vendor_plan.describe writes it; the others left out: a
	 * stride of 2, padding, groups, a 3x3, a 1x1 wider kernel's prefix
	 * (11x1), a cuBLAS call, a call without a shape */
	static const char *const shapes[] = {
		"N=10 C=112 H=224 W=224 K=672 1x1 stride 1 pad 0",	    /* 400 ns, twice: counted */
		"N=10 C=672 H=112 W=112 K=192 1x1 stride 1 pad 0 extra", /* 100 ns: counted (a word after it) */
		"N=10 C=112 H=224 W=224 K=672 1x1 stride 2 pad 0",
		"N=10 C=112 H=224 W=224 K=672 1x1 stride 1 pad 1",
		"N=10 C=112 H=224 W=224 K=672 1x1 stride 1 pad 0 groups 2",
		"N=10 C=112 H=224 W=224 K=672 3x3 stride 1 pad 0",
		"N=10 C=112 H=224 W=224 K=672 11x1 stride 1 pad 00",
	};
	struct strbuf calls = STRBUF_INIT;
	strbuf_addstr(&calls, "{\"device_ns_per_call\": 10000, \"vendor\": {\"calls\": [");
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		strbuf_addf(&calls, "{\"lib\": \"cuDNN\", \"torch_ns\": %d, \"count\": %d, \"shape\": \"%s\"},",
			    i == 0 ? 400 : 100, i == 0 ? 2 : 1, shapes[i]);
	strbuf_addstr(&calls, "{\"lib\": \"cuBLAS\", \"torch_ns\": 1000, \"shape\": \"N=1 C=1 H=1 W=1 K=1 1x1 stride 1 pad 0\"},"
			      "{\"lib\": \"cuDNN\", \"torch_ns\": 1000}]}}");
	json_t *cj = J(calls.buf);
	TAP_OK(near(rule_conv1x1_share(cj), 0.09) && near(rule_cudnn_share(cj), 0.24),
	       "1x1 share: the stride-1, unpadded, ungrouped 1x1 calls (900 of 10000 ns); the cuDNN share all of "
	       "cuDNN's (2400) [%g, %g]", rule_conv1x1_share(cj), rule_cudnn_share(cj));
	/* the time a call's kernels run: their sum, not their span (level 3's
	 * LSTMCn on an H100: 17.0 ms of kernels, 32.1 ms first to last, 32.7 ms
	 * a call: launch-bound, the host's by 48%, by 1.8% from the span) */
	json_t *lstm = J("{\"model_ns_per_call\": 32702337, \"device_ns_per_call\": 32122682, "
			 "\"sum_kernel_ns_per_call\": 17038036}");
	json_t *old = J("{\"model_ns_per_call\": 32702337, \"device_ns_per_call\": 32122682}");
	double hs = rule_host_share(32702337, rule_kernels_ns(lstm)), ho = rule_host_share(32702337, rule_kernels_ns(old));
	TAP_OK(near(rule_kernels_ns(lstm), 17038036) && hs >= RULE_HOST_SHARE && fabs(hs - 0.479) < 1e-3,
	       "kernels' time: their sum where the profile has it; a launch-bound call is the host's by 48%% [%g]", hs);
	TAP_OK(near(rule_kernels_ns(old), 32122682) && ho < RULE_HOST_SHARE,
	       "... the span for a profile without the sum [%g]", ho);
	/* the host's share: the model's time less its kernels', over the
	 * model's; unknown (NaN) where either is not a positive time */
	TAP_OK(near(rule_host_share(100, 1), 0.99) && near(rule_host_share(100, 0.5), 0.995) &&
	       near(rule_host_share(100, 150), 0) && near(rule_host_share(1, 0.5), 0.5) &&
	       isnan(rule_host_share(100, 0)) && isnan(rule_host_share(0, 5)) &&
	       isnan(rule_host_share(-1, 5)),
	       "host share: 1 ns of kernels in 100 is 0.99, kernels longer than the call none, no time unknown");
	json_t *none = J("{\"device_ns_per_call\": 5000, \"sum_kernel_ns_per_call\": 0}");
	TAP_OK(near(rule_kernels_ns(none), 5000), "... and for one whose sum is 0 (no kernel timed): not a call all host");
	json_decref(none);
	json_decref(lstm);
	json_decref(old);
	struct rule_summary s;
	memset(&s, 0, sizeof s);
	rule_summary_space(&s, cj);
	TAP_OK(near(s.conv1x1_share, 0.09), "... and in the summary's figures [%g]", s.conv1x1_share);
	rule_summary_release(&s);
	json_decref(cj);
	strbuf_release(&calls);
	summarize("{\"vendor\": {\"calls\": ["
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 300, \"best_ns\": 200},"
		  "{\"lib\": \"cuBLAS\", \"torch_ns\": 900, \"best_ns\": 100},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 500, \"best_ns\": 250},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 400, \"best_ns\": 250},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 900, \"best_ns\": 0},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 0, \"best_ns\": 1},"
		  "{\"torch_ns\": 900, \"best_ns\": 1}]}}",
		  &s);
	TAP_OK(near(s.cudnn_left, 2.0),
	       "cuDNN left: the most torch over best among cuDNN calls the probe timed (2.0, not cuBLAS's 9 or a "
	       "best of 0) [%g]",
	       s.cudnn_left);
	rule_summary_release(&s);
	summarize("{\"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 300},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": -1, \"best_ns\": 2},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 0, \"best_ns\": 2},"
		  "{\"lib\": \"cuBLAS\", \"torch_ns\": 300, \"best_ns\": 100}]}}",
		  &s);
	TAP_OK(isnan(s.cudnn_left), "cuDNN left: unknown (NAN) without a cuDNN call the probe timed [%g]", s.cudnn_left);
	rule_summary_release(&s);
	summarize("{\"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 0.9, \"best_ns\": 0.3},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 4, \"best_ns\": 2}]}}",
		  &s);
	TAP_OK(near(s.cudnn_left, 3), "cuDNN left: times under a nanosecond count as any other (0.9 over 0.3) [%g]",
	       s.cudnn_left);
	rule_summary_release(&s);
	summarize("{\"vendor\": {\"calls\": [{\"lib\": \"cuDNN\", \"torch_ns\": 100, \"best_ns\": 400},"
		  "{\"lib\": \"cuDNN\", \"torch_ns\": 150, \"best_ns\": 300}]}}",
		  &s);
	TAP_OK(near(s.cudnn_left, 0.5), "cuDNN left: under 1 when torch's choice is the faster, the larger of them [%g]",
	       s.cudnn_left);
	rule_summary_release(&s);
}

/* the large float32 products' share (rule_gemm32_share): cuBLAS's calls
 * in float32 whose m and n are 128 or more, batched or not, each time by
 * its count; of a device time of 100000 ns */
static void gemm32(void)
{
	json_t *j = J("{\"device_ns_per_call\": 100000, \"vendor\": {\"calls\": ["
		      /* counted: 10000 ns twice */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 10000, \"count\": 2,"
		      " \"shape\": \"m=256 n=16384 k=32768\"},"
		      /* not: bfloat16 runs on tensor cores already */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"bfloat16\", \"torch_ns\": 5000, \"count\": 1,"
		      " \"shape\": \"m=256 n=16384 k=32768\"},"
		      /* not: a small batch's linear layer */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 3000, \"count\": 1,"
		      " \"shape\": \"m=10 n=4096 k=4096\"},"
		      /* counted: batched, 2500 ns once (no count) */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 2500,"
		      " \"shape\": \"4x m=512 n=512 k=64\"},"
		      /* counted: m and n at the edge, 128; lib plain cuBLAS */
		      "{\"lib\": \"cuBLAS\", \"dtype\": \"float32\", \"torch_ns\": 1000, \"count\": 1,"
		      " \"shape\": \"m=128 n=128 k=8\"},"
		      /* not: n or m one under the edge */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 700, \"count\": 1,"
		      " \"shape\": \"m=128 n=127 k=4096\"},"
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 600, \"count\": 1,"
		      " \"shape\": \"m=127 n=128 k=4096\"},"
		      /* not: cuDNN's */
		      "{\"lib\": \"cuDNN\", \"dtype\": \"float32\", \"torch_ns\": 9000, \"count\": 1,"
		      " \"shape\": \"N=10 C=112 H=224 W=224 K=672 1x1 stride 1 pad 0\"},"
		      /* not: without a dtype, or without a shape */
		      "{\"lib\": \"cuBLASLt\", \"torch_ns\": 40000, \"count\": 1,"
		      " \"shape\": \"m=256 n=16384 k=32768\"},"
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 400, \"count\": 1},"
		      /* not: a shape that is no product's */
		      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 300, \"count\": 1,"
		      " \"shape\": \"4 m=512 n=512 k=64\"}]}}");
	double g = rule_gemm32_share(j);
	TAP_OK(near(g, 0.235),
	       "float32 products' share: cuBLAS's float32 calls of m and n 128 or more, by their counts, batched "
	       "too (23500 of 100000 ns; not bfloat16's, m=10's, 127's, cuDNN's, nor one without a dtype) [%g]", g);
	struct rule_summary s;
	memset(&s, 0, sizeof s);
	rule_summary_space(&s, j);
	TAP_OK(near(s.gemm32_share, 0.235), "... and in the summary's figures [%g]", s.gemm32_share);
	rule_summary_release(&s);
	json_decref(j);
	j = J("{\"device_ns_per_call\": 1000, \"vendor\": {\"calls\": ["
	      "{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 800, \"count\": 2,"
	      " \"shape\": \"m=4096 n=4096 k=4096\"}]}}");
	TAP_OK(rule_gemm32_share(j) == 1, "float32 products' share: more than the device time is all of it (1)");
	json_decref(j);
	j = J("{\"vendor\": {\"calls\": [{\"lib\": \"cuBLASLt\", \"dtype\": \"float32\", \"torch_ns\": 800,"
	      " \"shape\": \"m=4096 n=4096 k=4096\"}]}}");
	TAP_OK(rule_gemm32_share(j) == 0, "float32 products' share: 0 without a device time");
	json_decref(j);

	/* its summary line: written and read back; none at 0; an older
	 * summary without it reads unknown */
	struct rule_summary w, r;
	memset(&w, 0, sizeof w);
	w.cudnn_left = w.conv1x1_share = w.eager_ratio = NAN;
	w.gemm32_share = 0.235;
	char *text = rule_summary_write(&w);
	rule_summary_read(text, &r);
	TAP_OK(strstr(text, "\ngemm32\t0.235\t-\t-\n") && near(r.gemm32_share, 0.235),
	       "summary: the gemm32 line, read back [%g]", r.gemm32_share);
	rule_summary_release(&r);
	free(text);
	for (int unknown = 0; unknown < 2; unknown++) {
		w.gemm32_share = unknown ? NAN : 0;
		text = rule_summary_write(&w);
		rule_summary_read(text, &r);
		TAP_OK(!strstr(text, "gemm32") && isnan(r.gemm32_share), "summary: a share %s, no line; read back as NAN",
		       unknown ? "unknown" : "of 0");
		rule_summary_release(&r);
		free(text);
	}
	rule_summary_read("cudnn\t0.5\t-\t-\neager\t-\t-\t-\nbaseline\tunchecked\t-\t-\n", &r);
	TAP_OK(isnan(r.gemm32_share), "summary: an older one, without the line, reads NAN");
	rule_summary_release(&r);
	rule_summary_read("gemm32\t-\t-\t-\n", &r);
	TAP_OK(isnan(r.gemm32_share), "summary: a '-' reads NAN");
	rule_summary_release(&r);
}

static void eager(void)
{
	struct rule_summary s;
	summarize("{\"eager\": {\"compiled_device_ns\": 300, \"eager_device_ns\": 200, \"compiled_ns\": 900, "
		  "\"eager_ns\": 100}}",
		  &s);
	TAP_OK(s.eager_known && near(s.eager_ratio, 1.5), "eager ratio: the device spans where there are both [%g]",
	       s.eager_ratio);
	rule_summary_release(&s);
	summarize("{\"eager\": {\"compiled_device_ns\": 0, \"eager_device_ns\": 200, \"compiled_ns\": 900, "
		  "\"eager_ns\": 100}}",
		  &s);
	TAP_OK(near(s.eager_ratio, 9), "eager ratio: the event times where a device span is 0 [%g]", s.eager_ratio);
	rule_summary_release(&s);
	summarize("{\"eager\": {\"compiled_device_ns\": 300, \"eager_device_ns\": 0, \"compiled_ns\": 900, "
		  "\"eager_ns\": 100}}",
		  &s);
	TAP_OK(near(s.eager_ratio, 9), "eager ratio: ... or where eager's span is 0 [%g]", s.eager_ratio);
	rule_summary_release(&s);
	summarize("{\"eager\": {\"compiled_ns\": 900, \"eager_ns\": 0}}", &s);
	TAP_OK(isnan(s.eager_ratio) && !s.eager_ops, "eager ratio: NAN when eager took 0 ns, and no ops with it");
	rule_summary_release(&s);
	summarize("{\"eager\": {\"compiled_ns\": 0, \"eager_ns\": 50}}", &s);
	TAP_OK(s.eager_ratio == 0, "eager ratio: a compiled time of 0 is a ratio of 0 [%g]", s.eager_ratio);
	rule_summary_release(&s);

	summarize("{\"eager\": {\"compiled_ns\": 200, \"eager_ns\": 100}, \"rows\": ["
		  "{\"share\": 0.5, \"aten\": [\"aten.view\", \"aten.convolution\", \"prims.mul\", \"aten.add\"]},"
		  "{\"share\": 0.049, \"aten\": [\"aten.max_pool2d\"]},"
		  "{\"share\": 0.05, \"aten\": [\"aten.convolution\", \"aten._softmax\", \"aten.bmm\"]},"
		  "{\"share\": 0.01, \"aten\": [\"aten.mm\"]}]}",
		  &s);
	TAP_IS_STR(s.eager_ops, "aten.convolution,aten._softmax,aten.bmm",
		   "hot ops: kernels of 5% and more, in profile order, once each; views, pointwise ops and prims left "
		   "out");
	rule_summary_release(&s);
	summarize("{\"eager\": {\"compiled_ns\": 200, \"eager_ns\": 100}, \"rows\": ["
		  "{\"share\": 0.9, \"aten\": [\"aten.view\", \"aten.relu\", \"aten.where\", \"aten.convert_element_type\"]}]}",
		  &s);
	TAP_OK(!s.eager_ops, "hot ops: none when every op is incidental");
	rule_summary_release(&s);
}

static void pools(void)
{
	struct rule_summary s;
	summarize("{\"facts\": {\"convolutions\": 1, \"gemms\": 2, \"reductions\": 3, \"parameters\": 4, \"poolings\": 2},"
		  "\"rows\": [{\"name\": \"triton_poi_fused_max_pool2d_0\", \"kind\": \"triton\"}]}",
		  &s);
	TAP_OK(s.facts_known && s.convs == 1 && s.gemms == 2 && s.reductions == 3 && s.params == 4 && s.pools == 0 &&
		       s.attns == 0,
	       "facts read; the poolings 0 where Inductor lowers every one itself (pool=%ld)", s.pools);
	rule_summary_release(&s);
	summarize("{\"facts\": {\"convolutions\": 1, \"gemms\": 2, \"reductions\": 3, \"parameters\": 4, \"poolings\": 2},"
		  "\"rows\": [{\"name\": \"triton_poi_fused_0\", \"kind\": \"triton\"},"
		  "{\"name\": \"void at::native::avg_pool3d_out\", \"kind\": \"aten\"}]}",
		  &s);
	TAP_OK(s.pools == 2, "the poolings kept where ATen runs one (pool=%ld)", s.pools);
	rule_summary_release(&s);
	summarize("{\"facts\": {\"convolutions\": 1, \"gemms\": 2, \"reductions\": 3, \"parameters\": 4, \"poolings\": 2},"
		  "\"rows\": [{\"name\": \"MaxPoolForward\"}]}",
		  &s);
	TAP_OK(s.pools == 2, "... a kernel of no kind named Pool too (pool=%ld)", s.pools);
	rule_summary_release(&s);
	summarize("{\"facts\": {\"convolutions\": 1, \"gemms\": 2, \"reductions\": 3, \"parameters\": 4, \"poolings\": 2}}",
		  &s);
	TAP_OK(s.pools == 2, "... and where the profile has no kernel rows (pool=%ld)", s.pools);
	rule_summary_release(&s);
	summarize("{\"facts\": {\"convolutions\": 1, \"gemms\": 2, \"reductions\": 3}}", &s);
	TAP_OK(s.facts_known && s.params == -1 && s.tconvs == 0,
	       "a fact the profile lacks: -1 for the first four, 0 for the later ones");
	rule_summary_release(&s);
	summarize("{\"facts\": [1]}", &s);
	TAP_OK(!s.facts_known && s.convs == -1, "facts that are not an object: none known");
	rule_summary_release(&s);
}

static void rows(void)
{
	struct kopt_agents ag = { .auto_variants = true };
	struct kopt_variant vs[2] = { { .name = "default" }, { .name = "tuned" } };
	struct kopt_model m = { .name = "net", .kind = KOPT_MODEL_TORCH, .agents = &ag, .variants = vs, .nvariants = 2 };
	json_t *slow = J("{\"eager\": {\"compiled_ns\": 2060, \"eager_ns\": 2000}, \"rows\": [{\"share\": 0.6, \"aten\": "
			 "[\"aten.convolution\", \"aten.bmm\"]}]}");
	json_t *fast = J("{\"eager\": {\"compiled_ns\": 1000, \"eager_ns\": 2000}}");
	json_t *under = J("{\"eager\": {\"compiled_ns\": 2059, \"eager_ns\": 2000}}");
	struct strbuf md = STRBUF_INIT;
	const json_t *m1[] = { under };
	TAP_OK(rule_space_rows(&md, &m, m1, 1, 1.03, NULL) == 0 && md.len == 0,
	       "eager row: none where eager is faster by less than gamma (1.0295x)");
	const json_t *m2[] = { slow };
	TAP_OK(rule_space_rows(&md, &m, m2, 1, 1.03, NULL) == 1, "eager row: one at gamma exactly (1.03x)");
	TAP_IS_STR(md.buf,
		   "| net | 2.06 | 2.00 | 1.03x | \"aten.convolution\", \"aten.bmm\" | eager's kernels win: where they beat "
		   "every declared variant, the agents add variant `aten-auto`, those ops kept out of Inductor |\n",
		   "eager row: the times in us, the ratio, the ops, and the agents' promise");
	strbuf_reset(&md);
	const json_t *m3[] = { slow, fast };
	rule_space_rows(&md, &m, m3, 2, 1.03, NULL);
	TAP_OK(strstr(md.buf, "| variant `tuned` beats eager: nothing to keep |\n") != NULL,
	       "eager row: a declared variant that eager does not beat is named");
	strbuf_reset(&md);
	rule_space_rows(&md, &m, m3, 2, 1.03, "aten-auto");
	TAP_OK(strstr(md.buf, "the agents added variant `aten-auto`, those ops kept out of Inductor |\n") != NULL,
	       "eager row: the variant the agents added, before the one eager does not beat");
	strbuf_reset(&md);
	ag.auto_variants = false;
	rule_space_rows(&md, &m, m2, 1, 1.03, NULL);
	TAP_OK(strstr(md.buf, "try `variant aten { aten_fallback = [\"aten.convolution\", \"aten.bmm\"] }` |\n") != NULL,
	       "eager row: without auto_variants, the variant to write");
	strbuf_reset(&md);
	vs[1].naten_fallback = 1;
	rule_space_rows(&md, &m, m3, 2, 1.03, "aten-auto");
	TAP_OK(strstr(md.buf, "| an ATen-fallback variant is declared |\n") != NULL,
	       "eager row: a declared ATen-fallback variant says so, first");
	vs[1].naten_fallback = 0;
	strbuf_reset(&md);
	json_t *noops = J("{\"eager\": {\"compiled_ns\": 3000, \"eager_ns\": 1000}}");
	const json_t *m4[] = { noops };
	rule_space_rows(&md, &m, m4, 1, 1.03, NULL);
	TAP_IS_STR(md.buf, "| net | 3.00 | 1.00 | 3.00x | - | eager wins, but no hot kernel names an op to keep |\n",
		   "eager row: no op to keep");
	strbuf_release(&md);

	/* the agents' own variant: every declared variant eager beats by gamma */
	double r1[] = { 1.03, 1.5 }, r2[] = { 1.5, 1.02 }, r3[] = { 1.5, NAN };
	json_t *p = rule_space_pick_lines(&m, r1, 2, "aten.convolution,aten.bmm", 1.03);
	TAP_OK(json_array_size(p) == 2 && strcmp(json_string_value(json_array_get(p, 1)), "aten.bmm") == 0,
	       "pick: eager beats both variants by gamma or more: the ops, in order");
	json_decref(p);
	TAP_OK(!rule_space_pick_lines(&m, r2, 2, "aten.convolution", 1.03), "pick: none where one variant is within gamma");
	TAP_OK(!rule_space_pick_lines(&m, r3, 2, "aten.convolution", 1.03), "pick: none where a variant has no ratio");
	TAP_OK(!rule_space_pick_lines(&m, r1, 2, "-", 1.03) && !rule_space_pick_lines(&m, r1, 2, NULL, 1.03),
	       "pick: none without an op");
	vs[0].naten_fallback = 1;
	TAP_OK(!rule_space_pick_lines(&m, r1, 2, "aten.bmm", 1.03), "pick: none where a variant declares fallbacks");
	vs[0].naten_fallback = 0;
	m.kind = KOPT_MODEL_TORCH + 1;
	TAP_OK(!rule_space_pick_lines(&m, r1, 2, "aten.bmm", 1.03), "pick: none for a model that is not a torch model");
	m.kind = KOPT_MODEL_TORCH;
	TAP_OK(!rule_space_pick_lines(&m, r1, 0, "aten.bmm", 1.03), "pick: none without a variant's ratio");
	json_decref(slow);
	json_decref(fast);
	json_decref(under);
	json_decref(noops);
}

int main(void)
{
	cudnn();
	gemm32();
	eager();
	pools();
	rows();
	TAP_OK(rule_max_autotune("max-autotune") && rule_max_autotune("max-autotune-no-cudagraphs") &&
		       !rule_max_autotune("max-autotun") && !rule_max_autotune("default") && !rule_max_autotune(NULL),
	       "max-autotune modes: both, by their first 12 characters");
	TAP_OK(rule_mode_graphs("reduce-overhead") && rule_mode_graphs("max-autotune") &&
		       !rule_mode_graphs("max-autotune-no-cudagraphs") && !rule_mode_graphs("default") &&
		       !rule_mode_graphs(NULL),
	       "CUDA-graph modes: reduce-overhead and max-autotune");
	return tap_done();
}
