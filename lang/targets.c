/*
 * lang/targets.c: targets expanded to their models, depth first without
 * recursion; a target that names itself through others is a cycle.
 */
#include "load.h"

#include <stdlib.h>
#include <string.h>

struct expander {
	size_t *mark;        /* per model: 1 + the target that last took it */
	size_t *stack;       /* targets being expanded, outermost first */
	size_t *next;        /* per stack entry: the next item to look at */
	size_t *pos;         /* per target: its place on the stack while state is 1 */
	size_t depth;
};

static void take(struct expander *E, struct kopt_target *t, size_t ti, struct kopt_model *m, size_t mi,
		 size_t *cap)
{
	if (E->mark[mi] == ti + 1)
		return;
	E->mark[mi] = ti + 1;
	t->models = xgrow(t->models, cap, t->nmodels + 1, sizeof *t->models);
	t->models[t->nmodels++] = m;
}

/* all sub-targets of ti are expanded: collect its models */
static void collect(struct loader *L, struct expander *E, size_t ti)
{
	struct ptarget *pt = &L->pt[ti];
	struct kopt_target *t = &L->targets[ti];
	size_t cap = 0;
	for (size_t i = 0; i < pt->n; i++) {
		size_t *code = lang_smap_get(&L->names, pt->items[i].name);
		if (!code) {
			lang_name_hint(L, &pt->items[i], "model, group or target");
			continue;
		}
		size_t idx = *code >> 2;
		switch (*code & 3) {
		case N_MODEL:
			take(E, t, ti, &L->models[idx], idx, &cap);
			break;
		case N_GROUP:
			for (size_t k = 0; k < L->groups[idx].n; k++)
				take(E, t, ti, &L->models[L->groups[idx].first + k], L->groups[idx].first + k, &cap);
			break;
		default: {
			const struct kopt_target *sub = &L->targets[idx];
			if (L->pt[idx].state != 2)
				break; /* on a cycle, reported */
			for (size_t k = 0; k < sub->nmodels; k++)
				take(E, t, ti, sub->models[k], (size_t)(sub->models[k] - L->models), &cap);
		}
		}
	}
}

static void cycle_error(struct loader *L, struct expander *E, size_t sub, const struct ref *at)
{
	struct strbuf chain = STRBUF_INIT;
	size_t from = E->pos[sub], n = E->depth - from;
	for (size_t k = from; k < E->depth; k++) {
		if (n > 8 && k == from + 4) { /* a long cycle: its ends say enough */
			strbuf_addstr(&chain, "... -> ");
			k = E->depth - 4;
		}
		strbuf_addf(&chain, "%s -> ", L->targets[E->stack[k]].name);
	}
	strbuf_addstr(&chain, L->targets[sub].name);
	lang_err(&L->D, &at->loc, "target cycle: %s", chain.buf);
	strbuf_release(&chain);
}

/* Depth first, without recursion (target chains may be long): a target's
 * models are collected once all the targets it names are done, so the mark
 * stamps of one target never interleave with another's. */
static void expand(struct loader *L, struct expander *E, size_t root)
{
	if (L->pt[root].state == 2)
		return;
	E->depth = 0;
	E->stack[E->depth] = root;
	E->next[E->depth] = 0;
	E->pos[root] = E->depth++;
	L->pt[root].state = 1;
	while (E->depth) {
		size_t ti = E->stack[E->depth - 1];
		struct ptarget *pt = &L->pt[ti];
		size_t i = E->next[E->depth - 1]++;
		if (i < pt->n) {
			size_t *code = lang_smap_get(&L->names, pt->items[i].name);
			if (!code || (*code & 3) != N_TARGET)
				continue;
			size_t sub = *code >> 2;
			if (L->pt[sub].state == 1) {
				cycle_error(L, E, sub, &pt->items[i]);
				continue;
			}
			if (L->pt[sub].state == 0) {
				E->stack[E->depth] = sub;
				E->next[E->depth] = 0;
				E->pos[sub] = E->depth++;
				L->pt[sub].state = 1;
			}
			continue;
		}
		collect(L, E, ti);
		pt->state = 2;
		E->depth--;
	}
}

void lang_resolve_targets(struct loader *L)
{
	struct expander E;
	size_t n = L->ntargets ? L->ntargets : 1;
	E.mark = xcalloc(L->nmodels ? L->nmodels : 1, sizeof *E.mark);
	E.stack = xcalloc(n, sizeof *E.stack);
	E.next = xcalloc(n, sizeof *E.next);
	E.pos = xcalloc(n, sizeof *E.pos);
	E.depth = 0;
	for (size_t i = 0; i < L->ntargets; i++)
		expand(L, &E, i);
	free(E.mark);
	free(E.stack);
	free(E.next);
	free(E.pos);
}
