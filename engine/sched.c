/* engine/sched.c: see sched.h */
#define _GNU_SOURCE
#include <config.h>

#include "sched.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "explain.h"
#include "interrupt.h"
#include "queue.h"
#include "gpu_meter.h"
#include "twins.h"
#include "progress.h"
#include "witness.h"

struct job {
	struct dag_node *n;
	struct rule_run run;
	int wid;          /* -1 for local steps, and for a worker step whose worker was lost */
	double t0;        /* kopt_now() at start */
	double wall0;     /* wall clock at start */
	struct gpu_meter gpu; /* its share of its GPU's time (gpu_meter.h) */
};

struct sched {
	struct dag *d;
	const struct engine_opts *o;
	enum sched_mode mode;
	wpool *pool;
	struct queue ready;     /* settled inputs: to evaluate */
	struct heap runq;       /* stale worker steps: to start */
	struct heap localq;     /* stale local steps: to start */
	struct job **jobs;      /* running */
	size_t njobs, jobcap;
	size_t ndone, nfailed, nwould, nran;
	size_t noptional;   /* failed steps marked DAG_OPTIONAL: counted apart */
	size_t nrestored;       /* output files the cache hits wrote back into the out dir */
	struct progress pg;     /* the progress line's N */
	double t0;              /* kopt_now() when the run began */
	bool tty, line_open;
	bool stop;              /* a step failed without -k: start nothing new */
	bool restart;
	bool nostart;           /* a worker said it cannot start here: nothing runs */
	bool nolog;             /* the build log cannot be written: nothing more runs */
	const struct kopt_device **devs; /* pool device index -> device */
	char **unfit;           /* per device: why its workers cannot serve it (not on its GPU, ...) */
	struct twins twins;     /* stale steps by key */
	int ndevs;
	struct hash_key hk;     /* the key being built (its buffer is reused) */
};

static void run_init(struct rule_run *run, struct dag *d, struct dag_node *n)
{
	memset(run, 0, sizeof *run);
	run->dag = d;
	run->node = n;
	run->objects = json_object();
	run->outputs = json_object();
}

static void run_release(struct rule_run *run)
{
	if (run->node && run->node->rule->release)
		run->node->rule->release(run);
	json_decref(run->request);
	json_decref(run->stable);
	json_decref(run->meas);
	json_decref(run->summary);
	json_decref(run->objects);
	json_decref(run->outputs);
	free(run->error);
	memset(run, 0, sizeof *run);
}

static void on_new(void *ctx, struct dag_node *n)
{
	struct sched *s = ctx;
	if (s->mode == SCHED_BUILD)
		progress_announce(&s->pg, s->d, n);
	if (n->npending == 0 && !(n->flags & (DAG_QUEUED | DAG_SETTLED))) {
		n->flags |= DAG_QUEUED;
		queue_push(&s->ready, n);
	}
}

/*
 * "[done/N] kind path": N is the whole build as known (engine/progress.h),
 * with a '~' while it holds a guess of what the profiles still to come
 * will reveal ("[3/~120]"). On a terminal the one status line adds
 * "(elapsed, about T left)": the steps left at the rate so far, once a few
 * have run. A log (not a terminal) gets the plain lines, one a step, which
 * scripts read.
 */
static void progress(struct sched *s, struct dag_node *n)
{
	if (s->mode != SCHED_BUILD)
		return;
	struct strbuf sb = STRBUF_INIT;
	bool guessing;
	size_t total = progress_total(&s->pg, s->d, s->ndone, &guessing);
	strbuf_addf(&sb, "[%zu/%s%zu] ", s->ndone, guessing ? "~" : "", total);
	dag_describe(n, &sb);
	if (s->tty) {
		double el = kopt_now() - s->t0;
		strbuf_addstr(&sb, " (");
		progress_clock(&sb, el);
		if (s->ndone >= 3 && el >= 1 && total > s->ndone) {
			strbuf_addstr(&sb, ", about ");
			progress_clock(&sb, el / (double)s->ndone * (double)(total - s->ndone));
			strbuf_addstr(&sb, " left");
		}
		strbuf_addch(&sb, ')');
	}
	if (s->tty) {
		printf("\r%s\033[K", sb.buf);
		s->line_open = true;
	} else {
		printf("%s\n", sb.buf);
	}
	fflush(stdout);
	strbuf_release(&sb);
}

