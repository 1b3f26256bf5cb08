/*
 * rules/space.c: the implementation-space search (agents space_variants).
 *
 * max-autotune-no-cudagraphs searches launch configs, GEMM templates and
 * coordinate descent at radius 1; it does not change how Inductor lays out
 * tensors, folds weights or shapes its reductions. Those are Inductor
 * options, and each is a search dimension here: one variant per
 * dimension, max-autotune-no-cudagraphs plus that option, named for what
 * it changes. A dimension is tried only where the first variant's profile
 * says it can matter (no convolution, no channels-last variant), and at
 * most space_variants of them, in the table's order, so that the GPU cost
 * is a known number of compiles and profiles (kopt(5), agents). Each
 * variant is then an ordinary variant: captured, profiled, its compiled
 * code checked against eager (gates/baseline.c), its hot kernels tuned
 * and raced with the rest by the stitch.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "space.h"

enum need {
	NEED_NONE, NEED_PARAMS, NEED_CONV, NEED_REDUCTION, NEED_TEMPLATE, NEED_GEMM, NEED_FUSION,
	NEED_TCONV, NEED_DWCONV, NEED_POOL, NEED_CONV3D, NEED_LRED, NEED_CONV_EAGER, NEED_SRED,
	NEED_ANY_CONV3D, /* a forward 3-D convolution, or a transposed one (whose rewrite makes forward ones) */
	NEED_ATTN,       /* a softmax between two batched products (attention), float32 */
	NEED_SLICE,      /* a matrix product whose output is read in part */
	NEED_REWRITES,   /* two kinds of op or more that koptmake's rewrites take */
	NEED_CONV_NET,   /* a network of convolutions: several, with weights (a CNN) */
	NEED_HOST,       /* a host-bound call (the first profile's: RULE_HOST_SHARE) */
	NEED_CONV1X1,    /* cuDNN's 1x1 convolutions: RULE_CONV1X1_SHARE of the device time */
	NEED_GEMM32      /* cuBLAS's large float32 products: RULE_GEMM32_SHARE of the device time */
};

/* convolutions per call that make a network of them (a block's two or
 * three, and more) */
#define CONV_NET 4

#define DIM_KEYS 6

/* one dimension: its variant's name and the options it sets (JSON text) */
struct dim {
	const char *name;
	enum need need;
	const char *key[DIM_KEYS], *json[DIM_KEYS];
};

/* what a rewrite's option needs in the model (all the rewrites at once set
 * each only where that holds) */
static enum need rewrite_need(const char *key)
{
	static const struct { const char *key; enum need need; } map[] = {
		{ "kopt.conv_transpose_as_conv", NEED_TCONV }, { "kopt.conv3d_as_conv2d", NEED_ANY_CONV3D },
		{ "kopt.depthwise_as_pointwise", NEED_DWCONV }, { "kopt.pool_as_pointwise", NEED_POOL },
		{ "kopt.linear_reduction_fold", NEED_LRED }, { "kopt.flash_attention", NEED_ATTN },
		{ "kopt.sliced_product", NEED_SLICE }, { "kopt.tf32x3_products", NEED_GEMM32 },
		{ "kopt.conv1x1_as_product", NEED_CONV1X1 },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strcmp(map[i].key, key) == 0)
			return map[i].need;
	return NEED_NONE;
}

/* 1x1 convolutions as matrix products, by koptmake's own rewrite and by
 * Inductor's flag, channels-last throughout (the table's row says why) */
#define CONV1X1_AS_MM                                                                             \
	{ "kopt.conv1x1_as_product", "conv_1x1_as_mm", "force_layout_optimization", "layout_optimization", \
	  "freezing" },                                                                              \
	{ "true", "true", "true", "true", "true" }

