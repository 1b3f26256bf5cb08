/*
 * agents/llm/trajectory.c: the kernel's search so far as the LLM coder
 * reads it, and the model's replies as candidates.
 *
 * A round asks the model once for `beam` replies; the candidate that sent
 * it (the round's head) carries them all ("beam"), and the next candidates
 * take the others in turn ("round", "sample"). llm_state_of() reads from
 * the trajectory where the last round stands, the best passing candidate,
 * and how many rounds in a row gave nothing that built.
 *
 * A reply may carry a kernel module, a launch config (a json block whose
 * keys are the kernel's config's) or both; a config with other keys or
 * values out of range is left out, and said so ("config_error").
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "trajectory.h"
#include "run.h"
#include "../features.h"

#include <stdlib.h>
#include <string.h>

/* ---- the search so far ---- */

bool llm_made_by_llm(const json_t *c)
{
	const char *n = llm_str(c, "name"), *r = llm_str(c, "role");
	return n && strcmp(n, "llm") == 0 && r && (strcmp(r, "coder") == 0 || strcmp(r, "debugger") == 0);
}

void llm_state_of(const struct agent_request *req, struct llm_state *st)
{
	memset(st, 0, sizeof *st);
	st->head = st->best = -1;
	double bx = 0;
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		if (t->verdict && strcmp(t->verdict, "pass") == 0 && t->speedup > bx) {
			bx = t->speedup;
			st->best = (int)i;
		}
		if (json_is_array(json_object_get(t->candidate, "beam"))) {
			st->head = (int)i;
			st->round = (int)json_integer_value(json_object_get(t->candidate, "round"));
			st->rounds = st->round + 1;
		}
	}
	if (st->head >= 0) {
		st->open = true;
		st->last_sample = (int)json_integer_value(json_object_get(req->traj[st->head].candidate, "sample"));
		for (size_t i = (size_t)st->head + 1; i < req->ntraj; i++) {
			const json_t *c = req->traj[i].candidate;
			if (!json_object_get(c, "sample") || json_object_get(c, "repair_of") ||
			    json_integer_value(json_object_get(c, "round")) != st->round) {
				st->open = false;
				break;
			}
			st->last_sample = (int)json_integer_value(json_object_get(c, "sample"));
		}
	}
	/* rounds that built something: a candidate of the model's that passed
	 * or failed after gate 1 */
	bool *built = xcalloc((size_t)st->rounds + 1, sizeof *built);
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		json_t *r = json_object_get(t->candidate, "round");
		if (!json_is_integer(r) || json_integer_value(r) < 0 || json_integer_value(r) >= st->rounds ||
		    !llm_made_by_llm(t->candidate) || !t->verdict)
			continue;
		if (strcmp(t->verdict, "pass") == 0 || (t->gate && strcmp(t->gate, "static") != 0))
			built[json_integer_value(r)] = true;
	}
	for (int r = st->rounds - 1; r >= 0 && !built[r]; r--)
		st->failed++;
	free(built);
}

static bool same_candidate(const json_t *a, const char *src, const json_t *cfg)
{
	const char *as = llm_str(a, "source");
	const json_t *ac = json_object_get(a, "config");
	if ((as == NULL) != (src == NULL) || (as && strcmp(as, src) != 0))
		return false;
	bool an = !json_is_object(ac), bn = !json_is_object(cfg);
	return an == bn && (an || json_equal(ac, cfg));
}

/* whether a reply would make a new candidate: it holds a kernel or a
 * config, not the kernel as it is, nor an earlier candidate */
bool llm_fresh(const struct agent_request *req, const json_t *sample)
{
	const char *src = llm_str(sample, "source");
	const json_t *cfg = json_object_get(sample, "config");
	if (!src && !json_is_object(cfg))
		return false;
	if (src && req->kernel->source && strcmp(src, req->kernel->source) == 0 && !json_is_object(cfg))
		return false;
	for (size_t i = 0; i < req->ntraj; i++)
		if (same_candidate(req->traj[i].candidate, src, json_is_object(cfg) ? cfg : NULL))
			return false;
	return true;
}

