/*
 * rules/keys.h: the key ingredients the rules share (rules/keys.c).
 */
#ifndef KOPT_RULES_KEYS_H
#define KOPT_RULES_KEYS_H

#include "../engine/dag.h"
#include "../engine/hash.h"
#include "../lang/spec.h"

/* key ingredients for a variant and for gates, one per parameter */
void rule_key_variant(struct hash_key *k, const struct kopt_variant *v);
void rule_key_gates(struct hash_key *k, const struct kopt_gates *g);
/* the gates' tolerances alone (atol, rtol and their half-precision pair):
 * what a worker's own check against eager reads, for a step that must not
 * rerun when gamma or the repeats change */
void rule_key_tolerances(struct hash_key *k, const struct kopt_gates *g);
/* for a step that runs a kernel at a pinned launch config (screen, verify):
 * where the variant compiles with coordinate descent on, the version of
 * how a config is pinned (runtime/python/kopt/kernels.py force_config; 2:
 * marked as the tuner's own, which until then moved it at its first
 * launch); nothing for other variants, whose results did not change */
void rule_key_pinned(struct hash_key *k, const struct kopt_variant *v);
/* adds "input:KIND PATH" = the dep's stable hash */
void rule_key_input(struct hash_key *k, const struct dag_node *dep);

#endif
