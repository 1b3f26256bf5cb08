/*
 * engine/queue.h: the scheduler's queues of nodes (internal to engine/;
 * queue.c): nodes whose inputs are settled, first in first out, to
 * evaluate; and stale steps, by priority, to start.
 */
#ifndef KOPT_QUEUE_H
#define KOPT_QUEUE_H

#include "dag.h"

#include <stddef.h>

struct queue {
	struct dag_node **v;
	size_t head, len, cap;
};

/* stale steps waiting to start: a binary heap, highest priority first,
 * ties in creation order (a build stays deterministic) */
struct heap {
	struct dag_node **v;
	size_t len, cap;
};

void queue_push(struct queue *q, struct dag_node *n);
/* the first node pushed and not popped, or NULL */
struct dag_node *queue_pop(struct queue *q);
void heap_push(struct heap *h, struct dag_node *n);
/* the step to start next, or NULL */
struct dag_node *heap_pop(struct heap *h);

#endif