/*
 * In the order they are tried. First the linear-reduction fold, where a
 * sum over a matrix product's features, a mean over a transposed
 * convolution's spatial axes or a sum over a convolution's channels is
 * there to fold. After it and the sliced product and the attention, where
 * cuBLAS's float32 products of m and n 128 or more take RULE_GEMM32_SHARE
 * of the device time, those products as koptmake's own tf32x3 kernel
 * (raced apart from the rewrites, as the attention's). Then, where the
 * model has two kinds of op
 * or more that koptmake's rewrites take (a transposed convolution and a
 * pooling after it, say), all of those rewrites at once: each declines
 * where it does not apply, and one variant that takes every such op
 * reaches what single rewrites would only between them. Then each
 * koptmake's own rewrite
 * (runtime/python/kopt/rewrites.py): a transposed convolution as forward
 * convolutions, one per phase of its output, where the model has one;
 * cuDNN's data-gradient engines for 3-D are far from the FP32 peak. Then a
 * depthwise convolution as pointwise arithmetic over its shifted windows,
 * which Inductor fuses into one kernel at the copy bandwidth, and pooling
 * likewise where the compiled code leaves it to ATen's kernels (ATen's 3-D
 * pooling kernels are far from it; where Inductor makes its own pooling
 * kernel the rewrite lost: rule_summary_space counts no pooling there), and a 3-D
 * convolution as 2-D ones per depth tap (cuDNN's float32 3-D kernels are
 * generic ones; the transposed rewrite's 3-D forward convolutions go the
 * same way). Where eager runs
 * a model with convolutions faster than the first variant's compiled code
 * by gamma, Inductor's own layout for them is the first suspect (it
 * converts them to channels-last, around cuDNN kernels that can be slower
 * than eager's on the model's layout, and pays the transposes): the model's
 * layout kept (layout_optimization off). Where the model reduces over
 * axes that leave a contiguous last one out (a sum over the channels of
 * NCHW, an argmin over the middle axis), Inductor's tiled reductions load
 * along the contiguous axis: that dimension comes early there, and in its
 * place further down elsewhere. freezing folds the
 * weights into constants (conv-batchnorm folded with them), which only an
 * inference model with parameters gains from; the worker runs every model under no_grad.
 * force_layout_optimization makes Inductor take channels-last for its
 * convolutions where its heuristic would not (layout_optimization is on by
 * default); with parameters, freezing too, or each call converts the
 * weights again. Coordinate descent at radius 2 moves each launch key by
 * up to 4x where max-autotune's moves by 2x. The reduction switches and
 * epilogue fusion are on by default; their variants turn them off.
 * Then what max-autotune leaves at its defaults: GEMM and convolution
 * templates searched exhaustively rather than over the default configs;
 * Hopper's persistent TMA matmul templates among the GEMM choices;
 * higher-dimensional tiles, reductions tiled too (transposes, reductions
 * over a strided axis); cooperative reductions (a small output over many
 * blocks, synchronised across them, in place of split reductions); the
 * persistent and the looped form of each reduction compiled both and
 * picked by timing (multi_kernel); 1x1 convolutions as matmuls; fusion
 * decisions timed rather than guessed; and fusion without shared reads.
 * An option the installed torch does not know fails that variant's
 * capture, which leaves it out of the race, as any failed variant.
 */
