/*
 * engine/worker_pool.c: see worker_pool.h; the protocol is runtime/PROTOCOL.md.
 *
 * Each worker has three non-blocking pipes: requests go to its stdin through
 * a write buffer (POLLOUT), replies are read from its stdout and split into
 * lines, its stderr is kept as a ring of the last lines for failure
 * messages. One poll() covers every pipe and the caller's wake-up fd; its
 * timeout is the nearest deadline (hello or reply). A worker runs in its own
 * process group, so killing it kills what its launcher started too.
 */
#define _GNU_SOURCE
#include <config.h>

#include "worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/util.h"
#include "../runtime/sandbox.h"
#include "proc.h"
#include "slurm.h"
#include "tail.h"

enum wstate { W_FREE, W_STARTING, W_READY };

struct worker {
	enum wstate state;
	bool held;          /* a job has it */
	bool timing;        /* the holder's job times things */
	int dev, gpu;
	pid_t pid;
	int in, out, err;
	struct strbuf rbuf, wbuf; /* stdout bytes not yet a full line; bytes for stdin not yet written */
	size_t woff;
	struct tail etail;   /* the last lines of its stderr */
	bool logged;         /* its slot's stderr copy (wpool_log) was started in this run: append */
	double deadline;     /* 0 = none */
	long id;             /* id of the request in flight */
	bool waiting;        /* a request is in flight */
	char *op;            /* its op, for messages */
	void *job;
	json_t *pending;     /* a request queued until the hello */
	struct served *served; /* the affinities its jobs had, with when each last came */
	size_t nserved, servedcap;
	const char *srun;    /* the device's srun when it runs as a Slurm step, else NULL */
	char *step;          /* its step's name (slurm.h) */
};

/* an affinity a worker served (wpool_acquire) */
struct served {
	uint64_t affinity;
	unsigned long tick;  /* the pool's acquire count when it last came */
};

struct device {
	char *name;
	int gpus, nlauncher;
	char **launcher;     /* argv prefix, NULL-terminated */
	double timeout;
	bool srun;           /* the launcher is an srun line (slurm.h) */
	int gres;            /* srun: ask for a GPU per step; -1 = not yet asked */
	json_t *witness;     /* the last hello's "witness" files (engine/witness.h), or NULL */
	json_t *env;         /* the first hello's "env" in this pool, or NULL */
};

struct wpool {
	char *program;
	struct worker *w;
	int nw;
	struct device *devs;
	int ndevs;
	long next_id;
	char *scratch;       /* worker i's scratch folder is scratch/i; NULL: its own */
	char *log_dir;       /* worker i's stderr is copied to log_dir/workers/worker-i.log; NULL: not */
	char **deny;         /* variables no worker gets (key_env names), NULL-terminated */
	bool sandbox_warned; /* a worker's hello said it is not fully confined */
	unsigned long ticks;  /* acquires so far */
};

wpool *wpool_new(const char *program, int max_workers)
{
	wpool *p = xcalloc(1, sizeof *p);
	p->program = xstrdup(program);
	p->nw = max_workers > 0 ? max_workers : 1;
	p->w = xcalloc((size_t)p->nw, sizeof *p->w);
	for (int i = 0; i < p->nw; i++) {
		p->w[i].in = p->w[i].out = p->w[i].err = -1;
		strbuf_init(&p->w[i].rbuf);
		strbuf_init(&p->w[i].wbuf);
		tail_init(&p->w[i].etail);
	}
	p->next_id = 1;
	return p;
}

void wpool_log(wpool *p, const char *dir)
{
	free(p->log_dir);
	p->log_dir = dir ? xstrdup(dir) : NULL;
}

