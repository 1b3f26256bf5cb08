/*
 * agents/features.h: the terms the long-term memory files lessons in
 * (agents/features.c): a kernel's feature class and a launch config's
 * shape. Returned strings are the caller's to free.
 */
#ifndef KOPT_AGENT_FEATURES_H
#define KOPT_AGENT_FEATURES_H

#include <jansson.h>
#include <stdbool.h>

#include "candidate.h"

/* the five keys a config move reads: the blocks, warps and stages */
#define AGENT_LAUNCH_NKEYS 5
extern const char *const agent_launch_keys[AGENT_LAUNCH_NKEYS];

/* the kernel's feature class for the long-term memory, e.g. "reduction/looped/b26" */
char *agent_features(const struct agent_kernel *k);
/* a launch config in the problem's terms, for the long-term memory:
 * "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", the reduction block as
 * a fraction of the reduction's length where source gives it (else as is);
 * a helion.Config as agent_helion_shape writes it */
char *agent_shape(const json_t *config, const char *source);
/* whether config is a helion.Config (it has block_sizes) */
bool agent_helion_config(const json_t *config);
/* the config in the long-term memory's terms: "block_sizes=64,128 num_warps=4 ..." */
char *agent_helion_shape(const json_t *config);

#endif
