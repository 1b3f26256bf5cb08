/*
 * tests/unit/io_fail_test.c: the disk's errors that no full disk makes:
 * fsync, fdatasync and renameat failing with EIO (linked with
 * -Wl,--wrap: the __wrap_ functions below are TEST DOUBLES of those
 * calls, each failing after a count of calls that pass). Where each is
 * called (the action map's sync, an object's file and its rename, an
 * output's file, its rename and its folder, the memory's compaction, a new
 * seal key), the call fails, says what it could not write with the
 * system's reason, leaves no temporary file, and what was there stays.
 * And read (a TEST DOUBLE too): a read interrupted by a signal (EINTR,
 * nothing read) is tried again, so an output's check reads it whole; one
 * that fails with EIO makes the output one that cannot be read, and a seal
 * key whose random bytes cannot be read is not made. And fstat (a TEST
 * DOUBLE): an action map whose size cannot be read is not opened.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agents/memory.h"
#include "../../common/util.h"
#include "../../engine/cache.h"
#include "../../engine/outdir.h"
#include "../../engine/seal.h"
#include "../fixture.h"
#include "../tap.h"

/* calls that pass before the next fails: -1 never fails */
static int fsync_pass = -1, fdatasync_pass = -1, renameat_pass = -1, read_pass = -1, fstat_pass = -1;
/* while above 0: a read is interrupted (EINTR, nothing read) before each
 * one that goes through, counting down */
static int read_interrupts;

int __real_fsync(int fd);
int __real_fdatasync(int fd);
int __real_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __wrap_fsync(int fd);
int __wrap_fdatasync(int fd);
int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
int __real_fstat(int fd, struct stat *st);
int __wrap_fstat(int fd, struct stat *st);

static int fail_now(int *pass)
{
	if (*pass < 0)
		return 0;
	if (*pass == 0) {
		errno = EIO;
		return 1;
	}
	(*pass)--;
	return 0;
}

int __wrap_fsync(int fd)
{
	return fail_now(&fsync_pass) ? -1 : __real_fsync(fd);
}

int __wrap_fdatasync(int fd)
{
	return fail_now(&fdatasync_pass) ? -1 : __real_fdatasync(fd);
}

int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	return fail_now(&renameat_pass) ? -1 : __real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int __wrap_fstat(int fd, struct stat *st)
{
	return fail_now(&fstat_pass) ? -1 : __real_fstat(fd, st);
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	static bool through; /* the call after an interruption goes through */
	if (read_interrupts > 0 && !through) {
		read_interrupts--;
		through = true;
		errno = EINTR;
		return -1;
	}
	through = false;
	/* a read that goes through leaves errno as it was: EINTR */
	return fail_now(&read_pass) ? -1 : __real_read(fd, buf, n);
}

static char *dir;
static struct fx_caught caught;

/* stderr caught until said() */
static void listen(void)
{
	fx_catch_start(&caught);
}

/* what was said since listen() (caller frees); the failures back off */
static char *said(void)
{
	char buf[2048];
	fx_catch_end(&caught, buf, sizeof buf);
	fsync_pass = fdatasync_pass = renameat_pass = fstat_pass = -1;
	return xstrdup(buf);
}

