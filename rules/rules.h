/*
 * rules/rules.h: koptmake's pipeline, one rule per step kind. A rule names
 * the ingredients of a step's key, builds the worker requests of a stale
 * step, and turns the replies into a result: a stable part (hashed, drives
 * the dependents' keys) and measurements (stored, never hashed), plus cache
 * objects and files in kopt-out/.
 *
 * The interface (struct rule, struct rule_run, struct rule_set) is the
 * engine's (engine/rule.h); rule_pipeline is koptmake's set.
 *
 * The graph (rules/plan.c): capture and profile per model and compile
 * variant, stitch per model and report per target. Propose and verify
 * nodes appear when a profile's result is known (the profile rule's expand
 * hook, as ninja's dyndep): one chain per hot kernel, propose c0, verify
 * c0, propose c1, ... up to the agents' budget, and beside it the kernel's
 * screen, which c0 waits for (rules/screen.c). Each node's context (its
 * ctx) is the rules': a rule_mv for capture and profile, a rule_cand for
 * propose and verify, a rule_kernel for screen, a rule_model for stitch,
 * the kopt_target for report.
 * The plan owns them; they live as long as the dag.
 */
#ifndef KOPT_RULES_H
#define KOPT_RULES_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#include "../agents/agent.h"
#include "../agents/memory.h"
#include "../engine/dag.h"
#include "../engine/hash.h"
#include "../gates/gates.h"

/* the node kinds: indices into rule_pipeline's table */
enum rule_kind {
	RULE_CAPTURE, RULE_PROFILE, RULE_PROPOSE, RULE_VERIFY, RULE_STITCH, RULE_REPORT, RULE_SCREEN, RULE_DEPLOY,
	RULE_NKINDS
};

/* koptmake's rules */
extern const struct rule_set rule_pipeline;
/* -t memory [CLASS]: the agents' long-term memory in the cache, by kernel
 * feature class (read only, no lock) */
engine_tool_fn rule_tool_memory;

struct rule_model;
struct rule_mv;

/*
 * A profile's summary: what planning reads without parsing the profile's
 * whole result (the hot selection, the implementation-space choice). The
 * profile rule writes it into the manifest and reads it back (rules/
 * profile.c, which gives the format).
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
	char *text;                 /* read: the text, owned; kinds and names point into it */
};

/* rules/report.c: the stitch result's entry (meas "variants") of the
 * model's first declared max-autotune variant, or NULL */
const json_t *rule_report_autotune_variant(const struct dag_node *s, const json_t *meas);
/* rules/report_device.c: into o, the model's speedups in device time
 * (device_speedup, device_speedup_vs_max_autotune) from its variants'
 * profiles' measurements meas (in the model's variant order) and its
 * stitch's me; o has the chosen "variant" and "verdict" */
void rule_report_device_speedups(const struct dag_node *s, const json_t **meas, const json_t *me, json_t *o);

/* rules/shapes.c: for the report of target n (its inputs, the models'
 * stitches; doc, report.json's document, with its "models" rows), each
 * model served at several shapes: report.json's "shapes", [{model,
 * shapes: [shape...], geomean_speedup, geomean_speedup_vs_max_autotune}],
 * each row of a shape given its "shape" and "of" (the model), and
 * report.md's Shapes section, appended to md */
void rule_report_shapes(const struct dag_node *n, json_t *doc, struct strbuf *md);
/* rules/report_capture.c: each variant's capture, where its compile's
 * seconds went: [{variant, compile_s, gpu_minutes, dynamo_s, inductor_s,
 * triton_s, autotune_s, run_s, gpu_lock_wait_s}] (null where unknown) */
json_t *rule_capture_phases(struct dag *d, const struct rule_model *dm);
/* ... as report.md's "Capture" section, appended to md (nothing where no
 * capture says) */
void rule_capture_md(struct dag *d, const struct rule_model *dm, struct strbuf *md);

/* the summary as text; caller frees */
char *rule_summary_write(const struct rule_summary *s);
/* parses text (copied) into s; lines that do not parse are left out */
int rule_summary_read(const char *text, struct rule_summary *s);
void rule_summary_release(struct rule_summary *s);
/* rules/groups.c: a Triton kernel's class (its source less its name and
 * numbers, its size hints to a factor of four), 0 without a source */
