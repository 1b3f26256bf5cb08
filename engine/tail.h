/*
 * engine/tail.h: the last lines of a stream, kept for messages: a worker's
 * stderr, shown when it fails. Lines are cut to TAIL_LINE bytes; a line
 * that never ends is kept in pieces of four times that.
 */
#ifndef KOPT_TAIL_H
#define KOPT_TAIL_H

#include "../common/util.h"

#include <stdbool.h>

#define TAIL_LINES 8  /* lines kept */
#define TAIL_LINE 300 /* bytes kept of each */

struct tail {
	struct strbuf part;       /* bytes not yet a full line */
	char *lines[TAIL_LINES];  /* a ring, oldest at head */
	int head, n;
	int log;                  /* every byte read is also written here; -1: none */
};

void tail_init(struct tail *t);
/* reads what the non-blocking fd has (a copy of it to t->log where that is
 * set); returns 1 at its end (the unfinished line then kept as a line), else 0 */
int tail_read(struct tail *t, int fd);
/* the lines kept, oldest first, '\n'-separated ("" for none); caller frees */
char *tail_text(const struct tail *t);
/* from now on a copy of every byte read also goes to the file root/rel
 * (opened without following a link below root: common/nofollow.h), emptied
 * first, or appended to with append, after the line head; until
 * tail_clear. 0, or -1 with errno where it cannot be opened (the ring goes on) */
int tail_copy_to(struct tail *t, const char *root, const char *rel, bool append, const char *head);
/* forgets every line (a new stream), and stops the copy */
void tail_clear(struct tail *t);
void tail_release(struct tail *t);

#endif
