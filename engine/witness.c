/* engine/witness.c: files that stand for a worker's environment (witness.h) */
#define _GNU_SOURCE
#include <config.h>

#include "witness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/util.h"
#include "cache.h"
#include "dag.h"
#include "hash.h"
#include "worker_pool.h"

#define WITNESS_READ_MAX (4u << 20)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dir_digest(const char *path, uint64_t *out)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = xrealloc(names, cap * sizeof *names);
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	*out = hash_sum64(sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return 0;
}

/* the digest of one path; -1 when it cannot be read */
static int digest(const char *path, uint64_t *out)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return dir_digest(path, out);
	if ((size_t)st.st_size > WITNESS_READ_MAX) {
		char buf[64];
		int len = snprintf(buf, sizeof buf, "%lld %lld.%09ld", (long long)st.st_size,
				   (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
		*out = hash_sum64(buf, (size_t)len);
		return 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *buf = xmalloc(WITNESS_READ_MAX);
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, WITNESS_READ_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == WITNESS_READ_MAX)
			break;
	}
	close(fd);
	*out = hash_sum64(buf, len);
	free(buf);
	return 0;
}

static json_t *sum_json(const char *path)
{
	uint64_t d;
	if (digest(path, &d) < 0)
		return json_null();
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)d);
	return json_string(hex);
}

json_t *witness_record(const json_t *paths)
{
	if (!json_is_array(paths) || json_array_size(paths) == 0)
		return NULL;
	json_t *rec = json_array();
	size_t i;
	const json_t *p;
	json_array_foreach(paths, i, p) {
		if (!json_is_string(p))
			continue;
		json_array_append_new(rec, json_pack("{s:s, s:o}", "path", json_string_value(p), "sum",
						     sum_json(json_string_value(p))));
	}
	if (json_array_size(rec) == 0) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

bool witness_fresh(const json_t *record, char **why)
{
	if (why)
		*why = NULL;
	if (!json_is_array(record) || json_array_size(record) == 0) {
		if (why)
			*why = xstrdup("no witness files recorded");
		return false;
	}
	size_t i;
	const json_t *e;
	json_array_foreach(record, i, e) {
		const char *path = json_string_value(json_object_get(e, "path"));
		const json_t *old = json_object_get(e, "sum");
		if (!path || !old) {
			if (why)
				*why = xstrdup("a witness record is malformed");
			return false;
		}
		json_t *now = sum_json(path);
		bool same = json_equal(now, old);
		json_decref(now);
		if (!same) {
			if (why)
				*why = xasprintf("'%s' changed", path);
			return false;
		}
	}
	return true;
}

char *witness_gpu_mismatch(const struct kopt_device *dev, const json_t *env)
{
	if (!dev || !dev->gpu || !*dev->gpu || !json_is_object(env))
		return NULL;
	const char *gpu = json_string_value(json_object_get(env, "gpu"));
	if (gpu && strcasestr(gpu, dev->gpu))
		return NULL;
	return xasprintf("device '%s' wants a GPU named like '%s', and its worker runs on %s%s%s", dag_env_name(dev),
			 dev->gpu, gpu ? "'" : "", gpu ? gpu : "an unnamed one", gpu ? "'" : "");
}

/* the first field in which two worker environments differ, both values
 * said: torch "2.11.0" and "2.12.0" (caller frees) */
static char *env_difference(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *va;
	json_object_foreach ((json_t *)a, key, va) {
		json_t *vb = json_object_get(b, key);
		if (!vb || !json_equal(va, vb)) {
			char *sa = json_dumps(va, JSON_ENCODE_ANY | JSON_COMPACT);
			char *sb = vb ? json_dumps(vb, JSON_ENCODE_ANY | JSON_COMPACT) : xstrdup("none");
			char *out = xasprintf("%s %s and %s", key, sa ? sa : "?", sb ? sb : "?");
			free(sa);
			free(sb);
			return out;
		}
	}
	json_object_foreach ((json_t *)b, key, va)
		if (!json_object_get(a, key))
			return xasprintf("%s none and one", key);
	return xstrdup("?");
}

char *witness_unfit(const struct kopt_device *dev, const json_t *first, const json_t *env)
{
	char *wrong = witness_gpu_mismatch(dev, env);
	if (wrong || !json_is_object(env) || !json_is_object(first) || json_equal(first, env))
		return wrong;
	char *what = env_difference(first, env);
	wrong = xasprintf("the workers of device '%s' tell of different environments (%s): a step keyed on one "
			  "could run on another; give the device workers of one kind",
			  dag_env_name(dev), what);
	free(what);
	return wrong;
}

bool witness_remember(struct dag *d, const struct kopt_device *dev, json_t *env)
{
	const char *name = dag_env_name(dev);
	json_t *old = cache_env_get(d->cache, name);
	if (!env || (old && json_equal(old, env)))
		return false;
	if (old)
		fprintf(stderr, "%s: the worker environment of device '%s' changed; steps keyed on it are keyed anew\n",
			kopt_progname, name);
	cache_env_set(d->cache, name, env);
	return true;
}

/* Checks each device's worker environment (part of some keys). Where the
 * files its last worker named as the environment's witnesses are unchanged
 * (engine/witness.h), the remembered fingerprint stands and no worker
 * starts: a null build runs nothing on the GPU and no Python. Otherwise,
 * and always for workers started through a launcher (another machine's
 * files) or with KOPT_CHECK_ENV=1, one worker is started to read its
 * hello; it stays for the first step. A remembered fingerprint of another
 * GPU than the device names is checked again too: the project may have
 * moved to the right machine, and trusted, it would refuse every build
 * there. KOPT_TRUST_ENV=1 skips the check and keys on the remembered
 * fingerprint, as -n always does. */
void witness_check_envs(struct dag *d, wpool *pool, const struct kopt_device *const *devs, int ndevs,
			void (*on_fail)(void *ctx, const char *device, const char *why), void *ctx)
{
	const char *trust = getenv("KOPT_TRUST_ENV"), *check = getenv("KOPT_CHECK_ENV");
	if (trust && strcmp(trust, "1") == 0)
		return;
	bool full = check && strcmp(check, "1") == 0;
	for (int di = 0; di < ndevs; di++) {
		const char *name = dag_env_name(devs[di]);
		char *wkey = xasprintf("witness:%s", name);
		json_t *old = cache_env_get(d->cache, name); /* the remembered fingerprint */
		char *wrong = witness_gpu_mismatch(devs[di], old);
		bool trusted = !full && !wrong && !wpool_launched(pool, di) && old &&
			       witness_fresh(cache_env_get(d->cache, wkey), NULL);
		free(wrong);
		if (trusted) {
			free(wkey);
			continue;
		}
		char *why = NULL;
		json_t *env = wpool_probe(pool, di, &why);
		if (env)
			witness_remember(d, devs[di], env);
		else if (why) {
			if (on_fail)
				on_fail(ctx, name, why);
			else
				kopt_warn("cannot check the worker environment of device '%s': %s", name, why);
		}
		if (env) {
			/* a worker that names no witnesses is asked at every build */
			json_t *rec = witness_record(wpool_witness(pool, di));
			json_t *old_rec = cache_env_get(d->cache, wkey);
			if (rec ? !json_equal(rec, old_rec) : old_rec && !json_is_null(old_rec))
				cache_env_set(d->cache, wkey, rec ? rec : json_null());
			json_decref(rec);
		}
		json_decref(env);
		free(why);
		free(wkey);
	}
}