static const struct dim dims[] = {
	/* first where a call is host-bound: its kernels replayed as CUDA
	 * graphs (max-autotune's mode with graphs, what a user gets with
	 * mode="max-autotune"); kernel candidates cannot change a replayed
	 * graph, so the variant gets none (rules/chains.c), and the report
	 * gives the speedup over it beside the others */
	{ "autotune-cudagraphs", NEED_HOST, { "triton.cudagraphs" }, { "true" } },
	/* first: a fold removes its matrix product or transposed convolution
	 * outright, or shrinks a convolution to a channel per group (level 2's
	 * 14: 18x), and in autotune-rewrites the
	 * transposed-convolution rewrite, a decomposition, takes the
	 * convolution before the fold's graph pass could see it */
	{ "autotune-linear-reduction-fold", NEED_LRED, { "kopt.linear_reduction_fold" }, { "true" } },
	/* a product of which a part is read, computed for that part alone: it
	 * removes work as the fold does */
	{ "autotune-sliced-product", NEED_SLICE, { "kopt.sliced_product" }, { "true" } },
	/* an attention's softmax between its two products as one kernel
	 * (kopt::attention): the scores, B x M x N, never written, where
	 * Inductor writes them and reads them back (in float32 without TF32
	 * its own attention patterns stay off). Its dots reach float32's
	 * accuracy on tensor cores (tf32x3); with float32 dots on the FMA
	 * units it had lost to the unfused form and gone last (bench/beyond/
	 * README.md). Not among the rewrites at once: a kernel of koptmake's
	 * own, raced apart from the graph rewrites */
	{ "autotune-flash-attention", NEED_ATTN, { "kopt.flash_attention" }, { "true" } },
	/* a model whose time is in large float32 matrix products (aten mm,
	 * addmm, bmm that cuBLAS runs: rule_gemm32_share), each as a Triton
	 * kernel on tensor cores at float32's accuracy (tf32x3: each operand
	 * a TF32 high part and its remainder, three TF32 products summed in
	 * float32), where cuBLAS's float32 SGEMM runs on the FMA units at
	 * about 51 TFLOP/s on an H100 (TF32 off). Against it on an H100: 1.43x
	 * at m=256 n=16384 k=32768, 1.02x at 4096 square, 0.47x at m=10 (a
	 * small batch's linear layer): it pays for large products alone, so
	 * only where those take RULE_GEMM32_SHARE of the device time. Not
	 * among the rewrites at once: a kernel of koptmake's own, raced apart
	 * from the graph rewrites, as the attention's */
	{ "autotune-tf32x3-products", NEED_GEMM32, { "kopt.tf32x3_products" }, { "true" } },
	/* a network whose time is in 1x1 convolutions (a MobileNet or
	 * EfficientNet block's expanding and projecting ones, a bottleneck's):
	 * matrix products in all but name, which cuDNN ran in float32 at
	 * under half cuBLAS's rate for products (bench/results/
	 * 2026-12-05-h100-level3-slices: 21 TFLOP/s against 48), as products
	 * raced among cuBLAS and Triton's templates; before the rewrites,
	 * which take the network's other convolutions, a smaller share there.
	 * Channels-last throughout (with freezing, as autotune-channels-last):
	 * max-autotune makes a 1x1 convolution a product only where its input
	 * is channels-last, and conv_1x1_as_mm alone changed no kernel
	 * (bench/results/2026-12-06b-h100-level3-slices: EfficientNetMBConv's
	 * expanding one, its input the model's NCHW, stayed Triton's
	 * convolution template at 19 TFLOP/s, SqueezeNet's profile within
	 * 0.1% of max-autotune's); channels-last throughout with it, the
	 * expanding one still was (2026-12-06c: 4.0 ms of a 7.2 ms call), so
	 * koptmake's own rewrite (kopt.conv1x1_as_product) makes each a
	 * product before Inductor's lowering sees a convolution */
	{ "autotune-conv-1x1-as-mm", NEED_CONV1X1, CONV1X1_AS_MM },
	{ "autotune-rewrites", NEED_REWRITES,
	  { "kopt.conv_transpose_as_conv", "kopt.conv3d_as_conv2d", "kopt.depthwise_as_pointwise",
	    "kopt.pool_as_pointwise", "kopt.linear_reduction_fold", "kopt.sliced_product" },
	  { "true", "true", "true", "true", "true", "true" } },
	{ "autotune-conv-transpose-as-conv", NEED_TCONV, { "kopt.conv_transpose_as_conv", "kopt.conv3d_as_conv2d" },
	  { "true", "true" } },
	{ "autotune-depthwise-as-pointwise", NEED_DWCONV, { "kopt.depthwise_as_pointwise" }, { "true" } },
	{ "autotune-pool-as-pointwise", NEED_POOL, { "kopt.pool_as_pointwise" }, { "true" } },
	{ "autotune-conv3d-as-conv2d", NEED_CONV3D, { "kopt.conv3d_as_conv2d" }, { "true" } },
	{ "autotune-model-layout", NEED_CONV_EAGER, { "layout_optimization" }, { "false" } },
	/* a convolution network at inference, its choices together: freezing
	 * (the weights constants: a batch norm after a convolution folded into
	 * its weights and bias by Inductor's binary folding, its kernels gone),
	 * channels-last throughout (no layout change between layers), and
	 * cuDNN's algorithms timed at each shape; each alone is a dimension
	 * below, and the race says which paid */
	{ "autotune-conv-inference", NEED_CONV_NET,
	  { "freezing", "force_layout_optimization", "layout_optimization", "cudnn_benchmark" },
	  { "true", "true", "true", "true" } },
	{ "autotune-nd-tiling", NEED_SRED, { "triton.prefer_nd_tiling", "triton.tile_reductions" }, { "true", "true" } },
	{ "autotune-freezing", NEED_PARAMS, { "freezing" }, { "true" } },
	{ "autotune-channels-last", NEED_CONV, { "force_layout_optimization", "layout_optimization", "freezing" },
	  { "true", "true", "true" } },
	{ "autotune-cd-radius-2", NEED_NONE, { "coordinate_descent_tuning", "coordinate_descent_search_radius" },
	  { "true", "2" } },
	{ "autotune-no-persistent-reductions", NEED_REDUCTION, { "triton.persistent_reductions" }, { "false" } },
	{ "autotune-no-split-reductions", NEED_REDUCTION, { "split_reductions" }, { "false" } },
	{ "autotune-no-epilogue-fusion", NEED_TEMPLATE, { "epilogue_fusion" }, { "false" } },
	{ "autotune-gemm-exhaustive", NEED_TEMPLATE, { "max_autotune_gemm_search_space" }, { "\"EXHAUSTIVE\"" } },
	{ "autotune-tma-matmul", NEED_GEMM, { "triton.enable_persistent_tma_matmul" }, { "true" } },
	{ "autotune-nd-tiling", NEED_NONE, { "triton.prefer_nd_tiling", "triton.tile_reductions" }, { "true", "true" } },
	{ "autotune-cooperative-reductions", NEED_REDUCTION, { "triton.cooperative_reductions" }, { "true" } },
	{ "autotune-multi-kernel", NEED_REDUCTION, { "triton.multi_kernel" }, { "1" } },
	{ "autotune-conv-1x1-as-mm", NEED_CONV, CONV1X1_AS_MM },
	{ "autotune-benchmark-fusion", NEED_FUSION, { "benchmark_fusion" }, { "true" } },
	{ "autotune-aggressive-fusion", NEED_FUSION, { "aggressive_fusion" }, { "true" } },
};

