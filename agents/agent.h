/*
 * agents/agent.h: what the propose rule asks of an agent.
 *
 * One call proposes candidate `index` for one hot Triton kernel. The agent
 * sees the kernel (name, heuristic kind, source, current launch config, its
 * profile row), the agents declaration of the spec, and the trajectory: the
 * earlier candidates of this kernel with their verdicts and numbers. It
 * answers a candidate or "no more candidates" with a reason.
 *
 * The engine keys a proposal on the kernel, agent_fingerprint() and
 * agent_context_digest(): an agent whose candidate i does not depend on the
 * outcome of earlier candidates returns "" as the digest, so a change of
 * gates (which changes verdicts) does not redo its proposals. An agent that
 * learns from feedback puts into the digest exactly what it used.
 *
 * Ownership: everything in a request is borrowed for the call; the reply's
 * candidate and strings belong to the caller (agent_reply_release()).
 */
#ifndef KOPT_AGENT_H
#define KOPT_AGENT_H

#include <jansson.h>
#include <stdbool.h>

#include "../lang/spec.h"

/* bump when the built-in agents propose differently for the same inputs:
 * it is part of every proposal's key (agent_fingerprint) */
#define AGENT_BUILTIN_VERSION "search-v4"
/* the same for the LLM roles: part of the fingerprint of agents that have one */
#define AGENT_LLM_VERSION "llm-v2"

/* the kernel being optimized */
struct agent_kernel {
	const char *model;          /* model name */
	const char *name;           /* kernel name, e.g. triton_red_fused__softmax_0 */
	const char *heuristic;      /* "pointwise", "reduction", "persistent_reduction", ... */
	const char *source;         /* kernel source, or NULL when not at hand */
	const json_t *config;       /* current launch config {"XBLOCK":..,"num_warps":..}, or NULL */
	const json_t *profile_row;  /* its row of the profile (times, share, bytes, aten), or NULL */
	/* what the LLM roles tell the model besides (NULL or 0 when unknown) */
	const json_t *args;         /* its tensor arguments at its first launch, the capture's
				     * [{"shape", "dtype", "numel", "bytes"}] */
	const json_t *env;          /* the worker's environment: {"gpu", "cc", "sms", "memory_gib", ...} */
	double peak_copy_gbps;      /* the device's measured copy bandwidth (the profile's) */
	double peak_fp32_gflops;    /* its measured FP32 peak, GFLOP/s (the profile's); 0 unknown */
};

/*
 * A candidate, as the agents write it and the rules read it: written by
 * agent_candidate_new, read by agent_candidate_read (agents/agent.c). A
 * proposal's stable part holds its JSON, so all of it is part of its
 * verify's key. The agents add fields of their own that only they read
 * (the plan, the analysis, repair_of, LLM usage).
 */
struct agent_candidate {
	const char *source;         /* the kernel's new source, or NULL: a launch config alone */
	const json_t *config;       /* its launch config, or NULL: Inductor's */
	const char *role;           /* "coder", "tuner", "debugger" */
	char name[64];              /* the strategy's name, as the long-term memory files it: "r-down";
				     * a screened source knob's, "screen:evict+rstages" */
	const char *strategy;       /* what it is, for people: "coder: r-down (XBLOCK=1 ...)" */
	const char *edit;           /* the source knobs that made source from Inductor's
				     * (runtime/python/kopt/knobs.py): "evict0=first+rstages=2", or NULL */
	const char *planning;       /* candidate 0: what ranked the plan (a sentence), else NULL */
};

/* {"source","config","role","name","strategy"} from c (config copied),
 * and "edit" where c has one; new reference */
json_t *agent_candidate_new(const struct agent_candidate *c);
/* c's strings from j (borrowed); -1 when j is no candidate. Candidates
 * proposed before they named their strategy get the name their strategy
 * line starts with, after the role. */
int agent_candidate_read(const json_t *j, struct agent_candidate *c);
/* whether a candidate is one of its kernel's screened points ("screen", or
 * "screen:KINDS" with source knobs): measured alone already */
bool agent_screened(const json_t *candidate);

/* one earlier candidate of this kernel, in index order */
struct agent_try {
	int index;
	const json_t *candidate;    /* a candidate (agent_candidate_read) */
	const char *verdict;        /* "pass", "fail", or "none" (no candidate) */
	const char *gate;           /* failing gate or NULL */
	const char *reason;         /* one line */
	double speedup;             /* kernel-level, 0 when unknown */
	double base_ns, cand_ns;    /* the kernel's median times per call, the original's and the
				     * candidate's, measured side by side; 0 when unknown */
};