void wpool_sandbox(wpool *p, const char *scratch, const char *const *deny)
{
	free(p->scratch);
	p->scratch = scratch ? xstrdup(scratch) : NULL;
	for (char **d = p->deny; d && *d; d++)
		free(*d);
	free(p->deny);
	size_t n = 0;
	while (deny && deny[n])
		n++;
	p->deny = xcalloc(n + 1, sizeof *p->deny);
	for (size_t i = 0; i < n; i++)
		p->deny[i] = xstrdup(deny[i]);
}

int wpool_device(wpool *p, const char *name, int gpus, const char *launcher, double timeout_s)
{
	for (int i = 0; i < p->ndevs; i++)
		if (strcmp(p->devs[i].name, name) == 0)
			return i;
	p->devs = xrealloc(p->devs, (size_t)(p->ndevs + 1) * sizeof *p->devs);
	struct device *d = &p->devs[p->ndevs];
	memset(d, 0, sizeof *d);
	d->name = xstrdup(name);
	d->gpus = gpus > 0 ? gpus : 1;
	d->timeout = timeout_s > 0 ? timeout_s : 600;
	d->launcher = xcalloc(1, sizeof *d->launcher);
	if (launcher) {
		char *copy = xstrdup(launcher), *save = NULL;
		for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
			d->launcher = xrealloc(d->launcher, (size_t)(d->nlauncher + 2) * sizeof *d->launcher);
			d->launcher[d->nlauncher++] = xstrdup(t);
			d->launcher[d->nlauncher] = NULL;
		}
		free(copy);
	}
	d->srun = slurm_is_srun(d->launcher, d->nlauncher);
	d->gres = -1;
	return p->ndevs++;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void clear_worker(struct worker *w)
{
	w->nserved = 0; /* a new process holds nothing */
	close_fd(&w->in);
	close_fd(&w->out);
	close_fd(&w->err);
	strbuf_reset(&w->rbuf);
	strbuf_reset(&w->wbuf);
	tail_clear(&w->etail);
	w->woff = 0;
	json_decref(w->pending);
	w->pending = NULL;
	free(w->op);
	w->op = NULL;
	w->waiting = false;
	w->deadline = 0;
	w->pid = 0;
	w->state = W_FREE;
	w->srun = NULL;
	free(w->step);
	w->step = NULL;
}

/* kills the process group and reaps it; returns the wait status. A Slurm
 * step is ended through srun, which SIGKILL would leave running. */
