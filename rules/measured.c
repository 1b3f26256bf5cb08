/*
 * rules/measured.c: when, on what and with what a result was measured.
 *
 * A worker stamps its profile, stitch and race results with "measured_at",
 * seconds since the epoch when it measured (runtime/PROTOCOL.md). The
 * profile and stitch rules keep, in their result's measurements,
 *
 *     "measured": {"at": 1764950400, "env": {...}, "koptmake": "0.2.0"}
 *
 * the stamp (a stitch: the newest of its requests'; one answered from its
 * memo brings the time it was measured), the environment fingerprint of the
 * model's device as its worker said it at hello (GPU, compute capability,
 * driver, CUDA, torch, triton: what capture keys on) and koptmake's version.
 *
 * The reports print the newest stamp of what they show as a UTC date. The
 * date is the measurements', not the writing's: a report comes out the same
 * bytes from a build, a resumed build and a null build, and a resumed build
 * whose stitches were all done before says the day they were measured.
 */
#define _GNU_SOURCE
#include <config.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include "measured.h"
#include "plan.h"
#include "outputs.h"
#include "common.h"

double rule_measured_at(const json_t *res)
{
	double at = rule_num(res, "measured_at");
	if (!isnan(at) && at > 0)
		return floor(at);
	return floor((double)time(NULL));
}

void rule_measured(struct rule_run *run, double at)
{
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	json_t *env = cache_env_get(run->dag->cache, dag_env_name(m->device));
	json_t *o = json_pack("{s:I, s:s}", "at", (json_int_t)at, "koptmake", PACKAGE_VERSION);
	json_object_set_new(o, "env", env ? json_deep_copy(env) : json_null());
	json_object_set_new(run->meas, "measured", o);
}

const json_t *rule_measured_newer(const json_t *a, const json_t *b)
{
	if (!json_is_object(a))
		return json_is_object(b) ? b : NULL;
	if (!json_is_object(b))
		return a;
	return rule_num(b, "at") > rule_num(a, "at") ? b : a;
}

const json_t *rule_measured_of(struct dag *d, struct dag_node *n)
{
	if (!n)
		return NULL;
	json_t *m = json_object_get(json_object_get(dag_result(d, n), "meas"), "measured");
	return json_is_object(m) ? m : NULL;
}

static void utc_date(double at, char buf[16])
{
	time_t t = (time_t)at;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(buf, 16, "%Y-%m-%d", &tm) == 0)
		strcpy(buf, "?");
}

static const char *const env_keys[] = { "gpu", "cc", "driver", "cuda", "torch", "triton" };

json_t *rule_measured_json(const json_t *measured)
{
	if (!json_is_object(measured))
		return json_null();
	char date[16];
	utc_date(rule_num(measured, "at"), date);
	json_t *o = json_pack("{s:s}", "date", date);
	const json_t *env = json_object_get(measured, "env");
	for (size_t i = 0; i < sizeof env_keys / sizeof *env_keys; i++) {
		json_t *v = json_object_get(env, env_keys[i]);
		json_object_set_new(o, env_keys[i], v ? json_deep_copy(v) : json_null());
	}
	json_t *k = json_object_get(measured, "koptmake");
	json_object_set_new(o, "koptmake", k ? json_deep_copy(k) : json_null());
	return o;
}

static const char *str(const json_t *env, const char *key)
{
	const char *s = json_string_value(json_object_get(env, key));
	return s && *s ? s : NULL;
}

void rule_measured_md(struct strbuf *md, const json_t *measured)
{
	if (!json_is_object(measured))
		return;
	char date[16];
	utc_date(rule_num(measured, "at"), date);
	const json_t *env = json_object_get(measured, "env");
	strbuf_addf(md, "Measured on %s (UTC)", date);
	if (str(env, "gpu")) {
		strbuf_addf(md, " on %s", str(env, "gpu"));
		if (str(env, "cc"))
			strbuf_addf(md, " (compute capability %s)", str(env, "cc"));
	}
	static const char *const names[] = { "driver", "CUDA", "torch", "triton" };
	static const char *const keys[] = { "driver", "cuda", "torch", "triton" };
	const char *sep = ": ";
	for (size_t i = 0; i < 4; i++)
		if (str(env, keys[i])) {
			strbuf_addf(md, "%s%s %s", sep, names[i], str(env, keys[i]));
			sep = ", ";
		}
	const char *k = json_string_value(json_object_get(measured, "koptmake"));
	strbuf_addf(md, "%skoptmake %s.\n\n", sep, k ? k : "?");
}
