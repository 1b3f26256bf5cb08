/*
 * engine/explain.h: why a step is stale, as -d explain prints it and the
 * build log records it: "forced by -B", "cache entry corrupt", "new step",
 * "parameter gamma changed", "input capture softmax/default changed",
 * "rule version changed", "environment changed", "model file changed", ...
 */
#ifndef KOPT_EXPLAIN_H
#define KOPT_EXPLAIN_H

#include <stdbool.h>

/* compares two ingredient lists (hash_key_ingredients); prev NULL = never
 * built. words (or NULL) names ingredients in pairs, the ingredient then
 * how to say it ("model", "model file"), NULL-terminated: the rule set's
 * (rule_set.words); "param:X", "input:X" and "rule" need none. Returns a
 * one-line reason; caller frees. */
char *explain_diff(const char *prev, const char *cur, const char *const *words);

#endif
