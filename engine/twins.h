/*
 * engine/twins.h: the stale steps of a build by key, so that two steps of
 * one key run once (internal to engine/; twins.c).
 */
#ifndef KOPT_TWINS_H
#define KOPT_TWINS_H

#include "dag.h"

#include <stdbool.h>
#include <stddef.h>

/* The stale steps of a build by key. Two steps of one key (two models of
 * the same bytes share their captures' and screens' keys) run once: the
 * second waits for the first and takes its result from the cache. Both
 * running wrote two results under one key, and the next build found one of
 * them stale (issue 24). */
struct twin {
	kopt_hash key;
	struct dag_node *first;    /* the one that runs; NULL: a free slot */
	struct dag_node **waiting; /* its twins */
	size_t n, cap;
};

struct twins {
	struct twin *v;            /* open-addressed by key */
	size_t cap, n;
};

/* the slot of key in t: its step's, else a free one (t->cap > 0) */
struct twin *twins_slot(struct twins *t, kopt_hash key);
/* n is stale: true when a step of its key is already to run (n waits) */
bool twins_wait(struct twins *t, struct dag_node *n);
void twins_release(struct twins *t);

#endif
