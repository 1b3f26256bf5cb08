/*
 * tests/unit/wpool_protocol_test.c: workers that break the protocol
 * (runtime/PROTOCOL.md), each a few lines of shell standing in for
 * kopt-worker (TEST DOUBLES): no hello, another protocol, an answer to
 * another request, an answer without an id or ok, a line that is not
 * JSON (cut at 60 bytes, its control bytes shown as '?'), silence past
 * the device's timeout before the hello and after a request, and an exit
 * in the middle of a request. The job that sent the request fails once,
 * with a reason that says which, and its slot is free again. A hello
 * whose sandbox confines less than the files and the network is warned.
 */
#define _GNU_SOURCE
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../engine/worker_pool.h"
#include "../tap.h"

struct seen {
	int hello, reply, fail;
	char reason[512];
};

static int on_event(void *ctx, const struct wpool_event *ev)
{
	struct seen *s = ctx;
	if (ev->kind == WPOOL_HELLO)
		s->hello++;
	else if (ev->kind == WPOOL_REPLY)
		s->reply++;
	else {
		s->fail++;
		snprintf(s->reason, sizeof s->reason, "%s", ev->reason ? ev->reason : "");
	}
	return 0;
}

static char dir[] = "/tmp/kopt-wproto-XXXXXX";
static const char HELLO[] = "echo '{\"hello\":\"kopt-test\",\"protocol\":1}'\n";
/* the request's id, as the worker would read it */
static const char ID[] = "read -r l; id=$(printf '%s' \"$l\" | sed 's/.*\"id\": *\\([0-9]*\\).*/\\1/')\n";

/* a worker whose script is body, sent one ping with timeout seconds: the
 * events it caused */
static struct seen run(const char *name, const char *body, double timeout)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\n%s", body);
		fclose(f);
	}
	chmod(path, 0755);
	struct seen s = { 0 };
	wpool *p = wpool_new(path, 1);
	int dev = wpool_device(p, "test", 1, NULL, timeout);
	int w = wpool_acquire(p, dev, false, 1);
	json_t *req = json_pack("{s:s}", "op", "ping");
	int job = 1;
	if (w >= 0)
		wpool_send(p, w, req, &job);
	json_decref(req);
	double end = kopt_now() + 20;
	while (!s.fail && !s.reply && kopt_now() < end)
		wpool_poll(p, -1, end - kopt_now(), on_event, &s);
	if (wpool_held(p, -1))
		wpool_release(p, w);
	if (wpool_held(p, -1) != 0)
		s.fail = -1;
	wpool_free(p);
	free(path);
	return s;
}

/* a worker that says hello, reads the request and goes on with tail */
static struct seen answering(const char *name, const char *tail, double timeout)
{
	char *body = xasprintf("%s%s%s", HELLO, ID, tail);
	struct seen s = run(name, body, timeout);
	free(body);
	return s;
}

static void said(const struct seen *s, const char *want, const char *what)
{
	TAP_OK(s->fail == 1 && s->reply == 0 && strstr(s->reason, want), "%s: the job fails once, with '%s' (%s)", what,
	       want, s->reason);
}

/* what a worker whose hello says sandbox sb (JSON) makes koptmake say on
 * stderr, for one good answer */
static char *sandbox_says(const char *name, const char *sb)
{
	char *body = xasprintf("echo '{\"hello\":\"kopt-test\",\"protocol\":1,\"sandbox\":%s}'\n%s"
			       "echo '{\"id\":'$id',\"ok\":true,\"result\":{}}'\nexec sleep 30\n", sb, ID);
	fflush(stderr);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	if (tmp)
		dup2(fileno(tmp), 2);
	struct seen s = run(name, body, 30);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[1024] = "";
	if (tmp) {
		rewind(tmp);
		size_t n = fread(buf, 1, sizeof buf - 1, tmp);
		buf[n] = '\0';
		fclose(tmp);
	}
	free(body);
	return xstrdup(s.reply == 1 && s.fail == 0 ? buf : "(no reply)");
}

/* the warning of a sandbox weaker than both confinements, worded by the
 * worker's "how", "not confined" without it; none for a whole sandbox */