uint64_t rule_kernel_class(const char *src, const char *name);
/* the summary's kernels in groups of one class: rep[i], the index of the
 * representative of kernel i's group (its kernel of the most time; i
 * itself where alone), and share[r], a representative's group's share of
 * device time (0 for the others); both of s->nkernels */
void rule_kernel_groups(const struct rule_summary *s, size_t *rep, double *share);
/* fills the implementation-space figures of s (cudnn share, eager ratio
 * and ops) from a profile's measurements (rules/common.c) */
void rule_summary_space(struct rule_summary *s, const json_t *profile_meas);

struct rule_memo;

/* candidate i of a hot kernel: its proposal and its verify (small: a null
 * build walks each kernel's chain once per candidate) */
struct rule_cand {
	struct rule_kernel *k;
	int index;
	struct dag_node *propose, *verify;
};

/* a hot kernel of one capture: the chain propose/verify c0..c(n-1) */
struct rule_kernel {
	struct rule_mv *mv;
	const char *name;           /* borrowed from the profile's summary */
	kopt_hash ident;            /* hash of the kernel's inventory entry */
	double share;               /* of the variant's device time (the profile's summary): its
				     * group's, where it stands for one (rules/groups.c) */
	const char **members;       /* the other kernels of its group, which its winners are put on
				     * in the stitch (names borrowed from the summary); owned */
	size_t nmembers;
	bool loaded;                /* the next four are filled (rule_kernel_info) */
	const char *heuristic;      /* borrowed from the profile result */
	const char *source_hash;
	const json_t *config;       /* current launch config, or NULL */
	const json_t *row;          /* profile row, or NULL */
	struct rule_cand *cands;    /* the budget's */
	int n;                      /* 0 where left alone (left says why) */
	const char *left;           /* why it gets no candidates (rules/chains.c), or NULL; the dag's */
	struct dag_node *screen;    /* its launch configs screened alone (rules/screen.c), or NULL */
	const struct rule_kernel *via; /* a kernel of an earlier shape whose chain searches its class
					* (rules/shapes.c): it has none, it takes that one's winner; or NULL */
	uint64_t shape_cls;         /* its class across shapes, once read (rules/shapes.c); 0: not yet */
	struct rule_memo **memos;   /* per candidate, the proposal's context its key derived for
				     * want of a memo: the memo to write once it is done
				     * (rules/propose.c); NULL until a key does */
};

/* one model under one compile variant */
struct rule_mv {
	struct rule_model *model;
	const struct kopt_variant *variant;
	size_t index;
	struct dag_node *capture, *profile;
	struct rule_summary summary; /* its profile's, once read; kernel names point into it */
	struct hash_key variant_key; /* the variant's key ingredients (and its model's shape's),
				      * serialized once */
	kopt_hash variant_id;       /* the variant's alone: the same at every shape */
	uint64_t affinity;          /* its worker steps' (the model file and the variant) */
	struct rule_kernel *kernels;
	size_t nkernels;
	const char *pruned;         /* why its kernels get no candidates (another variant is faster
				     * than it can become), or NULL; the dag's */
	bool summary_read;          /* summary holds its profile's */
	bool gain_known;            /* gain is computed (rule_gain) */
	double gain;                /* what its hot kernels can still win, as a log-speedup */
};

/* the agents' own variants at most: aten-auto, cudnn-auto and the space search's */
#define RULE_MAX_AUTO 8

/*
 * A model, or one shape of a model served at several (kopt(5), shape):
 * a model with shapes is a rule_model with no variants of its own, whose
 * deploy step joins its shapes' (rules/deploy.c), and one rule_model per
 * shape, each with its variants, chains and stitch, as a model without
 * shapes has (rules/shapes.c).
 */
