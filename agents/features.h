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

/*
 * A launch config's keys in Inductor's order (the blocks, then warps and
 * stages), the one list of them: X(NAME, MAX, MOVED, SCREENED). MAX: for
 * a block size, Inductor's largest for its axis (torch 2.11's
 * TRITON_MAX_BLOCK, what its check_config asserts and what its kernels'
 * dropped masks assume; gate 1 refuses a config past it,
 * runtime/python/kopt/static_config.py's INDUCTOR_MAX_BLOCK, which
 * tests/lists.py checks against this list), 0 for the others. MOVED, 1
 * or 0: a key the built-in agents' config moves read (agent_launch_keys).
 * SCREENED, 1 or 0: a block the screen moves (screen.py's BLOCK_KEYS,
 * checked the same way, as the order the LLM prompt and the screen's
 * report write configs in).
 */
#define AGENT_LAUNCH_ORDER(X) \
	X("XBLOCK", 4096, 1, 1) \
	X("YBLOCK", 1024, 1, 1) \
	X("ZBLOCK", 1024, 0, 0) \
	X("R0_BLOCK", 65536, 1, 1) \
	X("R1_BLOCK", 32768, 0, 1) \
	X("num_warps", 0, 1, 0) \
	X("num_stages", 0, 1, 0)

#define AGENT_LAUNCH_COUNT_(name, most, moved, screened) +1
#define AGENT_LAUNCH_COUNT_MOVED_(name, most, moved, screened) +moved
enum {
	AGENT_LAUNCH_NORDER = 0 AGENT_LAUNCH_ORDER(AGENT_LAUNCH_COUNT_), /* every key */
	AGENT_LAUNCH_NKEYS = 0 AGENT_LAUNCH_ORDER(AGENT_LAUNCH_COUNT_MOVED_), /* the moved ones */
};
/* every key, in order */
extern const char *const agent_launch_order[AGENT_LAUNCH_NORDER];
/* the keys a config move reads, in order: the blocks, warps and stages */
extern const char *const agent_launch_keys[AGENT_LAUNCH_NKEYS];
/* whether key is a block size of the list */
bool agent_launch_block(const char *key);
/* a block size's largest value (its MAX), 0 for a key that is none */
long agent_launch_max(const char *key);

/* the kernel's feature class for the long-term memory, e.g. "reduction/looped/b26" */
char *agent_features(const struct agent_kernel *k);
/* a launch config in the problem's terms, for the long-term memory:
 * "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", the reduction block as
 * a fraction of the reduction's length where source gives it (else as is);
 * a helion.Config as agent_helion_shape writes it */
char *agent_shape(const json_t *config, const char *source);
/* a shape (agent_shape) as a launch config of this kernel: own with the
 * shape's keys set, the reduction block as that fraction of the row (a
 * power of two); NULL where own lacks one of the shape's keys (another
 * kind of kernel's shape) or it is not one. New reference. */
json_t *agent_shape_config(const char *shape, const char *source, const json_t *own);
/* a skill's edit for another kernel of the feature class: the edit's
 * kernel-wide knobs, without a load's own (evictI=, cacheI=: an index into
 * one kernel's loads); NULL where none is left. Caller frees. */
char *agent_skill_edit(const char *edit);
/* whether config is a helion.Config (it has block_sizes) */
bool agent_helion_config(const json_t *config);
/* the config in the long-term memory's terms: "block_sizes=64,128 num_warps=4 ..." */
char *agent_helion_shape(const json_t *config);

#endif
