/*
 * tests/unit/interrupt_test.c: engine/interrupt.c's self-pipe. A signal
 * between interrupt_set and interrupt_restore is caught and makes the
 * pipe readable; restore puts the process's handlers back and closes both
 * ends of the pipe (a build that leaked one end per run would run out of
 * descriptors in a long-lived process).
 */
#define _GNU_SOURCE
#include <config.h>

#include "../engine/interrupt.h"
#include "../tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t mine;
static void on_mine(int sig)
{
	mine = sig;
}

static int is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_mine;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);

	for (int round = 1; round <= 2; round++) {
		struct interrupt_handlers h;
		memset(&h, 0, sizeof h);
		interrupt_caught = 0;
		interrupt_set(&h);
		int r = interrupt_pipe[0], w = interrupt_pipe[1];
		TAP_OK(is_open(r) && is_open(w) && r != w, "round %d: set opens the pipe's two ends (%d, %d)", round, r, w);
		raise(SIGINT);
		struct pollfd p = { .fd = r, .events = POLLIN };
		TAP_OK(interrupt_caught == SIGINT && poll(&p, 1, 0) == 1 && (p.revents & POLLIN),
		       "round %d: SIGINT is caught and makes the pipe readable", round);
		interrupt_restore(&h);
		TAP_OK(!is_open(r) && errno == EBADF && !is_open(w) && errno == EBADF,
		       "round %d: restore closes both ends of the pipe", round);
		TAP_OK(interrupt_pipe[0] == -1 && interrupt_pipe[1] == -1, "round %d: and forgets them", round);
		mine = 0;
		raise(SIGTERM);
		TAP_OK(mine == SIGTERM && interrupt_caught == SIGINT,
		       "round %d: restore puts the process's own SIGTERM handler back", round);
	}
	return tap_done();
}