static void end_line(struct sched *s)
{
	if (s->line_open) {
		printf("\n");
		fflush(stdout);
		s->line_open = false;
	}
}

static bool cache_hit(struct sched *s, struct dag_node *n, bool *corrupt_restore);
static void enqueue(struct sched *s, struct dag_node *n);
static void settle(struct sched *s, struct dag_node *n);

/* A twin's result, run in this build (-B runs each key once too) */
static bool twin_ran(struct sched *s, struct dag_node *n)
{
	if (!s->twins.cap)
		return false;
	struct twin *w = twins_slot(&s->twins, n->key);
	bool corrupt = false;
	return w->first && w->first != n && (w->first->flags & DAG_RAN) && cache_hit(s, n, &corrupt);
}

/* n, which ran, has settled: its twins take its result, or run themselves */
static void twins_settled(struct sched *s, struct dag_node *n)
{
	if (!s->twins.cap || (n->flags & DAG_NOKEY))
		return;
	struct twin *w = twins_slot(&s->twins, n->key);
	if (w->first != n || !w->n)
		return;
	struct dag_node **waiting = w->waiting;
	size_t nw = w->n;
	w->waiting = NULL;
	w->n = w->cap = 0;
	for (size_t i = 0; i < nw; i++) {
		bool corrupt = false;
		struct dag_node *x = waiting[i];
		if ((n->flags & DAG_DONE) && cache_hit(s, x, &corrupt)) {
			x->flags &= (uint16_t)~DAG_STALE;
			settle(s, x);
		} else {
			enqueue(s, x);
		}
	}
	free(waiting);
}

static void settle(struct sched *s, struct dag_node *n)
{
	if (n->flags & DAG_STALE)
		twins_settled(s, n);
	n->flags &= (uint16_t)~DAG_QUEUED;
	double g = progress_settle(&s->pg, n);
	/* users the expansion adds found n settled and never counted it */
	uint32_t nusers = n->nusers;
	if (n->rule->done && (n->flags & DAG_DONE) && s->mode == SCHED_BUILD)
		n->rule->done(s->d, n);
	if (n->rule->expand && (n->flags & (DAG_DONE | DAG_FAILED))) {
		/* before the users: they may gain inputs (a failed step's rule
		 * may add what waited for it to settle) */
		size_t first = s->d->nnodes;
		n->rule->expand(s->d, n);
		if (g > 0)
			progress_expanded(&s->pg, g, s->d->nnodes - first);
		for (size_t i = first; i < s->d->nnodes; i++)
			on_new(s, s->d->all[i]);
	}
	for (uint32_t i = 0; i < nusers; i++) {
		struct dag_node *u = n->users[i];
		if (u->npending && --u->npending == 0 && !(u->flags & (DAG_QUEUED | DAG_SETTLED))) {
			u->flags |= DAG_QUEUED;
			queue_push(&s->ready, u);
		}
	}
}

/* the device a worker step's worker runs on */
static const struct kopt_device *node_device(const struct dag_node *n)
{
	return n->rule->device ? n->rule->device(n) : NULL;
}

/* the pool's index of dev, declaring it on first sight */
static int dev_index(struct sched *s, const struct kopt_device *dev)
{
	for (int i = 0; i < s->ndevs; i++)
		if (s->devs[i] == dev)
			return i;
	int di = s->ndevs++;
	s->devs = xrealloc(s->devs, (size_t)s->ndevs * sizeof *s->devs);
	s->devs[di] = dev;
	s->unfit = xrealloc(s->unfit, (size_t)s->ndevs * sizeof *s->unfit);
	s->unfit[di] = NULL; /* known once its environment is */
	if (s->pool) {
		const char *launcher = dev && dev->launcher ? dev->launcher : getenv("KOPT_LAUNCHER");
		int pi = wpool_device(s->pool, dag_env_name(dev), dev ? dev->gpus : 1, launcher,
				      dev ? dev->timeout_s : 600);
		if (pi != di) /* the pool lists the devices in the same order */
			kopt_die("internal: device order");
	}
	return di;
}