struct agent_request {
	const struct agent_kernel *kernel;
	const struct kopt_agents *cfg;
	int index;                  /* candidate number, from 0 */
	const struct agent_try *traj; /* the earlier candidates (feedback agents only) */
	size_t ntraj;
	const char *memory;         /* the long-term memory file (agents/memory.h), or NULL */
	const char *scope;          /* who asks (the spec file): its own lessons are left out */
	/* the kernel's screen (rules/screen.c): its best launch configs timed
	 * alone, [{"config", "speedup"}...] fastest first, with "edit" and
	 * "source" where a source knob is part of it; NULL when it was not
	 * screened or the screen failed. Candidate 0 takes them in and carries
	 * them ("screen"), so later candidates read them in the trajectory and
	 * take only the alone-timing from here. */
	const json_t *screen;
	/* the launch configs the screen timed alone and found no faster than
	 * the kernel's own (or wrong), [config...]; NULL as screen. Candidate 0
	 * carries them ("screen_slower"); the built-in agents send none of
	 * them to the gates, and no random jumps after a screen. */
	const json_t *screen_slower;
	/* the configs at which the screen timed the persistent transform
	 * alone and found it no faster, [config...]; NULL where none. Carried
	 * as screen_slower ("screen_slower_persist"); the coder's "persistent"
	 * strategy is not sent at one of them. */
	const json_t *screen_slower_persist;
};

struct agent_reply {
	json_t *candidate;          /* a candidate (agent_candidate_new); NULL = no more */
	char *reason;               /* why there is no more candidate (or an error); beside a
				     * candidate, NULL or what it rests on (a screened config's
				     * time alone), a measurement, never part of its key */
};

/*
 * Proposes candidate req->index. Returns 0 with reply->candidate set, or 0
 * with candidate NULL and a reason when there are no more candidates, or -1
 * with a reason on an error (the step fails).
 */
int agent_propose(const struct agent_request *req, struct agent_reply *reply);

/* role r of cfg; the built-in's when cfg is NULL */
const struct kopt_role_cfg *agent_role(const struct kopt_agents *cfg, enum kopt_role r);
/* whether role r of cfg is played by a model */
bool agent_role_is_llm(const struct kopt_agents *cfg, enum kopt_role r);

/* whether candidate index needs the verdicts of earlier candidates */
bool agent_needs_feedback(const struct kopt_agents *cfg, int index);

/* the part of the trajectory a proposal depends on; "" when none. Caller frees. */
char *agent_context_digest(const struct agent_request *req);

/* canonical text of the agent settings that change proposals (backends,
 * LLM models); not the budget. Caller frees. */
char *agent_fingerprint(const struct kopt_agents *cfg);

void agent_reply_release(struct agent_reply *reply);

/*
 * Records a verdict in the long-term memory: the kernel's feature class, the
 * candidate's strategy, pass or fail and the kernel speedup; key (NULL for
 * none) names the verdict, so that it is learned once (memory_seen). 0 or -1.
 */
int agent_learn(const char *memory, const char *scope, const char *key, const struct agent_kernel *k,
		const json_t *candidate, bool pass, double speedup);

/* ---- the roofline (agents/roof.c) ---- */

/* FLOPs per launch of an Inductor kernel, counted in its source (a lower
 * bound; roof.c says how); 0 when the source does not say. Where how is
 * not NULL, *how is a phrase on how they were counted, or NULL with 0;
 * caller frees. */
double agent_flops(const char *source, char **how);
/* a constant Inductor writes into the kernel ("    xnumel = 4096"); 0 when absent */
long long agent_src_const(const char *source, const char *name);

/* a bound over the measured time above this: the kernel's argument bytes
 * overstate what it moves, and its bound is not known (DESIGN-NOTES.md,
 * "Argument bytes are an upper bound on traffic") */
#define AGENT_OVERSTATED 1.05
/* the built-in analyst leaves a kernel alone at this fraction of its
 * bound (agents/builtin/plan.c says why) */
#define AGENT_LEAVE_ALONE 0.97
/* a kernel whose DRAM traffic is this many times its arguments' bytes
 * reads or writes something again: a single pass or a fusion first */
#define AGENT_REREAD 1.25

