/*
 * engine/sched.h: decides what is stale and runs it.
 *
 * Nodes are evaluated once their inputs are settled: the key is computed,
 * looked up in the cache; a hit settles the node at once (early cutoff: the
 * dependents' keys see only stable hashes), a miss makes it stale. Stale
 * steps run in dependency order, the ready ones by priority (ties in
 * creation order): local ones in this process, the others in workers, at
 * most -j at once, each on the worker its affinity points to.
 */
#ifndef KOPT_SCHED_H
#define KOPT_SCHED_H

#include "dag.h"
#include "worker_pool.h"

enum sched_mode {
	SCHED_BUILD, /* run stale steps */
	SCHED_DRY,   /* -n: print the steps that would run */
	SCHED_PLAN,  /* evaluate what the cache knows; print nothing (tools) */
};

#define SCHED_RESTART 3 /* the worker environment changed: plan again */

/*
 * Runs d. pool may be NULL outside SCHED_BUILD. Returns 0 (success),
 * 1 (some step failed), 128 + the signal when SIGINT or SIGTERM interrupted
 * the build (130 for ^C, as a shell says) or SCHED_RESTART.
 */
int sched_run(struct dag *d, wpool *pool, enum sched_mode mode);

#endif