/* candidate of reply j of round r (n replies) */
json_t *llm_from_sample(const json_t *sample, int r, int j, int n, const char *role)
{
	const char *src = llm_str(sample, "source");
	const json_t *cfg = json_object_get(sample, "config");
	bool has_cfg = json_is_object(cfg);
	char *what = xasprintf("llm %s (round %d, reply %d of %d)",
			       src && has_cfg ? "rewrite and launch config" : src ? "rewrite" : "launch config", r + 1,
			       j + 1, n);
	struct agent_candidate ac = { .source = src, .config = has_cfg ? cfg : NULL, .role = role, .name = "llm",
				      .strategy = what };
	json_t *c = agent_candidate_new(&ac);
	free(what);
	json_object_set_new(c, "round", json_integer(r));
	json_object_set_new(c, "sample", json_integer(j));
	if (json_object_get(sample, "notes"))
		json_object_set(c, "notes", json_object_get(sample, "notes"));
	if (llm_str(sample, "config_error"))
		json_object_set(c, "config_error", json_object_get(sample, "config_error"));
	return c;
}

/* ---- replies ---- */

/* whether x is a power of two */
static bool pow2(long long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

/*
 * A reply's launch config, checked against the kernel's: the keys of its
 * config (or, for a kernel without one, the block sizes Inductor uses)
 * with num_warps and num_stages, powers of two for the blocks and the
 * warps (at most Inductor's largest for the block's axis, and 32), 1 to
 * 8 stages; the keys it leaves out
 * keep the kernel's values. NULL with why when it is not a config.
 */
static json_t *checked_config(const json_t *got, const json_t *kernel_cfg, struct strbuf *why)
{
	json_t *c = json_is_object(kernel_cfg) ? json_deep_copy(kernel_cfg) : json_object();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)got, key, v) {
		bool block = agent_launch_block(key), known = json_object_get(kernel_cfg, key) != NULL;
		bool warps = strcmp(key, "num_warps") == 0, stages = strcmp(key, "num_stages") == 0;
		if (!warps && !stages && !(block && (known || !json_is_object(kernel_cfg)))) {
			strbuf_addf(why, "the launch config's key %s is not one of the kernel's", key);
			break;
		}
		if (!json_is_integer(v)) {
			strbuf_addf(why, "the launch config's %s is not a whole number", key);
			break;
		}
		long long x = json_integer_value(v);
		if ((stages && (x < 1 || x > 8)) || (warps && (!pow2(x) || x > 32)) || (block && (!pow2(x) || x > agent_launch_max(key)))) {
			strbuf_addf(why, "the launch config's %s = %lld is out of range", key, x);
			break;
		}
		json_object_set(c, key, v);
	}
	if (why->len) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* a reply as a sample: {"source", "config", "notes", "error", "config_error"} */
json_t *llm_sample_of(const struct agent_request *req, const char *text, const char *err)
{
	json_t *s = json_object();
	if (!text) {
		json_object_set_new(s, "error", json_string(err && *err ? err : "llm: no reply"));
		return s;
	}
	struct strbuf src = STRBUF_INIT, e = STRBUF_INIT, ce = STRBUF_INIT, why = STRBUF_INIT;
	if (llm_extract_kernel(text, req->kernel->name, &src, &e) == 0)
		json_object_set_new(s, "source", json_string(src.buf));
	json_t *cfg = NULL;
	if (llm_extract_config(text, &cfg, &ce) < 0) {
		json_object_set_new(s, "config_error", json_string(ce.buf));
	} else if (cfg) {
		json_t *ok = checked_config(cfg, req->kernel->config, &why);
		if (ok)
			json_object_set_new(s, "config", ok);
		else
			json_object_set_new(s, "config_error", json_string(why.buf));
	}
	json_decref(cfg);
	if (!json_object_get(s, "source") && !json_object_get(s, "config"))
		json_object_set_new(s, "error", json_string(e.len ? e.buf : ce.len ? ce.buf : "llm: the reply held nothing usable"));
	struct strbuf a = STRBUF_INIT, z = STRBUF_INIT;
	llm_extract_notes(text, &a, &z);
	if (a.len || z.len) {
		json_t *n = json_object();
		if (a.len)
			json_object_set_new(n, "avoid", json_string(a.buf));
		if (z.len)
			json_object_set_new(n, "prioritize", json_string(z.buf));
		json_object_set_new(s, "notes", n);
	}
	strbuf_release(&a);
	strbuf_release(&z);
	strbuf_release(&src);
	strbuf_release(&e);
	strbuf_release(&ce);
	strbuf_release(&why);
	return s;
}