static void explain_print(struct sched *s, struct dag_node *n)
{
	if (!s->o->explain || s->mode == SCHED_PLAN)
		return;
	end_line(s);
	fprintf(stderr, "%s explain: %s %s: %s\n", kopt_progname, n->rule->name, n->path,
		n->why ? n->why : "stale");
}

/* n would run (a dry run or a plan): count it, list it under -n, settle it */
static void would_run(struct sched *s, struct dag_node *n)
{
	n->flags |= DAG_WOULD;
	s->nwould++;
	if (s->mode == SCHED_DRY) {
		printf("%s %s\n", n->rule->name, n->path);
		explain_print(s, n);
	}
	settle(s, n);
}

/* why a node with a key (or none) is stale */
static char *stale_reason(struct sched *s, struct dag_node *n, bool corrupt_restore)
{
	if (s->o->force)
		return xstrdup("forced by -B");
	if (corrupt_restore)
		return xstrdup("cache entry corrupt (an output object failed its checksum)");
	if (!(n->flags & DAG_NOKEY) && cache_was_corrupt(s->d->cache, n->key))
		return xstrdup("cache entry corrupt");
	if (s->mode == SCHED_PLAN && !s->o->explain)
		return xstrdup("stale");
	const char *prev = blog_last_ingredients(s->d->blog, n->rule->name, n->path);
	return explain_diff(prev, n->ingredients ? n->ingredients : "", s->d->rules->words);
}

static void fail_node(struct sched *s, struct dag_node *n, char *why)
{
	n->flags |= DAG_FAILED;
	free(n->why);
	n->why = why;
	if (s->mode == SCHED_BUILD && n->rule->failed)
		n->rule->failed(s->d, n);
	settle(s, n);
}

/* an input failed (and the edge is not soft): fails n; returns whether it did */
static bool input_failed(struct sched *s, struct dag_node *n)
{
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *dep = n->deps[i].node;
		if (!(dep->flags & DAG_FAILED) || (n->deps[i].flags & DAG_EDGE_SOFT))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "input ");
		dag_describe(dep, &sb);
		strbuf_addstr(&sb, " failed");
		n->flags |= DAG_UPFAIL;
		fail_node(s, n, strbuf_detach(&sb));
		return true;
	}
	return false;
}

/* -n: an input would run first: so does n; returns whether it does */
static bool input_would_run(struct sched *s, struct dag_node *n)
{
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *dep = n->deps[i].node;
		if (!(dep->flags & DAG_WOULD) || (n->deps[i].flags & DAG_EDGE_AFTER))
			continue;
		/* order only: n's key reads the input's key, which it has unless
		 * the input waits on inputs of its own */
		if ((n->deps[i].flags & DAG_EDGE_ORDER) && !(dep->flags & DAG_UPWOULD))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "input ");
		dag_describe(dep, &sb);
		strbuf_addstr(&sb, " will run first");
		n->why = strbuf_detach(&sb);
		n->flags |= DAG_STALE | DAG_UPWOULD;
		would_run(s, n);
		return true;
	}
	return false;
}

/* looks n's key up; true when the cache has a usable result (n settled) */
static bool cache_hit(struct sched *s, struct dag_node *n, bool *corrupt_restore)
{
	struct dag *d = s->d;
	struct cache_entry *e = cache_get(d->cache, n->key);
	if (!e)
		return false;
	n->manifest = e->json;
	n->manifest_len = e->len;
	n->out = e->stable;
	int restored = n->rule->restore && s->mode == SCHED_BUILD ? n->rule->restore(d, n) : 0;
	if (restored > 0)
		s->nrestored += (size_t)restored;
	if (restored < 0) {
		*corrupt_restore = true;
		n->manifest = NULL;
		json_decref(n->result);
		n->result = NULL;
		return false;
	}
	n->flags |= DAG_DONE;
	d->nhit++;
	return true;
}

