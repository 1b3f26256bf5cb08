/*
 * tests/unit/issue24_memory_test.c: the agents' long-term memory as issue
 * 24 left it (agents/memory.c): read into an index once and then only its
 * new lines, a verdict counted once, and compacted by -t gc; -t memory's
 * launch-config table.
 */
#define _GNU_SOURCE
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agents/memory.h"
#include "../../common/util.h"
#include "../tap.h"

#define CLS "reduction/looped/r14/b26"

static void put(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);
	if (!f)
		kopt_die("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static const char *lesson(char *buf, size_t n, const char *scope, const char *s, int pass, const char *k)
{
	snprintf(buf, n, "{\"p\":\"%s\",\"f\":\"" CLS "\",\"s\":\"%s\",\"v\":\"%s\",\"x\":%s%s%s%s}\n", scope, s,
		 pass ? "pass" : "fail", pass ? "1.2" : "0", k ? ",\"k\":\"" : "", k ? k : "", k ? "\"" : "");
	return buf;
}

/* tries and wins of strategy s in the class, others' lessons (scope "me" left out) */
static void stat_of(const char *path, const char *s, int *tries, int *wins)
{
	struct memory m;
	memory_load(&m, path, CLS, "me");
	const struct mem_stat *st = memory_get(&m, s);
	*tries = st ? st->tries : 0;
	*wins = st ? st->wins : 0;
	memory_release(&m);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0)
		strbuf_addstr(&sb, "");
	return strbuf_detach(&sb);
}

