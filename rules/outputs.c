/*
 * rules/outputs.c: what a step writes: objects in the cache and files in
 * its folder under kopt-out/ (no link followed), and a cached result's
 * files checked and restored.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/util.h"
#include "../engine/cache.h"
#include "../engine/outdir.h"
#include "plan.h"

int rule_object(struct rule_run *run, const char *name, const void *data, size_t n, kopt_hash *h)
{
	kopt_hash tmp;
	if (!h)
		h = &tmp;
	if (cache_object_put(run->dag->cache, data, n, h) < 0)
		return -1;
	char hex[HASH_HEX];
	hash_hex(*h, hex);
	json_object_set_new(run->objects, name, json_string(hex));
	return 0;
}

/* the folder under the output folder where node n's outputs go */
static const char *node_dir(const struct dag_node *n)
{
	if (rule_target_of(n))
		return rule_target_of(n)->name;
	return rule_model_of(n) ? rule_model_dir(rule_model_of(n)) : NULL;
}

/* NAME when rel is "<node's folder>/NAME" with NAME one path component, else NULL */
static const char *own_name(const struct dag_node *n, const char *rel)
{
	const char *dir = node_dir(n);
	size_t dl = dir ? strlen(dir) : 0;
	if (!dir || strncmp(rel, dir, dl) != 0 || rel[dl] != '/' || !outdir_rel_ok(rel))
		return NULL;
	const char *name = rel + dl + 1;
	return outdir_component_ok(name, strlen(name)) ? name : NULL;
}

/*
 * A result's "outputs" maps each output's path under the output folder,
 * "<its step's folder>/<name>", to {"hash": object, "size": bytes} (before
 * the sizes: to the object's hash alone). The path is checked against the
 * step's own folder when written and when restored.
 */
int rule_output(struct rule_run *run, const char *rel, const char *data, size_t n)
{
	if (!own_name(run->node, rel)) {
		kopt_error("internal: output '%s' is not a file name in its step's folder '%s'", rel,
			   node_dir(run->node) ? node_dir(run->node) : "");
		return -1;
	}
	kopt_hash h;
	if (cache_object_put(run->dag->cache, data, n, &h) < 0)
		return -1;
	char hex[HASH_HEX];
	hash_hex(h, hex);
	json_object_set_new(run->outputs, rel, json_pack("{s:s, s:I}", "hash", hex, "size", (json_int_t)n));
	return outdir_write(run->dag->out_dir, rel, data, n);
}

int rule_restore_outputs(struct dag *d, struct dag_node *n)
{
	const char *rel;
	json_t *v;
	int ret = 0;
	if (!n->manifest)
		return -1;
	json_t *outs = dag_manifest_field(n->manifest, n->manifest_len, "outputs");
	if (!json_is_object(outs)) {
		/* these steps always write outputs: a record without a readable list is corrupt */
		struct strbuf what = STRBUF_INIT;
		dag_describe(n, &what);
		kopt_warn("%s/actions: corrupt cache entry for %s: its outputs cannot be read; the step will "
			  "run again", cache_path(d->cache), what.buf);
		strbuf_release(&what);
		json_decref(outs);
		return -1;
	}
	json_object_foreach(outs, rel, v) {
		json_t *hv = json_is_object(v) ? json_object_get(v, "hash") : v;
		json_t *sv = json_is_object(v) ? json_object_get(v, "size") : NULL;
		kopt_hash h;
		if (!own_name(n, rel) || !json_is_string(hv) || hash_parse(json_string_value(hv), &h) < 0 ||
		    (sv && (!json_is_integer(sv) || json_integer_value(sv) < 0))) {
			struct strbuf what = STRBUF_INIT;
			dag_describe(n, &what);
			kopt_warn("%s/actions: corrupt cache entry for %s: output '%s' is not a file name in "
				  "the step's folder '%s'; the step will run again", cache_path(d->cache), what.buf,
				  rel, node_dir(n) ? node_dir(n) : "");
			strbuf_release(&what);
			ret = -1;
			break;
		}
		uint64_t size = sv ? (uint64_t)json_integer_value(sv) : UINT64_MAX;
		const char *why;
		enum outdir_state st = outdir_check(d->out_dir, rel, size, h, &why);
		if (st == OUTDIR_SAME)
			continue;
		struct strbuf sb = STRBUF_INIT;
		if (cache_object_get(d->cache, h, &sb) < 0 || (sv && sb.len != size)) {
			ret = -1;
		} else {
			if (st == OUTDIR_DIFFERS)
				kopt_warn("'%s/%s' does not match the build's output (%s); restored from the cache",
					  d->out_dir, rel, why);
			if (outdir_write(d->out_dir, rel, sb.buf, sb.len) < 0)
				ret = -1;
			else if (ret >= 0)
				ret++;
		}
		strbuf_release(&sb);
	}
	json_decref(outs);
	return ret;
}

const char *rule_model_dir(const struct rule_model *dm)
{
	return dm->dir;
}
