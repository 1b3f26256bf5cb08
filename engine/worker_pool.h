/*
 * engine/worker_pool.h: worker processes speaking runtime/PROTOCOL.md
 * (JSON lines over pipes), one GPU slot each.
 *
 * Workers start through a launcher (a command prefix; none = direct exec)
 * with CUDA_VISIBLE_DEVICES and KOPT_SLOT set in a scrubbed environment
 * (wpool_sandbox), die with koptmake (PR_SET_PDEATHSIG), say hello, then answer one
 * request at a time. A worker that dies, hangs past the timeout, answers
 * garbage or a fatal error is killed; its job gets a WPOOL_FAIL (or the
 * fatal reply) and the slot is free for a new worker.
 *
 * A job acquires a worker (wpool_acquire), sends one or more requests
 * (wpool_send) and gives it back (wpool_release) unless an event said the
 * worker is gone. A timing job never shares its GPU with another job.
 */
#ifndef KOPT_WORKER_POOL_H
#define KOPT_WORKER_POOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define WPOOL_PROTOCOL 1

typedef struct wpool wpool;

enum wpool_event_kind { WPOOL_HELLO, WPOOL_REPLY, WPOOL_FAIL };

struct wpool_event {
	enum wpool_event_kind kind;
	int wid;                 /* the worker */
	int dev;                 /* its device index */
	void *job;               /* the job that sent the request, or NULL */
	json_t *msg;             /* HELLO: the env; REPLY: the reply object; borrowed */
	const char *reason;      /* FAIL: one line */
	const char *stderr_tail; /* FAIL: the worker's last stderr lines, '\n'-separated; "" if none */
	bool gone;               /* the worker was killed: the job must not release it */
};

/* Called for every event; for WPOOL_HELLO a nonzero return keeps the queued
 * request unsent (the caller is about to stop everything). */
typedef int wpool_cb(void *ctx, const struct wpool_event *ev);

/* program: the worker executable; max_workers: live workers at most (-j) */
wpool *wpool_new(const char *program, int max_workers);
void wpool_free(wpool *p); /* kills every worker */
/* Workers start with the scrubbed environment of runtime/sandbox.h, less
 * the names in deny (NULL-terminated: the specs' key_env), and worker i
 * with KOPT_SCRATCH=scratch/i (scratch NULL: each makes its own). Copies. */
void wpool_sandbox(wpool *p, const char *scratch, const char *const *deny);
/* Worker i's stderr, every line, also goes to root/workers/worker-i.log
 * (root the cache folder; workers/ made at the first start, and nothing
 * below root followed if a link; emptied by the run's first worker in the
 * slot); NULL: nowhere. The last lines are in a failed step's message
 * either way. Copies. */
void wpool_log(wpool *p, const char *root);
/* declares a device; launcher is split on whitespace (NULL = direct exec); returns its index */
int wpool_device(wpool *p, const char *name, int gpus, const char *launcher, double timeout_s);
/*
 * A worker for a job on dev; -1 when none can be had now. affinity names
 * what the job leaves loaded in the worker (0: nothing): of the idle
 * workers of dev whose GPU can take the job, the one that served this
 * affinity most recently, else the one that has served the fewest distinct
 * affinities; else a new worker, started on the GPU with the fewest jobs
 * that can take it (in an empty slot, or in place of an idle worker of
 * another device or GPU). So a model is compiled once per worker rather
 * than once per step, and new models spread over the workers.
 */
int wpool_acquire(wpool *p, int dev, bool timing, uint64_t affinity);
/* queues request (an "id" is added; borrowed) to worker wid on behalf of job */
void wpool_send(wpool *p, int wid, json_t *request, void *job);
void wpool_release(wpool *p, int wid);
/* waits up to max_wait seconds for I/O (or extra_fd readable), handles it,
 * calls cb per event; returns 1 if extra_fd became readable, else 0 */
int wpool_poll(wpool *p, int extra_fd, double max_wait, wpool_cb *cb, void *ctx);
/*
 * Starts (or reuses) a worker of dev and waits for its hello; the worker
 * stays, idle, for the next job. Returns its env (new reference) or NULL
 * with *why set (caller frees).
 */
json_t *wpool_probe(wpool *p, int dev, char **why);
/* the environment the first of dev's workers told of in its hello (a JSON
 * object, borrowed), or NULL: every later one must tell of the same */
json_t *wpool_env(wpool *p, int dev);
/* the files the last hello of a dev worker named as its environment's
 * witnesses (a JSON array, borrowed), or NULL */
json_t *wpool_witness(wpool *p, int dev);
/* whether dev's workers start through a launcher (srun, ...): their files
 * are another machine's */
bool wpool_launched(const wpool *p, int dev);
/* jobs holding a worker (wid < 0), or a worker on worker wid's GPU */
int wpool_held(const wpool *p, int wid);
/* whether every worker slot is held: wpool_acquire would fail for any job */
bool wpool_full(const wpool *p);
/* kills every worker now (SIGINT); no events */
void wpool_kill_all(wpool *p);
/* forgets every job: workers with a request in flight are killed, the
 * others keep running, idle (a new plan); no events */
void wpool_cancel_jobs(wpool *p);

#endif
