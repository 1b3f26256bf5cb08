/*
 * tests/unit/wpool_test.c: the worker pool's slots, with the simulated
 * worker (tests/sim-worker, a test double of kopt-worker). wpool_full says
 * that no job can have a worker: the scheduler stops trying its queue
 * there (trying the whole queue at each event made a 10,000-model build
 * quadratic in its ready steps, issue 24). A pool with a free slot may
 * still refuse a job (a timing job holds its GPU alone): the scheduler
 * must go on trying the others then.
 * Also: a second device's job in an empty slot (the first device's idle
 * worker kept), a request larger than a pipe's buffer, a step cancelled
 * while its worker runs it, a signal during the wait before a worker's
 * death, and the environment probe of a worker that dies before its hello
 * (the simulator's KOPT_SIM_DIE), a worker that ends a moment after its pipes
 * close (KOPT_SIM_LINGER_MS), and a worker that cannot be started (no
 * descriptor left for its pipes).
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../../common/util.h"
#include "../../engine/worker_pool.h"
#include "../fixture.h"
#include "../tap.h"

struct seen {
	int hello, reply, fail;
	void *job;            /* the last reply's job */
	json_t *result;       /* the last reply's result */
	char reason[256];     /* the last failure's */
};

static int on_event(void *ctx, const struct wpool_event *ev)
{
	struct seen *s = ctx;
	if (ev->kind == WPOOL_HELLO)
		s->hello++;
	else if (ev->kind == WPOOL_REPLY) {
		s->reply++;
		s->job = ev->job;
		json_decref(s->result);
		s->result = json_incref(json_object_get(ev->msg, "result"));
	} else {
		s->fail++;
		snprintf(s->reason, sizeof s->reason, "%s", ev->reason ? ev->reason : "");
	}
	return 0;
}

/* polls as the scheduler does (with its interrupt pipe as the extra fd)
 * until *count reaches want or seconds pass */
static void poll_until(wpool *p, int fd, struct seen *s, const int *count, int want, double seconds)
{
	double end = kopt_now() + seconds;
	while (*count < want && kopt_now() < end)
		wpool_poll(p, fd, end - kopt_now(), on_event, s);
}

static volatile sig_atomic_t sigs;
static void on_usr1(int sig)
{
	(void)sig;
	sigs++;
}

/* a pool of one worker of sim, ev reset, the worker acquired (*w) on its
 * device (*dev) and sent a ping for job */
static wpool *ping_pool(const char *sim, struct seen *ev, int *dev, int *w, void *job)
{
	json_decref(ev->result);
	memset(ev, 0, sizeof *ev);
	wpool *r = wpool_new(sim, 1);
	*dev = wpool_device(r, "sim", 1, NULL, 30);
	*w = wpool_acquire(r, *dev, false, 1);
	json_t *req = json_pack("{s:s}", "op", "ping");
	wpool_send(r, *w, req, job);
	json_decref(req);
	return r;
}

/* a worker that cannot be started (its pipes find no descriptor): the
 * acquire gives no worker and says why, and the pool still works after */