static int kill_worker(struct worker *w)
{
	int status = 0;
	if (w->pid > 0 && w->srun)
		return slurm_end(w->pid, w->step, w->srun, kopt_now() + SLURM_GRACE_S);
	if (w->pid > 0) {
		kill(-w->pid, SIGKILL);
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	return status;
}

static void read_stderr(struct worker *w)
{
	if (tail_read(&w->etail, w->err))
		close_fd(&w->err);
}

/* kills w and tells its job why; the slot becomes free */
static void fail_worker(wpool *p, struct worker *w, const char *reason, wpool_cb *cb, void *ctx)
{
	if (w->err >= 0)
		read_stderr(w);
	kill_worker(w);
	if (w->err >= 0)
		read_stderr(w);
	char *tail = tail_text(&w->etail);
	void *job = w->job;
	bool had_job = w->held && (w->waiting || w->pending);
	int dev = w->dev;
	w->held = false;
	w->job = NULL;
	clear_worker(w);
	if (had_job && cb) {
		struct wpool_event ev = { WPOOL_FAIL, (int)(w - p->w), dev, job, NULL, reason, tail, true };
		cb(ctx, &ev);
	}
	free(tail);
}

static const char *phase(const struct worker *w)
{
	return w->state == W_STARTING ? "before its hello" : w->op ? w->op : "idle";
}

static void worker_died(wpool *p, struct worker *w, wpool_cb *cb, void *ctx)
{
	int status = 0;
	if (w->err >= 0)
		read_stderr(w);
	/* give it a moment to finish exiting (srun: to end its step), then make sure */
	for (int i = 0; i < (w->srun ? (int)(SLURM_GRACE_S * 500) : 50); i++) {
		pid_t r = waitpid(w->pid, &status, WNOHANG);
		if (r == w->pid) {
			w->pid = 0;
			break;
		}
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (w->pid > 0)
		status = kill_worker(w);
	w->pid = 0;
	struct strbuf sb = STRBUF_INIT;
	char *slurm = NULL;
	if (w->srun) {
		if (w->err >= 0)
			read_stderr(w); /* srun is gone: every line it wrote is in */
		char *tail = tail_text(&w->etail);
		slurm = slurm_reason(tail);
		free(tail);
	}
	if (slurm)
		strbuf_addf(&sb, "%s; its srun ", slurm);
	else
		strbuf_addstr(&sb, "worker ");
	proc_describe_exit(&sb, status);
	if (w->state == W_STARTING)
		strbuf_addstr(&sb, " before its hello");
	else if (w->op)
		strbuf_addf(&sb, " during %s", w->op);
	free(slurm);
	fail_worker(p, w, sb.buf, cb, ctx);
	strbuf_release(&sb);
}

static void queue_line(struct worker *w, json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT);
	strbuf_addstr(&w->wbuf, s);
	strbuf_addch(&w->wbuf, '\n');
	free(s);
}

static void flush_writes(struct worker *w)
{
	while (w->in >= 0 && w->woff < w->wbuf.len) {
		ssize_t r = write(w->in, w->wbuf.buf + w->woff, w->wbuf.len - w->woff);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				close_fd(&w->in); /* EPIPE: its stdout will tell */
			return;
		}
		w->woff += (size_t)r;
	}
	if (w->woff == w->wbuf.len) {
		strbuf_reset(&w->wbuf);
		w->woff = 0;
	}
}

static void send_now(wpool *p, struct worker *w, json_t *req)
{
	const char *op = json_string_value(json_object_get(req, "op"));
	free(w->op);
	w->op = xstrdup(op ? op : "request");
	w->id = p->next_id++;
	json_object_set_new(req, "id", json_integer(w->id));
	queue_line(w, req);
	w->waiting = true;
	w->deadline = kopt_now() + p->devs[w->dev].timeout;
	flush_writes(w);
}

/* w's stderr copied to log_dir/workers/worker-SLOT.log, no link followed: emptied
 * at the slot's first worker of this run, appended to by the later ones */
static void open_log(wpool *p, struct worker *w, pid_t pid)
{
	if (!p->log_dir)
		return;
	char *rel = xasprintf("workers/worker-%d.log", (int)(w - p->w));
	char *head = xasprintf("koptmake: worker %ld started on GPU %d\n", (long)pid, w->gpu);
	w->logged |= tail_copy_to(&w->etail, p->log_dir, rel, w->logged, head) == 0;
	free(rel);
	free(head);
}