void rule_variant_copy(struct kopt_variant *dst, const struct kopt_variant *v)
{
	*dst = *v;
	dst->aten_fallback = NULL;
	dst->options = NULL;
	if (v->naten_fallback) {
		dst->aten_fallback = xcalloc(v->naten_fallback, sizeof *dst->aten_fallback);
		memcpy(dst->aten_fallback, v->aten_fallback, v->naten_fallback * sizeof *dst->aten_fallback);
	}
	if (v->noptions) {
		dst->options = xcalloc(v->noptions, sizeof *dst->options);
		memcpy(dst->options, v->options, v->noptions * sizeof *dst->options);
	}
}

void rule_variant_release(struct kopt_variant *v)
{
	free(v->aten_fallback);
	free(v->options);
	v->aten_fallback = NULL;
	v->options = NULL;
	v->naten_fallback = v->noptions = 0;
}

/* sets key to json in v's own options, replacing a value the base set;
 * returns whether that changed v */
static bool set_option(struct kopt_variant *v, const char *key, const char *json)
{
	for (size_t i = 0; i < v->noptions; i++)
		if (strcmp(v->options[i].key, key) == 0) {
			bool same = strcmp(v->options[i].json, json) == 0;
			v->options[i].json = (char *)json;
			return !same;
		}
	v->options = xrealloc(v->options, (v->noptions + 1) * sizeof *v->options);
	v->options[v->noptions].key = (char *)key;
	v->options[v->noptions].json = (char *)json;
	v->noptions++;
	return true;
}

