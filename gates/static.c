/*
 * gates/static.c: gate 1. The check itself is Python's (ast, in the worker:
 * runtime/python/kopt/static_gate.py); koptmake records its outcome, so the
 * verdict, its reason and the cascade's order live in one place.
 */
#include "gates.h"

bool gate_static(const json_t *num, struct gate_verdict *v)
{
	v->gate = GATE_STATIC;
	v->gates_run |= 1u << GATE_STATIC;
	v->pass = false;
	if (!json_is_object(num)) {
		gate_reason(v, "static: bad numbers: \"static\" is not an object");
		return false;
	}
	const json_t *ok = json_object_get(num, "ok");
	const char *reason = json_string_value(json_object_get(num, "reason"));
	if (!json_is_boolean(ok)) {
		gate_reason(v, "static: bad numbers: \"ok\" is not a boolean");
		return false;
	}
	if (!reason || !*reason)
		reason = json_is_true(ok) ? "ok" : "rejected (no reason given)";
	gate_reason(v, "static: %s", reason);
	v->pass = json_is_true(ok);
	return v->pass;
}
