/*
 * lang/smap.c: a string-keyed hash table for the loader (keys borrowed,
 * values are indices).
 */
#include "load.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

size_t *lang_smap_get(const struct smap *m, const char *k)
{
	if (!m->cap)
		return NULL;
	size_t i = (size_t)hash_str(k) & (m->cap - 1);
	while (m->keys[i]) {
		if (strcmp(m->keys[i], k) == 0)
			return &m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

void lang_smap_put(struct smap *m, const char *k, size_t v)
{
	if ((m->n + 1) * 10 > m->cap * 7) {
		struct smap g;
		g.cap = m->cap ? m->cap * 2 : 16;
		g.n = 0;
		g.keys = xcalloc(g.cap, sizeof *g.keys);
		g.vals = xcalloc(g.cap, sizeof *g.vals);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				lang_smap_put(&g, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = (size_t)hash_str(k) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = k;
	m->vals[i] = v;
	m->n++;
}

void lang_smap_release(struct smap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}