static void test_cache(void)
{
	char *cd = xasprintf("%s/cache", dir), *objects = xasprintf("%s/cache/objects", dir);
	kopt_cache *c = cache_open(cd);
	kopt_hash k = { 1, 2 }, h;
	TAP_OK(c && cache_put(c, k, k, "{\"a\":1}") == 0, "a cache with a record");
	listen();
	fdatasync_pass = 0;
	int r = c ? cache_sync(c, true) : 0;
	char *s = said();
	TAP_OK(r == -1 && strstr(s, "cannot sync '") && strstr(s, "/cache/actions': Input/output error"),
	       "the action map's sync fails: -1, said with the reason (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	listen();
	fsync_pass = 0;
	r = c ? cache_object_put(c, "one object", 10, &h) : 0;
	s = said();
	TAP_OK(r == -1 && strstr(s, "cannot write '") && strstr(s, "/objects/tmp.") && strstr(s, "Input/output error") &&
	       fx_files_with(objects, "tmp.") == 0,
	       "an object whose file cannot be synced: -1, said, no temporary file left (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	listen();
	renameat_pass = 0;
	r = c ? cache_object_put(c, "one object", 10, &h) : 0;
	s = said();
	TAP_OK(r == -1 && strstr(s, "cannot rename '") && strstr(s, "Input/output error") && fx_files_with(objects, "tmp.") == 0,
	       "an object that cannot be renamed into place: -1, said, no temporary file left (%.*s)", (int)strcspn(s, "\n"),
	       s);
	free(s);
	struct strbuf got = STRBUF_INIT;
	TAP_OK(c && cache_object_put(c, "one object", 10, &h) == 0 && cache_object_get(c, h, &got) == 0 && got.len == 10,
	       "and the disk well again, the object is stored");
	strbuf_release(&got);
	if (c)
		cache_close(c);
	/* the action map's size cannot be read (fstat fails): the cache is
	 * not opened on a map it did not read, and says so */
	listen();
	fstat_pass = 0;
	c = cache_open(cd);
	s = said();
	TAP_OK(!c && strstr(s, "cannot read '") && strstr(s, "Input/output error"),
	       "an action map whose size cannot be read: not opened, said with the reason (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	if (c)
		cache_close(c);
	free(cd);
	free(objects);
}

static void test_outdir(void)
{
	char *root = xasprintf("%s/out", dir), *m = xasprintf("%s/out/m", dir);
	TAP_OK(outdir_write(root, "m/report.md", "before\n", 7) == 0, "an output written");
	static const struct { int *which; int pass; const char *what; } cases[] = {
		{ &fsync_pass, 0, "whose file cannot be synced" },
		{ &renameat_pass, 0, "that cannot be renamed into place" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		listen();
		*cases[i].which = cases[i].pass;
		int r = outdir_write(root, "m/report.md", "after\n", 6);
		char *s = said();
		struct strbuf now = STRBUF_INIT;
		char *p = xasprintf("%s/report.md", m);
		strbuf_read_file(&now, p);
		strbuf_addstr(&now, "");
		TAP_OK(r == -1 && strstr(s, "cannot write '") && strstr(s, "/out/m/report.md': Input/output error") &&
		       strcmp(now.buf, "before\n") == 0 && fx_files_with(m, ".tmp") == 0,
		       "an output %s: -1, said, the old one in place, no temporary file (%.*s)", cases[i].what,
		       (int)strcspn(s, "\n"), s);
		free(p);
		free(s);
		strbuf_release(&now);
	}
	/* the folder's sync after the rename: the new file is there, and the
	 * call says the write may not last */
	listen();
	fsync_pass = 1;
	int r = outdir_write(root, "m/report.md", "after\n", 6);
	char *s = said();
	TAP_OK(r == -1 && strstr(s, "/out/m/report.md': Input/output error"),
	       "an output whose folder cannot be synced: -1, said (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	free(root);
	free(m);
}

/* an output's check (koptmake's up-to-date test of kopt-out/) reading a
 * file of several reads' worth: interrupted reads are tried again and the
 * bytes read whole; a read that fails is a file that cannot be read */
static void test_outdir_read(void)
{
	char *root = xasprintf("%s/out", dir);
	size_t n = 200000;
	char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 23);
	kopt_hash h = hash_bytes(data, n);
	const char *why = "?";
	int ok = outdir_write(root, "m/big.bin", data, n) == 0;
	read_interrupts = 1000;
	enum outdir_state st = outdir_check(root, "m/big.bin", n, h, &why);
	int interrupted = 1000 - read_interrupts;
	read_interrupts = 0;
	TAP_OK(ok && st == OUTDIR_SAME && *why == '\0' && interrupted > 1,
	       "an output's check whose reads are interrupted by a signal (%d times) tries again: the same file (%d, '%s')",
	       interrupted, (int)st, why);
	why = "?";
	read_pass = 1;
	st = outdir_check(root, "m/big.bin", n, h, &why);
	read_pass = -1;
	TAP_OK(st == OUTDIR_DIFFERS && strcmp(why, "it cannot be read") == 0,
	       "an output's check whose second read fails (EIO): it cannot be read (%d, '%s')", (int)st, why);
	free(data);
	free(root);
}

static void test_memory(void)
{
	char *path = xasprintf("%s/memory.jsonl", dir);
	for (int i = 0; i < 3; i++)
		memory_append(path, "m", "0123456789abcdef", "x-up", "XBLOCK=1024", "k1", 1, 1.25);
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	strbuf_read_file(&before, path);
	size_t kept, dropped;
	listen();
	fsync_pass = 0;
	int r = memory_compact(path, &kept, &dropped);
	char *s = said();
	strbuf_read_file(&after, path);
	TAP_OK(r == -1 && strstr(s, "cannot compact ") && strstr(s, "memory.jsonl") && before.len == after.len &&
	       memcmp(before.buf, after.buf, before.len) == 0 && fx_files_with(dir, "memory.jsonl.tmp") == 0,
	       "a compaction that cannot be synced: -1, said, the memory as it was, no temporary file (%.*s)",
	       (int)strcspn(s, "\n"), s);
	free(s);
	strbuf_release(&before);
	strbuf_release(&after);
	free(path);
}

static void test_seal_key(void)
{
	char *cfg = xasprintf("%s/config", dir), *key = xasprintf("%s/config/koptmake/seal.key", dir);
	char *kdir = xasprintf("%s/config/koptmake", dir);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	unsetenv("KOPT_SEAL_KEY");
	seal_key_reset();
	listen();
	fsync_pass = 0;
	int r = seal_key_load();
	char *s = said();
	struct stat st;
	TAP_OK(r == -1 && strstr(s, "cannot write the seal key '") && strstr(s, "seal.key': Input/output error") &&
	       stat(key, &st) < 0 && fx_files_with(kdir, "") == 2,
	       "a seal key that cannot be synced: no key, said, no file left (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	/* the key's random bytes cannot be read: the system's reason, no key */
	seal_key_reset();
	listen();
	read_pass = 0;
	r = seal_key_load();
	read_pass = -1;
	s = said();
	TAP_OK(r == -1 && strstr(s, "cannot make a seal key: /dev/urandom: Input/output error") && stat(key, &st) < 0 &&
	       fx_files_with(kdir, "") == 2,
	       "a seal key whose random bytes cannot be read: no key, the reason said (%.*s)", (int)strcspn(s, "\n"), s);
	free(s);
	seal_key_reset();
	TAP_OK(seal_key_load() == 0 && stat(key, &st) == 0 && st.st_size == 65, "and the disk well again, a key is made");
	seal_key_reset();
	free(cfg);
	free(key);
	free(kdir);
}

int main(void)
{
	dir = fx_tmpdir("iofail");
	test_cache();
	test_outdir();
	test_outdir_read();
	test_memory();
	test_seal_key();
	fx_rmrf(dir);
	free(dir);
	return tap_done();
}