static void evaluate(struct sched *s, struct dag_node *n)
{
	struct dag *d = s->d;
	const struct rule *r = n->rule;

	n->flags |= DAG_EVALUATED;
	if (input_failed(s, n) || input_would_run(s, n))
		return;
	if (r->skip && r->skip(d, n, &n->out)) {
		n->flags |= DAG_DONE | DAG_NONE;
		d->nhit++;
		settle(s, n);
		return;
	}
	struct hash_key hk = s->hk; /* one buffer for every key */
	char *nokey = NULL;
	hash_key_reset(&hk, r->name, r->version);
	if (r->key(d, n, &hk, &nokey) < 0)
		n->flags |= DAG_NOKEY;
	else
		n->key = hash_key_final(&hk);
	bool corrupt_restore = false;
	if (!(n->flags & DAG_NOKEY) && ((!s->o->force && cache_hit(s, n, &corrupt_restore)) || twin_ran(s, n))) {
		s->hk = hk;
		free(nokey);
		settle(s, n);
		return;
	}
	/* stale */
	n->flags |= DAG_STALE;
	if (n->flags & DAG_NOKEY) {
		n->why = nokey;
		nokey = NULL;
	} else {
		n->ingredients = hash_key_ingredients(&hk);
		n->why = stale_reason(s, n, corrupt_restore);
	}
	free(nokey);
	s->hk = hk;
	if (s->mode != SCHED_BUILD) {
		would_run(s, n);
		return;
	}
	if (!(n->flags & DAG_NOKEY) && twins_wait(&s->twins, n))
		return;
	enqueue(s, n);
}

/* a stale step, to run */
static void enqueue(struct sched *s, struct dag_node *n)
{
	explain_print(s, n);
	/* a step runs only where the log can record it (said once) */
	if (blog_ready(s->d->blog) < 0)
		s->nolog = s->stop = true;
	if (n->rule->priority)
		n->prio = n->rule->priority(s->d, n);
	heap_push(n->rule->worker ? &s->runq : &s->localq, n);
}

static void log_step(struct sched *s, struct job *j, const char *outcome)
{
	struct dag_node *n = j->n;
	struct blog_record r = {
		.start = j->wall0, .dur = kopt_now() - j->t0, .outcome = outcome,
		.kind = n->rule->name, .path = n->path, .key = n->key,
		.why = n->why ? n->why : "", .ingredients = n->ingredients ? n->ingredients : "",
	};
	if (blog_append(s->d->blog, &r) < 0)
		s->nolog = s->stop = true;
}

static void remove_job(struct sched *s, struct job *j)
{
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i] == j) {
			s->jobs[i] = s->jobs[--s->njobs];
			break;
		}
	j->n->job = NULL;
	j->n->flags &= (uint16_t)~DAG_RUNNING;
	run_release(&j->run);
	free(j);
}

/* The worker's own word that it cannot run on this machine (no driver, no
 * GPU, no torch: runtime/kopt-worker.c), looked for in its stderr lines
 * text. Found, the rest of that line is said alone (the lines around it add
 * nothing), once per build: every step of every device would fail alike,
 * so the build stops, -k or not. Returns whether it was found. */
static bool cannot_start(struct sched *s, const char *device, const char *text)
{
	static const char mark[] = "kopt-worker: cannot start: ";
	const char *p = text ? strstr(text, mark) : NULL;
	if (!p)
		return false;
	p += sizeof mark - 1;
	if (!s->nostart)
		fprintf(stderr, "%s: error: the worker of device '%s' cannot start: %.*s\n", kopt_progname, device,
			(int)strcspn(p, "\n"), p);
	s->nostart = s->stop = true;
	return true;
}