static int spawn(wpool *p, struct worker *w)
{
	struct device *d = &p->devs[w->dev];
	char **argv = xcalloc((size_t)d->nlauncher + 2, sizeof *argv), **sargv = NULL;
	for (int i = 0; i < d->nlauncher; i++)
		argv[i] = d->launcher[i];
	argv[d->nlauncher] = p->program;
	if (d->srun) {
		if (d->gres < 0)
			d->gres = slurm_wants_gres(d->launcher, d->nlauncher);
		free(w->step);
		w->step = xasprintf("koptmake.w%d.%ld", (int)(w - p->w), (long)getpid());
		sargv = slurm_worker_argv(d->launcher, d->nlauncher, p->program, w->step, d->gres > 0);
	}
	/* its GPU, its slot, how many workers may share the GPU (kopt/state.py sizes by it) */
	char gpu[16], slot[16], share[16];
	snprintf(gpu, sizeof gpu, "%d", w->gpu);
	snprintf(slot, sizeof slot, "%d", (int)(w - p->w));
	snprintf(share, sizeof share, "%d", (p->nw + d->gpus - 1) / d->gpus);
	/* a scrubbed environment (runtime/sandbox.h): it holds no
	 * KOPT_REMOTE_CACHE_AUTH (the engine's secret, remote.h), whose name
	 * looks like one */
	char **env = sandbox_env(environ, (const char *const *)p->deny);
	proc_env_put(&env, "CUDA_VISIBLE_DEVICES", gpu);
	proc_env_put(&env, "KOPT_SLOT", slot);
	proc_env_put(&env, "KOPT_GPU_SHARE", share);
	if (p->scratch) {
		char *sp = xasprintf("%s/%s", p->scratch, slot);
		proc_env_put(&env, "KOPT_SCRATCH", sp);
		free(sp);
	}
	pid_t pid = proc_start(sargv ? sargv : argv, env, &w->in, &w->out, &w->err);
	free(argv);
	slurm_argv_free(sargv);
	sandbox_env_free(env);
	if (pid < 0)
		return -1;
	open_log(p, w, pid);
	w->srun = d->srun ? d->launcher[0] : NULL;
	w->pid = pid;
	w->state = W_STARTING;
	w->deadline = kopt_now() + d->timeout;
	return 0;
}

/* whether GPU g of dev can take one more job (a timing job wants it alone) */
static bool gpu_fits(const wpool *p, int dev, int g, bool timing, int *load_out)
{
	int load = 0, tload = 0;
	for (int i = 0; i < p->nw; i++) {
		const struct worker *w = &p->w[i];
		if (w->held && w->dev == dev && w->gpu == g) {
			load++;
			tload += w->timing;
		}
	}
	*load_out = load;
	return timing ? load == 0 : tload == 0;
}

/* when w last served affinity, 0 for never */
static unsigned long served_at(const struct worker *w, uint64_t affinity)
{
	for (size_t i = 0; affinity && i < w->nserved; i++)
		if (w->served[i].affinity == affinity)
			return w->served[i].tick;
	return 0;
}

static void serve(wpool *p, struct worker *w, bool timing, uint64_t affinity)
{
	w->held = true;
	w->timing = timing;
	p->ticks++;
	if (!affinity)
		return;
	for (size_t i = 0; i < w->nserved; i++)
		if (w->served[i].affinity == affinity) {
			w->served[i].tick = p->ticks;
			return;
		}
	w->served = xgrow(w->served, &w->servedcap, w->nserved + 1, sizeof *w->served);
	w->served[w->nserved++] = (struct served){ affinity, p->ticks };
}

/*
 * An idle live worker of dev whose GPU can take the job: the one that
 * served affinity most recently, else the one that has served the fewest
 * distinct affinities (ties: the one on the GPU with fewer jobs, then the
 * lower slot); NULL when none is idle.
 */
static struct worker *idle_worker(wpool *p, int dev, bool timing, uint64_t affinity)
{
	struct worker *recent = NULL, *least = NULL;
	unsigned long best_tick = 0;
	int load, least_load = 0;
	for (int i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->held || w->state == W_FREE || w->dev != dev || !gpu_fits(p, dev, w->gpu, timing, &load))
			continue;
		unsigned long t = served_at(w, affinity);
		if (t > best_tick) {
			best_tick = t;
			recent = w;
		}
		if (!least || w->nserved < least->nserved || (w->nserved == least->nserved && load < least_load)) {
			least = w;
			least_load = load;
		}
	}
	return recent ? recent : least;
}

