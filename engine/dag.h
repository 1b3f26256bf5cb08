/*
 * engine/dag.h: the graph of steps of one build.
 *
 * The engine knows nodes, keys, edges and a rule table (engine/rule.h),
 * nothing of what the steps do. dag_new() asks the rule set to plan the
 * first nodes for the named targets; a rule whose step is done may add more
 * through its expand hook (ninja's dyndep). An edge carries its meaning as
 * flags set by the rule that adds it; a node carries a context pointer that
 * belongs to its rule.
 *
 * The dag owns its nodes and paths; it borrows the spec, the rule set, the
 * cache and the build log, which outlive it. The rules' own state hangs on
 * d->plan and is freed by the rule set's release hook.
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
	DAG_OPTIONAL = 1 << 12, /* its failure stops no build and fails none: every dependent
				 * takes it softly (an agents' own compile variant) */
};
#define DAG_SETTLED (DAG_DONE | DAG_FAILED | DAG_WOULD)

/* edge flags, set by the rule that adds the edge (samurai's inorderidx,
 * ninja's is_order_only) */
enum {
	DAG_EDGE_ORDER = 1 << 0, /* order only: the dependent's key reads the input's key, not its
				  * result; under -n an input that would run for a reason of its
				  * own does not make the dependent run */
	DAG_EDGE_SOFT = 1 << 1,  /* a failed input does not fail the dependent */
	DAG_EDGE_AFTER = 1 << 2, /* after only: the dependent starts once the input settles and its
				  * key reads nothing of it; under -n the input that would run does
				  * not make the dependent run */
};

struct dag_dep {
	struct dag_node *node;
	unsigned flags;             /* DAG_EDGE_* */
};

struct dag_node {
	const struct rule *rule;    /* what it is; rule->name is its kind's name */
	uint8_t kind;               /* its rule's index in the rule set */
	uint16_t flags;
	uint32_t seq;               /* creation order */
	kopt_hash key;              /* when DAG_EVALUATED and not DAG_NOKEY */
	kopt_hash out;              /* stable hash of the result, when DAG_DONE */
	char *path;                 /* "softmax/default/k/c3", "softmax", "all" */
	void *ctx;                  /* the rule's */
	uint64_t affinity;          /* worker steps: what they leave loaded in their worker (0: nothing) */
	double prio;                /* of the ready steps, the highest starts first (ties: seq); set
				     * by its rule when created or by rule->priority once stale */
	struct dag_dep *deps;       /* inputs */
	uint32_t ndeps, depcap;
	struct dag_node **users;
	uint32_t nusers, usercap;
	uint32_t npending;          /* deps not settled yet */
	uint32_t manifest_len;      /* of the manifest */
	struct dag_dep deps_in[2];  /* the first two of each, without malloc */
	struct dag_node *users_in[2];
	char *ingredients;          /* of the key, kept for the build log of a stale node */
	const char *manifest;       /* result manifest (cache entry), when DAG_DONE */
	json_t *result;             /* parsed manifest, loaded on demand */
	char *why;                  /* why stale, or why failed */
	void *job;                  /* scheduler's */
};

struct dag {
	const kopt_spec *spec;
	const struct engine_opts *opts;
	const struct rule_set *rules;
	kopt_cache *cache;
	kopt_blog *blog;
	char *out_dir;              /* where outputs go */
	void *plan;                 /* the rules' (rule_set plan and release) */
	size_t nnodes;              /* all nodes so far */
	size_t nhit;                /* found fresh in the cache */
	bool idle;                  /* set by the scheduler: no step ran, or none could (its worker
				     * cannot start here); the run leaves nothing worth keeping */
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
 * A dag for the named targets (none: the spec's default), planned by
 * opts->rules. Returns NULL after the rules reported an unknown name.
 */
struct dag *dag_new(const kopt_spec *spec, char *const *targets, int ntargets,
		    const struct engine_opts *opts, kopt_cache *cache, kopt_blog *blog,
		    const char *out_dir);
void dag_free(struct dag *d);

/* A new node of the rule set's kind `kind` at path (copied), with the
 * rule's context; the scheduler hears of it once plan or expand returns. */
struct dag_node *dag_add(struct dag *d, unsigned kind, const char *path, void *ctx);
/* the same with a path that lives as long as the dag (dag_strdup, or
 * another node's) */
struct dag_node *dag_add_at(struct dag *d, unsigned kind, const char *path, void *ctx);
/* a dependency of n on dep, with DAG_EDGE_* flags */
void dag_add_dep(struct dag_node *n, struct dag_node *dep, unsigned flags);
/* a copy of s that lives as long as the dag */
char *dag_strdup(struct dag *d, const char *s);

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
/* finds a node by "KIND PATH" or "PATH" (first match; a bare path passes
 * over the steps of secondary rules), NULL when absent */
struct dag_node *dag_find(struct dag *d, const char *what);
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