static char *summary(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	memory_summary(path, NULL, f);
	fclose(f);
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/kopt-memory-test-XXXXXX";
	if (!mkdtemp(dir))
		kopt_die("mkdtemp");
	char *path = xasprintf("%s/memory.jsonl", dir), b[512];
	put(path, "w", "{\"kopt-memory\":1}\n");
	put(path, "a", lesson(b, sizeof b, "other", "warps-up", 1, "k1"));
	put(path, "a", lesson(b, sizeof b, "other", "warps-up", 1, "k1")); /* the same verdict again */
	put(path, "a", lesson(b, sizeof b, "other", "warps-up", 0, "k2"));
	put(path, "a", lesson(b, sizeof b, "other", "warps-up", 0, NULL)); /* before k existed */
	put(path, "a", lesson(b, sizeof b, "me", "warps-up", 1, "k3"));   /* the asking spec's own */
	put(path, "a", "not a lesson\n");
	int tries, wins;
	stat_of(path, "warps-up", &tries, &wins);
	TAP_OK(tries == 3 && wins == 1, "a verdict learned twice counts once; the asker's own lessons are left out "
	       "(%d tries, %d wins)", tries, wins);

	/* what is appended is read, and only when its line is whole */
	TAP_OK(memory_append(path, "other", CLS, "warps-up", NULL, "k4", 1, 1.3) == 0, "a lesson appended");
	put(path, "a", "{\"p\":\"other\",\"f\":\"" CLS "\",\"s\":\"warps-up\",");
	stat_of(path, "warps-up", &tries, &wins);
	TAP_OK(tries == 4 && wins == 2, "the appended lesson is counted, the torn one not yet (%d, %d)", tries, wins);
	put(path, "a", "\"v\":\"pass\",\"x\":1.1,\"k\":\"k5\"}\n");
	stat_of(path, "warps-up", &tries, &wins);
	TAP_OK(tries == 5 && wins == 3, "once its line is whole, it is (%d, %d)", tries, wins);
	TAP_OK(memory_append(path, "other", CLS, "warps-up", NULL, "k1", 1, 1.2) == 0, "k1 learned a third time");
	stat_of(path, "warps-up", &tries, &wins);
	TAP_OK(tries == 5 && wins == 3, "and still counted once (%d, %d)", tries, wins);

	/* another file at the same path is read anew */
	char *other = xasprintf("%s/other.jsonl", dir);
	put(other, "w", "{\"kopt-memory\":1}\n");
	put(other, "a", lesson(b, sizeof b, "other", "x-down", 0, "z1"));
	TAP_OK(rename(other, path) == 0, "the file replaced");
	stat_of(path, "warps-up", &tries, &wins);
	int xt, xw;
	stat_of(path, "x-down", &xt, &xw);
	TAP_OK(tries == 0 && xt == 1, "a replaced file is read anew (warps-up %d, x-down %d)", tries, xt);

	/* -t gc: each verdict once, the version line first, torn and unreadable lines gone */
	put(path, "w", "{\"kopt-memory\":1}\n");
	for (int i = 0; i < 3; i++) {
		put(path, "a", lesson(b, sizeof b, "other", "warps-up", 1, "k1"));
		put(path, "a", lesson(b, sizeof b, "other", "r-down", 0, "k2"));
	}
	put(path, "a", lesson(b, sizeof b, "other", "r-down", 0, NULL));
	put(path, "a", "{\"broken\n");
	put(path, "a", "{\"p\":\"torn");
	char *before = summary(path);
	struct stat st0, st1;
	stat(path, &st0);
	size_t kept, dropped;
	int fds = tap_open_fds();
	TAP_IS_INT(memory_compact(path, &kept, &dropped), 0, "memory_compact");
	TAP_OK(fds >= 0 && tap_open_fds() == fds, "compacting leaves no descriptor open (%d before, %d after)", fds,
	       tap_open_fds());
	TAP_OK(kept == 3 && dropped == 6, "3 lessons kept, 4 repeats, 1 unreadable and 1 torn line dropped (%zu, %zu)",
	       kept, dropped);
	char *text = slurp(path);
	TAP_OK(strncmp(text, "{\"kopt-memory\":1}\n", 18) == 0 && tap_count(text, "\n") == 4 && text[strlen(text) - 1] == '\n',
	       "the file: the version line and 3 whole lines");
	stat(path, &st1);
	TAP_OK(st0.st_ino != st1.st_ino, "written to a temp file and renamed into place");
	char *tmp = xasprintf("%s.tmp", path);
	TAP_OK(access(tmp, F_OK) != 0, "no temp file left");
	char *after = summary(path);
	TAP_IS_STR(after, before, "-t memory says the same before and after");
	stat_of(path, "r-down", &tries, &wins);
	TAP_OK(tries == 2 && wins == 0, "and the stats read the same (r-down %d)", tries);
	TAP_IS_INT(memory_compact(path, &kept, &dropped), 0, "compacting again");
	stat(path, &st0);
	TAP_OK(dropped == 0 && st0.st_ino == st1.st_ino, "drops nothing and leaves the file alone");
	put(other, "w", "{\"kopt-memory\":2}\n");
	TAP_IS_INT(memory_compact(other, &kept, &dropped), -1, "a memory of another version is refused");
	free(text);
	text = slurp(other);
	TAP_IS_STR(text, "{\"kopt-memory\":2}\n", "and left as it was");
	unlink(other);
	TAP_IS_INT(memory_compact(other, &kept, &dropped), 1, "no memory: nothing to do");
	/* a memory that is there and cannot be read is an error, not an
	 * empty one: -t gc says it and fails */
	mkdir(other, 0755);
	TAP_IS_INT(memory_compact(other, &kept, &dropped), -1, "a memory that cannot be read (a folder): -1");
	rmdir(other);

	/* a class whose one launch config sorts first (its one lesson counts
	 * under the strategy and the config alike, and '=' sorts before a
	 * letter): -t memory shows its launch-config table */
	put(path, "w", "{\"kopt-memory\":1}\n");
	TAP_OK(memory_append(path, "other", CLS, "warps-up", "XBLOCK=1024", "k1", 1, 1.5) == 0,
	       "a lesson with a launch config appended");
	char *one = summary(path);
	TAP_IS_STR(one ? strstr(one, "  launch config") : one,
		   "  launch config (problem's terms)                      tried passed  mean speedup of passes\n"
		   "  XBLOCK=1024                                              1      1  1.500x\n",
		   "-t memory: the launch-config table of a class whose one config sorts first");
	free(one);

	free(text);
	free(before);
	free(after);
	unlink(path);
	rmdir(dir);
	free(tmp);
	free(other);
	free(path);
	return tap_done();
}
