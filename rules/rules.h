/*
 * rules/rules.h: one rule per step kind. A rule names the ingredients of a
 * step's key, builds the worker requests of a stale step, and turns the
 * replies into a result: a stable part (hashed, drives the dependents' keys)
 * and measurements (stored, never hashed), plus cache objects and files in
 * kopt-out/.
 *
 * The interface (struct rule, struct rule_run) is the engine's
 * (engine/rule.h); rule_pipeline is koptmake's set.
 */
#ifndef KOPT_RULES_H
#define KOPT_RULES_H

#include <jansson.h>
#include <stdbool.h>

#include "../engine/dag.h"
#include "../engine/hash.h"

/* koptmake's rules, by node kind (enum dag_kind) */
extern const struct rule_set rule_pipeline;

int rule_fail(struct rule_run *run, const char *fmt, ...) KOPT_PRINTF(2, 3);

/* ---- helpers shared by the rules (rules/common.c) ---- */

/* protocol objects (PROTOCOL.md "Common objects"); new references */
json_t *rule_model_json(const struct kopt_model *m);
json_t *rule_variant_json(const struct kopt_variant *v);
json_t *rule_gates_json(const struct kopt_gates *g);
/* key ingredients for a variant and for gates, one per parameter */
void rule_key_variant(struct hash_key *k, const struct kopt_variant *v);
void rule_key_gates(struct hash_key *k, const struct kopt_gates *g);
/* adds "input:KIND PATH" = the dep's stable hash */
void rule_key_input(struct hash_key *k, const struct dag_node *dep);
/* stores bytes as an object and records it under name in run->objects */
int rule_object(struct rule_run *run, const char *name, const void *data, size_t n, kopt_hash *h);
/* writes an output file, "<the step's folder>/<name>" under the out dir
 * (engine/outdir.h: no link followed, fsync of file and folder), and
 * records its size and hash */
int rule_output(struct rule_run *run, const char *rel, const char *data, size_t n);
/* the restore hook of the rules that write outputs: checks a cached
 * result's outputs (size and hash) and restores the missing and changed
 * ones from its objects; -1 when an object is bad or the record names a
 * file outside the step's folder (a corrupt record: warned) */
int rule_restore_outputs(struct dag *d, struct dag_node *n);
/* the model's output folder relative to the out dir ("softmax") */
const char *rule_model_dir(const struct kopt_model *m);
/* a number from an object, NAN when absent */
double rule_num(const json_t *o, const char *key);
/* Markdown rows for a profile's vendor calls (runtime/python/kopt/vendor.py):
 * torch's time against the vendor heuristic's first pick and its best, and
 * whether torch's pick leaves more than gamma on the table */
extern const char rule_vendor_header[];
void rule_vendor_rows(struct strbuf *md, const char *label, const json_t *calls, double gamma);
/* A Markdown row when the first variant's side-by-side eager run
 * (worker.py eager_vs_compiled; meas[v] is variant v's profile) beats
 * torch.compile by gamma: the hot kernels' distinctive ATen ops, and the
 * ATen-fallback variant to declare, the one the agents added (auto_name),
 * or the declared variant that eager does not beat. Returns whether it
 * wrote a row. */
extern const char rule_space_header[];
#define RULE_AUTO_VARIANT "aten-auto"   /* the agents' own variants: ATen fallbacks */
#define RULE_CUDNN_VARIANT "cudnn-auto" /*   and cudnn.benchmark */
#define RULE_CUDNN_SHARE 0.25           /* of device time in cuDNN calls: worth benchmarking */
int rule_space_rows(struct strbuf *md, const struct kopt_model *m, const json_t *const *meas, size_t n,
		    double gamma, const char *auto_name);
/* The agents' implementation-space choice (dag_expand_space): the ATen ops
 * to keep out of Inductor when eager beats every declared variant's
 * compiled code by gamma in that variant's own profile (meas[v], side by
 * side), taken from the hot kernels of the first; NULL when eager does not
 * win everywhere, when no hot kernel names a distinctive op, or when the
 * spec already declares ATen fallbacks for the model. New reference. */
json_t *rule_space_pick(const struct kopt_model *m, const json_t *const *meas, size_t n, double gamma);
/* The same from the profiles' summaries, without parsing their results: a
 * profile's summary ends with "eager\tRATIO\t-\tOPS" (rule_space_line:
 * compiled over eager, device spans where present, or "-" without a
 * side-by-side run; the distinctive ops, comma-separated, or "-"), which
 * dag_expand() keeps per variant; ops0 is the first variant's. */
char *rule_space_line(const json_t *profile_meas);
/* The share of a profile's device time that torch's cuDNN calls take
 * (vendor calls, runtime/python/kopt/vendor.py); 0 without any. The
 * summary carries it too, as "cudnn\tSHARE\t-\t-" (rule_space_line). */
double rule_cudnn_share(const json_t *profile_meas);
json_t *rule_space_pick_lines(const struct kopt_model *m, const double *ratio, size_t n, const char *ops0,
			      double gamma);

/*
 * The implementation-space choice across a model's compile variants: each
 * variant's time is its stitched time if its winners passed, else its
 * compiled baseline; in the spec's order, a variant replaces the best so far
 * only when faster by gamma (two within the noise keep the earlier), and a
 * variant with no winner must beat the first variant's baseline by gamma to
 * be chosen (a compile option that wins inside the noise is no win).
 * Returns whether the model is optimized (winners, or another variant) and
 * sets *best.
 */
bool rule_pick_variant(const double *base, const double *opt, const bool *passed, size_t n, double gamma,
		       size_t *best);

/* the stable part of a proposal without a candidate (verify skips it); new reference */
json_t *rule_no_candidate(void);

/* the kernel's source, from the object its capture stored; empty when absent */
void rule_kernel_source(struct dag *d, struct dag_kernel *k, struct strbuf *out);

/* the agents' long-term memory file in the cache folder; caller frees */
char *rule_memory_path(struct dag *d);
/* the scope of this build's lessons in it: the spec file's absolute path; caller frees */
char *rule_memory_scope(struct dag *d);

#endif
