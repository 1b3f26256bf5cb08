/*
 * agents/builtin/screened.c: the screen's configs as the built-in tuner
 * proposes them, first, fastest first.
 *
 * Where the kernel was screened (rules/screen.c), candidate 0 carries the
 * screen's best launch configs ("screen") and, beside them, the source
 * knobs screened with each ("screen_edits": an edit named
 * "evict0=first+rstages=2", its text from the screen); the candidate is
 * named after the kinds of knob it sets ("screen:evict+rstages"), so
 * memory and the report say which knobs won. A point the screen reached
 * from a skill of the long-term memory, or from a transform the analyst
 * chose, says so: the candidate carries "skill" or "transform", and its
 * strategy line ends "; skill: ..." or "; analyst: ...", which the report
 * prints beside its verdict.
 */
#include <config.h>

#include "launch.h"
#include "screened.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

/* where a screen's point came from: a skill of the long-term memory, or
 * a transform the analyst chose (the screen's edits and the candidate
 * carry it under that key) */
static const char *const came_from[2] = { "skill", "transform" };

/* the screen's configs, fastest first: from the screen for candidate 0,
 * from candidate 0 afterwards (it carries them); NULL when none. *edits:
 * beside them, each config's source knobs, {"edit", "source"} or null,
 * where any has some (candidate 0 carries them as "screen_edits"); else
 * NULL */
json_t *screened_configs(const struct agent_request *req, json_t **edits)
{
	*edits = NULL;
	if (req->index > 0) {
		if (!req->ntraj)
			return NULL;
		*edits = json_incref(json_object_get(req->traj[0].candidate, "screen_edits"));
		return json_incref(json_object_get(req->traj[0].candidate, "screen"));
	}
	if (!json_array_size(req->screen))
		return NULL;
	json_t *out = json_array(), *ed = json_array();
	bool any = false;
	size_t i;
	json_t *e;
	json_array_foreach(req->screen, i, e) {
		if (!json_is_object(json_object_get(e, "config")))
			continue;
		json_array_append(out, json_object_get(e, "config"));
		const char *edit = json_string_value(json_object_get(e, "edit"));
		const char *src = json_string_value(json_object_get(e, "source"));
		json_t *o = json_object();
		if (edit && *edit && src) {
			json_object_set_new(o, "edit", json_string(edit));
			json_object_set_new(o, "source", json_string(src));
		}
		for (size_t k = 0; k < 2; k++)
			if (json_is_string(json_object_get(e, came_from[k])))
				json_object_set(o, came_from[k], json_object_get(e, came_from[k]));
		if (json_object_size(o)) {
			json_array_append_new(ed, o);
			any = true;
		} else {
			json_decref(o);
			json_array_append_new(ed, json_null());
		}
	}
	if (any)
		*edits = ed;
	else
		json_decref(ed);
	return out;
}

/* the kernel's own config, or one proposed already: as a config alone, or
 * with the same source (src, NULL for Inductor's) */
static bool proposed(const struct agent_request *req, const json_t *c, const char *src)
{
	if (!src && launch_equal(c, req->kernel->config))
		return true;
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *tc = json_object_get(req->traj[i].candidate, "config");
		const char *ts = json_string_value(json_object_get(req->traj[i].candidate, "source"));
		if ((src ? ts && strcmp(ts, src) == 0 : !ts) && launch_equal(tc, c))
			return true;
	}
	return false;
}

/* "screen:evict+rstages": the kinds of knob an edit "evict0=first+evict2=none+rstages=2" sets;
 * a GEMM template's BLOCK_M, BLOCK_N, BLOCK_K and GROUP_M are of kind "tile" */
static void edit_kinds(struct strbuf *sb, const char *edit)
{
	strbuf_addstr(sb, "screen:");
	size_t start = sb->len;
	for (const char *p = edit; *p;) {
		size_t n = strcspn(p, "+"), k = 0;
		while (k < n && p[k] >= 'a' && p[k] <= 'z')
			k++;
		const char *kind = p;
		if (!k && (strncmp(p, "BLOCK_", 6) == 0 || strncmp(p, "GROUP_", 6) == 0)) {
			kind = "tile";
			k = 4;
		}
		bool seen = false;
		for (const char *q = sb->buf + start; q < sb->buf + sb->len && !seen;) {
			size_t m = strcspn(q, "+");
			seen = m == k && strncmp(q, kind, k) == 0;
			q += m + (q[m] == '+');
		}
		if (!seen && k)
			strbuf_addf(sb, "%s%.*s", sb->len > start ? "+" : "", (int)k, kind);
		p += n + (p[n] == '+');
	}
}

/* the skill of the long-term memory, or the analyst's transform, that the
 * screen's point came from (ed: its entry of the screen's edits), on the
 * candidate and at the end of its strategy line */
static void attribute(json_t *cand, const json_t *ed)
{
	static const char *const say[] = { "skill", "analyst" };
	for (size_t k = 0; k < 2; k++) {
		const char *v = json_string_value(json_object_get(ed, came_from[k]));
		if (!v)
			continue;
		json_object_set_new(cand, came_from[k], json_string(v));
		const char *st = json_string_value(json_object_get(cand, "strategy"));
		char *line = xasprintf("%s; %s: %s", st ? st : "", say[k], v);
		json_object_set_new(cand, "strategy", json_string(line));
		free(line);
		return;
	}
}

/* the first of the screen's configs (with its source knobs) not proposed
 * yet; *reason (when reason is not NULL) says its time alone, from the
 * screen */
json_t *screened_next(const struct agent_request *req, const json_t *configs, const json_t *edits,
		      char **reason)
{
	size_t i;
	json_t *c;
	json_array_foreach(configs, i, c) {
		const json_t *ed = json_array_get(edits, i);
		const char *edit = json_string_value(json_object_get(ed, "edit"));
		const char *src = edit ? json_string_value(json_object_get(ed, "source")) : NULL;
		if (!src)
			edit = NULL;
		if (!json_is_object(c) || proposed(req, c, src))
			continue;
		if (reason) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addstr(&sb, "screen: ");
			if (edit)
				strbuf_addf(&sb, "%s ", edit);
			launch_text(&sb, c);
			size_t j;
			json_t *e;
			json_array_foreach(req->screen, j, e) {
				const char *ee = json_string_value(json_object_get(e, "edit"));
				if (launch_equal(json_object_get(e, "config"), c) &&
				    (edit ? ee && strcmp(ee, edit) == 0 : !ee || !*ee) &&
				    json_is_number(json_object_get(e, "speedup"))) {
					strbuf_addf(&sb, " (%.3fx alone)", json_number_value(json_object_get(e, "speedup")));
					break;
				}
			}
			*reason = strbuf_detach(&sb);
		}
		json_t *out;
		if (!edit) {
			out = launch_candidate(json_deep_copy(c), NULL, "tuner", "screen", "screen", c);
		} else {
			struct strbuf name = STRBUF_INIT;
			edit_kinds(&name, edit);
			char *what = xasprintf("screen %s", edit);
			out = launch_candidate_edit(json_deep_copy(c), src, edit, "tuner", name.buf, what, c);
			free(what);
			strbuf_release(&name);
		}
		attribute(out, ed);
		return out;
	}
	return NULL;
}
