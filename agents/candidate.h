/*
 * agents/candidate.h: the candidate library, below every agent: the
 * kernel an agent is asked about, a candidate as JSON (written and read
 * here), one proposal's request and reply, and which backend plays each
 * role. The built-in agents (agents/builtin.h), the LLM agents
 * (agents/llm.h) and the dispatcher (agents/agent.h) stand on it; it
 * calls none of them.
 *
 * Ownership: everything in a request is borrowed for the call; the reply's
 * candidate and strings belong to the caller (agent_reply_release()).
 */
#ifndef KOPT_AGENT_CANDIDATE_H
#define KOPT_AGENT_CANDIDATE_H

#include <jansson.h>
#include <stdbool.h>

#include "../lang/spec.h"

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
	const char *cls;            /* its class (rules/groups.c), hex: the long-term memory's skills
				     * file and find it by it; NULL unknown */
};

/*
 * A candidate, as the agents write it and the rules read it: written by
 * agent_candidate_new, read by agent_candidate_read (agents/candidate.c). A
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

void agent_reply_release(struct agent_reply *reply);

/* role r of cfg; the built-in's when cfg is NULL */
const struct kopt_role_cfg *agent_role(const struct kopt_agents *cfg, enum kopt_role r);
/* whether role r of cfg is played by a model */
bool agent_role_is_llm(const struct kopt_agents *cfg, enum kopt_role r);

#endif
