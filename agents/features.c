/*
 * agents/features.c: the terms the long-term memory files lessons in: a
 * kernel's feature class, and a launch config's shape (a Triton launch
 * config's blocks, warps and stages, the reduction block as a fraction of
 * the reduction's length; a Helion kernel's helion.Config), for the
 * built-in agents, the LLM agents' prompts and the dispatcher's lessons
 * alike.
 */
#include <config.h>

#include "features.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

#define NAME_(name, most, moved, screened) name,
#define IF_1_(x) x,
#define IF_0_(x)
#define MOVED_(name, most, moved, screened) IF_##moved##_(name)
const char *const agent_launch_order[AGENT_LAUNCH_NORDER] = { AGENT_LAUNCH_ORDER(NAME_) };
const char *const agent_launch_keys[AGENT_LAUNCH_NKEYS] = { AGENT_LAUNCH_ORDER(MOVED_) };

long agent_launch_max(const char *key)
{
#define MAX_(name, most, moved, screened) if (strcmp(key, name) == 0) return most;
	AGENT_LAUNCH_ORDER(MAX_)
#undef MAX_
	return 0;
}

bool agent_launch_block(const char *key)
{
	return agent_launch_max(key) > 0;
}

/* a reduction's length: Inductor writes it into the kernel as
 * "r0_numel = N" (a constant for static shapes); 0 when not found */
static long long reduction_numel(const char *src)
{
	const char *p = src ? strstr(src, "r0_numel = ") : NULL;
	if (!p)
		return 0;
	char *end;
	long long n = strtoll(p + 11, &end, 10);
	return end > p + 11 && (*end == '\n' || *end == '\r') ? n : 0;
}

/*
 * The feature class that long-term memory files a kernel's lessons under:
 * heuristic, looped or flat, the reduction's length (bucket of 4x, where
 * the source gives it) and the bytes (bucket of 4x). Lessons do not carry
 * across reduction lengths (DESIGN-NOTES.md, "Lessons are filed by the
 * reduction's length too"). A Helion kernel's: "helion", its number of
 * block sizes and the bytes ("helion/2d/b28").
 */
char *agent_features(const struct agent_kernel *k)
{
	double bytes = json_number_value(json_object_get(k->profile_row, "bytes"));
	int b = bytes > 0 ? (int)floor(log2(bytes)) : 0;
	const json_t *c = k->config;
	/* a Helion kernel: by how many tiled dimensions its config has */
	if (agent_helion_config(c))
		return xasprintf("helion/%zud/b%d", json_array_size(json_object_get(c, "block_sizes")), b / 2 * 2);
	json_t *r = json_object_get(c, "R0_BLOCK");
	long long rn = reduction_numel(k->source);
	char rbuf[24] = "";
	if (rn > 0)
		snprintf(rbuf, sizeof rbuf, "/r%d", (int)floor(log2((double)rn)) / 2 * 2);
	return xasprintf("%s/%s%s/b%d", k->heuristic ? k->heuristic : "unknown", r ? "looped" : "flat", rbuf,
			 b / 2 * 2);
}

bool agent_helion_config(const json_t *config)
{
	return json_is_object(config) && json_is_array(json_object_get(config, "block_sizes"));
}

/* a scalar as the shape writes it: a string without its quotes */
static void shape_scalar(struct strbuf *sb, const json_t *v)
{
	if (json_is_string(v)) {
		strbuf_addstr(sb, json_string_value(v));
		return;
	}
	char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	strbuf_addstr(sb, t ? t : "?");
	free(t);
}

/* "block_sizes=64,128 num_warps=4 num_stages=2 indexing=pointer pid_type=flat
 * loop_orders=[[0,1]]": a list of scalars comma-separated, a nested list as
 * JSON */
char *agent_helion_shape(const json_t *config)
{
	struct strbuf sb = STRBUF_INIT;
	static const char *const keys[] = { "block_sizes", "num_warps", "num_stages", "indexing", "pid_type", "loop_orders" };
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		json_t *v = json_object_get(config, keys[k]);
		if (!v)
			continue;
		strbuf_addf(&sb, "%s%s=", sb.len ? " " : "", keys[k]);
		if (json_is_array(v) && !json_is_array(json_array_get(v, 0))) {
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e) {
				if (i)
					strbuf_addch(&sb, ',');
				shape_scalar(&sb, e);
			}
		} else if (json_is_array(v)) {
			char *t = json_dumps(v, JSON_COMPACT);
			strbuf_addstr(&sb, t ? t : "?");
			free(t);
		} else {
			shape_scalar(&sb, v);
		}
	}
	return strbuf_detach(&sb);
}

char *agent_shape(const json_t *config, const char *source)
{
	if (agent_helion_config(config))
		return agent_helion_shape(config);
	long long rn = reduction_numel(source);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < AGENT_LAUNCH_NKEYS; i++) {
		json_t *v = json_object_get(config, agent_launch_keys[i]);
		if (!json_is_integer(v) && strcmp(agent_launch_keys[i], "num_stages") != 0)
			continue;
		long long x = v ? json_integer_value(v) : 1;
		strbuf_addf(&sb, "%s%s=", sb.len ? " " : "", agent_launch_keys[i]);
		if (strcmp(agent_launch_keys[i], "R0_BLOCK") == 0 && rn > 0 && x > 0)
			strbuf_addf(&sb, x >= rn ? "1" : "1/%lld", rn / x);
		else
			strbuf_addf(&sb, "%lld", x);
	}
	return strbuf_detach(&sb);
}

char *agent_skill_edit(const char *edit)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = edit ? edit : ""; *p;) {
		size_t n = strcspn(p, "+");
		/* a load's own knob (evictI=, cacheI=): its index names a load of
		 * one kernel */
		bool per_load = (strncmp(p, "evict", 5) == 0 && p[5] >= '0' && p[5] <= '9') ||
				(strncmp(p, "cache", 5) == 0 && p[5] >= '0' && p[5] <= '9');
		if (!per_load)
			strbuf_addf(&sb, "%s%.*s", sb.len ? "+" : "", (int)n, p);
		p += n + (p[n] == '+');
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

json_t *agent_shape_config(const char *shape, const char *source, const json_t *own)
{
	if (!shape || !json_is_object(own) || agent_helion_config(own))
		return NULL;
	long long rn = reduction_numel(source);
	json_t *c = json_deep_copy(own);
	size_t keys = 0;
	for (const char *p = shape; *p;) {
		size_t n = strcspn(p, " ");
		const char *eq = memchr(p, '=', n);
		if (!eq) {
			json_decref(c);
			return NULL;
		}
		char *key = xstrndup(p, (size_t)(eq - p));
		long long v = strtoll(eq + 1, NULL, 10);
		const char *frac = memchr(eq, '/', (size_t)(p + n - eq));
		if (strcmp(key, "R0_BLOCK") == 0 && (frac || v == 1) && rn > 0) {
			long long d = frac ? strtoll(frac + 1, NULL, 10) : 1, b = 1;
			while (b < rn / (d > 0 ? d : 1))
				b *= 2; /* the row's fraction, as a power of two */
			v = b;
		}
		/* a key the kernel's config lacks: the shape is another kernel's */
		if (!json_object_get(own, key) && strcmp(key, "num_stages") != 0) {
			free(key);
			json_decref(c);
			return NULL;
		}
		json_object_set_new(c, key, json_integer(v));
		free(key);
		keys++;
		p += n + (p[n] == ' ');
	}
	if (!keys) {
		json_decref(c);
		return NULL;
	}
	return c;
}