static void no_descriptors(const char *sim)
{
	wpool *r = wpool_new(sim, 1);
	int dev = wpool_device(r, "sim", 1, NULL, 30);
	struct rlimit rl, old;
	int fill[256], nfill = 0, bad = getrlimit(RLIMIT_NOFILE, &old) < 0;
	rl = old;
	rl.rlim_cur = 64;
	bad |= setrlimit(RLIMIT_NOFILE, &rl) < 0;
	struct fx_caught caught;
	fx_catch_start(&caught);
	for (int fd; nfill < 256 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
		fill[nfill++] = fd;
	int w = wpool_acquire(r, dev, false, 1);
	while (nfill > 0)
		close(fill[--nfill]);
	char said[1024];
	fx_catch_end(&caught, said, sizeof said);
	bad |= setrlimit(RLIMIT_NOFILE, &old) < 0;
	TAP_OK(!bad && w == -1 && strstr(said, "cannot start a worker: Too many open files"),
	       "no descriptor for a worker's pipes: no worker, and the reason said (%.*s)", (int)strcspn(said, "\n"), said);
	w = wpool_acquire(r, dev, false, 1);
	TAP_OK(w >= 0, "... and with descriptors again, the next acquire gets one");
	if (w >= 0)
		wpool_release(r, w);
	wpool_free(r);
}

int main(void)
{
	const char *b = getenv("top_builddir");
	char *sim = xasprintf("%s/tests/sim-worker", b ? b : ".");
	unsetenv("KOPT_LAUNCHER");
	unsetenv("KOPT_SIM_LOG");

	wpool *p = wpool_new(sim, 2);
	int dev = wpool_device(p, "sim", 2, NULL, 30);
	TAP_OK(!wpool_full(p), "an empty pool is not full");
	int a = wpool_acquire(p, dev, false, 1);
	TAP_OK(a >= 0 && !wpool_full(p), "one of two slots held: not full");
	int c = wpool_acquire(p, dev, false, 2);
	TAP_OK(c >= 0 && c != a && wpool_full(p), "two of two held: full");
	TAP_IS_INT(wpool_acquire(p, dev, false, 3), -1, "a full pool gives no worker to any job");
	wpool_release(p, c);
	TAP_OK(!wpool_full(p), "a worker given back: not full");
	int t = wpool_acquire(p, dev, true, 3);
	TAP_OK(t >= 0 && wpool_full(p), "a timing job takes the free slot: full again");
	wpool_release(p, t);
	wpool_release(p, a);

	/* which idle worker a job gets: the one that served its model and
	 * variant (its affinity), else the one that has served the fewest */
	wpool *f = wpool_new(sim, 2);
	dev = wpool_device(f, "sim", 2, NULL, 30);
	int w0 = wpool_acquire(f, dev, false, 1), w1 = wpool_acquire(f, dev, false, 2);
	wpool_release(f, w0);
	wpool_release(f, w1);
	TAP_IS_INT(wpool_acquire(f, dev, false, 2), w1, "an affinity served before: the worker that served it");
	wpool_release(f, w1);
	int tie = wpool_acquire(f, dev, false, 3);
	TAP_IS_INT(tie, w0 < w1 ? w0 : w1, "an affinity none served, the workers alike: the lower slot");
	wpool_release(f, tie);
	int other = tie == w0 ? w1 : w0;
	TAP_IS_INT(wpool_acquire(f, dev, false, 4), other,
		   "an affinity none served: the worker that has served fewer (one, not two)");
	wpool_free(f);

	/* one GPU, two slots: a timing job holds the GPU alone, so a slot is
	 * free and still no job can have it */
	wpool *q = wpool_new(sim, 2);
	dev = wpool_device(q, "sim", 1, NULL, 30);
	t = wpool_acquire(q, dev, true, 1);
	TAP_OK(t >= 0 && !wpool_full(q), "a timing job on the only GPU: one slot held, not full");
	TAP_IS_INT(wpool_acquire(q, dev, false, 2), -1, "yet no job has a worker: the GPU is the timing job's");
	wpool_release(q, t);
	TAP_OK(wpool_acquire(q, dev, false, 2) >= 0, "the GPU given back: a job has one");

	/* two devices, two slots: a job of the second device takes the empty
	 * slot, not the first device's idle worker (what it has loaded would
	 * be lost), and the first device's next job gets that worker again,
	 * started once (two hellos in all, one for each worker) */
	int pp2[2];
	if (pipe(pp2) < 0)
		return 1;
	struct seen two_ev = { 0 };
	int job_a = 1, job_b = 2;
	wpool *two = wpool_new(sim, 2);
	int da = wpool_device(two, "a", 1, NULL, 30), db = wpool_device(two, "b", 1, NULL, 30);
	int wa = wpool_acquire(two, da, false, 1);
	json_t *ping = json_pack("{s:s}", "op", "ping");
	wpool_send(two, wa, ping, &job_a);
	poll_until(two, pp2[0], &two_ev, &two_ev.reply, 1, 20);
	wpool_release(two, wa);
	int wb = wpool_acquire(two, db, false, 2);
	wpool_send(two, wb, ping, &job_b);
	poll_until(two, pp2[0], &two_ev, &two_ev.reply, 2, 20);
	wpool_release(two, wb);
	int wa2 = wpool_acquire(two, da, false, 1);
	wpool_send(two, wa2, ping, &job_a);
	poll_until(two, pp2[0], &two_ev, &two_ev.reply, 3, 20);
	TAP_OK(wa >= 0 && wb >= 0 && wb != wa && wa2 == wa && two_ev.reply == 3 && two_ev.hello == 2 && two_ev.fail == 0,
	       "a second device's job takes the empty slot; the first device's idle worker stays and serves its next job "
	       "(slots %d, %d, %d; %d hellos)", wa, wb, wa2, two_ev.hello);
	wpool_release(two, wa2);
	json_decref(ping);
	json_decref(two_ev.result);
	wpool_free(two);
	close(pp2[0]);
	close(pp2[1]);

	/* a request larger than a pipe's buffer is written as the worker
	 * reads it, between polls, and answered whole */
	int pp[2];
	if (pipe(pp) < 0)
		return 1;
	struct seen ev = { 0 };
	wpool *r = wpool_new(sim, 1);
	dev = wpool_device(r, "sim", 1, NULL, 30);
	int w = wpool_acquire(r, dev, false, 1);
	size_t big = 256 * 1024;
	char *pad = xmalloc(big + 1);
	memset(pad, 'x', big);
	pad[big] = '\0';
	json_t *req = json_pack("{s:s, s:s}", "op", "ping", "pad", pad);
	int job = 7;
	wpool_send(r, w, req, &job);
	json_decref(req);
	free(pad);
	poll_until(r, pp[0], &ev, &ev.reply, 1, 20);
	TAP_OK(ev.hello == 1 && ev.reply == 1 && ev.fail == 0 && ev.job == &job && json_is_object(ev.result),
	       "a 256 KiB request reaches the worker whole and is answered");
	/* and nothing of it is left to the next: a small request after it, to
	 * the same worker, is read as one and answered as itself */
	int job3 = 9;
	req = json_pack("{s:s}", "op", "bandwidth");
	wpool_send(r, w, req, &job3);
	json_decref(req);
	poll_until(r, pp[0], &ev, &ev.reply, 2, 10);
	TAP_OK(ev.reply == 2 && ev.fail == 0 && ev.job == &job3 &&
		       json_real_value(json_object_get(ev.result, "copy_gbps")) == 4300.0,
	       "then a small request to the same worker is answered as itself (the big one's bytes all written, none after)");
	wpool_release(r, w);
	wpool_free(r);

	/* a step cancelled while its worker runs the request: that worker is
	 * killed, and its late answer is nobody's (the next job's worker
	 * answers the next job) */
	setenv("KOPT_SIM_DELAY_MS", "1500", 1);
	r = ping_pool(sim, &ev, &dev, &w, &job);
	poll_until(r, pp[0], &ev, &ev.hello, 1, 20);
	TAP_IS_INT(ev.hello, 1, "the worker said hello: the ping runs");
	wpool_cancel_jobs(r);
	TAP_IS_INT(wpool_held(r, -1), 0, "cancelled: no worker is held");
	poll_until(r, pp[0], &ev, &ev.reply, 1, 2.5);
	TAP_IS_INT(ev.reply, 0, "the cancelled ping's answer never comes");
	unsetenv("KOPT_SIM_DELAY_MS");
	int job2 = 8;
	w = wpool_acquire(r, dev, false, 1);
	req = json_pack("{s:s}", "op", "ping");
	wpool_send(r, w, req, &job2);
	json_decref(req);
	poll_until(r, pp[0], &ev, &ev.reply, 1, 20);
	TAP_OK(ev.reply == 1 && ev.job == &job2 && ev.fail == 0, "the next job's ping is answered, to that job");
	wpool_release(r, w);
	wpool_free(r);

	/* a signal caught during the wait (koptmake's SIGINT and SIGTERM
	 * handlers do not restart calls), then the worker dies during a
	 * request: its death is told, and the pool does not spin on the
	 * closed pipe (errno still says EINTR when read(2) then returns 0) */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	setenv("KOPT_SIM_DELAY_MS", "3000", 1);
	setenv("KOPT_SIM_DIE", "800", 1);
	r = ping_pool(sim, &ev, &dev, &w, &job);
	poll_until(r, pp[0], &ev, &ev.hello, 1, 20);
	pid_t kid = fork();
	if (kid == 0) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	alarm(15); /* a pool that spins fails the test here */
	int woke, e;
	double until = kopt_now() + 10;
	do { /* the worker's stderr may wake it first */
		woke = wpool_poll(r, pp[0], 10, on_event, &ev);
		e = errno;
	} while (!sigs && !ev.fail && kopt_now() < until);
	int fail_then = ev.fail;
	waitpid(kid, NULL, 0);
	poll_until(r, pp[0], &ev, &ev.fail, 1, 10);
	alarm(0);
	TAP_OK(ev.hello == 1 && sigs == 1 && woke == 0 && fail_then == 0 && e == EINTR,
	       "a signal ends the wait, nothing told");
	tap_diag("hello %d, signals %d, woke %d, failures %d, errno %d", ev.hello, sigs, woke, fail_then, e);
	TAP_OK(ev.fail == 1 && ev.reply == 0 && strstr(ev.reason, "killed by signal") && strstr(ev.reason, "during ping"),
	       "then the worker's death during its request is told");
	tap_diag("%s", ev.reason);
	TAP_IS_INT(wpool_held(r, -1), 0, "and its slot is free");
	wpool_free(r);
	unsetenv("KOPT_SIM_DELAY_MS");

	/* a worker whose pipes close a moment before it ends (20 ms, as a
	 * Python tearing down): its own exit status is told, not the kill
	 * that would follow had it not ended within the pool's 0.1 s */
	setenv("KOPT_SIM_DELAY_MS", "3000", 1);
	setenv("KOPT_SIM_DIE", "300", 1);
	setenv("KOPT_SIM_LINGER_MS", "20", 1);
	r = ping_pool(sim, &ev, &dev, &w, &job);
	poll_until(r, pp[0], &ev, &ev.fail, 1, 10);
	TAP_OK(ev.fail == 1 && strstr(ev.reason, "exited with status 5") && strstr(ev.reason, "during ping"),
	       "a worker that takes a moment to end: its own exit status is told (%s)", ev.reason);
	wpool_free(r);
	unsetenv("KOPT_SIM_LINGER_MS");
	unsetenv("KOPT_SIM_DELAY_MS");

	/* a worker that dies while idle (given back after its ping): no job
	 * was its, so nobody is told, and the slot serves the next job */
	setenv("KOPT_SIM_DIE", "600", 1);
	r = ping_pool(sim, &ev, &dev, &w, &job);
	poll_until(r, pp[0], &ev, &ev.reply, 1, 20);
	wpool_release(r, w);
	unsetenv("KOPT_SIM_DIE");
	double idle_end = kopt_now() + 1.5;
	while (kopt_now() < idle_end)
		wpool_poll(r, pp[0], idle_end - kopt_now(), on_event, &ev);
	TAP_OK(ev.reply == 1 && ev.fail == 0, "a worker that dies idle: no job is told (%d replies, %d failures)", ev.reply,
	       ev.fail);
	w = wpool_acquire(r, dev, false, 1);
	req = json_pack("{s:s}", "op", "ping");
	wpool_send(r, w, req, &job2);
	json_decref(req);
	poll_until(r, pp[0], &ev, &ev.reply, 2, 20);
	TAP_OK(w >= 0 && ev.reply == 2 && ev.job == &job2 && ev.fail == 0, "... and the next job's worker answers it");
	wpool_release(r, w);
	wpool_free(r);

	/* the environment probe of a worker that exits before its hello: no
	 * environment, and why, with the worker's last words */
	setenv("KOPT_SIM_DIE", "hello", 1);
	r = wpool_new(sim, 1);
	dev = wpool_device(r, "sim", 1, NULL, 30);
	char *why = NULL;
	json_t *env = wpool_probe(r, dev, &why);
	TAP_OK(!env && why && strstr(why, "exited with status 3 before its hello") && strstr(why, "no CUDA device"),
	       "a worker that dies before its hello: the probe says so");
	if (why)
		tap_diag("%s", why);
	json_decref(env);
	free(why);
	wpool_free(r);
	unsetenv("KOPT_SIM_DIE");
	/* one that exits before its hello and says nothing: the reason alone,
	 * nothing after it */
	r = wpool_new("/bin/true", 1);
	dev = wpool_device(r, "sim", 1, NULL, 30);
	env = wpool_probe(r, dev, &why);
	TAP_OK(!env && why && strstr(why, "before its hello") && why[strlen(why) - 1] != ' ' && !strchr(why, ':'),
	       "a worker that dies before its hello without a word: the probe says so, and no ': ' after it");
	if (why)
		tap_diag("%s", why);
	json_decref(env);
	free(why);
	wpool_free(r);
	json_decref(ev.result);
	close(pp[0]);
	close(pp[1]);

	no_descriptors(sim);
	wpool_free(p);
	wpool_free(q);
	free(sim);
	return tap_done();
}
