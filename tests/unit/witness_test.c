/*
 * tests/unit/witness_test.c: engine/witness.c on files made here: a record
 * stays fresh while no file changes, and goes stale when a file's bytes, a
 * folder's names, or a missing file's existence change; the size up to
 * which a file is read whole; a path that cannot be read has no sum. And
 * witness_unfit: why a worker's hello cannot serve its device (another GPU,
 * or another environment than the device's first worker's), the field that
 * differs named with both values.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../engine/witness.h"
#include "../../lang/spec.h"
#include "../tap.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* a file of n bytes, all 'a' */
static void put_n(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	for (size_t i = 0; i < n; i++)
		fputc('a', f);
	fclose(f);
}

/* the last byte of path changed to 'b', its modification time kept */
static void change_last(const char *path, size_t n)
{
	struct stat st;
	stat(path, &st);
	FILE *f = fopen(path, "r+");
	fseek(f, (long)n - 1, SEEK_SET);
	fputc('b', f);
	fclose(f);
	struct timespec t[2] = { st.st_atim, st.st_mtim };
	utimensat(AT_FDCWD, path, t, 0);
}

/* the size limit on what is read (4 MiB: a file up to it is read whole, a
 * longer one stands by its size and time), and a path that exists but
 * cannot be read (a socket: open(2) refuses it) has no sum */
static void limits(const char *dir)
{
	char *at = xasprintf("%s/at-limit", dir), *past = xasprintf("%s/past-limit", dir);
	const size_t lim = (size_t)4 << 20;
	put_n(at, lim);
	put_n(past, lim + 1);
	json_t *p1 = json_pack("[s]", at), *p2 = json_pack("[s]", past);
	json_t *r1 = witness_record(p1), *r2 = witness_record(p2);
	change_last(at, lim);
	change_last(past, lim + 1);
	TAP_OK(!witness_fresh(r1, NULL), "a file of 4 MiB is read whole: its last byte changed, time kept: stale");
	TAP_OK(witness_fresh(r2, NULL), "one of 4 MiB and a byte stands by its size and time: the same change keeps it fresh");
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 1000000000, 1 } };
	utimensat(AT_FDCWD, past, t, 0);
	TAP_OK(!witness_fresh(r2, NULL), "... and a new time makes it stale");
	json_decref(r1);
	json_decref(r2);
	json_decref(p1);
	json_decref(p2);
	unlink(at);
	unlink(past);

	char *sock = xasprintf("%s/sock", dir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	int bound = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	json_t *ps = json_pack("[s]", sock), *rs = witness_record(ps);
	TAP_OK(bound && rs && json_is_null(json_object_get(json_array_get(rs, 0), "sum")),
	       "a path that exists but cannot be read (a socket) has no sum");
	TAP_OK(bound && witness_fresh(rs, NULL), "... and stays fresh while it cannot");
	json_decref(rs);
	json_decref(ps);
	if (fd >= 0)
		close(fd);
	unlink(sock);
	free(sock);
	free(at);
	free(past);
}

/* TAP_OK on witness_unfit(dev, first, env) being NULL (want NULL) or equal to want */
static void unfit_is(const struct kopt_device *dev, const char *first, const char *env, const char *want,
		     const char *what)
{
	json_t *f = first ? json_loads(first, 0, NULL) : NULL, *e = env ? json_loads(env, 0, NULL) : NULL;
	char *got = witness_unfit(dev, f, e);
	TAP_OK(want ? got && strcmp(got, want) == 0 : got == NULL, "%s", what);
	if (want && (!got || strcmp(got, want) != 0))
		printf("# got: %s\n", got ? got : "(null)");
	free(got);
	json_decref(f);
	json_decref(e);
}