struct rule_model {
	const struct kopt_model *spec;
	const struct kopt_shape *shape; /* the shape it is built at, or NULL: get_inputs()'s own */
	const char *name;           /* its steps' paths start with it: the model's name, or
				     * MODEL@SHAPE; the dag's */
	const char *dir;            /* its outputs' folder under kopt-out: the model's name, or
				     * MODEL/SHAPE; the dag's */
	struct rule_model *parent;  /* a shape's: its model's; else NULL */
	struct rule_model **shapes; /* a model with shapes: its shapes', in the spec's order; owned */
	size_t nshapes;
	struct dag_node *deploy;    /* a model with shapes: the step that joins them; else NULL */
	kopt_hash file_hash;        /* content of the model file */
	char *file_error;           /* why it cannot be read, or NULL */
	struct rule_mv *mvs;        /* the declared variants, then the agents' own */
	size_t nmv;
	struct kopt_variant auto_variants[RULE_MAX_AUTO]; /* the agents' own: nmv - spec->nvariants of
							     * them, their lists and options owned */
	bool space_done;            /* the implementation space is decided (profile.c) */
	bool chains_done;           /* its variants' chains are added, or left out (profile.c) */
	struct dag_node *stitch;
	struct hash_key gates_key;  /* the gates' key ingredients, serialized once */
	char *agent_fp;             /* agent_fingerprint() of its agents */
};

/* the rules' part of a dag (d->plan) */
struct rule_plan {
	struct rule_model *models;  /* the models of the build, in the order they were added */
	size_t nmodels;
	size_t *model_at;           /* per model of the spec (its index there): 1 + its index in
				     * models, 0 when not added (a lookup was linear: a graph of
				     * 100,000 models took 30 s) */
	char *memory, *scope;       /* the agents' memory and this spec's scope in it, once a
				     * verdict is to be learned (rules/verify.c) */
	struct memory_seen seen;    /* the verdicts it holds */
	const struct kopt_gates *gates_of;   /* the gates block gates_key serializes, or NULL */
	struct hash_key gates_key;           /* its key ingredients: a model that names the
					      * same block copies them */
	const struct kopt_agents *agents_of; /* the agents block agent_fp is of, or NULL */
	char *agent_fp;                      /* its agent_fingerprint() */
};

/* A proposal's result, as the propose rule writes it and the others read
 * it (rules/propose.c). */
struct rule_proposal {
	bool done;                   /* the proposal is done; else nothing below is known */
	bool none;                   /* the agent had no candidate: reason says why */
	const char *reason;          /* why none; "" for a candidate */
	const json_t *json;          /* the candidate's JSON (borrowed from the result), or NULL */
	struct agent_candidate cand; /* the candidate, read from json */
};
void rule_proposal_read(struct dag *d, const struct rule_cand *c, struct rule_proposal *p);
void rule_memo_free(struct rule_memo *m);

/* A verify's verdict, as the verify rule writes it and the others read it
 * (rules/verify.c). */
struct rule_verdict {
	const char *verdict;        /* "pass" or "fail"; NULL when there is none (no candidate,
				     * the verify failed, or it is not done) */
	bool pass;
	bool error;                 /* the verify step failed: no verdict */
	const char *failure;        /* error: why the step whose own failure it was failed */
	const char *failed_kind;    /* error: that step's kind when it is not the verify
				     * ("propose"), else NULL */
	const char *gate;           /* the gate that failed it, or NULL */
	const char *reason;         /* the verdict's: one line, or NULL */
	double speedup;             /* kernel speedup; NAN when not measured */
	double base_ns, cand_ns;    /* the kernel's median times, the original's and the candidate's;
				     * NAN when not measured */
};
void rule_verdict_read(struct dag *d, const struct rule_cand *c, struct rule_verdict *v);

/* a node's context, by kind: capture and profile have a variant, propose
 * and verify a candidate, every kind but report a model (NULL otherwise);
 * inline, a null build asks them of every node */
static inline struct rule_cand *rule_cand_of(const struct dag_node *n)
{
	return n->kind == RULE_PROPOSE || n->kind == RULE_VERIFY ? n->ctx : NULL;
}

static inline struct rule_mv *rule_mv_of(const struct dag_node *n)
{
	if (n->kind == RULE_CAPTURE || n->kind == RULE_PROFILE)
		return n->ctx;
	if (n->kind == RULE_SCREEN)
		return ((struct rule_kernel *)n->ctx)->mv;
	struct rule_cand *c = rule_cand_of(n);
	return c ? c->k->mv : NULL;
}

