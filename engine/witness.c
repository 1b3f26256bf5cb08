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
#include "hash.h"

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
