/*
 * engine/dag.h: the graph of steps of one build.
 *
 * dag_new() expands a checked spec into capture and profile per model and
 * compile variant, stitch per model and report per target. Propose and
 * verify nodes appear when a profile's result is known (dag_expand(), called
 * by the scheduler), as ninja's dyndep does: one chain per hot kernel,
 * propose c0, verify c0, propose c1, ... up to the agents' budget.
 *
 * The dag owns its nodes, kernels and paths; it borrows the spec, the cache
 * and the build log, which outlive it.
 */
#ifndef KOPT_DAG_H
#define KOPT_DAG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../lang/spec.h"
#include "blog.h"
#include "cache.h"
#include "engine.h"
#include "hash.h"
#include "rule.h"

enum dag_kind { DAG_CAPTURE, DAG_PROFILE, DAG_PROPOSE, DAG_VERIFY, DAG_STITCH, DAG_REPORT, DAG_NKINDS };

/* node flags (samurai graph.h style) */
enum {
	DAG_EVALUATED = 1 << 0, /* key computed and looked up */
	DAG_STALE = 1 << 1,     /* must run (or, with -n, would run) */
	DAG_DONE = 1 << 2,      /* result known: from the cache or from running */
	DAG_FAILED = 1 << 3,    /* ran and failed, was cancelled, or an input failed */
	DAG_WOULD = 1 << 4,     /* -n: would run; result unknown */
	DAG_RAN = 1 << 5,       /* ran in this build */
	DAG_RUNNING = 1 << 6,
	DAG_QUEUED = 1 << 7,    /* in the scheduler's ready queue */
	DAG_NONE = 1 << 8,      /* its rule's skip(): nothing to run, no result */
	DAG_NOKEY = 1 << 9,     /* the key cannot be computed yet (no environment fingerprint) */
	DAG_UPFAIL = 1 << 10,   /* failed because an input failed */
	DAG_UPWOULD = 1 << 11,  /* -n: would run because an input would */
};
#define DAG_SETTLED (DAG_DONE | DAG_FAILED | DAG_WOULD)

struct dag_model;
struct dag_mv;
struct dag_kernel;

/* edge flags, set by the rule that adds the edge (samurai's inorderidx,
 * ninja's is_order_only) */
enum {
	DAG_EDGE_ORDER = 1 << 0, /* order only: the dependent's key reads the input's key, not its
				  * result; under -n an input that would run for a reason of its
				  * own does not make the dependent run */
	DAG_EDGE_SOFT = 1 << 1,  /* a failed input does not fail the dependent */
};

struct dag_dep {
	struct dag_node *node;
	unsigned flags;             /* DAG_EDGE_* */
};

struct dag_node {
	const struct rule *rule;    /* what it is; rule->name is its kind's name */
	uint8_t kind;               /* its rule's index in the rule set */
	uint16_t flags;
	int cand;                   /* candidate index (propose, verify), else -1 */
	char *path;                 /* "softmax/default/k/c3", "softmax", "all" */
	const struct kopt_device *device; /* worker steps: the device their worker runs on */
	uint64_t affinity;          /* worker steps: what they leave loaded in their worker (0: nothing) */
	struct dag_model *model;    /* every kind but report */
	struct dag_mv *mv;          /* capture, profile, propose, verify */
	struct dag_kernel *kernel;  /* propose, verify */
	const struct kopt_target *target; /* report */
	struct dag_dep *deps;       /* inputs */
	uint32_t ndeps, depcap;
	struct dag_node **users;
	uint32_t nusers, usercap;
	uint32_t npending;          /* deps not settled yet */
	struct dag_dep deps_in[2];  /* the first two of each, without malloc */
	struct dag_node *users_in[2];
	kopt_hash key;              /* when DAG_EVALUATED and not DAG_NOKEY */
	kopt_hash out;              /* stable hash of the result, when DAG_DONE */
	char *ingredients;          /* of the key, kept for the build log of a stale node */
	const char *manifest;       /* result manifest (cache entry), when DAG_DONE */
	size_t manifest_len;
	json_t *result;             /* parsed manifest, loaded on demand */
	char *why;                  /* why stale, or why failed */
	void *job;                  /* scheduler's */
};

/* a hot kernel of one capture: the chain propose/verify c0..c(budget-1) */
struct dag_kernel {
	struct dag_mv *mv;
	const char *name;           /* borrowed from the profile's summary */
	kopt_hash ident;            /* hash of the kernel's inventory entry */
	bool loaded;                /* the next four are filled (dag_kernel_info) */
	const char *heuristic;      /* borrowed from the profile result */
	const char *source_hash;
	const json_t *config;       /* current launch config, or NULL */
	const json_t *row;          /* profile row, or NULL */
	struct dag_node **propose, **verify; /* budget of each */
	int n;
};

