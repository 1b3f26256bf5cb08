/*
 * tests/unit/witness_test.c: engine/witness.c on files made here: a record
 * stays fresh while no file changes, and goes stale when a file's bytes, a
 * folder's names, or a missing file's existence change.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../engine/witness.h"
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

	json_t *bad = json_pack("[{s:s}]", "path", a);
	TAP_OK(!witness_fresh(bad, &why) && why, "a record without sums is never fresh");
	free(why);
	TAP_OK(!witness_fresh(NULL, NULL), "no record: not fresh");
	json_t *empty = json_array();
	TAP_OK(witness_record(empty) == NULL, "no paths: no record");
	json_decref(empty);
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