static inline struct rule_model *rule_model_of(const struct dag_node *n)
{
	if (n->kind == RULE_STITCH || n->kind == RULE_DEPLOY)
		return n->ctx;
	struct rule_mv *mv = rule_mv_of(n);
	return mv ? mv->model : NULL;
}

static inline const struct kopt_target *rule_target_of(const struct dag_node *n)
{
	return n->kind == RULE_REPORT ? n->ctx : NULL;
}

/* the step whose own failure failed n: n itself, or, where n failed
 * because an input did (DAG_UPFAIL), the first failed input's, followed
 * down; its why is the reason */
const struct dag_node *rule_failure_of(const struct dag_node *n);

/* the device hook of the worker rules: the model's */
const struct kopt_device *rule_device(const struct dag_node *n);
/* adds variant v (kept by the caller for the dag's life) to dm, with its
 * capture and profile; returns it */
struct rule_mv *rule_plan_variant(struct dag *d, struct rule_model *dm, const struct kopt_variant *v);
/* dm (the caller's, zeroed here) for model m at shape sh (NULL: its own
 * inputs), its steps named from name and its outputs in dir: its key
 * parts, stitch and declared variants; a model with shapes (sh NULL, m
 * has shapes) gets none of them, its shapes do (rule_plan_shapes) */
void rule_plan_model(struct dag *d, struct rule_model *dm, const struct kopt_model *m, const struct kopt_shape *sh,
		     const char *name, const char *dir);
/* rules/shapes.c: the shapes of model dm (planned by rule_plan_model),
 * each a rule_model of the plan's, and its deploy step; the order of their
 * stitches and their chains across shapes */
void rule_plan_shapes(struct dag *d, struct rule_model *dm);
/* a kernel's class across shapes: its class (rule_kernel_class) with
 * every size hint taken as 1, so that the same kernel at any size has it;
 * 0 without a source */
uint64_t rule_shape_class(const char *src, const char *name);
/* the kernel of an earlier shape of k's model, in the same variant, whose
 * chain searches k's class across shapes (shapes.c), or NULL */
const struct rule_kernel *rule_shape_via(struct dag *d, struct rule_kernel *k);
/* whether every earlier shape of dm's model has its chains (true for a
 * model without shapes); rule_shapes_next expands the later shapes' */
bool rule_shapes_ready(struct dag *d, const struct rule_model *dm);
void rule_shapes_next(struct dag *d, const struct rule_model *dm);
/* adds the ingredient "param:shape", the shape's names and values, to k
 * (nothing for NULL: a model's own inputs key as before shapes were) */
void rule_key_shape(struct hash_key *k, const struct kopt_shape *sh);
/* fills a kernel's heuristic, source hash, config and profile row (parses
 * the profile's whole result; planning needs none of them) */
void rule_kernel_info(struct dag *d, struct rule_kernel *k);

/*
 * Priorities (engine/rule.h): capture and profile first, they reveal the
 * work (RULE_PRIO_REVEAL). Once a profile is in, what a kernel can still
 * win is t = share * (1 - bound time / time), the bound from its profile
 * row (bound time / time = frac_bound, agents/roof.c, or in profiles
 * without it frac_peak, its achieved bandwidth over the copy bandwidth;
 * clamped to [0, 1]; 0.5 when unknown); a model variant's gain
 * is the log-speedup its hot kernels can win together, -log(1 - sum t)
 * (the sum held below 0.999). Proposals and verifies of a kernel get the
 * gain plus the kernel's t, the stitch its model's best gain.
 */
#define RULE_PRIO_REVEAL HUGE_VAL
double rule_kernel_gain(struct dag *d, struct rule_kernel *k);
double rule_gain(struct dag *d, struct rule_mv *mv);
/* rules/chains.c: a finished profile's summary read into mv (once); the
 * chains of dm's variants' hot kernels, once every variant is profiled or
 * failed (a no-op before, and after the first time) */
