/*
 * engine/progress.h: the count of the progress line, "[done/N]", that the
 * scheduler prints for each step (engine/sched.c). N is the steps done,
 * those not settled yet (they may still run), and a guess of what the
 * expanding steps not settled yet will add (a rule's reveals hook, asked
 * once per node), scaled by what the expansions so far added against
 * their guesses. Once every expanding step has settled the graph is whole
 * and N holds no guess: it falls only where a step settles without
 * running (early cutoff, a skip, a failed input) and never rises.
 */
#ifndef KOPT_PROGRESS_H
#define KOPT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/util.h"
#include "dag.h"

struct progress {
	size_t nsettled;        /* nodes settled */
	double *guess;          /* per node, by seq: its rule's guess while not settled (0: none) */
	size_t guesscap;
	double left;            /* the guesses of the nodes not settled */
	double guessed, added;  /* of those settled: their guesses, and the nodes they added */
	double prior;           /* the scale starts at 1 with this weight: twice the first guess */
};

/* n is announced (a build only): its rule's guess, if any, is taken */
void progress_announce(struct progress *p, struct dag *d, struct dag_node *n);
/* n settles: counted; returns its guess (0: none), which it gives up */
double progress_settle(struct progress *p, const struct dag_node *n);
/* a node whose guess was g (> 0) settled and its expansion added added nodes */
void progress_expanded(struct progress *p, double g, size_t added);
/* N, for the line of a step that is done (ndone counts it) but not yet
 * settled; *guessing: whether a guess is in it */
size_t progress_total(const struct progress *p, const struct dag *d, size_t ndone, bool *guessing);
void progress_release(struct progress *p);

/* m:ss, or h:mm:ss */
void progress_clock(struct strbuf *sb, double secs);

#endif