int wpool_acquire(wpool *p, int dev, bool timing, uint64_t affinity)
{
	int held = 0;
	for (int i = 0; i < p->nw; i++)
		held += p->w[i].held;
	if (held >= p->nw)
		return -1;
	/* affinity: the worker that has this model and variant loaded
	 * (compiled, inputs made), else the one that has loaded fewest */
	struct worker *pick = idle_worker(p, dev, timing, affinity);
	if (pick) {
		serve(p, pick, timing, affinity);
		return (int)(pick - p->w);
	}
	/* else a new worker, on the GPU with the fewest jobs that can take it */
	struct device *d = &p->devs[dev];
	int best_gpu = -1, best_load = 1 << 30, load;
	for (int g = 0; g < d->gpus; g++) {
		bool ok = gpu_fits(p, dev, g, timing, &load);
		if (ok && load < best_load) {
			best_gpu = g;
			best_load = load;
		}
	}
	if (best_gpu < 0)
		return -1;
	for (int i = 0; i < p->nw && !pick; i++) /* an empty slot */
		if (p->w[i].state == W_FREE)
			pick = &p->w[i];
	for (int i = 0; i < p->nw && !pick; i++) /* an idle worker of another device or GPU */
		if (!p->w[i].held) {
			pick = &p->w[i];
			kill_worker(pick);
			clear_worker(pick);
		}
	if (!pick)
		return -1;
	pick->dev = dev;
	pick->gpu = best_gpu;
	if (spawn(p, pick) < 0) {
		kopt_error("cannot start a worker: %s", strerror(errno));
		clear_worker(pick);
		return -1;
	}
	serve(p, pick, timing, affinity);
	return (int)(pick - p->w);
}

void wpool_send(wpool *p, int wid, json_t *request, void *job)
{
	struct worker *w = &p->w[wid];
	w->job = job;
	json_t *req = json_deep_copy(request);
	if (w->state == W_STARTING) {
		json_decref(w->pending);
		w->pending = req;
		const char *op = json_string_value(json_object_get(req, "op"));
		free(w->op);
		w->op = xstrdup(op ? op : "request");
		return;
	}
	send_now(p, w, req);
	json_decref(req);
}

void wpool_release(wpool *p, int wid)
{
	struct worker *w = &p->w[wid];
	w->held = false;
	w->timing = false;
	w->job = NULL;
	w->waiting = false;
	if (w->state != W_STARTING)
		w->deadline = 0;
}

int wpool_held(const wpool *p, int wid)
{
	int n = 0;
	for (int i = 0; i < p->nw; i++)
		n += p->w[i].held && (wid < 0 || (p->w[i].dev == p->w[wid].dev && p->w[i].gpu == p->w[wid].gpu));
	return n;
}

bool wpool_full(const wpool *p)
{
	return wpool_held(p, -1) >= p->nw;
}

/* a worker that says (hello's "sandbox") it is not fully confined: once per pool */
static void sandbox_said(wpool *p, const json_t *sb)
{
	if (p->sandbox_warned || !json_is_object(sb) ||
	    (json_is_true(json_object_get(sb, "fs")) && json_is_true(json_object_get(sb, "net"))))
		return;
	const char *how = json_string_value(json_object_get(sb, "how"));
	kopt_warn("the workers run with a weaker sandbox: %s (koptmake(1), THE WORKERS' SANDBOX)",
		  how ? how : "not confined");
	p->sandbox_warned = true;
}

