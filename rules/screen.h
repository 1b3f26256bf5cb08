/*
 * rules/screen.h: a hot kernel's screen, its launch configs timed alone
 * (rules/screen.c).
 */
#ifndef KOPT_RULES_SCREEN_H
#define KOPT_RULES_SCREEN_H

#include <jansson.h>
#include <stdbool.h>

#include "plan.h"

/*
 * Screening (rules/screen.c). rule_screen_add adds kernel k's screen node,
 * beside its chain, when its agents screen (agents: screen > 0, the
 * built-in coder, a torch model and a budget); NULL otherwise.
 * rule_screen_best gives the screen's best configs with their
 * alone-timings, [{"config", "speedup"}...] fastest first, or NULL where
 * rule_screen_input is (new reference). rule_screen_md adds the
 * screen's line to the model report's candidates of k (nothing without a
 * screen); rule_screen_seconds is the worker time its result took (0 when
 * none).
 */
struct dag_node *rule_screen_add(struct dag *d, struct rule_kernel *k);
json_t *rule_screen_best(struct dag *d, const struct rule_kernel *k);
/* the launch configs the screen found no faster than the kernel's own
 * alone (which: "slower"), or those at which the persistent transform
 * alone was no faster ("slower_persist"), [config...], or NULL where
 * rule_screen_input is or the screen has none (new reference) */
json_t *rule_screen_slower(struct dag *d, const struct rule_kernel *k, const char *which);
/* k's screen where it found configs, the input candidate 0 keys on; NULL
 * where there is no screen, or it found none, was skipped or failed (the
 * plan alone, keyed as without a screen) */
const struct dag_node *rule_screen_input(const struct rule_kernel *k);
void rule_screen_md(struct dag *d, const struct rule_kernel *k, struct strbuf *md);
double rule_screen_seconds(struct dag *d, const struct rule_kernel *k);
/* whether a kernel of dm has a screen step */
bool rule_screen_any(const struct rule_model *dm);
/* adds "result:screen" = the whole result of each screen of dm with one
 * (the report shows their GPU time; none without screens) */
void rule_key_screens(struct hash_key *k, const struct rule_model *dm);
/* the starts of k's screen: the configs the model's other declared
 * variants gave a kernel of the same name and keys, where they differ from
 * k's own, in the variants' order, each once (new reference) */
json_t *rule_screen_starts(struct dag *d, const struct rule_kernel *k);

#endif
