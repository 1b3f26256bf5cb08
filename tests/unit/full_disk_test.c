/*
 * tests/unit/full_disk_test.c: the cache, the build log and the agents'
 * memory where no file can grow (a full disk, a quota): each call that
 * must write fails and says what it could not write, naming the file,
 * once (the memory leaves that to its caller); it leaves no temporary
 * file behind and no descriptor open, and what was there before stays
 * readable. Each case runs in a child whose file size
 * limit is 0 (SIGXFSZ ignored: the write fails with EFBIG, as a full disk's
 * with ENOSPC), its stderr a pipe that the limit does not hold.
 */
#define _GNU_SOURCE
#include <config.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../agents/memory.h"
#include "../../common/util.h"
#include "../../engine/blog.h"
#include "../../engine/cache.h"
#include "../../engine/hash.h"
#include "../fixture.h"
#include "../tap.h"

static char *dir;

/* runs fn in a child, with no room to write where full; its exit status
 * (0: fn's checks held), what it said on stderr into *said */
static int in_child(int (*fn)(const char *), const char *arg, bool full, struct strbuf *said)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		/* the soft limit alone: raised again before the coverage build's
		 * counts are written, which _exit would lose */
		struct rlimit rl;
		close(pfd[0]);
		if (getrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(3);
		rlim_t was = rl.rlim_cur;
		rl.rlim_cur = full ? 0 : was;
		if (dup2(pfd[1], 2) < 0 || signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(3);
		close(pfd[1]);
		int fds = tap_open_fds();
		int st = fn(arg);
		if (tap_open_fds() != fds)
			st = 4;
		fflush(stderr);
		rl.rlim_cur = was;
		setrlimit(RLIMIT_FSIZE, &rl);
		KOPT_COVER_FLUSH();
		_exit(st);
	}
	close(pfd[1]);
	strbuf_reset(said);
	char buf[512];
	for (ssize_t k; (k = read(pfd[0], buf, sizeof buf)) > 0;)
		strbuf_add(said, buf, (size_t)k);
	strbuf_addstr(said, "");
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int no_room(int (*fn)(const char *), const char *arg, struct strbuf *said)
{
	return in_child(fn, arg, true, said);
}

/* the first line said, for a TAP line */
static const char *first_line(const struct strbuf *s)
{
	static char line[400];
	snprintf(line, sizeof line, "%.*s", (int)strcspn(s->buf, "\n"), s->buf);
	return line;
}

static const kopt_hash K1 = { 0x1111, 0x2222 }, K2 = { 0x3333, 0x4444 };

/* a new cache: its action map's header cannot be written */
static int open_new(const char *cd)
{
	kopt_cache *c = cache_open(cd);
	if (c) {
		cache_close(c);
		return 1;
	}
	return 0;
}

/* an existing cache: a new record cannot be appended, nor an object
 * stored; the record already there still reads */
static int put_more(const char *cd)
{
	kopt_cache *c = cache_open(cd);
	if (!c)
		return 1;
	int st = 0;
	if (cache_put(c, K2, K2, "{\"b\":2}") != -1 || cache_get(c, K2))
		st = 2;
	kopt_hash h;
	if (cache_object_put(c, "some bytes", 10, &h) != -1)
		st = 5;
	struct cache_entry *e = cache_get(c, K1);
	if (!e || e->len != 7 || memcmp(e->json, "{\"a\":1}", 7) != 0)
		st = 6;
	cache_drop_writes(c);
	cache_close(c);
	return st;
}

/* an object that cannot be stored while the standard input is closed (a
 * build from cron, or `<&-`): its temporary file takes descriptor 0, and
 * that is closed too when the write fails */
static int put_no_stdin(const char *cd)
{
	kopt_cache *c = cache_open(cd);
	if (!c)
		return 1;
	close(0);
	int fds = tap_open_fds();
	kopt_hash h;
	int st = cache_object_put(c, "some bytes", 10, &h) != -1 ? 5 : tap_open_fds() != fds ? 7 : 0;
	cache_drop_writes(c);
	cache_close(c);
	if (open("/dev/null", O_RDONLY) != 0) /* descriptor 0 again, as it came */
		st = st ? st : 8;
	return st;
}

/* the build log: blog_ready fails, again (quietly), and the log is failed */
static int log_step(const char *path)
{
	kopt_blog *b = blog_open(path);
	int first = blog_ready(b), again = blog_ready(b);
	bool failed = blog_failed(b);
	blog_close(b);
	return first == -1 && again == -1 && failed ? 0 : 1;
}

/* the build log's compaction: its temporary file cannot be written */
static int compact_log(const char *path)
{
	kopt_blog *b = blog_open(path);
	int ready = blog_ready(b);
	blog_close(b);
	return ready == 0 ? 0 : 1;
}

/* the same, where descriptor 0 is free when the log compacts (koptmake's
 * standard input closed, from cron or a daemon) */
static int compact_log_stdin_closed(const char *path)
{
	kopt_blog *b = blog_open(path);
	int ready = blog_ready(b);
	close(0);
	blog_close(b);
	/* descriptor 0 again, so that the count of open ones is as it was */
	int fd = open("/dev/null", O_RDONLY);
	return ready == 0 && fd == 0 ? 0 : 1;
}

/* the memory: a lesson cannot be appended */
static int remember(const char *path)
{
	return memory_append(path, "m", "0123456789abcdef", "x-up", "XBLOCK=1024", "k1", 1, 1.25) == -1 ? 0 : 1;
}

static void test_cache(void)
{
	struct strbuf said = STRBUF_INIT;
	strbuf_init(&said);
	char *fresh = xasprintf("%s/fresh", dir);
	int st = no_room(open_new, fresh, &said);
	TAP_OK(st == 0 && strstr(said.buf, "cannot write '") && strstr(said.buf, "/fresh/actions': "),
	       "a new cache whose action map cannot be written: no cache, said naming the file, no descriptor left "
	       "open (%d: %s)", st, first_line(&said));

	char *cd = xasprintf("%s/cache", dir);
	kopt_cache *c = cache_open(cd);
	TAP_OK(c && cache_put(c, K1, K1, "{\"a\":1}") == 0, "a cache with one record");
	if (c)
		cache_close(c);
	st = no_room(put_more, cd, &said);
	char *objects = xasprintf("%s/objects", cd);
	TAP_OK(st == 0 && strstr(said.buf, "cannot append to '") && strstr(said.buf, "/cache/actions': "),
	       "a record that cannot be appended: -1, said naming the action map, not in the table (%d: %s)", st,
	       first_line(&said));
	TAP_OK(strstr(said.buf, "cannot write '") && strstr(said.buf, "/cache/objects/tmp."),
	       "an object that cannot be stored: -1, said naming its temporary file");
	TAP_OK(fx_files_with(objects, "tmp.") == 0, "no temporary file left in objects/ (%d)", fx_files_with(objects, "tmp."));
	st = no_room(put_no_stdin, cd, &said);
	TAP_OK(st == 0 && strstr(said.buf, "/cache/objects/tmp."),
	       "the standard input closed: an object's temporary file at descriptor 0 is closed when it cannot be written "
	       "(%d: %s)", st, first_line(&said));
	c = cache_open(cd);
	struct cache_entry *e = c ? cache_get(c, K1) : NULL;
	TAP_OK(e && e->len == 7 && c && !cache_get(c, K2), "the record of before reads back, the refused one does not");
	if (c)
		cache_close(c);
	free(objects);
	free(cd);
	free(fresh);
	strbuf_release(&said);
}

static void test_log(void)
{
	struct strbuf said = STRBUF_INIT;
	strbuf_init(&said);
	char *path = xasprintf("%s/log", dir);
	int st = no_room(log_step, path, &said);
	TAP_OK(st == 0, "a build log that cannot be written: not ready, again, failed, no descriptor left open (%d)", st);
	TAP_OK(tap_count(said.buf, "\n") == 1 && strstr(said.buf, "cannot write the build log '") &&
	       strstr(said.buf, "/log': "), "... said once, naming the log (%s)", first_line(&said));
	free(path);
	strbuf_release(&said);
}

/* a log of 4200 records of one step, which closing compacts, compacted
 * with no room: said, the log as it was, no temporary file left */
static void test_compact(void)
{
	struct strbuf said = STRBUF_INIT;
	strbuf_init(&said);
	char *full = xasprintf("%s/full-log", dir), *path = xasprintf("%s/clog", dir);
	kopt_blog *b = blog_open(full);
	struct blog_record r = { .start = 1.7e9, .dur = 1, .outcome = "ok", .kind = "verify", .path = "all/m/k",
				 .why = "new", .ingredients = "rule=1" };
	bool wrote = true;
	for (int i = 0; i < 4200 && wrote; i++)
		wrote = blog_append(b, &r) == 0;
	char *before = fx_slurp(full); /* the records, before closing compacts them */
	blog_close(b);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(before ? before : "", f);
		fclose(f);
	}
	int st = no_room(compact_log, path, &said);
	char *after = fx_slurp(path);
	TAP_OK(wrote && st == 0 && strstr(said.buf, "cannot compact the build log '") && after && before &&
	       strcmp(after, before) == 0 && fx_files_with(dir, "clog.tmp") == 0,
	       "a log that cannot be compacted: said, left as it was, its temporary file removed (%d, %s)", st,
	       first_line(&said));
	/* the same log compacted where descriptor 0 is free: it compacts as
	 * any other */
	char *p0 = xasprintf("%s/clog0", dir);
	f = fopen(p0, "w");
	if (f) {
		fputs(before ? before : "", f);
		fclose(f);
	}
	st = in_child(compact_log_stdin_closed, p0, false, &said);
	char *after0 = fx_slurp(p0);
	size_t lines0 = 0;
	for (const char *q = after0; q && *q; q++)
		lines0 += *q == '\n';
	TAP_OK(st == 0 && lines0 == 2 && !strstr(said.buf, "cannot compact"),
	       "a log compacted with descriptor 0 free: to its header and one record (%zu lines; %s)", lines0,
	       said.len ? first_line(&said) : "nothing said");
	free(after0);
	free(p0);
	free(before);
	free(after);
	free(full);
	free(path);
	strbuf_release(&said);
}

static void test_memory(void)
{
	struct strbuf said = STRBUF_INIT;
	strbuf_init(&said);
	char *path = xasprintf("%s/memory.jsonl", dir);
	int st = no_room(remember, path, &said);
	struct stat sb;
	TAP_OK(st == 0 && (stat(path, &sb) < 0 || sb.st_size == 0),
	       "a lesson that cannot be remembered: -1 (its caller, the verify rule, says so), nothing half written, "
	       "no descriptor left open (%d)", st);
	free(path);
	strbuf_release(&said);
}

int main(void)
{
	dir = fx_tmpdir("full");
	test_cache();
	test_log();
	test_compact();
	test_memory();
	fx_rmrf(dir);
	free(dir);
	return tap_done();
}
