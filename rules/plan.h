/*
 * rules/plan.h: the rules' part of the graph (rules/plan.c), the contexts
 * of its nodes and what they share.
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
#ifndef KOPT_RULES_PLAN_H
#define KOPT_RULES_PLAN_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#include "../agents/memory.h"
#include "../engine/dag.h"
#include "../engine/hash.h"
#include "rules.h"
#include "space.h"
#include "summary.h"

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

/* the agents' own variants at most: aten-auto, cudnn-auto and the space
 * search's (as many as space_variants allows, lang/fields.h) */
#define RULE_MAX_AUTO (2 + RULE_SPACE_MAX)

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
	long long skills_upto;      /* the memory's length when the build was planned: the skills
				     * its screens read (rules/screen.c) */
	const struct kopt_gates *gates_of;   /* the gates block gates_key serializes, or NULL */
	struct hash_key gates_key;           /* its key ingredients: a model that names the
					      * same block copies them */
	const struct kopt_agents *agents_of; /* the agents block agent_fp is of, or NULL */
	char *agent_fp;                      /* its agent_fingerprint() */
};

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
/* a profile row's bound over its time (frac_bound, else frac_peak, else
 * its bandwidth over peak_gbps), 0 or more: over 1 where the argument
 * bytes overstate the traffic; NAN when none is known */
double rule_row_frac(const json_t *row, double peak_gbps);
/* the priority hook of propose and verify */
double rule_cand_priority(struct dag *d, struct dag_node *n);

#endif