static void handle_line(wpool *p, struct worker *w, const char *line, size_t n, wpool_cb *cb, void *ctx)
{
	json_error_t err;
	json_t *msg = json_loadb(line, n, 0, &err);
	if (!msg || !json_is_object(msg)) {
		char *snip = xstrndup(line, n > 60 ? 60 : n);
		for (char *s = snip; *s; s++)
			if ((unsigned char)*s < 32)
				*s = '?';
		char *why = xasprintf("worker answered a line that is not a JSON object %s%s: '%s%s'",
				      w->state == W_STARTING ? "" : "during ", phase(w), snip, n > 60 ? "..." : "");
		fail_worker(p, w, why, cb, ctx);
		free(why);
		free(snip);
		json_decref(msg);
		return;
	}
	if (w->state == W_STARTING) {
		json_t *proto = json_object_get(msg, "protocol");
		json_t *env = json_object_get(msg, "env");
		if (!json_is_string(json_object_get(msg, "hello"))) {
			fail_worker(p, w, "worker did not start with a hello", cb, ctx);
		} else if (json_integer_value(proto) != WPOOL_PROTOCOL) {
			char *why = xasprintf("worker speaks protocol %lld; koptmake speaks %d",
					      (long long)json_integer_value(proto), WPOOL_PROTOCOL);
			fail_worker(p, w, why, cb, ctx);
			free(why);
		} else {
			w->state = W_READY;
			w->deadline = 0;
			sandbox_said(p, json_object_get(msg, "sandbox"));
			json_t *wit = json_object_get(msg, "witness");
			if (json_is_array(wit)) {
				json_decref(p->devs[w->dev].witness);
				p->devs[w->dev].witness = json_incref(wit);
			}
			if (json_is_object(env) && !p->devs[w->dev].env)
				p->devs[w->dev].env = json_incref(env);
			struct wpool_event ev = { WPOOL_HELLO, (int)(w - p->w), w->dev, w->job,
						  json_is_object(env) ? env : NULL, NULL, NULL, false };
			int stop = cb ? cb(ctx, &ev) : 0;
			if (!stop && w->state == W_READY && w->pending) {
				json_t *req = w->pending;
				w->pending = NULL;
				send_now(p, w, req);
				json_decref(req);
			}
		}
		json_decref(msg);
		return;
	}
	if (!w->waiting) {
		fail_worker(p, w, "worker sent a line nobody asked for", cb, ctx);
		json_decref(msg);
		return;
	}
	json_t *id = json_object_get(msg, "id");
	if (!json_is_integer(id) || json_integer_value(id) != w->id || !json_is_boolean(json_object_get(msg, "ok"))) {
		char *why = json_is_integer(id) && json_integer_value(id) != w->id
			? xasprintf("worker answered id %lld to request %ld (%s)", (long long)json_integer_value(id), w->id, w->op)
			: xasprintf("worker answered %s without an id and ok", w->op);
		fail_worker(p, w, why, cb, ctx);
		free(why);
		json_decref(msg);
		return;
	}
	w->waiting = false;
	w->deadline = 0;
	bool fatal = json_is_true(json_object_get(msg, "fatal")); /* an answer may stand and the worker not */
	void *job = w->job;
	int wid = (int)(w - p->w), dev = w->dev;
	if (fatal) {
		/* a sticky device error: this worker cannot go on */
		kill_worker(w);
		w->held = false;
		w->job = NULL;
		clear_worker(w);
	}
	struct wpool_event ev = { WPOOL_REPLY, wid, dev, job, msg, NULL, NULL, fatal };
	if (cb)
		cb(ctx, &ev);
	json_decref(msg);
}

