/* engine/twins.c: see twins.h */
#include <config.h>

#include "twins.h"

#include <stdlib.h>

struct twin *twins_slot(struct twins *t, kopt_hash key)
{
	size_t i = key.lo & (t->cap - 1);
	while (t->v[i].first && (t->v[i].key.lo != key.lo || t->v[i].key.hi != key.hi))
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

/* n is stale: true when a step of its key is already to run (n waits) */
bool twins_wait(struct twins *t, struct dag_node *n)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct twins g = { xcalloc(t->cap ? 2 * t->cap : 256, sizeof *g.v), t->cap ? 2 * t->cap : 256, t->n };
		for (size_t i = 0; i < t->cap; i++)
			if (t->v[i].first)
				*twins_slot(&g, t->v[i].key) = t->v[i];
		free(t->v);
		*t = g;
	}
	struct twin *w = twins_slot(t, n->key);
	if (!w->first) {
		w->key = n->key;
		w->first = n;
		t->n++;
		return false;
	}
	if (w->first->flags & (DAG_DONE | DAG_FAILED))
		return false; /* settled: n takes its result (twins_settled) or runs */
	w->waiting = xgrow(w->waiting, &w->cap, w->n + 1, sizeof *w->waiting);
	w->waiting[w->n++] = n;
	return true;
}

void twins_release(struct twins *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].waiting);
	free(t->v);
}
