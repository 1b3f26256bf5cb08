/*
 * rules/common.c: the small helpers every rule uses (common.h): a run
 * failed with a message, numbers read from and written to JSON, a
 * profile's measurements, a kernel's inventory entry, a result's numbers
 * for -t why, and the step behind a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "plan.h"
#include "outputs.h"
#include "common.h"
#include "../gates/gates.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/outdir.h"

int rule_fail(struct rule_run *run, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(run->error);
	run->error = xvasprintf(fmt, ap);
	va_end(ap);
	return RULE_FAIL;
}

static void print_numbers_in(FILE *out, json_t *nums, const char *prefix)
{
	const char *k;
	json_t *v;
	json_object_foreach(nums, k, v) {
		char *name = xasprintf("%s%s", prefix, k);
		if (json_is_number(v))
			fprintf(out, "  %-22s %g\n", name, json_number_value(v));
		else if (json_is_string(v) && strcmp(k, "raw_numbers") != 0)
			fprintf(out, "  %-22s %s\n", name, json_string_value(v));
		else if (json_is_object(v) && strcmp(k, "worker") != 0) {
			char *sub = xasprintf("%s.", name);
			print_numbers_in(out, v, sub);
			free(sub);
		}
		free(name);
	}
}

void rule_print_numbers(FILE *out, json_t *nums)
{
	print_numbers_in(out, nums, "");
}

double rule_num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *rule_profile_meas(struct dag *d, const struct rule_mv *mv)
{
	return json_object_get(dag_result(d, mv->profile), "meas");
}

json_t *rule_num_json(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *rule_inventory_entry(const json_t *res, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(res, "stable"), "kernels"), i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (name && nm && strcmp(nm, name) == 0)
			return e;
	}
	return NULL;
}

const struct dag_node *rule_failure_of(const struct dag_node *n)
{
	while (n && (n->flags & DAG_UPFAIL)) {
		const struct dag_node *next = NULL;
		for (uint32_t i = 0; i < n->ndeps && !next; i++)
			if ((n->deps[i].node->flags & DAG_FAILED) && !(n->deps[i].flags & DAG_EDGE_SOFT))
				next = n->deps[i].node;
		if (!next)
			break;
		n = next;
	}
	return n;
}