static void read_stdout(wpool *p, struct worker *w, wpool_cb *cb, void *ctx)
{
	char buf[65536];
	for (;;) {
		ssize_t r = read(w->out, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return; /* EAGAIN */
		if (r == 0) {
			worker_died(p, w, cb, ctx);
			return;
		}
		strbuf_add(&w->rbuf, buf, (size_t)r);
		size_t start = 0;
		char *nl;
		while (w->state != W_FREE &&
		       (nl = memchr(w->rbuf.buf + start, '\n', w->rbuf.len - start))) {
			size_t n = (size_t)(nl - (w->rbuf.buf + start));
			char *line = xstrndup(w->rbuf.buf + start, n);
			start += n + 1;
			if (n)
				handle_line(p, w, line, n, cb, ctx);
			free(line);
		}
		if (w->state == W_FREE)
			return;
		memmove(w->rbuf.buf, w->rbuf.buf + start, w->rbuf.len - start);
		w->rbuf.len -= start;
		w->rbuf.buf[w->rbuf.len] = '\0';
		if (w->rbuf.len > (64u << 20)) {
			fail_worker(p, w, "worker sent a line longer than 64 MiB", cb, ctx);
			return;
		}
	}
}

int wpool_poll(wpool *p, int extra_fd, double max_wait, wpool_cb *cb, void *ctx)
{
	struct pollfd *fds = xcalloc((size_t)p->nw * 3 + 1, sizeof *fds);
	int *who = xcalloc((size_t)p->nw * 3 + 1, sizeof *who);
	int nf = 0;
	double now = kopt_now(), wait = max_wait;
	if (extra_fd >= 0) {
		fds[nf].fd = extra_fd;
		fds[nf].events = POLLIN;
		who[nf++] = -1;
	}
	for (int i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->state == W_FREE)
			continue;
		if (w->out >= 0) {
			fds[nf].fd = w->out;
			fds[nf].events = POLLIN;
			who[nf++] = i;
		}
		if (w->err >= 0) {
			fds[nf].fd = w->err;
			fds[nf].events = POLLIN;
			who[nf++] = i;
		}
		if (w->in >= 0 && w->wbuf.len > w->woff) {
			fds[nf].fd = w->in;
			fds[nf].events = POLLOUT;
			who[nf++] = i;
		}
		if (w->deadline > 0 && w->deadline - now < wait)
			wait = w->deadline - now;
	}
	if (wait < 0)
		wait = 0;
	int ms = wait > 1e6 ? -1 : (int)(wait * 1000.0) + 1;
	int r = poll(fds, (nfds_t)nf, ms);
	int woke = 0;
	if (r > 0) {
		for (int i = 0; i < nf; i++) {
			if (!fds[i].revents)
				continue;
			if (who[i] < 0) {
				woke = 1;
				continue;
			}
			struct worker *w = &p->w[who[i]];
			if (w->state == W_FREE)
				continue;
			if (fds[i].fd == w->in && w->in >= 0)
				flush_writes(w);
			else if (fds[i].fd == w->err && w->err >= 0)
				read_stderr(w);
			else if (fds[i].fd == w->out && w->out >= 0)
				read_stdout(p, w, cb, ctx);
		}
	}
	now = kopt_now();
	for (int i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->state == W_FREE || w->deadline <= 0 || now < w->deadline)
			continue;
		char *why;
		if (w->state == W_STARTING)
			why = xasprintf("worker did not say hello within %gs; killed", p->devs[w->dev].timeout);
		else
			why = xasprintf("worker did not answer %s within %gs (timeout); killed",
					w->op ? w->op : "its request", p->devs[w->dev].timeout);
		if (w->held)
			fail_worker(p, w, why, cb, ctx);
		else {
			kill_worker(w);
			clear_worker(w);
		}
		free(why);
	}
	free(fds);
	free(who);
	return woke;
}

void wpool_kill_all(wpool *p)
{
	/* Slurm steps end side by side: every srun has its SIGTERM first */
	for (int i = 0; i < p->nw; i++)
		if (p->w[i].state != W_FREE && p->w[i].srun && p->w[i].pid > 0)
			kill(-p->w[i].pid, SIGTERM);
	for (int i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->state != W_FREE)
			kill_worker(w);
		clear_worker(w);
		w->held = false;
		w->job = NULL;
	}
}

struct probe {
	int wid;
	json_t *env;
	char *why;
};

static int probe_cb(void *ctx, const struct wpool_event *ev)
{
	struct probe *pr = ctx;
	if (ev->wid != pr->wid)
		return 0;
	if (ev->kind == WPOOL_HELLO && !pr->env) {
		pr->env = ev->msg ? json_deep_copy(ev->msg) : json_object();
		return 1; /* the pending marker is not a request */
	} else if (ev->kind == WPOOL_FAIL && !pr->why)
		pr->why = xasprintf("%s%s%s", ev->reason, ev->stderr_tail && *ev->stderr_tail ? ": " : "",
				    ev->stderr_tail ? ev->stderr_tail : "");
	return 0;
}