static bool needed(const struct rule_summary *s, enum need need, double gamma)
{
	bool reductions = s->reductions > 0;
	if (!s->facts_known) /* older profiles: what the kernels' names and the vendor calls say */
		for (size_t i = 0; i < s->nkernels; i++)
			reductions |= strncmp(s->kernels[i].name, "triton_red_", 11) == 0 ||
				      strncmp(s->kernels[i].name, "triton_per_", 11) == 0;
	switch (need) {
	case NEED_NONE: return true;
	case NEED_PARAMS: return s->facts_known && s->params > 0;
	case NEED_CONV: return s->convs > 0 || s->cudnn_share > 0;
	case NEED_REDUCTION: return reductions;
	case NEED_TEMPLATE: return s->convs > 0 || s->gemms > 0 || s->cudnn_share > 0;
	case NEED_GEMM: return s->gemms > 0;
	case NEED_FUSION: return s->nkernels >= 2; /* two kernels or more: something fusion could change */
	case NEED_TCONV: return s->facts_known && s->tconvs > 0;
	case NEED_DWCONV: return s->facts_known && s->dconvs > 0;
	case NEED_POOL: return s->facts_known && s->pools > 0;
	case NEED_CONV3D: return s->facts_known && s->c3ds > 0;
	case NEED_LRED: return s->facts_known && s->lreds > 0;
	case NEED_SRED: return s->facts_known && s->sreds > 0;
	case NEED_ATTN: return s->facts_known && s->attns > 0;
	case NEED_SLICE: return s->facts_known && s->slices > 0;
	case NEED_ANY_CONV3D: return s->facts_known && (s->c3ds > 0 || s->tconvs > 0);
	case NEED_REWRITES:
		return s->facts_known && (s->tconvs > 0) + (s->dconvs > 0) + (s->pools > 0) +
					 (s->c3ds > 0) + (s->lreds > 0) + (s->slices > 0) >= 2;
	case NEED_CONV_NET: return s->facts_known && s->convs >= CONV_NET && s->params > 0;
	case NEED_HOST: return rule_host_share(s->model_ns, s->device_ns) >= RULE_HOST_SHARE;
	case NEED_CONV1X1: return s->conv1x1_share >= RULE_CONV1X1_SHARE; /* NAN (unknown): false */
	case NEED_GEMM32: return s->gemm32_share >= RULE_GEMM32_SHARE;    /* NAN (unknown): false */
	case NEED_CONV_EAGER: /* compiled over eager, gamma or more */
		return (s->convs > 0 || s->cudnn_share > 0) && s->eager_known && s->eager_ratio >= gamma;
	}
	return false;
}

/*
 * space_variants = -1, the default: the dimensions the first profile's
 * facts single out and that can pay, one per family of ops (a
 * convolution's rewrite and its layout dimension address the same calls:
 * the first in the table's order stands for them), within a GPU-time
 * bound. Where a dimension's facts name ops that koptmake's rewrites take
 * (a transposed, depthwise or 3-D convolution, a pooling run by ATen, a
 * sum over a matrix product's features, a product read in part, an
 * attention) it pays where the calls it rewrites take their share: the
 * vendor and ATen kernels, AUTO_VENDOR of the device time or more. A
 * host-bound call (CUDA graphs), eager beating the compiled convolutions
 * by gamma, cuDNN's 1x1 convolutions in RULE_CONV1X1_SHARE of the device
 * time and cuBLAS's large float32 products in RULE_GEMM32_SHARE of it
 * (tf32x3) are facts that pay by themselves; a reduction over
 * a strided axis (N-d tiling) where its Triton kernels leave AUTO_ROOM of
 * the device time to their bounds. The generic dimensions (coordinate
 * descent, freezing, the reduction switches, exhaustive templates) are
 * left to an explicit space_variants: no fact singles them out.
 */
