/*
 * rules/proto.h: what a step sends the worker of the spec's blocks
 * (rules/proto.c).
 */
#ifndef KOPT_RULES_PROTO_H
#define KOPT_RULES_PROTO_H

#include <jansson.h>

#include "../lang/spec.h"
#include "plan.h"

/* protocol objects (PROTOCOL.md "Common objects"); new references */
json_t *rule_model_json(const struct rule_model *dm);
json_t *rule_variant_json(const struct kopt_variant *v);
json_t *rule_gates_json(const struct kopt_gates *g);

#endif
