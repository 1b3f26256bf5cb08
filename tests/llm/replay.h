/*
 * tests/llm/replay.h: start and stop tests/llm/replay_server.py (a test
 * double on 127.0.0.1 replaying recorded LLM replies) from a C test, and
 * read its request log. Header-only; include it from one file per program.
 * The including file sets srcdir, python and tmpdir (mkdtemp) first.
 */
#ifndef KOPT_TEST_REPLAY_H
#define KOPT_TEST_REPLAY_H

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

static const char *srcdir;
static char tmpdir[] = "/tmp/kopt-llm-test-XXXXXX";
static const char *python;

struct server {
	pid_t pid;
	int port;
	char log[512];
	char url[128];
};

/* 0 started; -1 failed; 1 the interpreter is missing (exit 127) */
static int server_start(struct server *s, const char *scenario)
{
	char script[1024], prog[1024];
	int fd[2];
	snprintf(script, sizeof script, "%s/tests/llm/scripts/%s.json", srcdir, scenario);
	snprintf(prog, sizeof prog, "%s/tests/llm/replay_server.py", srcdir);
	snprintf(s->log, sizeof s->log, "%s/%s.log", tmpdir, scenario);
	unlink(s->log);
	s->port = 0;
	if (pipe(fd) < 0)
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(python, python, prog, script, "--log", s->log, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char line[64];
	size_t n = 0;
	struct pollfd pfd = { fd[0], POLLIN, 0 };
	while (n < sizeof line - 1 && poll(&pfd, 1, 10000) > 0) {
		ssize_t r = read(fd[0], line + n, 1);
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(fd[0]);
	s->port = atoi(line);
	if (s->port <= 0) {
		int st = 0;
		kill(s->pid, SIGTERM);
		waitpid(s->pid, &st, 0);
		return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? 1 : -1;
	}
	snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", s->port);
	return 0;
}

static void server_stop(struct server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

/* the requests the server saw, as a JSON array (caller decrefs) */
static json_t *server_requests(const struct server *s)
{
	json_t *all = json_array();
	FILE *f = fopen(s->log, "r");
	if (!f)
		return all;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		json_t *r = json_loads(line, 0, NULL);
		if (r)
			json_array_append_new(all, r);
	}
	free(line);
	fclose(f);
	return all;
}

static inline const char *req_header(json_t *req, const char *name)
{
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(req, "headers"), k, v)
		if (strcasecmp(k, name) == 0)
			return json_string_value(v);
	return NULL;
}

#endif
