/*
 * rules/space.h: the implementation space: the search over Inductor's
 * options and koptmake's rewrites (rules/space.c), the agents' own
 * variants and the choice across a model's variants (rules/space_pick.c),
 * and what a variant's mode means (rules/space_pick.c).
 */
#ifndef KOPT_RULES_SPACE_H
#define KOPT_RULES_SPACE_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/util.h"
#include "../engine/dag.h"
#include "../lang/spec.h"
#include "summary.h"

/* A Markdown row when the first variant's side-by-side eager run
 * (worker.py eager_vs_compiled; meas[v] is variant v's profile) beats
 * torch.compile by gamma: the hot kernels' distinctive ATen ops, and the
 * ATen-fallback variant to declare, the one the agents added (auto_name),
 * or the declared variant that eager does not beat. Returns whether it
 * wrote a row. */
extern const char rule_space_header[];
#define RULE_AUTO_VARIANT "aten-auto"   /* the agents' own variants: ATen fallbacks */
#define RULE_CUDNN_VARIANT "cudnn-auto" /*   and cudnn.benchmark */
#define RULE_CUDNN_SHARE 0.25           /* of device time in cuDNN calls: worth benchmarking */
/* the host's share of a call (Python, the wrapper, the launches) that
 * makes it host-bound: the report's host-time rows and report.json's
 * host_bound, and where the space offers CUDA graphs (a replay removes
 * that share, up to 1.25x and more, which no kernel work does) */
#define RULE_HOST_SHARE 0.2
/* the host's share of a call of model_ns whose device time is device_ns
 * (its time less its kernels', at least 0); NAN where either is unknown */
double rule_host_share(double model_ns, double device_ns);
/* the time a call's kernels run, from a profile's measurements: the sum of
 * its kernels' times (sum_kernel_ns_per_call), not the span from the first
 * kernel's start to the last one's end, which also holds the gaps where the
 * GPU waits for the host to launch the next (a launch-bound call: LSTMCn
 * at level 3, 17 ms of kernels in a 32 ms span of a 33 ms call); the span
 * for a profile without the sum; NAN unknown */
double rule_kernels_ns(const json_t *profile_meas);

/*
 * The implementation-space search (agents space_variants, rules/space.c):
 * Inductor's options as search dimensions on top of
 * max-autotune-no-cudagraphs, each dimension one variant named for what it
 * changes. rule_space_search fills out[] (at most max) with the variants
 * the first variant's profile summary calls for, in the table's order: a
 * dimension that needs a convolution, a reduction, a GEMM or parameters is
 * left out where the profile found none (one that needs eager to beat the
 * first variant, where it does not by gamma), and one that base sets already
 * is no variant. base is the model's declared
 * max-autotune-no-cudagraphs variant or NULL; the variants' lists and
 * options are allocated (rule_variant_release frees them), their strings
 * static or base's. Returns the count.
 */
#define RULE_SPACE_MAX 21
/* the mode the search builds on, its base's: max-autotune without CUDA
 * graphs, what a user would pick instead of the defaults (DESIGN.md) */
#define RULE_SPACE_MODE "max-autotune-no-cudagraphs"
/* whether mode is one of torch's max-autotune modes, with CUDA graphs or
 * without (rules/space_pick.c): a report's max-autotune baseline is the
 * model's first variant in one (rule_report_autotune_variant), and torch
 * tunes a pinned config at its first launch under each (rule_key_pinned).
 * The one place that tells a max-autotune variant by its mode, with
 * RULE_SPACE_MODE (tests/lists.py) */
bool rule_max_autotune(const char *mode);
/* the stitch result's entry (meas "variants") of the model's first
 * declared max-autotune variant, the report's baseline, or NULL
 * (rules/space_pick.c) */
const json_t *rule_report_autotune_variant(const struct dag_node *s, const json_t *meas);
/* whether torch runs a variant of mode as CUDA graphs, its options aside
 * (rules/space_pick.c; rule_variant_graphs reads the options too; the worker's
 * problem.Compiled.graphs, checked against it by tests/lists.py) */
bool rule_mode_graphs(const char *mode);
size_t rule_space_search(const struct rule_summary *s, const struct kopt_variant *base, size_t max, double gamma,
			 struct kopt_variant *out);
/* space_variants = -1, the default (rules/space.c says which): the
 * dimensions the profile's facts single out that can pay, one per family
 * of ops, as many as budget_s seconds of GPU time hold at cost_s each (a
 * declared variant's capture; unknown: one), into out as
 * rule_space_search. Returns the count. */
size_t rule_space_auto(const struct rule_summary *s, const struct kopt_variant *base, double gamma, double budget_s,
		       double cost_s, struct kopt_variant *out);