static void sandbox_warnings(void)
{
	static const struct {
		const char *sb, *said;
	} cases[] = {
		{ "{\"fs\":true,\"net\":true,\"how\":\"landlock+seccomp\"}", "" },
		{ "{\"fs\":true,\"net\":false,\"how\":\"no seccomp\"}",
		  "koptmake: warning: the workers run with a weaker sandbox: no seccomp (koptmake(1), THE WORKERS' SANDBOX)\n" },
		{ "{\"fs\":false,\"net\":true,\"how\":\"no landlock\"}",
		  "koptmake: warning: the workers run with a weaker sandbox: no landlock (koptmake(1), THE WORKERS' SANDBOX)\n" },
		{ "{\"fs\":false,\"net\":false}",
		  "koptmake: warning: the workers run with a weaker sandbox: not confined (koptmake(1), THE WORKERS' SANDBOX)\n" },
		{ "\"off\"", "" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32];
		snprintf(name, sizeof name, "sandbox%zu", i);
		char *got = sandbox_says(name, cases[i].sb);
		if (strcmp(got, cases[i].said) == 0)
			right++;
		else
			tap_diag("%s: said '%s'", cases[i].sb, got);
		free(got);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases),
		   "a hello's sandbox: a warning unless both the files and the network are confined, worded by its how");
}

int main(void)
{
	unsetenv("KOPT_LAUNCHER");
	if (!mkdtemp(dir)) {
		TAP_OK(0, "a scratch folder");
		return tap_done();
	}
	struct seen s = run("nohello", "echo '{\"ready\":true}'\nexec sleep 30\n", 30);
	said(&s, "worker did not start with a hello", "a first line that is not a hello");
	s = run("proto", "echo '{\"hello\":\"kopt-test\",\"protocol\":99}'\nexec sleep 30\n", 30);
	said(&s, "worker speaks protocol 99; koptmake speaks 1", "a hello of another protocol");

	s = answering("otherid", "echo '{\"id\":424242,\"ok\":true,\"result\":{}}'\nexec sleep 30\n", 30);
	said(&s, "worker answered id 424242 to request ", "an answer to another request");
	TAP_OK(strstr(s.reason, " (ping)") != NULL, "... which names the request's op (%s)", s.reason);
	s = answering("noid", "echo '{\"ok\":true,\"result\":{}}'\nexec sleep 30\n", 30);
	said(&s, "worker answered ping without an id and ok", "an answer without an id");
	s = answering("okstring", "echo '{\"id\":'$id',\"ok\":\"yes\"}'\nexec sleep 30\n", 30);
	said(&s, "worker answered ping without an id and ok", "an answer whose ok is not true or false");
	s = answering("good", "echo '{\"id\":'$id',\"ok\":true,\"result\":{\"pong\":1}}'\nexec sleep 30\n", 30);
	TAP_OK(s.reply == 1 && s.fail == 0 && s.hello == 1, "the same worker answering its request's id: a reply");

	s = answering("garbage", "printf 'Traceback: \\001 this line is not JSON and runs on past sixty bytes of text\\n'\n"
			      "exec sleep 30\n", 30);
	said(&s, "worker answered a line that is not a JSON object during ping: 'Traceback: ? this line is not JSON "
		 "and runs on past sixty by...'", "a line that is not JSON, long, with a control byte");
	s = run("early", "printf 'oops\\n'\nexec sleep 30\n", 30);
	said(&s, "worker answered a line that is not a JSON object before its hello: 'oops'", "a line that is not JSON before the hello");

	s = run("mute", "exec sleep 30\n", 0.5);
	said(&s, "worker did not say hello within 0.5s; killed", "no hello within the device's timeout");
	s = answering("slow", "exec sleep 30\n", 0.5);
	said(&s, "worker did not answer ping within 0.5s (timeout); killed", "no answer within the device's timeout");
	s = answering("quits", "exit 7\n", 30);
	said(&s, "exited with status 7", "a worker that exits in the middle of a request");
	TAP_OK(strstr(s.reason, "ping") != NULL, "... during its request, named (%s)", s.reason);
	sandbox_warnings();

	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	free(cmd);
	return tap_done();
}
