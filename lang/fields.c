/*
 * lang/fields.c: the lists of fields.h as tables, their words' names and
 * the blocks' defaults.
 */
#include "spec.h"

#define DEVICE_ROW(...) LANG_ROW(struct kopt_device, __VA_ARGS__)
#define AGENTS_ROW(...) LANG_ROW(struct kopt_agents, __VA_ARGS__)
#define LLM_ROW(...) LANG_ROW(struct kopt_llm, __VA_ARGS__)
#define GATES_ROW(...) LANG_ROW(struct kopt_gates, __VA_ARGS__)
#define VARIANT_ROW(...) LANG_ROW(struct kopt_variant, __VA_ARGS__)

static const struct lang_field device_rows[] = { KOPT_DEVICE_FIELDS(DEVICE_ROW) };
static const struct lang_field agents_rows[] = { KOPT_AGENTS_FIELDS(AGENTS_ROW) KOPT_ROLES(LANG_ROLE_ROW) };
static const struct lang_field llm_rows[] = { KOPT_LLM_FIELDS(LLM_ROW) };
static const struct lang_field gates_rows[] = { KOPT_GATES_FIELDS(GATES_ROW) };
static const struct lang_field variant_rows[] = { KOPT_VARIANT_FIELDS(VARIANT_ROW) };

#define TABLE(block, rows) { block, rows, sizeof rows / sizeof rows[0] }
const struct lang_fields lang_device_fields = TABLE("device", device_rows);
const struct lang_fields lang_agents_fields = TABLE("agents", agents_rows);
const struct lang_fields lang_llm_fields = TABLE("llm", llm_rows);
const struct lang_fields lang_gates_fields = TABLE("gates", gates_rows);
const struct lang_fields lang_variant_fields = TABLE("variant", variant_rows);

#define ROLE_NAME(name, id, doc) name,
#define PRECISION_NAME(name, id) name,
#define MODEL_KIND_NAME(kw, id, name) name,
const char *const lang_role_names[KOPT_ROLE_COUNT] = { KOPT_ROLES(ROLE_NAME) };
const char *const lang_precision_names[KOPT_PRECISION_COUNT] = { KOPT_PRECISIONS(PRECISION_NAME) };
const char *const lang_model_kind_names[KOPT_MODEL_KIND_COUNT] = { KOPT_MODEL_KINDS(MODEL_KIND_NAME) };

const struct kopt_device lang_device_default = KOPT_DEVICE_INIT;
const struct kopt_agents lang_agents_default = KOPT_AGENTS_INIT;
const struct kopt_gates lang_gates_default = KOPT_GATES_INIT;