/* what a variant is, one line for reports ("max-autotune-no-cudagraphs,
 * freezing = true"); caller frees */
char *rule_variant_what(const struct kopt_variant *v);
/* whether v's compiled code runs as CUDA graphs (mode reduce-overhead or
 * max-autotune, or triton.cudagraphs set): its kernels are replayed as
 * captured, which no kernel candidate changes */
bool rule_variant_graphs(const struct kopt_variant *v);
/* a copy of v whose aten_fallback and options arrays are its own (their
 * strings shared); rule_variant_release frees the arrays */
void rule_variant_copy(struct kopt_variant *dst, const struct kopt_variant *v);
void rule_variant_release(struct kopt_variant *v);
int rule_space_rows(struct strbuf *md, const struct kopt_model *m, const json_t *const *meas, size_t n,
		    double gamma, const char *auto_name);
/* The agents' implementation-space choice (the profile's expansion): the ATen ops
 * to keep out of Inductor when eager beats every declared variant's
 * compiled code by gamma in that variant's own profile (meas[v], side by
 * side), taken from the hot kernels of the first; NULL when eager does not
 * win everywhere, when no hot kernel names a distinctive op, or when the
 * spec already declares ATen fallbacks for the model. New reference. */
json_t *rule_space_pick(const struct kopt_model *m, const json_t *const *meas, size_t n, double gamma);
/* The same from the profiles' summaries, without parsing their results
 * (struct rule_summary: ratio[v] is variant v's eager_ratio, ops0 the
 * first variant's eager_ops). rule_space_line gives the summary's lines
 * of these figures for a profile's measurements. */
char *rule_space_line(const json_t *profile_meas);
/* The share of a profile's device time that torch's cuDNN calls take
 * (vendor calls, runtime/python/kopt/vendor.py); 0 without any. The
 * summary carries it too, as "cudnn\tSHARE\t1X1\tLEFT" (rule_space_line). */
double rule_cudnn_share(const json_t *profile_meas);
/* The same share for the cuDNN calls that are 1x1 convolutions of stride 1
 * and one group (their shape as vendor.py describes it): matrix products
 * in all but name, which conv_1x1_as_mm hands to cuBLAS and Triton's GEMM
 * templates (the summary's 1X1) */
double rule_conv1x1_share(const json_t *profile_meas);
/* the 1x1 convolutions' share that makes them worth racing as matrix
 * products (autotune-conv-1x1-as-mm first among the convolutions' variants) */
#define RULE_CONV1X1_SHARE (1.0 / 3)
/* The share of a profile's device time in its large float32 matrix
 * products: the vendor calls that are cuBLAS's (lib "cuBLAS", "cuBLASLt")
 * in float32 whose shape, as vendor.py describes it ("m=.. n=.. k=..",
 * a batched one "Bx m=.. n=.. k=.."), has m and n of 128 or more, each
 * time by its count; calls without a dtype or a shape are not counted.
 * cuBLAS runs them on the FMA units (SGEMM, TF32 off), which
 * kopt.tf32x3_products hands to tensor cores at float32's accuracy; a
 * smaller product (a small batch's linear layer) fills too few of their
 * tiles and loses. Capped at 1; 0 without a device time. The summary's
 * "gemm32\tSHARE\t-\t-" (rule_space_line). */
double rule_gemm32_share(const json_t *profile_meas);
/* the large float32 products' share that makes them worth racing as
 * tf32x3 products (autotune-tf32x3-products) */
#define RULE_GEMM32_SHARE 0.25
json_t *rule_space_pick_lines(const struct kopt_model *m, const double *ratio, size_t n, const char *ops0,
			      double gamma);

/*
 * The implementation-space choice across a model's compile variants: each
 * variant's time is its stitched time if its winners passed, else its
 * compiled baseline; in the spec's order, a variant replaces the best so far
 * only when faster by gamma (two within the noise keep the earlier), and a
 * variant with no winner must beat the first variant's baseline by gamma to
 * be chosen (a compile option that wins inside the noise is no win).
 * race_rounds (NULL, or an array of n arrays: the race's calls of each
 * variant in order, PROTOCOL.md "race") adds the noise rule: a variant
 * displaces the best so far only where the lower quartile of their
 * round-by-round ratios, in their times' terms, is at least 1.
 * Returns whether the model is optimized (winners, or another variant) and
 * sets *best.
 */
bool rule_pick_variant(const double *base, const double *opt, const bool *passed, const json_t *race_rounds,
		       size_t n, double gamma, size_t *best);

/* fills the implementation-space figures of s (cudnn share, the large
 * float32 products' share, eager ratio and ops) from a profile's
 * measurements (rules/space_pick.c) */
void rule_summary_space(struct rule_summary *s, const json_t *profile_meas);

#endif