/* one model under one compile variant */
struct dag_mv {
	struct dag_model *model;
	const struct kopt_variant *variant;
	size_t index;
	struct dag_node *capture, *profile;
	char *summary;              /* the profile's kernel summary; kernel names point into it */
	struct hash_key variant_key; /* the variant's key ingredients, serialized once */
	uint64_t affinity;          /* its worker steps' (the model file and variant) */
	struct dag_kernel *kernels;
	size_t nkernels;
	bool expanded;
	bool eager_known;           /* the summary's "eager" line was read: */
	double eager_ratio;         /*   compiled over eager (NAN: not run) */
	const char *eager_ops;      /*   distinctive ATen ops, "a,b" or "-" (in summary) */
	double cudnn_share;         /* the summary's "cudnn" line: share of device time */
};

struct dag_model {
	const struct kopt_model *spec;
	kopt_hash file_hash;        /* content of the model file */
	char *file_error;           /* why it cannot be read, or NULL */
	struct dag_mv *mvs;         /* the declared variants, then the agents' own */
	size_t nmv;
	struct kopt_variant auto_variants[2]; /* the agents' own: nmv - spec->nvariants of them */
	bool space_done;            /* dag_expand_space() has decided */
	struct dag_node *stitch;
	struct hash_key gates_key;  /* the gates' key ingredients, serialized once */
	char *agent_fp;             /* agent_fingerprint() of its agents */
};

struct dag {
	const kopt_spec *spec;
	const struct engine_opts *opts;
	const struct rule_set *rules;
	kopt_cache *cache;
	kopt_blog *blog;
	char *out_dir;              /* where outputs go */
	struct dag_model *models;   /* the models of the build, spec order */
	size_t nmodels;
	struct dag_node **reports;
	size_t nreports;
	size_t nnodes;              /* all nodes so far */
	size_t nhit;                /* found fresh in the cache */
	void (*on_new)(void *ctx, struct dag_node *n); /* told about each new node */
	void *on_new_ctx;
	struct dag_node **all;      /* every node, creation order */
	size_t allcap;
	struct dag_node **chunks;   /* nodes are allocated in chunks */
	size_t nchunks, chunkused;
	char **strs;                /* path strings, allocated in blocks */
	size_t nstrs, strused;
	const struct kopt_device **env_read; /* devices whose environment a key read (dag_env) */
	size_t nenv_read;
};


/*
 * Builds the static part of the graph for the named targets (NULL/0: the
 * default target, else every model). A name may be a target or a model.
 * Returns NULL after reporting an unknown name.
 */
struct dag *dag_new(const kopt_spec *spec, char *const *targets, int ntargets,
		    const struct engine_opts *opts, kopt_cache *cache, kopt_blog *blog,
		    const char *out_dir);
void dag_free(struct dag *d);

/* adds the kernel chains of a finished profile; returns the new nodes' count */
size_t dag_expand(struct dag *d, struct dag_mv *mv);
/*
 * The implementation-space level, once every declared variant of dm has
 * its profile: where eager beats each of them by gamma, the agents add a
 * variant of their own, "aten-auto" (the first variant plus ATen fallbacks
 * for the hot kernels' ops); where torch's cuDNN calls take a quarter of
 * the first variant's device time or more and no variant benchmarks them,
 * "cudnn-auto" (the first variant with cudnn.benchmark on). Each comes with
 * its capture and profile; the stitch races them with the rest. Returns
 * the number of nodes added.
 */
size_t dag_expand_space(struct dag *d, struct dag_model *dm);
/* fills a kernel's heuristic, source hash, config and profile row (parses
 * the profile's whole result; planning needs none of them) */
void dag_kernel_info(struct dag *d, struct dag_kernel *k);

/* the parsed manifest of a done node, or NULL (corrupt; reported) */
json_t *dag_result(struct dag *d, struct dag_node *n);
/*
 * One top-level field of a manifest, parsed alone (the rest is skipped, not
 * parsed): the planner reads a profile's stable part and summary, and a
 * result's outputs, without paying for every measurement. New reference, or
 * NULL when absent or malformed.
 */
json_t *dag_manifest_field(const char *json, size_t len, const char *key);
/*
 * Composes a manifest: {"kind","path","outputs","objects","stable","summary",
 * "meas"}; empty or NULL parts are left out; reals with 10 significant
 * digits. Caller frees.
 */
char *dag_manifest(const char *kind, const char *path, json_t *outputs, json_t *objects,
		   json_t *stable, json_t *summary, json_t *meas);
/* "verify softmax/default/k/c3" into a static-free caller buffer */
void dag_describe(const struct dag_node *n, struct strbuf *out);
/* finds a node by "KIND PATH" or "PATH" (first match), NULL when absent */
struct dag_node *dag_find(struct dag *d, const char *what);
/* a dependency of n on dep, with DAG_EDGE_* flags */
void dag_add_dep(struct dag_node *n, struct dag_node *dep, unsigned flags);
/*
 * The worker environment last reported for dev (the cache's; NULL when none
 * is known), for a key that depends on it. The dag remembers that a key
 * read it: when a worker of dev reports another, the build plans again.
 */
json_t *dag_env(struct dag *d, const struct kopt_device *dev);
/* whether a key read dev's environment */
bool dag_env_read(const struct dag *d, const struct kopt_device *dev);
/* the name the cache files dev's environment under */
const char *dag_env_name(const struct kopt_device *dev);
/* the stable hash of a result: XXH3-128 of its canonical JSON */
kopt_hash dag_stable_hash(const json_t *stable);

#endif
