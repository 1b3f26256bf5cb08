/* engine/interrupt.c: see interrupt.h */
#define _GNU_SOURCE
#include <config.h>

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t interrupt_caught;

int interrupt_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int e = errno;
	interrupt_caught = sig;
	if (interrupt_pipe[1] >= 0) {
		ssize_t r = write(interrupt_pipe[1], "x", 1);
		(void)r;
	}
	errno = e;
}

/* SIGINT and SIGTERM interrupt a build through a self-pipe */
void interrupt_set(struct interrupt_handlers *h)
{
	struct sigaction sa;
	h->set = true;
	interrupt_caught = 0;
	if (pipe2(interrupt_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		interrupt_pipe[0] = interrupt_pipe[1] = -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &h->old_int);
	sigaction(SIGTERM, &sa, &h->old_term);
}

void interrupt_restore(struct interrupt_handlers *h)
{
	if (!h->set)
		return;
	sigaction(SIGINT, &h->old_int, NULL);
	sigaction(SIGTERM, &h->old_term, NULL);
	if (interrupt_pipe[0] >= 0) {
		close(interrupt_pipe[0]);
		close(interrupt_pipe[1]);
	}
	interrupt_pipe[0] = interrupt_pipe[1] = -1;
}