json_t *wpool_probe(wpool *p, int dev, char **why)
{
	struct probe pr = { -1, NULL, NULL };
	*why = NULL;
	pr.wid = wpool_acquire(p, dev, false, 0);
	if (pr.wid < 0) {
		*why = xstrdup("no worker slot is free");
		return NULL;
	}
	struct worker *w = &p->w[pr.wid];
	/* a pending marker makes a death during startup reach probe_cb; a
	 * worker that said hello before is asked nothing (its env was seen
	 * then, so NULL says "unchanged") */
	w->pending = json_object();
	while (!pr.env && !pr.why && w->state == W_STARTING)
		wpool_poll(p, -1, 1.0, probe_cb, &pr);
	json_decref(w->pending);
	w->pending = NULL;
	if (w->held)
		wpool_release(p, pr.wid);
	if (!pr.env && !pr.why && w->state != W_READY)
		pr.why = xstrdup("the worker went away before its hello");
	*why = pr.why;
	return pr.env;
}

json_t *wpool_env(wpool *p, int dev)
{
	return dev >= 0 && dev < p->ndevs ? p->devs[dev].env : NULL;
}

json_t *wpool_witness(wpool *p, int dev)
{
	return dev >= 0 && dev < p->ndevs ? p->devs[dev].witness : NULL;
}

bool wpool_launched(const wpool *p, int dev)
{
	return dev >= 0 && dev < p->ndevs && p->devs[dev].nlauncher > 0;
}

void wpool_cancel_jobs(wpool *p)
{
	for (int i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->state != W_FREE && w->waiting) {
			kill_worker(w);
			clear_worker(w);
		}
		json_decref(w->pending);
		w->pending = NULL;
		w->held = false;
		w->timing = false;
		w->job = NULL;
		if (w->state == W_READY)
			w->deadline = 0;
	}
}

/* A build that ends closes its Slurm workers' stdin: each worker exits on
 * its own and its step ends COMPLETED, not CANCELLED. Killed after the
 * grace time as any other. */
static void end_slurm_steps(wpool *p)
{
	bool any = false;
	for (int i = 0; i < p->nw; i++)
		if (p->w[i].state != W_FREE && p->w[i].srun && p->w[i].pid > 0) {
			close_fd(&p->w[i].in);
			any = true;
		}
	double deadline = kopt_now() + SLURM_GRACE_S;
	while (any && kopt_now() < deadline) {
		any = false;
		for (int i = 0; i < p->nw; i++) {
			struct worker *w = &p->w[i];
			if (w->state == W_FREE || !w->srun || w->pid <= 0)
				continue;
			int status;
			if (waitpid(w->pid, &status, WNOHANG) == w->pid)
				clear_worker(w);
			else
				any = true;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		if (any)
			nanosleep(&ts, NULL);
	}
}

void wpool_free(wpool *p)
{
	if (!p)
		return;
	end_slurm_steps(p);
	wpool_kill_all(p);
	for (int i = 0; i < p->nw; i++) {
		strbuf_release(&p->w[i].rbuf);
		strbuf_release(&p->w[i].wbuf);
		tail_release(&p->w[i].etail);
		free(p->w[i].served);
	}
	for (int i = 0; i < p->ndevs; i++) {
		for (int j = 0; j < p->devs[i].nlauncher; j++)
			free(p->devs[i].launcher[j]);
		free(p->devs[i].launcher);
		free(p->devs[i].name);
		json_decref(p->devs[i].witness);
		json_decref(p->devs[i].env);
	}
	free(p->devs);
	free(p->w);
	free(p->program);
	free(p->log_dir);
	if (p->scratch)
		sandbox_scratch_remove(p->scratch);
	wpool_sandbox(p, NULL, NULL);
	free(p->deny);
	free(p);
}