void rule_read_summary(struct rule_mv *mv);
void rule_expand_chains(struct dag *d, struct rule_model *dm);
/* a profile row's bound over its time (frac_bound, else frac_peak, else
 * its bandwidth over peak_gbps), 0 or more: over 1 where the argument
 * bytes overstate the traffic; NAN when none is known */
double rule_row_frac(const json_t *row, double peak_gbps);
/* the priority hook of propose and verify */
double rule_cand_priority(struct dag *d, struct dag_node *n);

int rule_fail(struct rule_run *run, const char *fmt, ...) KOPT_PRINTF(2, 3);

/* ---- helpers shared by the rules (rules/common.c) ---- */

/* protocol objects (PROTOCOL.md "Common objects"); new references */
json_t *rule_model_json(const struct rule_model *dm);
json_t *rule_variant_json(const struct kopt_variant *v);
json_t *rule_gates_json(const struct kopt_gates *g);
/* key ingredients for a variant and for gates, one per parameter */
void rule_key_variant(struct hash_key *k, const struct kopt_variant *v);
void rule_key_gates(struct hash_key *k, const struct kopt_gates *g);
/* the gates' tolerances alone (atol, rtol and their half-precision pair):
 * what a worker's own check against eager reads, for a step that must not
 * rerun when gamma or the repeats change */
void rule_key_tolerances(struct hash_key *k, const struct kopt_gates *g);
/* for a step that runs a kernel at a pinned launch config (screen, verify):
 * where the variant compiles with coordinate descent on, the version of
 * how a config is pinned (runtime/python/kopt/kernels.py force_config; 2:
 * marked as the tuner's own, which until then moved it at its first
 * launch); nothing for other variants, whose results did not change */
void rule_key_pinned(struct hash_key *k, const struct kopt_variant *v);
/* adds "input:KIND PATH" = the dep's stable hash */
void rule_key_input(struct hash_key *k, const struct dag_node *dep);
/* stores bytes as an object and records it under name in run->objects */
int rule_object(struct rule_run *run, const char *name, const void *data, size_t n, kopt_hash *h);
/* writes an output file, "<the step's folder>/<name>" under the out dir
 * (engine/outdir.h: no link followed, fsync of file and folder), and
 * records its size and hash */
int rule_output(struct rule_run *run, const char *rel, const char *data, size_t n);
/* the restore hook of the rules that write outputs: checks a cached
 * result's outputs (size and hash) and restores the missing and changed
 * ones from its objects; -1 when an object is bad or the record names a
 * file outside the step's folder (a corrupt record: warned) */
int rule_restore_outputs(struct dag *d, struct dag_node *n);
/* the model's output folder relative to the out dir ("softmax"; a
 * shape's, "softmax/b1") */
const char *rule_model_dir(const struct rule_model *dm);
/* -t why: a result's numbers, one "  NAME  VALUE" line each, nested
 * objects as NAME.SUB (the worker's own verdict left out) */
void rule_print_numbers(FILE *out, json_t *nums);
/* a number from an object, NAN when absent */
double rule_num(const json_t *o, const char *key);
/* the measured part of mv's profile (its result's "meas"), NULL when not done */
json_t *rule_profile_meas(struct dag *d, const struct rule_mv *mv);
/* a number as JSON, null for NAN; new reference */
json_t *rule_num_json(double v);
/* the first entry named name in a capture's or profile's kernel inventory
 * (res["stable"]["kernels"]), or NULL; borrowed */
json_t *rule_inventory_entry(const json_t *res, const char *name);
/* Markdown rows for a profile's vendor calls (runtime/python/kopt/vendor.py):
 * torch's time against the vendor heuristic's first pick and its best, and
 * whether torch's pick leaves more than gamma on the table */
extern const char rule_vendor_header[];
void rule_vendor_rows(struct strbuf *md, const char *label, const json_t *calls, double gamma);
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
 * without (rules/common.c): a report's max-autotune baseline is the
 * model's first variant in one (rule_report_autotune_variant), and torch
 * tunes a pinned config at its first launch under each (rule_key_pinned).
 * The one place that tells a max-autotune variant by its mode, with
 * RULE_SPACE_MODE (tests/lists.py) */
