/* engine/tail.c: see tail.h */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "tail.h"

#include "../common/nofollow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tail_init(struct tail *t)
{
	memset(t, 0, sizeof *t);
	strbuf_init(&t->part);
	t->log = -1;
}

static void add_line(struct tail *t, const char *s, size_t n)
{
	if (n > TAIL_LINE)
		n = TAIL_LINE;
	int slot = (t->head + t->n) % TAIL_LINES;
	if (t->n == TAIL_LINES) {
		slot = t->head;
		t->head = (t->head + 1) % TAIL_LINES;
	} else {
		t->n++;
	}
	free(t->lines[slot]);
	t->lines[slot] = xstrndup(s, n);
}

int tail_read(struct tail *t, int fd)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				return 0; /* EAGAIN: more later */
			if (t->part.len)
				add_line(t, t->part.buf, t->part.len);
			strbuf_reset(&t->part);
			return 1;
		}
		if (t->log >= 0 && kopt_write_all(t->log, buf, (size_t)r) < 0) {
			close(t->log); /* a full disk loses the copy, not the worker */
			t->log = -1;
		}
		strbuf_add(&t->part, buf, (size_t)r);
		char *s = t->part.buf, *nl;
		while ((nl = memchr(s, '\n', t->part.len - (size_t)(s - t->part.buf)))) {
			if (nl > s)
				add_line(t, s, (size_t)(nl - s));
			s = nl + 1;
		}
		size_t rest = t->part.len - (size_t)(s - t->part.buf);
		memmove(t->part.buf, s, rest);
		t->part.len = rest;
		t->part.buf[rest] = '\0';
		if (t->part.len > 4 * TAIL_LINE) {
			add_line(t, t->part.buf, t->part.len);
			strbuf_reset(&t->part);
		}
	}
}

char *tail_text(const struct tail *t)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < t->n; i++) {
		if (sb.len)
			strbuf_addch(&sb, '\n');
		strbuf_addstr(&sb, t->lines[(t->head + i) % TAIL_LINES]);
	}
	return strbuf_detach(&sb);
}

int tail_copy_to(struct tail *t, const char *root, const char *rel, bool append, const char *head)
{
	if (t->log >= 0)
		close(t->log);
	t->log = nofollow_open(root, rel, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
	if (t->log >= 0 && head && kopt_write_all(t->log, head, strlen(head)) < 0) {
		close(t->log);
		t->log = -1;
	}
	return t->log >= 0 ? 0 : -1;
}

void tail_clear(struct tail *t)
{
	if (t->log >= 0)
		close(t->log);
	t->log = -1;
	strbuf_reset(&t->part);
	for (int i = 0; i < TAIL_LINES; i++) {
		free(t->lines[i]);
		t->lines[i] = NULL;
	}
	t->head = t->n = 0;
}

void tail_release(struct tail *t)
{
	tail_clear(t);
	strbuf_release(&t->part);
}