/* what bounds a kernel's time per call */
struct agent_bound {
	double ns;          /* the bound per call, at most the measured time; NAN unknown */
	double mem_ns;      /* its bytes at the copy bandwidth; NAN unknown */
	double flop_ns;     /* its FLOPs at the FP32 peak; NAN unknown */
	double intensity;   /* FLOP per byte; NAN unknown */
	const char *binds;  /* "memory", "compute", "measured" (a vendor or ATen kernel: its
			     * own time), NULL unknown; static */
	double frac;        /* the bound's time over the measured time, 1 at the bound,
			     * above 1 where the bytes overstate the traffic; NAN unknown */
	double traffic;     /* the DRAM bytes the GPU's counters saw it move over its
			     * arguments' bytes (agent_bound, a row's dram_bytes); NAN unknown */
};
/* the bound of a kernel (triton: computed, else its measured time ns) that
 * runs launches times per call, each moving bytes and doing flops; a
 * quantity <= 0 or NAN is unknown */
void agent_bound_of(bool triton, double ns, double launches, double bytes, double flops, double copy_gbps,
		    double peak_gflops, struct agent_bound *b);
/* the same from a profile row (kind, ns_per_call, launches_per_call,
 * bytes, flops, dram_bytes); flops > 0 stands for the row's. Where the
 * row has the DRAM bytes the counters measured, the bound's bytes are the
 * fewer of those and its arguments': a kernel that moved less than its
 * arguments (a gather, L2 hits) is bound by what it moved, one that moved
 * more (an input read twice) by its arguments, once each */
void agent_bound(const json_t *row, double flops, double copy_gbps, double peak_gflops, struct agent_bound *b);
/* the bytes a bound counts: the arguments' (args), or the DRAM bytes the
 * counters saw move (dram > 0) where those are fewer or the only ones */
double agent_bound_bytes(double args, double dram);

/* ---- built-in agents (agents/builtin/: search.c, plan.c, launch.c) ---- */

/* the kernel's feature class for the long-term memory, e.g. "reduction/looped/b26". Caller frees. */
char *agent_builtin_features(const struct agent_kernel *k);
/* a launch config in the problem's terms, for the long-term memory:
 * "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", the reduction block as
 * a fraction of the reduction's length where source gives it (else as is);
 * caller frees */
char *agent_builtin_shape(const json_t *config, const char *source);
/* analyst: 1 = leave the kernel alone (why says so), 0 = go on (why is the diagnosis) */
int agent_builtin_analyze(const struct agent_kernel *k, char **why);
/* planner: strategy names, best first (JSON array, new reference); *why,
 * when why is not NULL, is a sentence on what ranked them (caller frees) */
json_t *agent_builtin_plan(const struct agent_kernel *k, const char *memory, const char *scope, char **why);
int agent_builtin_propose(const struct agent_request *req, const char *memory, struct agent_reply *reply);
char *agent_builtin_digest(const struct agent_request *req);

/* tuner: the next step of the descent around the best passing candidate
 * (its launch config, on its source), or NULL when every move was tried;
 * new reference */
json_t *agent_builtin_descent(const struct agent_request *req);

/* ---- LLM agents (agents/llm/coder.c; the usage: agents/llm/run.c) ---- */

/* candidate req->index when the coder is an LLM: rounds of the model's
 * replies, repairs, the built-in tuner on its best, the built-in search
 * after it (coder.c says in which order) */
int agent_llm_propose(const struct agent_request *req, struct agent_reply *reply);
/* the LLM debugger's repair of fix, a candidate of the built-in coder */
int agent_llm_repair(const struct agent_request *req, const struct agent_try *fix, struct agent_reply *reply);
/* the LLM tuner: a launch config as JSON, given what was tried */
int agent_llm_tune(const struct agent_request *req, struct agent_reply *reply);
/* the context digest of agents with an LLM role: the trajectory as their
 * prompts and choices read it. Caller frees. */
char *agent_llm_digest(const struct agent_request *req);
/* the prompt the coder sends for req's next round (context, then the
 * round's part: no repair), appended to out; returns the context's length */
size_t agent_llm_prompt(const struct agent_request *req, struct strbuf *out);

/* LLM use, summed per LLM model over candidates (each candidate's "llm") */
struct agent_usage_row {
	char *model;                /* owned */
	int calls;
	long in, cached, out;       /* input tokens (of them, read from the provider's cache), output */
};
struct agent_usage {
	struct agent_usage_row *rows;
	size_t n, cap;
};
void agent_usage_add(struct agent_usage *u, const json_t *candidate);
/* one Markdown line: calls and tokens per LLM model and, where the spec
 * gives that model's prices (its llm() in cfg), the money; nothing when
 * no model was called */
void agent_usage_line(const struct agent_usage *u, const struct kopt_agents *cfg, struct strbuf *md);
void agent_usage_release(struct agent_usage *u);

#endif
