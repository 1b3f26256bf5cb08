/*
 * tests/unit/wpool_test.c: the worker pool's slots, with the simulated
 * worker (tests/sim-worker, a test double of kopt-worker). wpool_full says
 * that no job can have a worker: the scheduler stops trying its queue
 * there (trying the whole queue at each event made a 10,000-model build
 * quadratic in its ready steps, issue 24). A pool with a free slot may
 * still refuse a job (a timing job holds its GPU alone): the scheduler
 * must go on trying the others then.
 */
#include <config.h>

#include <stdlib.h>

#include "../../common/util.h"
#include "../../engine/worker_pool.h"
#include "../tap.h"

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

	/* one GPU, two slots: a timing job holds the GPU alone, so a slot is
	 * free and still no job can have it */
	wpool *q = wpool_new(sim, 2);
	dev = wpool_device(q, "sim", 1, NULL, 30);
	t = wpool_acquire(q, dev, true, 1);
	TAP_OK(t >= 0 && !wpool_full(q), "a timing job on the only GPU: one slot held, not full");
	TAP_IS_INT(wpool_acquire(q, dev, false, 2), -1, "yet no job has a worker: the GPU is the timing job's");
	wpool_release(q, t);
	TAP_OK(wpool_acquire(q, dev, false, 2) >= 0, "the GPU given back: a job has one");

	wpool_free(p);
	wpool_free(q);
	free(sim);
	return tap_done();
}
