/* engine/queue.c: see queue.h */
#include <config.h>

#include "queue.h"

#include <string.h>

void queue_push(struct queue *q, struct dag_node *n)
{
	if (q->head + q->len + 1 > q->cap) {
		if (q->head > q->cap / 2) {
			memmove(q->v, q->v + q->head, q->len * sizeof *q->v);
			q->head = 0;
		}
		if (q->head + q->len + 1 > q->cap) {
			q->cap = q->cap ? q->cap * 2 : 256;
			q->v = xrealloc(q->v, q->cap * sizeof *q->v);
		}
	}
	q->v[q->head + q->len++] = n;
}

struct dag_node *queue_pop(struct queue *q)
{
	if (!q->len)
		return NULL;
	q->len--;
	return q->v[q->head++];
}

/* whether a starts before b */
static bool before(const struct dag_node *a, const struct dag_node *b)
{
	if (a->prio != b->prio)
		return a->prio > b->prio;
	return a->seq < b->seq;
}

void heap_push(struct heap *h, struct dag_node *n)
{
	h->v = xgrow(h->v, &h->cap, h->len + 1, sizeof *h->v);
	size_t i = h->len++;
	while (i > 0 && before(n, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = n;
}

struct dag_node *heap_pop(struct heap *h)
{
	if (!h->len)
		return NULL;
	struct dag_node *top = h->v[0], *last = h->v[--h->len];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->len)
			break;
		if (c + 1 < h->len && before(h->v[c + 1], h->v[c]))
			c++;
		if (!before(h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->len)
		h->v[i] = last;
	return top;
}
