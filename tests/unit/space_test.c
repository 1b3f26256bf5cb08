/* tests/unit/space_test.c: the implementation-space search's expansion
 * (rule_space_search, rules/space.c) from a profile summary's facts, its
 * bound, the base variant's options, and the summary's facts, cuDNN and
 * gemm32 lines through text (rules/summary.c). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lang/spec.h"
#include "../../rules/plan.h"
#include "../../rules/rules.h"
#include "../../rules/summary.h"
#include "../../rules/space.h"
#include "../tap.h"

/* the names found, space-separated; caller frees */
static char *names(const struct kopt_variant *v, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", v[i].name);
	return strbuf_detach(&sb);
}

static char *search(const char *text, const struct kopt_variant *base, size_t max, struct kopt_variant *out,
		    size_t *n)
{
	struct rule_summary s;
	rule_summary_read(text, &s);
	*n = rule_space_search(&s, base, max, 1.03, out);
	rule_summary_release(&s);
	return names(out, *n);
}

static void release(struct kopt_variant *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rule_variant_release(&v[i]);
}

int main(void)
{
	struct kopt_variant out[RULE_SPACE_MAX];
	size_t n;
	char *got;

	/* one fact in two places: the most space_variants takes (lang/fields.h)
	 * is the most the search makes, and a model holds that many and the two
	 * other variants of the agents' own (rules/plan.h) */
	double most = -1;
	for (size_t i = 0; i < lang_agents_fields.n; i++)
		if (strcmp(lang_agents_fields.f[i].name, "space_variants") == 0)
			most = lang_agents_fields.f[i].hi;
	TAP_OK(most == RULE_SPACE_MAX, "space_variants' maximum (%g) is RULE_SPACE_MAX (%d)", most, RULE_SPACE_MAX);
	TAP_OK(RULE_MAX_AUTO >= RULE_SPACE_MAX + 2, "a model holds the search's variants and aten-auto and cudnn-auto (%d)",
	       RULE_MAX_AUTO);

	got = search("facts\t-\t-\tconv=2,gemm=1,reduction=3,params=4096\n", NULL, 6, out, &n);
	TAP_IS_STR(got, "autotune-freezing autotune-channels-last autotune-cd-radius-2 "
			"autotune-no-persistent-reductions autotune-no-split-reductions autotune-no-epilogue-fusion",
		   "every fact: every dimension, in the table's order");
	free(got);
	TAP_IS_STR(out[0].mode, "max-autotune-no-cudagraphs", "on top of max-autotune-no-cudagraphs");
	char *what = rule_variant_what(&out[1]);
	TAP_IS_STR(what, "max-autotune-no-cudagraphs, force_layout_optimization = true, layout_optimization = true, "
			 "freezing = true", "channels-last folds the weights where there are parameters");
	free(what);
	what = rule_variant_what(&out[2]);
	TAP_IS_STR(what, "max-autotune-no-cudagraphs, coordinate_descent_tuning = true, "
			 "coordinate_descent_search_radius = 2", "coordinate descent at radius 2");
	free(what);
	release(out, n);

	/* a network of convolutions (four or more, with weights): its
	 * inference choices together, first, with cuDNN's algorithms timed */
	got = search("facts\t-\t-\tconv=53,gemm=1,reduction=2,params=25557032\n", NULL, 2, out, &n);
	TAP_IS_STR(got, "autotune-conv-inference autotune-freezing", "a convolution network: its inference choices first");
	free(got);
	what = rule_variant_what(&out[0]);
	TAP_IS_STR(what, "max-autotune-no-cudagraphs, freezing = true, force_layout_optimization = true, "
			 "layout_optimization = true, cudnn_benchmark", "freezing, channels-last and cuDNN's benchmark");
	free(what);
	TAP_OK(out[0].cudnn_benchmark && !out[1].cudnn_benchmark, "the flag is the variant's, not an Inductor option");
	release(out, n);
	/* each count fact at its edge (the facts line in its order, the
	 * others 0): one such op is enough for its dimensions, none is none,
	 * and two are as one */
	static const char *const counted[] = { "tconv", "dconv", "pool", "c3d", "lred", "sred", "attn", "slice" };
	int edges = 0;
	for (size_t f = 0; f < sizeof counted / sizeof *counted; f++) {
		char *at[3];
		for (int c = 0; c < 3; c++) {
			struct strbuf line = STRBUF_INIT;
			strbuf_addstr(&line, "facts\t-\t-\tconv=0,gemm=0,reduction=0,params=0");
			for (size_t g = 0; g < sizeof counted / sizeof *counted; g++)
				strbuf_addf(&line, ",%s=%d", counted[g], g == f ? c : 0);
			strbuf_addch(&line, '\n');
			char *text = strbuf_detach(&line);
			at[c] = search(text, NULL, RULE_SPACE_MAX, out, &n);
			release(out, n);
			free(text);
		}
		bool right = strcmp(at[0], at[1]) != 0 && strcmp(at[1], at[2]) == 0;
		edges += right;
		if (!right)
			printf("# %s: 0 gives '%s', 1 '%s', 2 '%s'\n", counted[f], at[0], at[1], at[2]);
		for (int c = 0; c < 3; c++)
			free(at[c]);
	}
	TAP_OK(edges == (int)(sizeof counted / sizeof *counted),
	       "each counted op (transposed, depthwise, 3-D convolutions, poolings, reductions, attention, slices): "
	       "one offers its dimensions, none does not, two as one");
	got = search("facts\t-\t-\tconv=4,gemm=1,reduction=2,params=4096\n", NULL, 6, out, &n);
	TAP_OK(strstr(got, "autotune-conv-inference") == got, "four convolutions with weights are one (%s)", got);
	free(got);
	release(out, n);
	got = search("facts\t-\t-\tconv=3,gemm=1,reduction=2,params=4096\n", NULL, 6, out, &n);
	TAP_OK(!strstr(got, "conv-inference"), "three convolutions are no network (%s)", got);
	free(got);
	release(out, n);
	got = search("facts\t-\t-\tconv=8,gemm=0,reduction=0,params=0\n", NULL, 6, out, &n);
	TAP_OK(!strstr(got, "conv-inference"), "convolutions without weights: nothing to fold (%s)", got);
	free(got);
	release(out, n);
	struct kopt_variant cb = { .name = "base", .mode = "max-autotune-no-cudagraphs", .cudnn_benchmark = true };
	got = search("facts\t-\t-\tconv=53,gemm=1,reduction=2,params=25557032\n", &cb, 1, out, &n);
	TAP_IS_STR(got, "autotune-conv-inference", "a base with cuDNN's benchmark on: the options still differ");
	free(got);
	release(out, n);
	/* a host-bound call (RULE_HOST_SHARE, a fifth, or more): its kernels
	 * replayed as CUDA graphs, first */
	got = search("time\t100000\t40000\t-\nfacts\t-\t-\tconv=0,gemm=1,reduction=1,params=64\n", NULL, 1, out, &n);
	TAP_IS_STR(got, "autotune-cudagraphs", "60% of a call the host's: CUDA graphs first");
	TAP_OK(n == 1 && rule_variant_graphs(&out[0]), "... which rule_variant_graphs knows");
	free(got);
	release(out, n);
	/* a deep network's share (ResNet-101 at batch 10: 36%), the edge, and
	 * just under it (device time of a 100 us call; the first of six) */
	static const struct { const char *device_ns, *convs; bool graphs; const char *what; } hs[] = {
		{ "64000", "104", true, "36% of a call the host's: CUDA graphs first, before the convolutions'" },
		{ "80000", "0", true, "20% of a call the host's, the edge: CUDA graphs" },
		{ "81000", "0", false, "19% the host's: no graphs" },
	};
	for (size_t i = 0; i < sizeof hs / sizeof *hs; i++) {
		char *prof = xasprintf("time\t100000\t%s\t-\nfacts\t-\t-\tconv=%s,gemm=1,reduction=1,params=64\n",
				       hs[i].device_ns, hs[i].convs);
		got = search(prof, NULL, 6, out, &n);
		TAP_OK(hs[i].graphs ? strncmp(got, "autotune-cudagraphs ", 20) == 0 : !strstr(got, "cudagraphs"), "%s (%s)",
		       hs[i].what, got);
		free(prof);
		free(got);
		release(out, n);
	}
	{
		struct kopt_option o = { .key = "triton.cudagraphs", .json = "false" };
		struct kopt_variant mv = { .name = "m", .mode = "max-autotune" }, off = mv, ro = { .name = "r", .mode = "reduce-overhead" },
				    nog = { .name = "n", .mode = "max-autotune-no-cudagraphs" };
		off.options = &o;
		off.noptions = 1;
		TAP_OK(rule_variant_graphs(&mv) && rule_variant_graphs(&ro) && !rule_variant_graphs(&nog) && !rule_variant_graphs(&off),
		       "graphs: max-autotune's and reduce-overhead's modes, not -no-cudagraphs, not with the option off");
	}
	got = search("facts\t-\t-\tconv=1,gemm=0,reduction=0,params=0\n", NULL, 6, out, &n);
	TAP_IS_STR(got, "autotune-channels-last autotune-cd-radius-2 autotune-no-epilogue-fusion autotune-gemm-exhaustive "
			"autotune-nd-tiling autotune-conv-1x1-as-mm",
		   "a convolution without parameters or reductions");
	what = rule_variant_what(&out[0]);
	TAP_IS_STR(what, "max-autotune-no-cudagraphs, force_layout_optimization = true, layout_optimization = true",
		   "... channels-last without weights to fold");
	free(what);
	free(got);
	release(out, n);

	got = search("facts\t-\t-\tconv=0,gemm=0,reduction=0,params=0\n", NULL, 6, out, &n);
	TAP_IS_STR(got, "autotune-cd-radius-2 autotune-nd-tiling", "pointwise only: coordinate descent and tiling");
	free(got);
	release(out, n);

	got = search("facts\t-\t-\tconv=2,gemm=1,reduction=3,params=4096\n", NULL, 2, out, &n);
	TAP_IS_STR(got, "autotune-freezing autotune-channels-last", "the bound: the first two that apply");
	free(got);
	release(out, n);
	got = search("facts\t-\t-\tconv=2,gemm=1,reduction=3,params=4096\n", NULL, 0, out, &n);
	TAP_OK(n == 0, "a bound of 0: none (%s)", got);
	free(got);

	/* a profile cached before the facts: the kernels' names and the cuDNN share */
	got = search("triton\t0.6\t0123456789abcdef0123456789abcdef\ttriton_red_fused_sum_0\n"
		     "cudnn\t0.3\t-\t-\n", NULL, 6, out, &n);
	TAP_IS_STR(got, "autotune-channels-last autotune-cd-radius-2 autotune-no-persistent-reductions "
			"autotune-no-split-reductions autotune-no-epilogue-fusion autotune-gemm-exhaustive",
		   "no facts: a reduction kernel's name and cuDNN calls stand for them; no freezing without a parameter count");
	free(got);
	release(out, n);

	/* no facts, pointwise kernels alone (and a template's): nothing for reductions */
	got = search("triton\t0.6\t0123456789abcdef0123456789abcdef\ttriton_poi_fused_add_0\n"
		     "triton\t0.3\t0123456789abcdef0123456789abcdee\ttriton_tem_fused_mm_1\n", NULL, 6, out, &n);
	TAP_OK(!strstr(got, "reductions"), "no facts: pointwise and template kernels' names say no reduction (%s)", got);
	free(got);
	release(out, n);
	got = search("triton\t0.6\t0123456789abcdef0123456789abcdef\ttriton_per_fused_sum_0\n", NULL, 6, out, &n);
	TAP_OK(strstr(got, "autotune-no-persistent-reductions") != NULL, "no facts: a persistent reduction's name says one");
	free(got);
	release(out, n);
	/* a kernel of the user's own whose name only begins like Inductor's
	 * prefixes ("triton_per", "triton_red" without their underscore) is no
	 * reduction */
	got = search("triton\t0.6\t0123456789abcdef0123456789abcdef\ttriton_permute_0\n"
		     "triton\t0.3\t0123456789abcdef0123456789abcdee\ttriton_redo_1\n", NULL, 6, out, &n);
	TAP_OK(!strstr(got, "reductions"), "no facts: triton_permute_0 and triton_redo_1 are no reductions (%s)", got);
	free(got);
	release(out, n);

	/* on the declared max-autotune variant: its options kept, one replaced */
	struct kopt_option opts[] = { { "max_fusion_size", "32" }, { "epilogue_fusion", "true" } };
	char *fb[] = { "aten.avg_pool2d" };
	struct kopt_variant base = { .name = "autotune", .mode = "max-autotune-no-cudagraphs", .options = opts,
				     .noptions = 2, .aten_fallback = fb, .naten_fallback = 1 };
	got = search("facts\t-\t-\tconv=0,gemm=1,reduction=0,params=10\n", &base, 6, out, &n);
	TAP_IS_STR(got, "autotune-freezing autotune-cd-radius-2 autotune-no-epilogue-fusion autotune-gemm-exhaustive "
			"autotune-tma-matmul autotune-nd-tiling", "a GEMM with parameters");
	free(got);
	what = rule_variant_what(&out[2]);
	TAP_IS_STR(what, "max-autotune-no-cudagraphs, max_fusion_size = 32, epilogue_fusion = false, ATen fallbacks "
			 "aten.avg_pool2d", "the base's options and fallbacks kept, its epilogue_fusion replaced");
	free(what);
	TAP_OK(out[2].options != base.options && out[2].aten_fallback != base.aten_fallback,
	       "... in arrays of the variant's own");
	TAP_IS_STR(base.options[1].json, "true", "... and the base untouched");
	release(out, n);

	/* a dimension the base has already is no variant */
	struct kopt_option off[] = { { "epilogue_fusion", "false" } };
	struct kopt_variant base2 = { .name = "autotune", .mode = "max-autotune-no-cudagraphs", .options = off,
				      .noptions = 1 };
	got = search("facts\t-\t-\tconv=0,gemm=1,reduction=0,params=0\n", &base2, 6, out, &n);
	TAP_IS_STR(got, "autotune-cd-radius-2 autotune-gemm-exhaustive autotune-tma-matmul autotune-nd-tiling",
		   "the base turns epilogue fusion off already: no variant for it");
	free(got);
	release(out, n);

	/* every dimension: every fact, and two Triton kernels */
	got = search("facts\t-\t-\tconv=2,gemm=1,reduction=3,params=4096,tconv=1,dconv=1,pool=2,c3d=1,lred=1\n"
		     "eager\t1.2\t-\t-\n"
		     "triton\t0.5\t0123456789abcdef0123456789abcdef\ttriton_red_fused_sum_0\n"
		     "triton\t0.3\t0123456789abcdef0123456789abcdee\ttriton_poi_fused_add_1\n", NULL, RULE_SPACE_MAX, out, &n);
	TAP_IS_STR(got, "autotune-linear-reduction-fold autotune-rewrites autotune-conv-transpose-as-conv "
			"autotune-depthwise-as-pointwise autotune-pool-as-pointwise "
			"autotune-conv3d-as-conv2d autotune-model-layout autotune-freezing "
			"autotune-channels-last autotune-cd-radius-2 "
			"autotune-no-persistent-reductions autotune-no-split-reductions autotune-no-epilogue-fusion "
			"autotune-gemm-exhaustive autotune-tma-matmul autotune-nd-tiling autotune-cooperative-reductions autotune-multi-kernel "
			"autotune-conv-1x1-as-mm autotune-benchmark-fusion autotune-aggressive-fusion",
		   "every fact and two kernels: every dimension, in the table's order");
	TAP_OK(n == RULE_SPACE_MAX, "... all %d of them (%zu)", RULE_SPACE_MAX, n);
	const char *const want[][2] = {
		{ "autotune-rewrites", "max-autotune-no-cudagraphs, kopt.conv_transpose_as_conv = true, "
				       "kopt.conv3d_as_conv2d = true, kopt.depthwise_as_pointwise = true, "
				       "kopt.pool_as_pointwise = true, kopt.linear_reduction_fold = true" },
		{ "autotune-conv-transpose-as-conv", "max-autotune-no-cudagraphs, kopt.conv_transpose_as_conv = true, "
						     "kopt.conv3d_as_conv2d = true" },
		{ "autotune-conv3d-as-conv2d", "max-autotune-no-cudagraphs, kopt.conv3d_as_conv2d = true" },
		{ "autotune-linear-reduction-fold", "max-autotune-no-cudagraphs, kopt.linear_reduction_fold = true" },
		{ "autotune-depthwise-as-pointwise", "max-autotune-no-cudagraphs, kopt.depthwise_as_pointwise = true" },
		{ "autotune-pool-as-pointwise", "max-autotune-no-cudagraphs, kopt.pool_as_pointwise = true" },
		{ "autotune-model-layout", "max-autotune-no-cudagraphs, layout_optimization = false" },
		{ "autotune-gemm-exhaustive", "max-autotune-no-cudagraphs, max_autotune_gemm_search_space = \"EXHAUSTIVE\"" },
		{ "autotune-tma-matmul", "max-autotune-no-cudagraphs, triton.enable_persistent_tma_matmul = true" },
		{ "autotune-nd-tiling", "max-autotune-no-cudagraphs, triton.prefer_nd_tiling = true, triton.tile_reductions = true" },
		{ "autotune-cooperative-reductions", "max-autotune-no-cudagraphs, triton.cooperative_reductions = true" },
		{ "autotune-multi-kernel", "max-autotune-no-cudagraphs, triton.multi_kernel = 1" },
		{ "autotune-conv-1x1-as-mm", "max-autotune-no-cudagraphs, kopt.conv1x1_as_product = true, conv_1x1_as_mm = "
					     "true, force_layout_optimization = true, layout_optimization = true, freezing = true" },
		{ "autotune-benchmark-fusion", "max-autotune-no-cudagraphs, benchmark_fusion = true" },
		{ "autotune-aggressive-fusion", "max-autotune-no-cudagraphs, aggressive_fusion = true" },
	};
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		char *wt = NULL;
		for (size_t i = 0; i < n && !wt; i++)
			if (strcmp(out[i].name, want[w][0]) == 0)
				wt = rule_variant_what(&out[i]);
		TAP_OK(wt && strcmp(wt, want[w][1]) == 0, "%s sets its options (%s)", want[w][0], wt ? wt : "none");
		free(wt);
	}
	free(got);
	release(out, n);
	got = search("facts\t-\t-\tconv=0,gemm=0,reduction=0,params=0\n"
		     "triton\t0.9\t0123456789abcdef0123456789abcdef\ttriton_poi_fused_add_0\n", NULL, RULE_SPACE_MAX, out, &n);
	TAP_IS_STR(got, "autotune-cd-radius-2 autotune-nd-tiling", "one Triton kernel: no fusion dimension");
	free(got);
	release(out, n);

	/* koptmake's rewrites all at once: where two kinds of op or more take
	 * one, first, with the rewrites of the ops the model has alone */
	const struct { const char *facts; const char *names, *what, *why; } rw[] = {
		{ "tconv=1,dconv=0,pool=1,c3d=0,lred=0",
		  "autotune-rewrites autotune-conv-transpose-as-conv autotune-pool-as-pointwise",
		  "max-autotune-no-cudagraphs, kopt.conv_transpose_as_conv = true, kopt.conv3d_as_conv2d = true, "
		  "kopt.pool_as_pointwise = true",
		  "a transposed convolution and a pooling: both rewrites at once first, then each" },
		{ "tconv=0,dconv=0,pool=2,c3d=1,lred=0",
		  "autotune-rewrites autotune-pool-as-pointwise autotune-conv3d-as-conv2d",
		  "max-autotune-no-cudagraphs, kopt.conv3d_as_conv2d = true, kopt.pool_as_pointwise = true",
		  "a 3-D convolution and poolings: those two, no transposed or depthwise rewrite" },
		{ "tconv=0,dconv=1,pool=0,c3d=0,lred=1",
		  "autotune-linear-reduction-fold autotune-rewrites autotune-depthwise-as-pointwise",
		  "max-autotune-no-cudagraphs, kopt.linear_reduction_fold = true",
		  "a depthwise convolution and a linear layer summed: the fold first (it removes an op), then both, "
		  "then the depthwise rewrite" },
		{ "tconv=0,dconv=0,pool=3,c3d=0,lred=0", "autotune-pool-as-pointwise", NULL,
		  "poolings alone (three of one kind): the single rewrite, no combined variant" },
	};
	for (size_t i = 0; i < sizeof rw / sizeof rw[0]; i++) {
		char *text = xasprintf("facts\t-\t-\tconv=1,gemm=0,reduction=0,params=0,%s,sred=0\n", rw[i].facts);
		got = search(text, NULL, 3, out, &n);
		char *first = n ? rule_variant_what(&out[0]) : NULL;
		bool names = strncmp(got, rw[i].names, strlen(rw[i].names)) == 0;
		TAP_OK(names && (!rw[i].what || (first && strcmp(first, rw[i].what) == 0)), "%s (%s; %s)", rw[i].why, got,
		       first ? first : "-");
		free(first);
		free(got);
		free(text);
		release(out, n);
	}

	/* an attention: its fused kernel first where nothing folds or slices
	 * (it removes the scores' traffic), and not among the rewrites at once */
	const char *const at[][3] = {
		{ "facts\t-\t-\tconv=0,gemm=4,reduction=3,params=64,tconv=0,dconv=0,pool=0,c3d=0,lred=0,sred=1,attn=1\n",
		  "autotune-flash-attention", "an attention: the flash-attention variant first" },
		{ "facts\t-\t-\tconv=0,gemm=4,reduction=3,params=64,tconv=0,dconv=0,pool=1,c3d=0,lred=0,sred=0,attn=2\n",
		  "autotune-flash-attention", "an attention and a pooling: no rewrites at once, the attention's variant first" },
		{ "facts\t-\t-\tconv=0,gemm=4,reduction=3,params=64,tconv=0,dconv=0,pool=0,c3d=0,lred=0,sred=1,attn=0\n",
		  "-", "no attention: no flash-attention variant" },
	};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		got = search(at[i][0], NULL, RULE_SPACE_MAX, out, &n);
		bool want_none = strcmp(at[i][1], "-") == 0;
		TAP_OK(want_none ? !strstr(got, "flash-attention") : n > 1 && strcmp(out[0].name, at[i][1]) == 0 &&
		       !strstr(got, "autotune-rewrites") && strcmp(out[n - 1].name, at[i][1]) != 0,
		       "%s (%s)", at[i][2], got);
		free(got);
		release(out, n);
	}

	/* a product read in part: its variant first (it removes work, as the
	 * fold does), and among the rewrites at once */
	const char *const sl[][3] = {
		{ "facts\t-\t-\tconv=0,gemm=2,reduction=1,params=64,tconv=0,dconv=0,pool=0,c3d=0,lred=0,sred=0,attn=0,"
		  "slice=1\n",
		  "max-autotune-no-cudagraphs, kopt.sliced_product = true",
		  "a product read in part: its variant first, before freezing" },
		{ "facts\t-\t-\tconv=0,gemm=2,reduction=1,params=64,tconv=0,dconv=0,pool=1,c3d=0,lred=0,sred=0,attn=0,"
		  "slice=1\n",
		  "max-autotune-no-cudagraphs, kopt.sliced_product = true",
		  "a product read in part and a pooling: the product's variant first, then both at once" },
	};
	for (size_t i = 0; i < sizeof sl / sizeof sl[0]; i++) {
		got = search(sl[i][0], NULL, 2, out, &n);
		char *first = n ? rule_variant_what(&out[0]) : NULL;
		char *second = n > 1 ? rule_variant_what(&out[1]) : NULL;
		bool both = i == 0 || (second && strstr(second, "kopt.sliced_product") && strstr(second, "kopt.pool_as_pointwise"));
		TAP_OK(first && strcmp(first, sl[i][1]) == 0 && both, "%s (%s; %s; %s)", sl[i][2], got, first ? first : "-",
		       second ? second : "-");
		free(first);
		free(second);
		free(got);
		release(out, n);
	}

	/* the model's layout kept: a model with a convolution that eager runs
	 * faster than its compiled code by gamma, and no other */
	const char *const lay[][3] = {
		{ "facts\t-\t-\tconv=1,gemm=0,reduction=0,params=64\neager\t1.24\t-\t-\n", "1",
		  "eager 1.24x faster than the compiled convolution: the model's layout first, before freezing" },
		{ "facts\t-\t-\tconv=1,gemm=0,reduction=0,params=64\neager\t1.02\t-\t-\n", "0",
		  "eager faster, by less than gamma: no model-layout variant" },
		{ "facts\t-\t-\tconv=1,gemm=0,reduction=0,params=64\neager\t-\t-\t-\n", "0",
		  "no side-by-side run with eager: none" },
		{ "facts\t-\t-\tconv=0,gemm=1,reduction=0,params=64\neager\t1.5\t-\t-\n", "0",
		  "eager faster but no convolution: none" },
	};
	for (size_t i = 0; i < sizeof lay / sizeof lay[0]; i++) {
		got = search(lay[i][0], NULL, 1, out, &n);
		TAP_OK((strcmp(got, "autotune-model-layout") == 0) == (lay[i][1][0] == '1'), "%s (%s)", lay[i][2], got);
		free(got);
		release(out, n);
	}

	/* a reduction over a strided axis: Inductor's tiled reductions early,
	 * and once */
	const struct { int sred; size_t max; const char *want, *what; } sred[] = {
		{ 1, 1, "autotune-nd-tiling", "a reduction over a strided axis: tiled reductions first" },
		{ 1, RULE_SPACE_MAX, "autotune-nd-tiling autotune-cd-radius-2 autotune-no-persistent-reductions "
				     "autotune-no-split-reductions autotune-cooperative-reductions autotune-multi-kernel",
		  "... once, not again in its place" },
		{ 0, 1, "autotune-cd-radius-2", "reductions over the last axis alone: coordinate descent first, as before" },
	};
	for (size_t i = 0; i < sizeof sred / sizeof sred[0]; i++) {
		char *text = xasprintf("facts\t-\t-\tconv=0,gemm=0,reduction=1,params=0,tconv=0,dconv=0,pool=0,c3d=0,"
				       "lred=0,sred=%d\n", sred[i].sred);
		got = search(text, NULL, sred[i].max, out, &n);
		TAP_IS_STR(got, sred[i].want, sred[i].what);
		free(got);
		free(text);
		release(out, n);
	}

	/* the summary's new lines through text */
	struct rule_summary s, r;
	memset(&s, 0, sizeof s);
	s.cudnn_share = 0.1;
	s.cudnn_left = 1.4;
	s.eager_ratio = NAN;
	s.facts_known = true;
	s.convs = 1;
	s.gemms = 2;
	s.reductions = 3;
	s.params = 540672;
	s.tconvs = 1;
	s.dconvs = 2;
	s.pools = 3;
	s.c3ds = 4;
	s.lreds = 5;
	s.sreds = 6;
	char *text = rule_summary_write(&s);
	rule_summary_read(text, &r);
	TAP_OK(r.facts_known && r.convs == 1 && r.gemms == 2 && r.reductions == 3 && r.params == 540672 && r.tconvs == 1 &&
	       r.dconvs == 2 && r.pools == 3 && r.c3ds == 4 && r.lreds == 5 && r.sreds == 6,
	       "the facts line reads back");

	TAP_OK(fabs(r.cudnn_left - 1.4) < 1e-9 && fabs(r.cudnn_share - 0.1) < 1e-9 && r.conv1x1_share == 0,
	       "the cuDNN line too");
	rule_summary_release(&r);
	free(text);
	s.conv1x1_share = 0.0625;
	text = rule_summary_write(&s);
	rule_summary_read(text, &r);
	TAP_OK(strstr(text, "cudnn\t0.1\t0.0625\t1.4\n") && r.conv1x1_share == 0.0625,
	       "the 1x1 convolutions' share: the cuDNN line's third field, read back");
	rule_summary_release(&r);
	free(text);
	s.conv1x1_share = NAN;
	text = rule_summary_write(&s);
	rule_summary_read(text, &r);
	TAP_OK(strstr(text, "cudnn\t0.1\t-\t1.4\n") && isnan(r.conv1x1_share), "... unknown: '-', read back as unknown");
	rule_summary_release(&r);
	rule_summary_read("facts\t-\t-\tconv=3,gemm=0,reduction=0,params=0\n", &r);
	TAP_OK(r.facts_known && r.convs == 3 && r.tconvs == 0 && r.dconvs == 0 && r.pools == 0 && r.c3ds == 0 && r.lreds == 0,
	       "a facts line from before tconv and dconv: known, no transposed or depthwise ones");
	struct kopt_variant o1[RULE_SPACE_MAX];
	size_t n1 = rule_space_search(&r, NULL, RULE_SPACE_MAX, 1.03, o1);
	TAP_OK(n1 > 0 && strcmp(o1[0].name, "autotune-channels-last") == 0, "... and no rewrite of them (%s first)",
	       n1 ? o1[0].name : "none");
	release(o1, n1);
	free(text);
	rule_summary_release(&r);
	rule_summary_read("cudnn\t0.5\t-\t-\n", &r);
	TAP_OK(isnan(r.cudnn_left) && isnan(r.conv1x1_share) && !r.facts_known && isnan(r.model_ns) && isnan(r.device_ns),
	       "an older summary: nothing the probe found, no 1x1 share, no facts, no times");
	rule_summary_release(&r);

	/* what the chains read (rules/chains.c): a call's time, its kernels',
	 * and each kernel's bound over its time, where known */
	struct rule_summary_kernel ks[2] = {
		{ .kind = "triton", .share = 0.5, .name = "triton_red_fused_sum_0", .frac = 0.25 },
		{ .kind = "vendor", .share = 0.25, .name = "sm90_xmma_gemm", .frac = NAN },
	};
	struct rule_summary t;
	memset(&t, 0, sizeof t);
	t.kernels = ks;
	t.nkernels = 2;
	t.model_ns = 120000;
	t.device_ns = 100000;
	t.cudnn_left = t.eager_ratio = NAN;
	text = rule_summary_write(&t);
	rule_summary_read(text, &r);
	TAP_OK(r.nkernels == 2 && fabs(r.kernels[0].frac - 0.25) < 1e-9 && isnan(r.kernels[1].frac) &&
	       strcmp(r.kernels[0].name, "triton_red_fused_sum_0") == 0 && strcmp(r.kernels[1].name, "sm90_xmma_gemm") == 0,
	       "a kernel's bound fraction reads back, its name whole; none where unknown");
	TAP_OK(r.model_ns == 120000 && r.device_ns == 100000, "the times read back");
	free(text);
	rule_summary_release(&r);
	/* no kernel time measured (0): no time line, with a cost or without,
	 * so that a reader knows no host share rather than one of 100% */
	t.device_ns = 0;
	for (int with_cost = 0; with_cost < 2; with_cost++) {
		t.cost_s = with_cost ? 1.5 : 0;
		text = rule_summary_write(&t);
		rule_summary_read(text, &r);
		TAP_OK(!strstr(text, "\ntime\t") && isnan(r.model_ns) && isnan(r.device_ns),
		       "kernels' time 0 %s a cost: no time line, the times unknown when read", with_cost ? "with" : "without");
		free(text);
		rule_summary_release(&r);
	}
	t.device_ns = 100000;
	text = rule_summary_write(&t);
	TAP_OK(strstr(text, "\ntime\t120000\t100000\t1.5\n") != NULL, "... and with a kernels' time, the line with its cost");
	free(text);
	t.cost_s = 0;
	/* a kernel whose name holds a tab or a newline, or without a share,
	 * is left out of the summary: each alone, the other kernel kept */
	struct rule_summary_kernel bad[3] = {
		{ .kind = "triton", .share = 0.5, .name = "bad\tname", .frac = NAN },
		{ .kind = "triton", .share = NAN, .name = "no_share", .frac = NAN },
		{ .kind = "triton", .share = 0.25, .name = "kept", .frac = NAN },
	};
	t.kernels = bad;
	t.nkernels = 3;
	text = rule_summary_write(&t);
	rule_summary_read(text, &r);
	TAP_OK(r.nkernels == 1 && strcmp(r.kernels[0].name, "kept") == 0 && !strstr(text, "bad") && !strstr(text, "no_share"),
	       "a kernel named with a tab, or without a share, is left out; the other is kept");
	free(text);
	rule_summary_release(&r);

	/* the facts line: every fact of RULE_GRAPH_FACTS, in its order, written
	 * and read back; a line of the first four (older summaries) has the
	 * later ones 0; a line short of the four knows no facts */
	memset(&t, 0, sizeof t);
	t.cudnn_left = t.eager_ratio = NAN;
	t.facts_known = true;
	t.convs = 1, t.gemms = 2, t.reductions = 3, t.params = 4, t.tconvs = 5, t.dconvs = 6, t.pools = 7;
	t.c3ds = 8, t.lreds = 9, t.sreds = 10, t.attns = 11, t.slices = 12;
	text = rule_summary_write(&t);
	TAP_OK(strstr(text, "\nfacts\t-\t-\tconv=1,gemm=2,reduction=3,params=4,tconv=5,dconv=6,pool=7,c3d=8,lred=9,"
			    "sred=10,attn=11,slice=12\n") != NULL, "the facts line, byte for byte");
	rule_summary_read(text, &r);
	TAP_OK(r.facts_known && r.convs == 1 && r.gemms == 2 && r.reductions == 3 && r.params == 4 && r.tconvs == 5 &&
	       r.dconvs == 6 && r.pools == 7 && r.c3ds == 8 && r.lreds == 9 && r.sreds == 10 && r.attns == 11 &&
	       r.slices == 12, "every fact reads back");
	free(text);
	rule_summary_release(&r);
	rule_summary_read("facts\t-\t-\tconv=3,gemm=2,reduction=1,params=9\n", &r);
	TAP_OK(r.facts_known && r.convs == 3 && r.params == 9 && r.tconvs == 0 && r.slices == 0,
	       "a line of the first four: known, the later ones 0");
	rule_summary_release(&r);
	rule_summary_read("facts\t-\t-\tconv=3,gemm=2,reduction=1\n", &r);
	TAP_OK(!r.facts_known, "a line without the parameters: no facts known");
	rule_summary_release(&r);
	rule_summary_read("facts\t-\t-\tconv=3,gemm=x,reduction=1,params=9\n", &r);
	TAP_OK(!r.facts_known && r.convs == 3, "a value that is no number ends the line");
	rule_summary_release(&r);
	/* space_variants = -1, the default (rule_space_auto): what the facts
	 * single out and can pay, one per family, within the GPU time */
	{
		const char *H = "0123456789abcdef0123456789abcdef";
		char *dw = xasprintf("vendor\t0.7\t%s\tcudnn_depthwise\ntriton\t0.3\t%s\ttriton_poi_fused_0\t0.9\n"
				     "time\t100000\t90000\t120\neager\t1.5\t-\t-\n"
				     "facts\t-\t-\tconv=1,gemm=0,reduction=0,params=3456,tconv=0,dconv=1\n", H, H);
		struct rule_summary a;
		rule_summary_read(dw, &a);
		TAP_OK(fabs(a.cost_s - 120) < 1e-9, "the time line's fourth field: the capture's GPU seconds");
		n = rule_space_auto(&a, NULL, 1.03, 600, 120, out);
		got = names(out, n);
		TAP_IS_STR(got, "autotune-depthwise-as-pointwise",
			   "a depthwise convolution in cuDNN's 70%: its rewrite alone; the layout dimension (eager faster) "
			   "is of the same family");
		free(got);
		release(out, n);
		n = rule_space_search(&a, NULL, 1, 1.03, out);
		got = names(out, n);
		TAP_IS_STR(got, "autotune-depthwise-as-pointwise", "... as space_variants = 1 adds (the benchmark's)");
		free(got);
		release(out, n);
		TAP_OK(rule_space_auto(&a, NULL, 1.03, 100, 120, out) == 0, "a capture longer than space_time: none");
		TAP_OK(rule_space_auto(&a, NULL, 1.03, 0, 120, out) == 0, "space_time 0: none");
		n = rule_space_auto(&a, NULL, 1.03, 600, NAN, out);
		TAP_OK(n == 1, "an unknown cost: one");
		release(out, n);
		rule_summary_release(&a);
		free(dw);
		char *cheap = xasprintf("vendor\t0.1\t%s\tcudnn_depthwise\ntriton\t0.9\t%s\ttriton_poi_fused_0\t0.95\n"
					"facts\t-\t-\tconv=1,gemm=0,reduction=0,params=3456,tconv=0,dconv=1\n", H, H);
		rule_summary_read(cheap, &a);
		TAP_OK(rule_space_auto(&a, NULL, 1.03, 600, 120, out) == 0,
		       "the same op in 10%% of the time: its rewrite cannot pay, none added");
		rule_summary_release(&a);
		free(cheap);
		char *two = xasprintf("vendor\t0.5\t%s\tcudnn_depthwise\ntriton\t0.5\t%s\ttriton_red_fused_0\t0.5\n"
				      "time\t100000\t30000\t100\n"
				      "facts\t-\t-\tconv=1,gemm=0,reduction=1,params=3456,tconv=0,dconv=1,pool=0,c3d=0,lred=0,"
				      "sred=1\n", H, H);
		rule_summary_read(two, &a);
		n = rule_space_auto(&a, NULL, 1.03, 600, 100, out);
		got = names(out, n);
		TAP_IS_STR(got, "autotune-cudagraphs autotune-depthwise-as-pointwise autotune-nd-tiling",
			   "a host-bound call, a depthwise convolution, a strided reduction with room: one of each family");
		free(got);
		release(out, n);
		n = rule_space_auto(&a, NULL, 1.03, 250, 100, out);
		TAP_OK(n == 2, "space_time for two captures: the first two (%zu)", n);
		release(out, n);
		rule_summary_release(&a);
		free(two);
		/* a Triton kernel at a bound of 0 (frac 0) leaves its whole share
		 * to its bound: 30% is room for the N-d tiling, 30% at half its
		 * bound (15%) is not */
		static const struct { const char *frac, *want, *what; } room[] = {
			{ "0", "autotune-nd-tiling", "a strided reduction in 30 percent at frac 0: room for the N-d tiling" },
			{ "0.5", "", "... at frac 0.5, 15 percent of room: none" },
		};
		for (size_t i = 0; i < sizeof room / sizeof room[0]; i++) {
			char *sum = xasprintf("vendor\t0.7\t%s\tsm90_xmma_gemm\ntriton\t0.3\t%s\ttriton_red_fused_0\t%s\n"
					    "facts\t-\t-\tconv=0,gemm=1,reduction=1,params=0,tconv=0,dconv=0,pool=0,c3d=0,"
					    "lred=0,sred=1\n", H, H, room[i].frac);
			rule_summary_read(sum, &a);
			n = rule_space_auto(&a, NULL, 1.03, 600, 10, out);
			got = names(out, n);
			TAP_IS_STR(got, room[i].want, room[i].what);
			free(got);
			release(out, n);
			rule_summary_release(&a);
			free(sum);
		}
		/* a kernel faster than its bound (frac above 1: the bound is
		 * overstated) has no room, and takes none from the others */
		char *over = xasprintf("vendor\t0.3\t%s\tsm90_xmma_gemm\ntriton\t0.3\t%s\ttriton_red_fused_0\t0\n"
				       "triton\t0.4\t%s\ttriton_red_fused_1\t1.5\n"
				       "facts\t-\t-\tconv=0,gemm=1,reduction=2,params=0,tconv=0,dconv=0,pool=0,c3d=0,"
				       "lred=0,sred=1\n", H, H, H);
		rule_summary_read(over, &a);
		n = rule_space_auto(&a, NULL, 1.03, 600, 10, out);
		got = names(out, n);
		TAP_IS_STR(got, "autotune-nd-tiling",
			   "30 percent at frac 0 beside 40 at frac 1.5: the room is the first's, for the N-d tiling");
		free(got);
		release(out, n);
		rule_summary_release(&a);
		free(over);
		rule_summary_read("triton\t1\t0123456789abcdef0123456789abcdef\ttriton_red_fused_0\t0.5\n"
				  "facts\t-\t-\tconv=0,gemm=1,reduction=3,params=4096\n", &a);
		TAP_OK(rule_space_auto(&a, NULL, 1.03, 600, 10, out) == 0,
		       "reductions and a GEMM, nothing singled out: the generic dimensions are left to a number");
		rule_summary_release(&a);
	}
	/* cuDNN's 1x1 convolutions (the cuDNN line's third field): a third of
	 * the device time or more puts their products first among the
	 * convolutions' variants, before a depthwise rewrite (an EfficientNet
	 * block); under it, or unknown (an older summary's "-"), the rewrite
	 * stays first and the products come where NEED_CONV puts them */
	{
		const char *H = "0123456789abcdef0123456789abcdef";
		static const struct { const char *c1, *first, *what; } c1[] = {
			{ "0.68", "autotune-conv-1x1-as-mm", "1x1 convolutions in 68% of the device time: their products first" },
			{ "0.334", "autotune-conv-1x1-as-mm", "... in 33.4%, over a third: first" },
			{ "0.333", "autotune-depthwise-as-pointwise", "... in 33.3%, under a third: the rewrite first" },
			{ "-", "autotune-depthwise-as-pointwise", "... unknown (an older summary): the rewrite first" },
		};
		for (size_t i = 0; i < sizeof c1 / sizeof *c1; i++) {
			char *mb = xasprintf("vendor\t0.8\t%s\tcudnn_conv\ntriton\t0.2\t%s\ttriton_poi_fused_0\t0.9\n"
					     "cudnn\t0.8\t%s\t-\n"
					     "facts\t-\t-\tconv=3,gemm=0,reduction=0,params=3456,tconv=0,dconv=1\n",
					     H, H, c1[i].c1);
			struct rule_summary a;
			rule_summary_read(mb, &a);
			n = rule_space_search(&a, NULL, 1, 1.03, out);
			got = names(out, n);
			TAP_OK(strcmp(got, c1[i].first) == 0, "space_variants = 1: %s (%s)", c1[i].what, got);
			free(got);
			release(out, n);
			n = rule_space_auto(&a, NULL, 1.03, 600, 10, out);
			got = names(out, n);
			bool first = strcmp(c1[i].first, "autotune-conv-1x1-as-mm") == 0;
			TAP_OK(strcmp(got, first ? "autotune-conv-1x1-as-mm autotune-depthwise-as-pointwise"
						 : "autotune-depthwise-as-pointwise") == 0,
			       "space_variants = -1: %s%s (%s)", c1[i].what,
			       first ? ", beside the rewrite (a family of its own)" : ", not added", got);
			free(got);
			release(out, n);
			rule_summary_release(&a);
			free(mb);
		}
		struct rule_summary a;
		/* the edge: a share of exactly a third */
		rule_summary_read("facts\t-\t-\tconv=3,gemm=0,reduction=0,params=3456,tconv=0,dconv=1\n", &a);
		a.conv1x1_share = RULE_CONV1X1_SHARE;
		n = rule_space_search(&a, NULL, 1, 1.03, out);
		TAP_OK(n == 1 && strcmp(out[0].name, "autotune-conv-1x1-as-mm") == 0,
		       "1x1 convolutions in exactly a third of the device time: their products first (%s)",
		       n ? out[0].name : "none");
		release(out, n);
		rule_summary_release(&a);
		rule_summary_read("cudnn\t0.8\t0.6\t-\nfacts\t-\t-\tconv=2,gemm=0,reduction=0,params=64\n", &a);
		n = rule_space_search(&a, NULL, 6, 1.03, out);
		got = names(out, n);
		int times = 0;
		for (size_t i = 0; i < n; i++)
			times += strcmp(out[i].name, "autotune-conv-1x1-as-mm") == 0;
		TAP_OK(n == 6 && strcmp(out[0].name, "autotune-conv-1x1-as-mm") == 0 && times == 1,
		       "the products first, once: not added again where NEED_CONV lists them (%s)", got);
		what = rule_variant_what(&out[0]);
		TAP_IS_STR(what,
			   "max-autotune-no-cudagraphs, kopt.conv1x1_as_product = true, conv_1x1_as_mm = true, "
			   "force_layout_optimization = true, layout_optimization = true, freezing = true",
			   "... with koptmake's 1x1 rewrite and conv_1x1_as_mm on, and channels-last throughout "
			   "(max-autotune's 1x1 products take channels-last inputs only)");
		free(what);
		free(got);
		release(out, n);
		rule_summary_release(&a);
	}
	/* cuBLAS's large float32 products (the gemm32 line): a quarter of the
	 * device time or more gets them as tf32x3 kernels, a variant that pays
	 * by itself (space_variants = -1), of its own family: beside a 1x1,
	 * a host or an attention variant; under it, or unknown, none */
	{
		const char *H = "0123456789abcdef0123456789abcdef";
		static const struct { const char *g; bool taken; const char *what; } g32[] = {
			{ "0.3", true, "float32 products in 30% of the device time: their tf32x3 variant" },
			{ "0.25", true, "... in 25%, the edge: taken" },
			{ "0.249", false, "... in 24.9%: none" },
			{ "0.2", false, "... in 20%: none" },
			{ NULL, false, "... unknown (an older summary, no gemm32 line): none" },
		};
		for (size_t i = 0; i < sizeof g32 / sizeof *g32; i++) {
			char *line = g32[i].g ? xasprintf("gemm32\t%s\t-\t-\n", g32[i].g) : xstrdup("");
			char *prof = xasprintf("vendor\t0.1\t%s\tsm80_xmma_gemm_f32f32\ntriton\t0.9\t%s\ttriton_poi_fused_0\t0.95\n"
					       "time\t100000\t95000\t10\n%s"
					       "facts\t-\t-\tconv=0,gemm=2,reduction=0,params=4096\n", H, H, line);
			struct rule_summary a;
			rule_summary_read(prof, &a);
			n = rule_space_auto(&a, NULL, 1.03, 600, 10, out);
			got = names(out, n);
			what = n ? rule_variant_what(&out[0]) : NULL;
			TAP_OK(g32[i].taken ? strcmp(got, "autotune-tf32x3-products") == 0 && what &&
						      strcmp(what, "max-autotune-no-cudagraphs, kopt.tf32x3_products = true") == 0
					    : n == 0,
			       "space_variants = -1: %s (%s; %s)", g32[i].what, got, what ? what : "-");
			free(what);
			free(got);
			release(out, n);
			n = rule_space_search(&a, NULL, 1, 1.03, out);
			TAP_OK(g32[i].taken ? n == 1 && strcmp(out[0].name, "autotune-tf32x3-products") == 0
					    : !(n && strcmp(out[0].name, "autotune-tf32x3-products") == 0),
			       "space_variants = 1: %s (%s)", g32[i].what, n ? out[0].name : "none");
			release(out, n);
			rule_summary_release(&a);
			free(prof);
			free(line);
		}
		/* on top of the declared max-autotune-no-cudagraphs variant, its
		 * options kept */
		struct kopt_option bo[] = { { "max_fusion_size", "32" } };
		struct kopt_variant b = { .name = "autotune", .mode = "max-autotune-no-cudagraphs", .options = bo, .noptions = 1 };
		struct rule_summary a;
		rule_summary_read("gemm32\t0.3\t-\t-\nfacts\t-\t-\tconv=0,gemm=2,reduction=0,params=4096\n", &a);
		n = rule_space_auto(&a, &b, 1.03, 600, 10, out);
		what = n ? rule_variant_what(&out[0]) : NULL;
		TAP_OK(n == 1 && what &&
			       strcmp(what, "max-autotune-no-cudagraphs, max_fusion_size = 32, kopt.tf32x3_products = true") == 0,
		       "the tf32x3 variant on the declared max-autotune variant, its options kept (%s)", what ? what : "-");
		free(what);
		release(out, n);
		rule_summary_release(&a);
		/* its own family: beside the others, in the table's order */
		static const struct { const char *prof, *want, *what; } fam[] = {
			{ "cudnn\t0.5\t0.4\t-\ngemm32\t0.3\t-\t-\n"
			  "facts\t-\t-\tconv=3,gemm=2,reduction=0,params=4096\n",
			  "autotune-tf32x3-products autotune-conv-1x1-as-mm",
			  "beside the 1x1 convolutions' products (a family each)" },
			{ "time\t100000\t40000\t10\ngemm32\t0.3\t-\t-\n"
			  "facts\t-\t-\tconv=0,gemm=2,reduction=0,params=4096\n",
			  "autotune-cudagraphs autotune-tf32x3-products", "beside CUDA graphs for a host-bound call" },
			{ "vendor\t0.6\t0123456789abcdef0123456789abcdef\tsm80_xmma_gemm_f32f32\ngemm32\t0.3\t-\t-\n"
			  "facts\t-\t-\tconv=0,gemm=4,reduction=3,params=64,tconv=0,dconv=0,pool=0,c3d=0,lred=0,sred=0,"
			  "attn=1\n",
			  "autotune-flash-attention autotune-tf32x3-products",
			  "beside the attention's kernel (the products are not the attention's family)" },
			{ "vendor\t0.6\t0123456789abcdef0123456789abcdef\tsm80_xmma_gemm_f32f32\ngemm32\t0.3\t-\t-\n"
			  "facts\t-\t-\tconv=1,gemm=2,reduction=0,params=64,tconv=1,dconv=0,pool=1,c3d=0,lred=0,sred=0\n",
			  "autotune-tf32x3-products autotune-rewrites",
			  "before and beside all the rewrites at once, which leave it out" },
		};
		for (size_t i = 0; i < sizeof fam / sizeof *fam; i++) {
			rule_summary_read(fam[i].prof, &a);
			n = rule_space_auto(&a, NULL, 1.03, 600, 10, out);
			got = names(out, n);
			bool apart = true; /* no other variant sets the option */
			for (size_t v = 0; v < n; v++)
				for (size_t k = 0; k < out[v].noptions; k++)
					apart &= strcmp(out[v].options[k].key, "kopt.tf32x3_products") != 0 ||
						 strcmp(out[v].name, "autotune-tf32x3-products") == 0;
			TAP_OK(strcmp(got, fam[i].want) == 0 && apart, "space_variants = -1: %s (%s)", fam[i].what, got);
			free(got);
			release(out, n);
			rule_summary_release(&a);
		}
	}
	return tap_done();
}
