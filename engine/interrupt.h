/*
 * engine/interrupt.h: SIGINT and SIGTERM interrupt a build through a
 * self-pipe (internal to engine/; interrupt.c). The scheduler polls the
 * pipe's read end with its workers and stops starting steps once a signal
 * is caught.
 */
#ifndef KOPT_INTERRUPT_H
#define KOPT_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* the signal caught since interrupt_set, 0: none */
extern volatile sig_atomic_t interrupt_caught;
/* the self-pipe: a byte is written to [1] for each signal; -1: none */
extern int interrupt_pipe[2];

struct interrupt_handlers {
	bool set;
	struct sigaction old_int, old_term;
};

/* installs the handlers (the old ones kept in h) and opens the pipe */
void interrupt_set(struct interrupt_handlers *h);
/* puts back the handlers h kept and closes the pipe; nothing when h was not set */
void interrupt_restore(struct interrupt_handlers *h);

#endif
