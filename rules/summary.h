/*
 * rules/summary.h: a profile's summary (rules/summary.c writes and reads
 * it as text; rules/space_pick.c fills its implementation-space figures).
 */
#ifndef KOPT_RULES_SUMMARY_H
#define KOPT_RULES_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "../engine/hash.h"
#include "../gates/gates.h"

/*
 * A profile's summary: what planning reads without parsing the profile's
 * whole result (the hot selection, the implementation-space choice). The
 * profile rule writes it into the manifest and reads it back (rules/
 * profile.c; rules/summary.c gives the format).
 */
struct rule_summary_kernel {
	const char *kind;           /* "triton", "vendor", ... */
	double share;               /* of device time */
	kopt_hash ident;            /* the hash of its inventory entry, what proposals key on */
	const char *name;
	double frac;                /* its bound over its time (agents/roof.c), 0..1; NAN: unknown */
	uint64_t cls;               /* its class (rules/groups.c), 0: none known */
};

/*
 * The graph facts, the one list of them: what worker.py's graph_facts
 * counts in one eager call (runtime/python/kopt/inductor.py; tests/lists.py
 * checks its names against these), read from a profile's measurements
 * (rule_summary_space) and kept in its summary (summary.c's facts line, in
 * this order). X(FIELD, JSON, KEY, ABSENT): struct rule_summary's field,
 * the measurement's name, the summary line's key, and what a profile that
 * lacks the fact has: -1 for the first four, without which a summary knows
 * no facts, 0 for those that came later.
 */
#define RULE_GRAPH_FACTS(X) \
	X(convs, "convolutions", "conv", -1)                /* the model's ATen convolution calls */ \
	X(gemms, "gemms", "gemm", -1)                       /* ... its GEMM calls */ \
	X(reductions, "reductions", "reduction", -1)        /* ... its reductions */ \
	X(params, "parameters", "params", -1)               /* elements of its parameters and buffers */ \
	X(tconvs, "transposed_convolutions", "tconv", 0)    /* of the convolutions, the transposed ones */ \
	X(dconvs, "depthwise_convolutions", "dconv", 0)     /* ... the depthwise ones (groups = input channels) */ \
	X(pools, "poolings", "pool", 0)                     /* the 2-D and 3-D average and max poolings, where \
							     * the compiled code runs one in ATen's kernel \
							     * (else 0: rule_summary_space) */ \
	X(c3ds, "convolutions_3d", "c3d", 0)                /* the forward 3-D convolutions (not depthwise) */ \
	X(lreds, "linear_reductions", "lred", 0)            /* sums or means over a matrix product's features */ \
	X(sreds, "strided_reductions", "sred", 0)           /* reductions over axes that leave a contiguous \
							     * last one out */ \
	X(attns, "attentions", "attn", 0)                   /* softmaxes between two batched products, in \
							     * float32 (attention) */ \
	X(slices, "sliced_products", "slice", 0)            /* matrix products whose output is read in part */

struct rule_summary {
	struct rule_summary_kernel *kernels; /* owned */
	size_t nkernels;
	double cudnn_share;         /* of device time, in torch's cuDNN calls */
	double cudnn_left;          /* the vendor probe: torch's time over cuDNN's best algorithm's,
				     * the most over its cuDNN calls; NAN when unknown */
	double conv1x1_share;       /* of device time, in those cuDNN calls that are 1x1 convolutions
				     * of stride 1 and one group; NAN: unknown (older profiles) */
	double gemm32_share;        /* of device time, in cuBLAS's float32 products of m and n 128 or
				     * more (rule_gemm32_share); NAN: unknown (older profiles) or
				     * none (the summary leaves its line out at 0) */
	bool facts_known;           /* the facts below are known (older profiles lack them) */
#define RULE_FACT_FIELD_(field, json, key, absent) long field;
	RULE_GRAPH_FACTS(RULE_FACT_FIELD_) /* RULE_GRAPH_FACTS says what each is */
#undef RULE_FACT_FIELD_
	bool eager_known;           /* the next two are known (older profiles lack them) */
	double eager_ratio;         /* compiled over eager; NAN without a side-by-side run */
	char *eager_ops;            /* the hot kernels' distinctive ATen ops, "a,b"; NULL: none; owned */
	enum gate_baseline_status baseline; /* the compiled code against eager (gates/baseline.c);
					       profiles cached before the check: unchecked */
	char *baseline_why;         /* its reason, one line; owned */
	double model_ns, device_ns; /* a call's time and its kernels'; NAN: unknown (older profiles) */
	double cost_s;              /* the GPU seconds the variant's capture took: about what another
				     * variant of the model costs (space_variants = -1); NAN: unknown */
	char *text;                 /* read: the text, owned; kinds and names point into it */
};

/* the summary as text; caller frees */
char *rule_summary_write(const struct rule_summary *s);
/* parses text (copied) into s; lines that do not parse are left out */
void rule_summary_read(const char *text, struct rule_summary *s);
void rule_summary_release(struct rule_summary *s);

#endif