static void job_failed(struct sched *s, struct job *j, const char *reason, const char *tail)
{
	struct dag_node *n = j->n;
	struct strbuf sb = STRBUF_INIT;
	end_line(s);
	strbuf_addf(&sb, "failed: %s", reason);
	log_step(s, j, sb.buf);
	if (cannot_start(s, dag_env_name(node_device(n)), tail)) {
		/* said once, and the build stops */
	} else if (n->flags & DAG_OPTIONAL) {
		fprintf(stderr, "%s: warning: %s %s failed (optional: the build goes on without it): %s\n",
			kopt_progname, n->rule->name, n->path, reason);
	} else {
		fprintf(stderr, "%s: error: %s %s failed: %s\n", kopt_progname, n->rule->name, n->path, reason);
	}
	if (tail && *tail && !s->nostart) {
		fprintf(stderr, "%s: the worker's last stderr lines:\n", kopt_progname);
		const char *p = tail;
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			fprintf(stderr, "  | %.*s\n", (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	strbuf_release(&sb);
	s->ndone++;
	if (n->flags & DAG_OPTIONAL) {
		/* said above and in the log; its dependents go on without it */
		s->noptional++;
	} else {
		s->nfailed++;
		if (!s->o->keep_going)
			s->stop = true;
	}
	char *why = xstrdup(reason); /* it may be the run's own error, freed with the job */
	remove_job(s, j);
	fail_node(s, n, why);
}

/* ticks every running worker job's GPU meter (gpu_meter.h) */
static void gpu_share(struct sched *s)
{
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i]->wid >= 0)
			gpu_meter_tick(&s->jobs[i]->gpu, kopt_now(), wpool_held(s->pool, s->jobs[i]->wid));
}

static void job_done(struct sched *s, struct job *j)
{
	struct dag_node *n = j->n;
	struct rule_run *run = &j->run;
	if (n->flags & DAG_NOKEY) {
		job_failed(s, j, "internal: a step without a key finished", NULL);
		return;
	}
	if (!run->stable)
		run->stable = json_object();
	if (!run->meas)
		run->meas = json_object();
	/* time a worker spent on the step, and its share of the GPU's (the
	 * report sums them per model) */
	if (n->rule->worker) {
		gpu_share(s);
		json_object_set_new(run->meas, "worker_s", json_real(kopt_now() - j->t0));
		json_object_set_new(run->meas, "gpu_s", json_real(j->gpu.s));
	}
	kopt_hash stable = dag_stable_hash(run->stable);
	char *js = dag_manifest(n->rule->name, n->path, run->outputs, run->objects, run->stable,
				run->summary, run->meas);
	if (cache_put(s->d->cache, n->key, stable, js) < 0) {
		free(js);
		job_failed(s, j, "cannot record the result in the cache", NULL);
		return;
	}
	free(js);
	struct cache_entry *e = cache_get(s->d->cache, n->key);
	n->manifest = e->json;
	n->manifest_len = e->len;
	json_decref(n->result);
	n->result = NULL; /* parsed again from the stored text: one form for fresh and cached results */
	n->out = stable;
	n->flags |= DAG_DONE | DAG_RAN;
	log_step(s, j, "ok");
	s->ndone++;
	s->nran++;
	progress(s, n);
	remove_job(s, j);
	settle(s, n);
}

/* handles a rule's answer; the job may be gone afterwards */
static void advance(struct sched *s, struct job *j, int st)
{
	if (st == RULE_SEND) {
		if (j->wid < 0 && j->n->rule->worker) /* a lost worker's answer that stands: start_steps sends it on */
			return;
		if (j->wid < 0) {
			job_failed(s, j, "internal: a local rule asked for a worker", NULL);
			return;
		}
		wpool_send(s->pool, j->wid, j->run.request, j);
		return;
	}
	if (j->wid >= 0)
		wpool_release(s->pool, j->wid);
	j->wid = -1;
	if (st == RULE_DONE)
		job_done(s, j);
	else
		job_failed(s, j, j->run.error ? j->run.error : "failed", NULL);
}

static struct job *new_job(struct sched *s, struct dag_node *n, int wid)
{
	struct job *j = xcalloc(1, sizeof *j);
	j->n = n;
	j->wid = wid;
	j->t0 = kopt_now();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	j->wall0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	run_init(&j->run, s->d, n);
	n->job = j;
	n->flags |= DAG_RUNNING;
	gpu_share(s);
	s->jobs = xgrow(s->jobs, &s->jobcap, s->njobs + 1, sizeof *s->jobs);
	s->jobs[s->njobs++] = j;
	gpu_share(s);
	if (s->o->verbose > 0) {
		end_line(s);
		fprintf(stderr, "%s: start %s %s%s\n", kopt_progname, n->rule->name, n->path,
			wid >= 0 ? " (in a worker)" : "");
	}
	return j;
}

/* places a worker step; false when no worker can be had now */
static bool start_worker_step(struct sched *s, struct dag_node *node)
{
	const struct rule *r = node->rule;
	int di = dev_index(s, node_device(node));
	if (di >= 0 && s->unfit[di]) {
		/* every step of the device would run where it cannot (the wrong GPU): said once, nothing runs */
		if (!s->nostart)
			fprintf(stderr, "%s: error: %s\n", kopt_progname, s->unfit[di]);
		s->nostart = s->stop = true;
		return false;
	}
	int wid = di >= 0 ? wpool_acquire(s->pool, di, r->timing, node->affinity) : -1;
	if (wid < 0)
		return false;
	struct job *j = new_job(s, node, wid);
	advance(s, j, r->start(&j->run));
	return true;
}

/* starts what can start, highest priority first; returns true if something
 * local ran (settling nodes) */
static bool start_steps(struct sched *s)
{
	bool local = false;
	/* local steps first, and their results settled, before any worker
	 * step is placed: a local step that finishes may make a worker step
	 * ready for the worker that holds its model */
	size_t n = s->localq.len;
	for (size_t i = 0; i < n && !s->stop && !interrupt_caught && !s->restart; i++) {
		struct dag_node *node = heap_pop(&s->localq);
		struct job *j = new_job(s, node, -1);
		advance(s, j, node->rule->start(&j->run));
		local = true;
	}
	if (local || !s->pool)
		return local;
	for (size_t i = 0; i < s->njobs; i++) { /* lost workers' requests, to the ones in their place, first */
		struct job *j = s->jobs[i];
		if (j->wid < 0 && j->n->rule->worker &&
		    (j->wid = wpool_acquire(s->pool, dev_index(s, node_device(j->n)), j->n->rule->timing, j->n->affinity)) >= 0)
			wpool_send(s->pool, j->wid, j->run.request, j);
	}
	/* a step that cannot have a worker now (its GPU busy) lets the next
	 * one try, until every worker is held: trying the whole queue at each
	 * event made a build quadratic in its ready steps (issue 24) */
	struct dag_node **later = NULL;
	size_t nlater = 0, cap = 0;
	struct dag_node *node;
	while (!s->stop && !interrupt_caught && !s->restart && !wpool_full(s->pool) && (node = heap_pop(&s->runq)))
		if (!start_worker_step(s, node)) {
			later = xgrow(later, &cap, nlater + 1, sizeof *later);
			later[nlater++] = node;
		}
	for (size_t i = 0; i < nlater; i++)
		heap_push(&s->runq, later[i]);
	free(later);
	return false;
}

static void cancel_all(struct sched *s, const char *why);

static int on_event(void *ctx, const struct wpool_event *ev)
{
	struct sched *s = ctx;
	/* about to plan again: nothing more of this plan may finish, but a
	 * hello is still remembered, for that worker says it only once and
	 * the next plan keys its device's steps on it */
	if (s->restart && ev->kind != WPOOL_HELLO)
		return 1;
	gpu_share(s);
	if (ev->kind == WPOOL_HELLO) {
		const struct kopt_device *dev = s->devs[ev->dev];
		free(s->unfit[ev->dev]);
		if ((s->unfit[ev->dev] = witness_unfit(dev, wpool_env(s->pool, ev->dev), ev->msg))) {
			fprintf(stderr, "%s: error: %s\n", kopt_progname, s->unfit[ev->dev]);
			s->restart = false; /* no plan can mend it */
			s->nostart = s->stop = true;
			wpool_kill_all(s->pool);
			cancel_all(s, "cancelled: the worker cannot serve its device");
			return 1;
		}
		if (witness_remember(s->d, dev, ev->msg) && dag_env_read(s->d, dev))
			s->restart = true;
		return s->restart;
	}
	struct job *j = ev->job;
	if (!j)
		return 0;
	if (ev->gone)
		j->wid = -1;
	if (ev->kind == WPOOL_FAIL) {
		job_failed(s, j, ev->reason, ev->stderr_tail);
		return 0;
	}
	json_t *msg = ev->msg;
	if (json_is_true(json_object_get(msg, "ok"))) {
		json_t *res = json_object_get(msg, "result");
		if (!json_is_object(res)) {
			if (j->wid >= 0)
				wpool_release(s->pool, j->wid);
			job_failed(s, j, "worker replied ok without a result object", NULL);
			return 0;
		}
		advance(s, j, j->n->rule->reply(&j->run, res));
		return 0;
	}
	const char *err = json_string_value(json_object_get(msg, "error"));
	const char *detail = json_string_value(json_object_get(msg, "detail"));
	char *why = xasprintf("%s%s", ev->gone ? "fatal worker error (worker replaced): " : "worker error: ",
			      err ? err : "(no message)");
	if (j->wid >= 0)
		wpool_release(s->pool, j->wid);
	j->wid = -1;
	job_failed(s, j, why, detail);
	free(why);
	return 0;
}

static void cancel_all(struct sched *s, const char *why)
{
	while (s->njobs) {
		struct job *j = s->jobs[0];
		struct dag_node *n = j->n;
		if (why)
			log_step(s, j, why);
		remove_job(s, j);
		n->flags |= DAG_FAILED;
	}
}

/* a device's worker could not be had for the environment check: a worker
 * that says it cannot run here stops the build with its one line, once
 * (the other devices' workers say the same) */
static void env_failed(void *ctx, const char *name, const char *why)
{
	if (!cannot_start(ctx, name, why))
		kopt_warn("cannot check the worker environment of device '%s': %s", name, why);
}

/* each device's worker environment, checked (engine/witness.h) */
static void probe_envs(struct sched *s)
{
	if (s->mode != SCHED_BUILD)
		return;
	witness_check_envs(s->d, s->pool, s->devs, s->ndevs, env_failed, s);
	for (int i = 0; i < s->ndevs; i++)
		s->unfit[i] = witness_gpu_mismatch(s->devs[i], cache_env_get(s->d->cache, dag_env_name(s->devs[i])));
}

/* evaluates what is ready and, in a build, runs what is stale until
 * nothing more can run or the build is interrupted or planned again */
static void run_loop(struct sched *s)
{
	for (;;) {
		struct dag_node *n;
		while ((n = queue_pop(&s->ready)))
			evaluate(s, n);
		if (s->mode != SCHED_BUILD || interrupt_caught || s->restart)
			break;
		if (start_steps(s) || s->ready.len)
			continue;
		if (s->njobs == 0) {
			if ((s->runq.len || s->localq.len) && !s->stop) {
				/* nothing runs and nothing can start: no worker can be had */
				while ((n = heap_pop(&s->runq))) {
					struct job *j = new_job(s, n, -1);
					job_failed(s, j, "no worker could be started for this step", NULL);
				}
				continue;
			}
			break;
		}
		cache_sync(s->d->cache, false);
		gpu_share(s);
		/* a signal's byte in the pipe wakes the poll, and the loop's top
		 * ends the run (the pipe is made anew for each run: no drain) */
		wpool_poll(s->pool, interrupt_pipe[0], 3600.0, on_event, s);
	}
}

/*
 * -n's last line: the steps that would run, as far as they are known now.
 * A step whose rule expands the graph (a profile, which reveals the hot
 * kernels: their proposals and verifies) adds steps once it has run; where
 * such steps would run, the line says that more follow, after which ones.
 */
static void dry_closing(struct sched *s)
{
	size_t nexp = 0;
	const char *kind = NULL;
	bool kinds = false;
	for (size_t i = 0; i < s->d->nnodes; i++) {
		const struct dag_node *n = s->d->all[i];
		if (!(n->flags & DAG_WOULD) || !n->rule->expand)
			continue;
		nexp++;
		kinds |= kind && strcmp(kind, n->rule->name) != 0;
		kind = n->rule->name;
	}
	printf("%zu step%s would run", s->nwould, kopt_plural(s->nwould));
	if (nexp)
		printf(", as known now; more follow once the %zu %s step%s among them %s run (they reveal the rest)",
		       nexp, kinds ? "expanding" : kind, kopt_plural(nexp), nexp == 1 ? "has" : "have");
	printf("\n");
}

/* how the run ended, said; returns the status */
static int finish_run(struct sched *s)
{
	end_line(s);
	int status = s->nfailed || s->nostart || s->nolog ? 1 : 0;
	if (s->mode == SCHED_BUILD && interrupt_caught) {
		size_t n = s->njobs;
		wpool_kill_all(s->pool);
		cancel_all(s, "cancelled");
		fprintf(stderr, "%s: interrupted: %zu running step%s cancelled, finished steps kept\n",
			kopt_progname, n, kopt_plural(n));
		status = 128 + (int)interrupt_caught; /* as a shell says a command the signal ended: 130 for ^C */
	} else if (s->restart) {
		wpool_cancel_jobs(s->pool); /* idle workers stay for the next plan */
		cancel_all(s, NULL);
		status = SCHED_RESTART;
	} else if (s->mode == SCHED_DRY) {
		dry_closing(s);
	} else if (s->mode == SCHED_BUILD) {
		if (s->nran == 0 && s->nfailed == 0 && !s->nostart && !s->nolog && s->nrestored)
			printf("%s: nothing to run; %zu output file%s restored from the cache into %s\n", kopt_progname,
			       s->nrestored, kopt_plural(s->nrestored), s->d->out_dir);
		else if (s->nran == 0 && s->nfailed == 0 && !s->nostart && !s->nolog)
			printf("%s: nothing to do\n", kopt_progname);
		size_t left = s->runq.len + s->localq.len;
		if (s->nolog && left)
			fprintf(stderr, "%s: %zu ready step%s not started: the build log cannot record them\n",
				kopt_progname, left, kopt_plural(left));
		else if (s->stop && left && !s->nostart) {
			fprintf(stderr, "%s: stopped after a failure; %zu ready step%s not started (use -k to keep going)\n",
				kopt_progname, left, kopt_plural(left));
		}
		if (s->nran || s->nfailed) {
			/* the closing summary: the steps, then the rules' lines */
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "%s: %zu step%s ran in ", kopt_progname, s->nran, kopt_plural(s->nran));
			progress_clock(&sb, kopt_now() - s->t0);
			if (s->nfailed)
				strbuf_addf(&sb, ", %zu failed", s->nfailed);
			if (s->noptional)
				strbuf_addf(&sb, ", %zu optional failed", s->noptional);
			if (s->nrestored)
				strbuf_addf(&sb, "; %zu output file%s restored from the cache", s->nrestored,
					    kopt_plural(s->nrestored));
			printf("%s\n", sb.buf);
			strbuf_release(&sb);
			if (s->d->rules->closing)
				s->d->rules->closing(s->d, stdout);
			fflush(stdout);
		}
	}
	s->d->idle = !interrupt_caught && !s->restart && s->nran == 0 && (s->nfailed == 0 || s->nostart);
	cache_sync(s->d->cache, true);
	return status;
}