bool rule_max_autotune(const char *mode);
/* whether torch runs a variant of mode as CUDA graphs, its options aside
 * (rules/common.c; rule_variant_graphs reads the options too; the worker's
 * problem.Compiled.graphs, checked against it by tests/lists.py) */
bool rule_mode_graphs(const char *mode);
size_t rule_space_search(const struct rule_summary *s, const struct kopt_variant *base, size_t max, double gamma,
			 struct kopt_variant *out);
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
 * summary carries it too, as "cudnn\tSHARE\t-\t-" (rule_space_line). */
double rule_cudnn_share(const json_t *profile_meas);
json_t *rule_space_pick_lines(const struct kopt_model *m, const double *ratio, size_t n, const char *ops0,
			      double gamma);

/*
 * The implementation-space choice across a model's compile variants: each
 * variant's time is its stitched time if its winners passed, else its
 * compiled baseline; in the spec's order, a variant replaces the best so far
 * only when faster by gamma (two within the noise keep the earlier), and a
 * variant with no winner must beat the first variant's baseline by gamma to
 * be chosen (a compile option that wins inside the noise is no win).
 * Returns whether the model is optimized (winners, or another variant) and
 * sets *best.
 */
bool rule_pick_variant(const double *base, const double *opt, const bool *passed, size_t n, double gamma,
		       size_t *best);

/*
 * Screening (rules/screen.c). rule_screen_add adds kernel k's screen node,
 * beside its chain, when its agents screen (agents: screen > 0, the
 * built-in coder, a torch model and a budget); NULL otherwise.
 * rule_screen_best gives the screen's best configs with their
 * alone-timings, [{"config", "speedup"}...] fastest first, or NULL where
 * rule_screen_input is (new reference). rule_screen_md adds the
 * screen's line to the model report's candidates of k (nothing without a
 * screen); rule_screen_seconds is the worker time its result took (0 when
 * none).
 */
struct dag_node *rule_screen_add(struct dag *d, struct rule_kernel *k);
json_t *rule_screen_best(struct dag *d, const struct rule_kernel *k);
/* the launch configs the screen found no faster than the kernel's own
 * alone (which: "slower"), or those at which the persistent transform
 * alone was no faster ("slower_persist"), [config...], or NULL where
 * rule_screen_input is or the screen has none (new reference) */
json_t *rule_screen_slower(struct dag *d, const struct rule_kernel *k, const char *which);
/* k's screen where it found configs, the input candidate 0 keys on; NULL
 * where there is no screen, or it found none, was skipped or failed (the
 * plan alone, keyed as without a screen) */
const struct dag_node *rule_screen_input(const struct rule_kernel *k);
void rule_screen_md(struct dag *d, const struct rule_kernel *k, struct strbuf *md);
double rule_screen_seconds(struct dag *d, const struct rule_kernel *k);
/* whether a kernel of dm has a screen step */
bool rule_screen_any(const struct rule_model *dm);
/* adds "result:screen" = the whole result of each screen of dm with one
 * (the report shows their GPU time; none without screens) */
void rule_key_screens(struct hash_key *k, const struct rule_model *dm);
/* the starts of k's screen: the configs the model's other declared
 * variants gave a kernel of the same name and keys, where they differ from
 * k's own, in the variants' order, each once (new reference) */
json_t *rule_screen_starts(struct dag *d, const struct rule_kernel *k);

/* the stable part of a proposal without a candidate (verify skips it); new reference */
json_t *rule_no_candidate(void);

/* the kernel's source, from the object its capture stored; empty when absent */
void rule_kernel_source(struct dag *d, struct rule_kernel *k, struct strbuf *out);

/* a model's "LLM use:" line for its report (its candidates' calls,
 * tokens and, at the spec's prices, money); nothing without LLM calls */
void rule_llm_usage(struct dag *d, const struct rule_model *dm, struct strbuf *md);

/* the agents' long-term memory file in the cache folder; caller frees */
char *rule_memory_path(struct dag *d);
/* the scope of this build's lessons in it: the spec file's absolute path; caller frees */
char *rule_memory_scope(struct dag *d);

#endif