static void unfit(void)
{
	struct kopt_device dev = { 0 };
	dev.name = "a";
	const char *tail = "): a step keyed on one could run on another; give the device workers of one kind";
	char want[256];
	unfit_is(&dev, "{\"torch\":\"2.11\",\"gpu\":\"H200\"}", "{\"torch\":\"2.11\",\"gpu\":\"H200\"}", NULL,
		 "unfit: the first worker's environment again: fit");
	snprintf(want, sizeof want, "the workers of device 'a' tell of different environments (torch \"2.11\" and \"2.12\"%s", tail);
	unfit_is(&dev, "{\"gpu\":\"H200\",\"torch\":\"2.11\",\"sms\":132}", "{\"gpu\":\"H200\",\"torch\":\"2.12\",\"sms\":78}", want,
		 "unfit: the first field that differs, named with both values");
	snprintf(want, sizeof want, "the workers of device 'a' tell of different environments (cuda \"13.0\" and none%s", tail);
	unfit_is(&dev, "{\"gpu\":\"H200\",\"cuda\":\"13.0\"}", "{\"gpu\":\"H200\"}", want,
		 "unfit: a field the later worker lacks");
	snprintf(want, sizeof want, "the workers of device 'a' tell of different environments (graph_code none and one%s", tail);
	unfit_is(&dev, "{\"gpu\":\"H200\"}", "{\"gpu\":\"H200\",\"graph_code\":\"ab\"}", want,
		 "unfit: a field only the later worker has");
	unfit_is(&dev, NULL, "{\"torch\":\"2.12\"}", NULL, "unfit: no first worker yet: fit");
	unfit_is(&dev, "{\"torch\":\"2.11\"}", NULL, NULL, "unfit: a hello without an environment: fit");
	dev.gpu = "H100";
	unfit_is(&dev, "{\"gpu\":\"NVIDIA H200\"}", "{\"gpu\":\"NVIDIA H200\"}",
		 "device 'a' wants a GPU named like 'H100', and its worker runs on 'NVIDIA H200'",
		 "unfit: another GPU than the device names, though the workers agree");
}

int main(void)
{
	char dir[] = "/tmp/kopt-witness-XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	char *a = xasprintf("%s/version.py", dir), *b = xasprintf("%s/gpus", dir);
	char *gone = xasprintf("%s/not-yet", dir), *g0 = xasprintf("%s/gpus/0", dir);
	put(a, "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
	mkdir(b, 0700);
	put(g0, "Model: NVIDIA H200\n");
	json_t *paths = json_pack("[s,s,s]", a, b, gone);
	json_t *rec = witness_record(paths);
	char *why = NULL;
	TAP_OK(rec && json_array_size(rec) == 3, "a record per path");
	TAP_OK(json_is_null(json_object_get(json_array_get(rec, 2), "sum")), "a missing file's sum is null");
	TAP_OK(witness_fresh(rec, &why) && !why, "unchanged files: fresh");

	put(a, "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
	TAP_OK(witness_fresh(rec, NULL), "the same bytes written again: still fresh");
	put(a, "__version__ = '2.12.0+cu130'\ncuda = '13.0'\n");
	TAP_OK(!witness_fresh(rec, &why), "torch upgraded: stale");
	TAP_OK(why && strstr(why, "version.py") != NULL, "the reason names the file: %s", why ? why : "");
	free(why);
	json_decref(rec);

	rec = witness_record(paths);
	char *g1 = xasprintf("%s/gpus/1", dir);
	put(g1, "Model: NVIDIA H200\n");
	TAP_OK(!witness_fresh(rec, NULL), "a GPU more in the folder: stale");
	unlink(g1);
	TAP_OK(witness_fresh(rec, NULL), "and fresh again once it is gone");
	put(gone, "x");
	TAP_OK(!witness_fresh(rec, NULL), "a file that was missing appears: stale");
	unlink(gone);

	/* a folder of many entries (40 GPUs): every name counts, the last
	 * one's removal too */
	for (int i = 2; i < 40; i++) {
		char *gi = xasprintf("%s/gpus/%d", dir, i);
		put(gi, "Model: NVIDIA H200\n");
		free(gi);
	}
	json_decref(rec);
	rec = witness_record(paths);
	TAP_OK(witness_fresh(rec, NULL), "a folder of 39 entries: fresh while unchanged");
	char *g39 = xasprintf("%s/gpus/39", dir);
	unlink(g39);
	TAP_OK(!witness_fresh(rec, NULL), "... and stale when one of them goes");
	free(g39);

	json_t *bad = json_pack("[{s:s}]", "path", a);
	TAP_OK(!witness_fresh(bad, &why) && why, "a record without sums is never fresh");
	free(why);
	TAP_OK(!witness_fresh(NULL, NULL), "no record: not fresh");
	json_t *none = json_array();
	TAP_OK(!witness_fresh(none, &why) && why && !strcmp(why, "no witness files recorded"), "a record of no files: not fresh, and why");
	free(why);
	json_decref(none);
	json_t *empty = json_array();
	TAP_OK(witness_record(empty) == NULL, "no paths: no record");
	json_decref(empty);
	limits(dir);
	unfit();
	json_decref(bad);
	json_decref(rec);
	json_decref(paths);
	unlink(a);
	unlink(g0);
	rmdir(b);
	rmdir(dir);
	free(a);
	free(b);
	free(gone);
	free(g0);
	free(g1);
	return tap_done();
}
