/*
 * agents/builtin/transform.h: what the built-in analyst's diagnosis
 * (plan.c) and its choice of kernel transforms (transform.c) share
 * (internal to agents/builtin).
 */
#ifndef KOPT_BUILTIN_TRANSFORM_H
#define KOPT_BUILTIN_TRANSFORM_H

#include "../candidate.h"
#include "../roof.h"

/* the kernel's bound as the analyst reads it (plan.c): from its row's
 * FLOPs, else those counted in its source, and the device's roofs; where
 * the GPU's counters measured its DRAM bytes, the copy bandwidth alone
 * will do; b->frac NAN where nothing says */
void builtin_bound(const struct agent_kernel *k, struct agent_bound *b);

#endif
