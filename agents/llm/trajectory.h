/*
 * agents/llm/trajectory.h: the kernel's search so far as the LLM coder
 * reads it (its rounds, its best), and the model's replies as candidates
 * (internal to agents/llm; trajectory.c).
 */
#ifndef KOPT_LLM_TRAJECTORY_H
#define KOPT_LLM_TRAJECTORY_H

#include "../candidate.h"

#include <jansson.h>
#include <stdbool.h>

struct llm_state {
	int head;        /* traj index of the last round's head (it holds the replies), -1: none */
	int round;       /* that round's number */
	int last_sample; /* the highest reply of it proposed so far */
	bool open;       /* every candidate since the head is one of its replies */
	int rounds;      /* rounds so far */
	int failed;      /* the last rounds in a row that gave nothing that built */
	int best;        /* traj index of the best passing candidate, -1: none */
};

void llm_state_of(const struct agent_request *req, struct llm_state *st);
/* whether candidate c is the LLM coder's or the LLM debugger's */
bool llm_made_by_llm(const json_t *c);
/* whether a reply would make a new candidate: it holds a kernel or a
 * config, not the kernel as it is, nor an earlier candidate */
bool llm_fresh(const struct agent_request *req, const json_t *sample);
/* candidate of reply j of round r (n replies), proposed by role; new reference */
json_t *llm_from_sample(const json_t *sample, int r, int j, int n, const char *role);
/* a reply (text, or NULL and err) as a sample: {"source", "config",
 * "notes", "error", "config_error"}; new reference */
json_t *llm_sample_of(const struct agent_request *req, const char *text, const char *err);

#endif