#define AUTO_VENDOR 0.25
#define AUTO_ROOM 0.2

enum family { FAM_NONE, FAM_HOST, FAM_CONV, FAM_CONV1X1, FAM_POOL, FAM_GEMM, FAM_GEMM32, FAM_RED, FAM_N };

static enum family family_of(enum need need)
{
	switch (need) {
	case NEED_HOST: return FAM_HOST;
	/* its products stand beside the convolutions' own variant: they
	 * take the 1x1 calls alone */
	case NEED_CONV1X1: return FAM_CONV1X1;
	/* likewise the large float32 products, as tf32x3 kernels: beside a
	 * rewrite of the model's other ops, a 1x1 or a host variant */
	case NEED_GEMM32: return FAM_GEMM32;
	case NEED_TCONV: case NEED_DWCONV: case NEED_CONV3D: case NEED_ANY_CONV3D: case NEED_CONV_EAGER:
	case NEED_CONV_NET: case NEED_CONV: return FAM_CONV;
	case NEED_POOL: return FAM_POOL;
	case NEED_LRED: case NEED_SLICE: case NEED_ATTN: case NEED_GEMM: case NEED_TEMPLATE: return FAM_GEMM;
	case NEED_SRED: case NEED_REDUCTION: return FAM_RED;
	default: return FAM_NONE;
	}
}

/* the device time's share in kernels other than Triton's (vendor, ATen) */
static double vendor_share(const struct rule_summary *s)
{
	double v = 0;
	for (size_t i = 0; i < s->nkernels; i++)
		if (strcmp(s->kernels[i].kind, "triton") != 0 && s->kernels[i].share > 0)
			v += s->kernels[i].share;
	return v;
}

/* the device time's share its Triton kernels leave to their bounds */
static double triton_room(const struct rule_summary *s)
{
	double r = 0;
	for (size_t i = 0; i < s->nkernels; i++) {
		const struct rule_summary_kernel *k = &s->kernels[i];
		if (strcmp(k->kind, "triton") == 0 && k->share > 0 && k->frac >= 0 && k->frac <= 1)
			r += k->share * (1 - k->frac);
	}
	return r;
}

static bool pays(const struct rule_summary *s, enum need need, double gamma)
{
	if (!needed(s, need, gamma))
		return false;
	switch (need) {
	case NEED_HOST: case NEED_CONV_EAGER: case NEED_CONV1X1: case NEED_GEMM32: return true;
	case NEED_LRED: case NEED_SLICE: case NEED_ATTN: case NEED_TCONV: case NEED_DWCONV: case NEED_POOL:
	case NEED_CONV3D: case NEED_ANY_CONV3D: case NEED_REWRITES: case NEED_CONV_NET:
		return vendor_share(s) >= AUTO_VENDOR;
	case NEED_SRED: return triton_room(s) >= AUTO_ROOM;
	default: return false;
	}
}