int sched_run(struct dag *d, wpool *pool, enum sched_mode mode)
{
	struct sched s;
	memset(&s, 0, sizeof s);
	s.d = d;
	s.o = d->opts;
	s.mode = mode;
	s.pool = pool;
	hash_key_init_bare(&s.hk);
	s.t0 = kopt_now();
	s.tty = isatty(1) && mode == SCHED_BUILD && getenv("TERM") && strcmp(getenv("TERM"), "dumb") != 0;
	/* devices: the pool's indices, in the order the worker steps name them */
	for (size_t i = 0; i < d->nnodes; i++)
		if (d->all[i]->rule->worker)
			dev_index(&s, node_device(d->all[i]));
	probe_envs(&s);
	d->on_new = on_new;
	d->on_new_ctx = &s;
	for (size_t i = 0; i < d->nnodes; i++)
		on_new(&s, d->all[i]);
	struct interrupt_handlers h = { 0 };
	if (mode == SCHED_BUILD)
		interrupt_set(&h);
	run_loop(&s);
	int status = finish_run(&s);
	interrupt_restore(&h);
	d->on_new = NULL;
	hash_key_release(&s.hk);
	free(s.ready.v);
	free(s.runq.v);
	free(s.localq.v);
	free(s.jobs);
	progress_release(&s.pg);
	for (int i = 0; i < s.ndevs; i++)
		free(s.unfit[i]);
	free(s.unfit);
	twins_release(&s.twins);
	free(s.devs);
	return status;
}
