/*
 * rules/chains.h: a model's chains of proposals and verifies, once its
 * variants are profiled (rules/chains.c).
 */
#ifndef KOPT_RULES_CHAINS_H
#define KOPT_RULES_CHAINS_H

#include "plan.h"

/* rules/chains.c: a finished profile's summary read into mv (once); the
 * chains of dm's variants' hot kernels, once every variant is profiled or
 * failed (a no-op before, and after the first time) */
void rule_read_summary(struct rule_mv *mv);
void rule_expand_chains(struct dag *d, struct rule_model *dm);

#endif