static size_t search(const struct rule_summary *s, const struct kopt_variant *base, size_t max, double gamma,
		     bool auto_, struct kopt_variant *out)
{
	size_t n = 0;
	bool taken[FAM_N] = { false };
	for (size_t d = 0; d < sizeof dims / sizeof *dims && n < max; d++) {
		if (!(auto_ ? pays(s, dims[d].need, gamma) : needed(s, dims[d].need, gamma)))
			continue;
		if (auto_) { /* one per family; all the rewrites at once stand for every family they take */
			enum family f = family_of(dims[d].need);
			if (dims[d].need == NEED_REWRITES) {
				if (taken[FAM_CONV] || taken[FAM_POOL] || taken[FAM_GEMM])
					continue;
				taken[FAM_CONV] = taken[FAM_POOL] = taken[FAM_GEMM] = true;
			} else if (f != FAM_NONE) {
				if (taken[f])
					continue;
				taken[f] = true;
			}
		}
		bool again = false; /* a dimension the diagnosis put early is not added twice */
		for (size_t i = 0; i < n; i++)
			again |= strcmp(out[i].name, dims[d].name) == 0;
		if (again)
			continue;
		struct kopt_variant *v = &out[n++];
		if (base) {
			rule_variant_copy(v, base);
		} else {
			memset(v, 0, sizeof *v);
			v->mode = (char *)RULE_SPACE_MODE;
		}
		v->name = (char *)dims[d].name;
		memset(&v->loc, 0, sizeof v->loc);
		bool changed = false;
		for (size_t k = 0; k < DIM_KEYS && dims[d].key[k]; k++) {
			if (strcmp(dims[d].key[k], "freezing") == 0 && dims[d].need != NEED_PARAMS &&
			    !needed(s, NEED_PARAMS, gamma))
				continue; /* channels-last without parameters has nothing to fold */
			if (dims[d].need == NEED_REWRITES && !needed(s, rewrite_need(dims[d].key[k]), gamma))
				continue; /* a rewrite of an op the model does not have */
			if (strcmp(dims[d].key[k], "cudnn_benchmark") == 0) { /* the variant's flag, not Inductor's */
				changed |= !v->cudnn_benchmark;
				v->cudnn_benchmark = true;
				continue;
			}
			changed |= set_option(v, dims[d].key[k], dims[d].json[k]);
		}
		if (!changed) /* the base has it already: the base's own race */
			rule_variant_release(&out[--n]);
	}
	return n;
}

size_t rule_space_search(const struct rule_summary *s, const struct kopt_variant *base, size_t max, double gamma,
			 struct kopt_variant *out)
{
	return search(s, base, max, gamma, false, out);
}

size_t rule_space_auto(const struct rule_summary *s, const struct kopt_variant *base, double gamma, double budget_s,
		       double cost_s, struct kopt_variant *out)
{
	if (!(budget_s > 0))
		return 0;
	/* each variant about one declared variant's capture; unknown: one */
	double fit = cost_s > 0 ? floor(budget_s / cost_s) : 1;
	size_t max = fit < 1 ? 0 : fit > RULE_SPACE_MAX ? RULE_SPACE_MAX : (size_t)fit;
	return search(s, base, max, gamma, true, out);
}

double rule_host_share(double model_ns, double device_ns)
{
	return model_ns > 0 && device_ns > 0 ? fmax(model_ns - device_ns, 0) / model_ns : NAN;
}

bool rule_variant_graphs(const struct kopt_variant *v)
{
	bool on = rule_mode_graphs(v->mode);
	for (size_t i = 0; i < v->noptions; i++)
		if (strcmp(v->options[i].key, "triton.cudagraphs") == 0)
			on = strcmp(v->options[i].json, "true") == 0;
	return on;
}

char *rule_variant_what(const struct kopt_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, v->mode ? v->mode : "default");
	for (size_t i = 0; i < v->noptions; i++)
		strbuf_addf(&sb, ", %s = %s", v->options[i].key, v->options[i].json);
	if (v->naten_fallback) {
		strbuf_addstr(&sb, ", ATen fallbacks ");
		for (size_t i = 0; i < v->naten_fallback; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "", v->aten_fallback[i]);
	}
	if (v->cudnn_benchmark)
		strbuf_addstr(&sb, ", cudnn_benchmark");
	return strbuf_detach(&sb);
}
