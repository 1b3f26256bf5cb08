/*
 * tests/unit/engine_unit_test.c: keys (hash.h; a hash ingredient's exact
 * bytes), -d explain reasons
 * (explain.h), and a fuzz-style
 * test of the state-file loaders (action map, build log) on torn, mutated
 * and garbage inputs; the build log's last ok ingredients of a step;
 * -t gc's live objects (every marked record's, the first record's too), and
 * gc with no cache folder yet; the
 * shortest action record read back as written; a cached step result is
 * used only when it is a JSON object; corrupt action records and cache
 * objects, which are remembered, warned about or removed; a stream's last
 * lines (engine/tail.h) to the byte; the ready queue and heap, the
 * progress count's guesses and clock; kopt-out/'s files written and
 * checked; a worker's environment and a child process's pipes; the
 * graph's string store.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "../../engine/blog.h"
#include "../../engine/dag.h"
#include "../../engine/engine.h"
#include "../../engine/cache.h"
#include "../../engine/explain.h"
#include "../../engine/hash.h"
#include "../../engine/outdir.h"
#include "../../engine/proc.h"
#include "../../engine/progress.h"
#include "../../engine/queue.h"
#include "../../engine/rule.h"
#include "../../engine/tail.h"
#include "../../engine/twins.h"
#include "../../rules/rules.h"
#include "../fixture.h"
#include "../tap.h"

static void test_hash(void)
{
	char hex[HASH_HEX];
	kopt_hash h = hash_str("koptmake"), back;
	hash_hex(h, hex);
	TAP_OK(strlen(hex) == 32 && hash_parse(hex, &back) == 0 && hash_eq(h, back), "hash hex round trip");
	TAP_OK(hash_parse("xyz", &back) < 0, "hash_parse refuses garbage");
	kopt_hash k = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL }, p;
	hash_hex(k, hex);
	TAP_IS_STR(hex, "0123456789abcdeffedcba9876543210", "hash_hex: the high half first, most significant digit first");
	TAP_OK(hash_parse("0123456789ABCDEFfedcba9876543210 and more", &p) == 0 && hash_eq(p, k),
	       "hash_parse: upper-case digits, and whatever follows the 32 digits");
	static const char *const bad[] = { "0123456789abcdeffedcba987654321", "0123456789abcdeffedcba987654321g",
					   "g123456789abcdeffedcba9876543210", "0123456789abcdef fedcba987654321",
					   "0123456789abcdeffedcba98765432/0", "0123456789abcdeffedcba98765432:0",
					   "0123456789abcdeffedcba98765432@0", "0123456789abcdeffedcba98765432G0",
					   "0123456789abcdeffedcba98765432`0" };
	int refused = 0;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		refused += hash_parse(bad[i], &p) == -1;
	TAP_IS_INT(refused, 9, "hash_parse: 31 digits, or a character beside 0-9, a-f, A-F anywhere, refused");
	TAP_OK(hash_is_zero((kopt_hash){ 0, 0 }) && !hash_is_zero((kopt_hash){ 0, 1 }) && !hash_is_zero((kopt_hash){ 1, 0 }) &&
	       !hash_eq((kopt_hash){ 1, 2 }, (kopt_hash){ 1, 3 }) && !hash_eq((kopt_hash){ 1, 2 }, (kopt_hash){ 0, 2 }),
	       "hash_is_zero and hash_eq look at both halves");

	struct hash_key a, b;
	hash_key_init(&a, "verify", 1);
	hash_key_double(&a, "param:gamma", 1.03);
	hash_key_str(&a, "param:x", "ab");
	hash_key_init(&b, "verify", 1);
	hash_key_double(&b, "param:gamma", 1.03);
	hash_key_str(&b, "param:x", "ab");
	TAP_OK(hash_eq(hash_key_final(&a), hash_key_final(&b)), "same ingredients, same key");
	hash_key_str(&a, "param:y", "c");
	hash_key_str(&b, "param:y", NULL);
	TAP_OK(!hash_eq(hash_key_final(&a), hash_key_final(&b)), "NULL differs from any string");
	hash_key_release(&a);
	hash_key_release(&b);
	/* length prefixes: ("ab","c") != ("a","bc") */
	hash_key_init(&a, "k", 1);
	hash_key_str(&a, "x", "ab");
	hash_key_str(&a, "y", "c");
	hash_key_init(&b, "k", 1);
	hash_key_str(&b, "x", "a");
	hash_key_str(&b, "y", "bc");
	TAP_OK(!hash_eq(hash_key_final(&a), hash_key_final(&b)), "the serialization is unambiguous");
	char *ia = hash_key_ingredients(&a), *ib = hash_key_ingredients(&b);
	TAP_OK(strncmp(ia, "kind=", 5) == 0 && strstr(ia, ",rule=") && strstr(ia, ",x=") && strstr(ia, ",y="),
	       "ingredients name every part");
	char *why = explain_diff(ia, ib, rule_pipeline.words);
	TAP_IS_STR(why, "x changed; y changed", "explain names changed ingredients");
	free(why);
	free(ia);
	free(ib);
	hash_key_release(&a);
	hash_key_release(&b);
}

static void test_explain(void)
{
	char *w = explain_diff(NULL, "kind=1,rule=2", rule_pipeline.words);
	TAP_OK(strncmp(w, "new step", 8) == 0, "explain: never built is new");
	free(w);
	w = explain_diff("kind=1,rule=2,param:gamma=3", "kind=1,rule=2,param:gamma=4", rule_pipeline.words);
	TAP_IS_STR(w, "parameter gamma changed", "explain: parameter");
	free(w);
	w = explain_diff("kind=1,rule=2,input:capture m/default=3", "kind=1,rule=3,input:capture m/default=4", rule_pipeline.words);
	TAP_IS_STR(w, "rule version changed; input capture m/default changed", "explain: rule version and input");
	free(w);
	w = explain_diff("kind=1,env=5,model=1", "kind=1,env=6,model=2,input:verify x=1", rule_pipeline.words);
	TAP_IS_STR(w, "worker environment (GPU, driver, CUDA, torch, triton) changed; model file changed; input verify x is new",
		   "explain: env (glossed), model, new input");
	free(w);
	w = explain_diff("kind=1", "kind=1", rule_pipeline.words);
	TAP_OK(strstr(w, "no cached result") != NULL, "explain: same inputs, entry gone");
	free(w);
	/* three changes named, the rest counted: changed and new first, then
	 * removed, in the keys' order */
	w = explain_diff("kind=1,param:a=1,param:b=1,param:c=1", "kind=1,param:a=2,param:b=2,param:c=2,param:d=2",
			 rule_pipeline.words);
	TAP_IS_STR(w, "parameter a changed; parameter b changed; parameter c changed; and 1 more",
		   "explain: three changes named, a fourth counted");
	free(w);
	w = explain_diff("kind=1,param:a=1,param:b=1,param:x=1", "kind=1,param:a=2,param:b=2", rule_pipeline.words);
	TAP_IS_STR(w, "parameter a changed; parameter b changed; parameter x was removed",
		   "explain: two changes and a removal, all three named");
	free(w);
	w = explain_diff("kind=1,param:a=1,param:b=1,param:x=1,param:y=1", "kind=1,param:a=2,param:b=2,param:c=2",
			 rule_pipeline.words);
	TAP_IS_STR(w, "parameter a changed; parameter b changed; parameter c is new; and 2 more",
		   "explain: removals past the third counted too");
	free(w);
	/* the glosses go by the whole prefix: "inputs" and "params" are
	 * names of their own, "rules" is not the rule; a name without a
	 * value has the empty one */
	w = explain_diff("kind=1,inputs=a,params=1,rules", "kind=1,inputs=b,params=2,rules=x", rule_pipeline.words);
	TAP_IS_STR(w, "inputs changed; params changed; rules changed",
		   "explain: a name that only starts like input:, param: or rule is said as it is");
	free(w);
}

/* a valid image of n records */
static char *action_image(int n, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "koptmake actions 1\n");
	for (int i = 0; i < n; i++) {
		char k[HASH_HEX], s[HASH_HEX], line[256];
		char *kk = xasprintf("key %d", i);
		hash_hex(hash_str(kk), k);
		hash_hex(hash_str("stable"), s);
		free(kk);
		int m = snprintf(line, sizeof line, "%s %s {\"i\":%d}", k, s, i);
		strbuf_addf(&sb, "%s %016llx\n", line, (unsigned long long)hash_sum64(line, (size_t)m));
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

static char *log_image(int n, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "# koptmake log 1\n");
	for (int i = 0; i < n; i++) {
		char line[256];
		int m = snprintf(line, sizeof line, "1000\t5\tok\tverify\tm/default/k/c%d\t%032d\tnew\tkind=1\t", i, i);
		strbuf_addf(&sb, "%s%016llx\n", line, (unsigned long long)hash_sum64(line, (size_t)m - 1));
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

static void test_fuzz(void)
{
	size_t len, nc, good;
	char *img = action_image(50, &len);
	TAP_IS_INT(cache_parse_actions("fuzz", img, len, &nc, &good), 50, "action map: a valid image loads");
	TAP_OK(nc == 0 && good == len, "action map: nothing corrupt, nothing torn");
	int ok_trunc = 1, ok_mut = 1, ok_garbage = 1;
	srand(7);
	/* every truncation: never more records, never a crash, good prefix <= cut;
	 * each prefix in a buffer of its own size, so that a read past it is a
	 * sanitizer's report */
	for (size_t cut = 0; cut < len; cut += 7) {
		char *t = xmalloc(cut ? cut : 1);
		memcpy(t, img, cut);
		size_t n = cache_parse_actions("fuzz", t, cut, &nc, &good);
		if (n > 50 || good > cut)
			ok_trunc = 0;
		free(t);
	}
	TAP_OK(ok_trunc, "action map: every torn prefix loads a prefix of the records");
	/* a whole line too short to be a record, last: corrupt, and nothing
	 * past it is read (its own buffer) */
	static const char shortline[] = "0123456789abcdef0123456789abcdef 0123456\n";
	char *sh = xmalloc(len + sizeof shortline - 1);
	memcpy(sh, img, len);
	memcpy(sh + len, shortline, sizeof shortline - 1);
	size_t nsh = cache_parse_actions("fuzz", sh, len + sizeof shortline - 1, &nc, &good);
	TAP_OK(nsh == 50 && nc == 1 && good == len + sizeof shortline - 1,
	       "action map: a short last line is corrupt, not torn (%zu records, %zu corrupt)", nsh,
	       nc);
	free(sh);
	for (int t = 0; t < 300; t++) {
		char *m = xstrndup(img, len);
		int flips = 1 + rand() % 4;
		for (int f = 0; f < flips; f++)
			m[rand() % len] = (char)(rand() % 256);
		size_t n = cache_parse_actions("fuzz", m, len, &nc, &good);
		if (n + nc > 51)
			ok_mut = 0;
		free(m);
	}
	TAP_OK(ok_mut, "action map: random byte flips are caught by the checksums");
	for (int t = 0; t < 200; t++) {
		size_t gl = (size_t)(rand() % 2000);
		char *g = xmalloc(gl + 20);
		memcpy(g, "koptmake actions 1\n", 19);
		for (size_t i = 19; i < gl + 19; i++)
			g[i] = (char)(rand() % 256);
		size_t n = cache_parse_actions("fuzz", g, gl + 19, &nc, &good);
		if (n > 0)
			ok_garbage = 0;
		free(g);
	}
	TAP_OK(ok_garbage, "action map: garbage yields no entries");
	free(img);

	img = log_image(40, &len);
	TAP_IS_INT(blog_parse("fuzz", img, len, &nc, &good), 40, "build log: a valid image loads");
	ok_trunc = ok_mut = 1;
	for (size_t cut = 0; cut < len; cut += 5) {
		size_t n = blog_parse("fuzz", img, cut, &nc, &good);
		if (n > 40 || good > cut)
			ok_trunc = 0;
	}
	TAP_OK(ok_trunc, "build log: every torn prefix loads a prefix of the records");
	for (int t = 0; t < 300; t++) {
		char *m = xstrndup(img, len);
		m[rand() % len] ^= (char)(1 + rand() % 255);
		size_t n = blog_parse("fuzz", m, len, &nc, &good);
		if (n + nc > 41)
			ok_mut = 0;
		free(m);
	}
	TAP_OK(ok_mut, "build log: random byte flips are caught");
	TAP_IS_INT(blog_parse("fuzz", "# koptmake log 99\n", 18, &nc, &good), 0, "build log: another version loads nothing");
	img[strlen("# koptmake log ")] = '2';
	TAP_IS_INT(blog_parse("fuzz", img, len, &nc, &good), 0,
		   "build log: another version's header over 40 records that read as ours: none loaded");
	tap_diag("fuzzed the loaders with %d torn, mutated and garbage inputs", 1100);
	free(img);
}

/* a build log record's bytes, field by field: start and duration in whole
 * milliseconds, a tab, newline or carriage return inside a field written
 * as a space, the key in 32 lowercase hex digits, the sum of the bytes
 * before its tab; and a record is read back only with all nine fields and
 * its sum in 16 lowercase hex digits */
static void test_blog_record(void)
{
	char dir[] = "/tmp/kopt-blogr-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "build log: a scratch folder");
		return;
	}
	char *path = xasprintf("%s/log", dir);
	kopt_blog *b = blog_open(path);
	struct blog_record r = { .start = 1700000000.25, .dur = 2.5, .outcome = "failed: a\tb",
				 .kind = "verify", .path = "all/m\n/k", .key = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL },
				 .why = "x changed\r", .ingredients = "rule=3,gates=5f1c0a9e" };
	int rc = blog_append(b, &r);
	blog_close(b);
	char kh[HASH_HEX];
	hash_hex(r.key, kh);
	char *body = xasprintf("1700000000250\t2500\tfailed: a b\tverify\tall/m /k\t%s\tx changed \trule=3,gates=5f1c0a9e\t", kh);
	char *want = xasprintf("# koptmake log 1\n%s%016llx\n", body,
			       (unsigned long long)hash_sum64(body, strlen(body) - 1));
	struct strbuf got = STRBUF_INIT;
	FILE *f = fopen(path, "r");
	char buf[512];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&got, buf, n);
	if (f)
		fclose(f);
	TAP_OK(rc == 0 && got.len && strcmp(got.buf, want) == 0, "build log: a record's bytes, field by field");
	if (got.len && strcmp(got.buf, want) != 0)
		tap_diag("got %s want %s", got.buf, want);
	/* the same record read back, and its variants that are not records */
	size_t nc, good;
	TAP_IS_INT(blog_parse("rec", want, strlen(want), &nc, &good), 1, "build log: the record reads back");
	TAP_OK(nc == 0 && good == strlen(want), "build log: no corrupt line, all of it good (%zu, %zu)", nc, good);
	/* eight fields under a good sum */
	char *eight = xasprintf("1\t2\tok\tverify\tall/m/k\t%s\tnew\t", kh);
	char *bad[3];
	bad[0] = xasprintf("# koptmake log 1\n%s%016llx\n", eight, (unsigned long long)hash_sum64(eight, strlen(eight) - 1));
	/* the sum in upper case, and one digit short */
	char sum[17];
	snprintf(sum, sizeof sum, "%016llX", (unsigned long long)hash_sum64(body, strlen(body) - 1));
	bad[1] = xasprintf("# koptmake log 1\n%s%s\n", body, sum);
	bad[2] = xasprintf("# koptmake log 1\n%s%.15s\n", body, strchr(want + 17, '\n') - 16);
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		size_t got_n = blog_parse("rec", bad[i], strlen(bad[i]), &nc, &good);
		if (got_n != 0 || nc != 1 || good != strlen(bad[i])) {
			tap_diag("case %d: %zu records, %zu corrupt, %zu good bytes", i, got_n, nc, good);
			ok = 0;
		}
		free(bad[i]);
	}
	TAP_OK(ok, "build log: eight fields, a sum in upper case or one digit short: a corrupt line skipped");
	/* what loading says: each corrupt line by its number, five at most,
	 * then the torn last record with its bytes */
	struct strbuf img = STRBUF_INIT;
	strbuf_addstr(&img, "# koptmake log 1\n");
	for (int i = 0; i < 7; i++)
		strbuf_addstr(&img, "not a record\n");
	strbuf_addstr(&img, want + strlen("# koptmake log 1\n"));
	strbuf_addstr(&img, "1700");
	struct fx_caught cg;
	char said[1024];
	fx_catch_start(&cg);
	size_t nrec = blog_parse("log", img.buf, img.len, &nc, &good);
	fx_catch_end(&cg, said, sizeof said);
	const char *want_said = "koptmake: warning: log:2: corrupt build log record skipped\n"
				"koptmake: warning: log:3: corrupt build log record skipped\n"
				"koptmake: warning: log:4: corrupt build log record skipped\n"
				"koptmake: warning: log:5: corrupt build log record skipped\n"
				"koptmake: warning: log:6: corrupt build log record skipped\n"
				"koptmake: warning: log:10: torn last record trimmed (4 bytes)\n";
	TAP_OK(nrec == 1 && nc == 7 && good == img.len - 4 && strcmp(said, want_said) == 0,
	       "build log: seven corrupt lines, five said by number, a torn last record of 4 bytes said and trimmed "
	       "(%zu records, %zu corrupt, %zu of %zu bytes good)",
	       nrec, nc, good, img.len);
	if (strcmp(said, want_said) != 0)
		tap_diag("said:\n%s", said);
	strbuf_release(&img);
	free(eight);
	strbuf_release(&got);
	free(body);
	free(want);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* the log answers -d explain with the ingredients of a step's last
 * successful run, those appended in this process included */
static void test_blog_last(void)
{
	char dir[] = "/tmp/kopt-blog-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "build log: a scratch folder");
		return;
	}
	char *path = xasprintf("%s/log", dir);
	mode_t mask = umask(022);
	umask(mask);
	kopt_blog *b = blog_open(path);
	struct blog_record r = { .start = 1.7e9, .dur = 2, .outcome = "ok", .kind = "verify", .path = "all/m/k",
				 .key = { 0x5a5a5a5a, 0xa5a5a5a5 }, .why = "new step", .ingredients = "rule=3,gates=5f1c0a9e" };
	TAP_OK(blog_last_ingredients(b, "verify", "all/m/k") == NULL, "build log: no run of a new step");
	int rc1 = blog_append(b, &r);
	const char *a = blog_last_ingredients(b, "verify", "all/m/k");
	TAP_OK(rc1 == 0 && a && strcmp(a, "rule=3,gates=5f1c0a9e") == 0, "build log: an ok run's ingredients, read back at once");
	r.outcome = "failed: correctness";
	r.ingredients = "rule=3,gates=77b2e4d1";
	blog_append(b, &r);
	a = blog_last_ingredients(b, "verify", "all/m/k");
	TAP_OK(a && strcmp(a, "rule=3,gates=5f1c0a9e") == 0, "build log: a failed run leaves the last ok run's ingredients");
	blog_close(b);
	b = blog_open(path);
	a = blog_last_ingredients(b, "verify", "all/m/k");
	TAP_OK(a && strcmp(a, "rule=3,gates=5f1c0a9e") == 0, "build log: and so does the log read again");
	blog_close(b);
	/* a build killed while it wrote left a torn last record: the next
	 * build cuts it off before it appends, so its record is a line of its own */
	FILE *t = fopen(path, "a");
	if (t) {
		fputs("1700", t);
		fclose(t);
	}
	b = blog_open(path);
	r.path = "all/m/other";
	r.outcome = "ok";
	int rc3 = blog_append(b, &r);
	struct strbuf img = STRBUF_INIT;
	size_t nc, good, nrec = strbuf_read_file(&img, path) == 0 ? blog_parse("log", img.buf, img.len, &nc, &good) : 0;
	TAP_OK(t && rc3 == 0 && nrec == 3 && nc == 0 && good == img.len,
	       "build log: a torn last record is cut off before the next record is appended (%zu records, %zu corrupt)",
	       nrec, nc);
	strbuf_release(&img);
	blog_close(b);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* -t gc where no cache folder is yet (cache_open_existing): success, the
 * counts and bytes freed zero, and no folder made */
static void test_gc_absent(void)
{
	char dir[] = "/tmp/kopt-gc-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "gc with no cache: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir);
	kopt_cache *c = cache_open_existing(cd);
	uint64_t freed = 7;
	size_t ne = 7, no = 7;
	int r = c ? cache_gc(c, &freed, &ne, &no) : -1;
	struct stat st;
	TAP_OK(c && !cache_exists(c) && r == 0 && freed == 0 && ne == 0 && no == 0 && stat(cd, &st) < 0,
	       "gc with no cache folder: returns 0, nothing freed or counted, no folder made (%d, %llu, %zu, %zu)", r,
	       (unsigned long long)freed, ne, no);
	if (c)
		cache_close(c);
	rmdir(dir);
	free(cd);
}

/* -t gc keeps every object a marked record names, whichever record comes
 * first in the map, and removes the one only an unmarked record named */
static void test_gc(void)
{
	char dir[] = "/tmp/kopt-gc-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "gc: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir);
	kopt_cache *c = cache_open(cd);
	kopt_hash obj[3], key[3];
	const char *data[3] = { "first record's output\n", "second record's output\n", "a stale record's output\n" };
	int ok = c != NULL;
	for (int i = 0; ok && i < 3; i++) {
		char hex[HASH_HEX], *m;
		ok = cache_object_put(c, data[i], strlen(data[i]), &obj[i]) == 0;
		hash_hex(obj[i], hex);
		m = xasprintf("{\"kind\":\"capture\",\"path\":\"m%d\",\"objects\":{\"out.txt\":\"%s\"}}", i, hex);
		key[i] = hash_str(data[i]);
		ok = ok && cache_put(c, key[i], hash_str(m), m) == 0;
		free(m);
	}
	TAP_OK(ok && cache_sync(c, true) == 0, "gc: three records, each with its own object");
	cache_close(c);
	c = cache_open(cd);
	uint64_t freed = 0;
	size_t nents = 0, nobjs = 0;
	if (c) {
		cache_mark(c, key[0]);
		cache_mark(c, key[1]);
		ok = cache_gc(c, &freed, &nents, &nobjs) == 0;
	}
	TAP_OK(c && ok && nents == 1 && nobjs == 1, "gc: the unmarked record and its object go");
	struct strbuf sb = STRBUF_INIT;
	int got[3];
	for (int i = 0; i < 3; i++) {
		strbuf_reset(&sb);
		got[i] = c && cache_object_get(c, obj[i], &sb) == 0 && strcmp(sb.buf, data[i]) == 0;
	}
	TAP_OK(got[0] && got[1], "gc: both marked records' objects stay, the first record's too");
	TAP_OK(!got[2], "gc: the unmarked record's object is gone");
	TAP_OK(c && cache_get(c, key[0]) && cache_get(c, key[1]) && !cache_get(c, key[2]), "gc: the map keeps the marked records");
	strbuf_release(&sb);
	cache_close(c);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		TAP_OK(0, "gc: the scratch folder removed");
	free(rm);
	free(cd);
}

/* the shortest record the writer makes (an empty manifest) is read back */
static void test_record_min(void)
{
	struct strbuf sb = STRBUF_INIT;
	kopt_hash k = hash_str("k"), st = hash_str("s"), k2, st2;
	const char *js;
	size_t jl;
	cache_record_format(&sb, k, st, "{}", 2);
	int r = sb.len > 0 ? cache_record_parse(sb.buf, sb.len - 1, &k2, &st2, &js, &jl) : -1;
	TAP_OK(r == 0 && hash_eq(k, k2) && hash_eq(st, st2) && jl == 2 && memcmp(js, "{}", 2) == 0,
	       "an action record with the manifest {} is read back as written");
	TAP_IS_INT(cache_record_parse(sb.buf, sb.len - 2, &k2, &st2, &js, &jl), -1, "one byte shorter, it is refused");
	strbuf_release(&sb);
}

/* -d explain's ingredients name each part of a key with a digest of its
 * whole value, values of 64 KiB and more (a long kernel source) too, and
 * the parts after one */
static void test_ingredients_long(void)
{
	static const size_t sizes[] = { 70000, 300, 1 << 24 };
	struct hash_key k;
	hash_key_init(&k, "verify", 1);
	char *big = xmalloc(sizes[2]);
	memset(big, 'x', sizes[2]);
	hash_key_add(&k, "source", big, sizes[0]);
	hash_key_add(&k, "config", big, sizes[1]);
	hash_key_add(&k, "blob", big, sizes[2]);
	char *got = hash_key_ingredients(&k);
	struct strbuf want = STRBUF_INIT;
	strbuf_addf(&want, "source=%08x,config=%08x,blob=%08x", (unsigned)XXH3_64bits(big, sizes[0]),
		    (unsigned)XXH3_64bits(big, sizes[1]), (unsigned)XXH3_64bits(big, sizes[2]));
	TAP_IS_STR(strstr(got, ",source=") ? strstr(got, ",source=") + 1 : got, want.buf, "ingredients: values of 70 000 bytes and 16 MiB digested whole, the parts after them kept");
	strbuf_release(&want);
	free(got);
	free(big);
	hash_key_release(&k);
}

/* an empty value is an ingredient like any, last too: its name and the
 * digest of no bytes (the length's four bytes end the key there) */
static void test_ingredients_empty(void)
{
	struct hash_key k;
	hash_key_init(&k, "verify", 1);
	hash_key_add(&k, "first", "", 0);
	hash_key_str(&k, "mid", "m");
	hash_key_add(&k, "last", "", 0);
	char *got = hash_key_ingredients(&k);
	unsigned e = (unsigned)XXH3_64bits("", 0), m = (unsigned)XXH3_64bits("m", 1);
	char want[128];
	snprintf(want, sizeof want, "first=%08x,mid=%08x,last=%08x", e, m, e);
	const char *mine = strstr(got, "first=");
	TAP_IS_STR(mine ? mine : got, want, "ingredients: an empty value, first or last, is named with its digest");
	free(got);
	hash_key_release(&k);
}

/* a hash ingredient is its 16 bytes, hi then lo, each most significant
 * byte first; two hashes alike but in lo's lowest bits make two keys */
static void test_key_hash_bytes(void)
{
	kopt_hash h = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	static const unsigned char be[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					      0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	struct hash_key k, want;
	hash_key_init(&k, "verify", 1);
	hash_key_init(&want, "verify", 1);
	hash_key_hash(&k, "model", h);
	hash_key_add(&want, "model", be, 16);
	TAP_OK(hash_eq(hash_key_final(&k), hash_key_final(&want)),
	       "hash_key_hash adds hi then lo, most significant byte first");
	hash_key_release(&k);
	hash_key_release(&want);
	kopt_hash h2 = h;
	h2.lo ^= 1;
	struct hash_key k1, k2;
	hash_key_init(&k1, "verify", 1);
	hash_key_init(&k2, "verify", 1);
	hash_key_hash(&k1, "model", h);
	hash_key_hash(&k2, "model", h2);
	TAP_OK(!hash_eq(hash_key_final(&k1), hash_key_final(&k2)),
	       "two hashes that differ only in lo's lowest bit make two keys");
	hash_key_release(&k1);
	hash_key_release(&k2);
	/* an integer ingredient is its decimal text, negative ones and the
	 * extremes too */
	static const long long ints[] = { 0, 7, -1, -42, 1000000007LL, LLONG_MAX, LLONG_MIN };
	int right = 0;
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
		char text[32];
		snprintf(text, sizeof text, "%lld", ints[i]);
		hash_key_init(&k1, "verify", 1);
		hash_key_init(&k2, "verify", 1);
		hash_key_int(&k1, "n", ints[i]);
		hash_key_str(&k2, "n", text);
		right += hash_eq(hash_key_final(&k1), hash_key_final(&k2));
		hash_key_release(&k1);
		hash_key_release(&k2);
	}
	TAP_IS_INT(right, 7, "hash_key_int adds the number's decimal text (0, 7, -1, -42, 10^9+7, the extremes)");
}

/* dag_result with the manifest text m: the parsed result, and the
 * warning it gave (into warn, empty if none) */
static json_t *result_of(struct dag_node *n, const char *m, char *warn, size_t wlen)
{
	json_decref(n->result);
	n->result = NULL;
	n->manifest = m;
	n->manifest_len = (uint32_t)strlen(m);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	json_t *r = dag_result(NULL, n);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t got = fread(warn, 1, wlen - 1, tmp);
	warn[got] = 0;
	fclose(tmp);
	return r;
}

/* a cached step result is used only when it is a JSON object: whatever else
 * the manifest holds (another JSON value, broken JSON) is ignored with a
 * warning, and the step runs again */
static void test_result_object(void)
{
	static const struct rule r = { .name = "capture" };
	struct dag_node n = { .rule = &r, .path = (char *)"m/default" };
	char w[512];
	static const char *const not_objects[] = { "[]", "[{\"kind\":\"capture\"}]", "[1, 2]" };
	int refused = 0;
	for (size_t i = 0; i < sizeof not_objects / sizeof *not_objects; i++) {
		json_t *res = result_of(&n, not_objects[i], w, sizeof w);
		if (!res && strstr(w, "warning: the cached result of capture m/default is not a JSON object; ignored"))
			refused++;
		else
			tap_diag("%s: %s, warned '%s'", not_objects[i], res ? "accepted" : "refused", w);
	}
	TAP_IS_INT(refused, 3, "a cached step result that parses but is not a JSON object is rejected, with a warning");
	static const char *const broken[] = { "{\"kind\":", "\"capture\"", "", "{} trailing" };
	refused = 0;
	for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
		json_t *res = result_of(&n, broken[i], w, sizeof w);
		if (!res && strstr(w, "the cached result of capture m/default does not parse ("))
			refused++;
		else
			tap_diag("'%s': %s, warned '%s'", broken[i], res ? "accepted" : "refused", w);
	}
	TAP_IS_INT(refused, 4, "a cached step result that does not parse is rejected, with the parser's reason");
	json_t *res = result_of(&n, "{\"kind\":\"capture\",\"stable\":{}}", w, sizeof w);
	TAP_OK(json_is_object(res) && !strcmp(json_string_value(json_object_get(res, "kind")), "capture") && !*w &&
	       dag_result(NULL, &n) == res, "a cached step result that is an object is used, parsed once, without a warning");
	json_decref(n.result);
}

static int sh(const char *fmt, const char *dir)
{
	char *cmd = xasprintf(fmt, dir, dir, dir);
	int r = system(cmd);
	free(cmd);
	return r;
}

/* corrupt action records: the key of one whose key parses is remembered
 * (its step says "cache entry corrupt"), the others' not, and every one
 * is counted; objects: an absent one is no warning, one that is a link or
 * under a file is a warning, one whose bytes changed is removed */
static void test_corrupt(void)
{
	char dir[] = "/tmp/kopt-corrupt-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "corrupt: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir);
	kopt_cache *c = cache_open(cd);
	kopt_hash key[3], obj[3];
	const char *data[3] = { "kept\n", "linked\n", "changed\n" };
	int ok = c != NULL;
	for (int i = 0; ok && i < 3; i++) {
		char *m = xasprintf("{\"kind\":\"capture\",\"path\":\"m%d\"}", i);
		key[i] = hash_str(data[i]);
		ok = cache_put(c, key[i], hash_str(m), m) == 0 && cache_object_put(c, data[i], strlen(data[i]), &obj[i]) == 0;
		free(m);
	}
	ok = ok && cache_sync(c, true) == 0;
	cache_close(c);
	/* record 2 (line 3) with a byte of its manifest changed; a line of 31
	 * characters, one of 32 that is no key, and one that is a whole key and
	 * nothing else */
	char kh[HASH_HEX];
	hash_hex(hash_str("no record"), kh);
	char *edit = xasprintf("cd '%%s/cache' && sed -i '3s/\"kind\"/\"kinx\"/' actions && "
			       "printf '%%%%s\\n' 0123456789abcdef0123456789abcde zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz %s >> actions", kh);
	ok = ok && sh(edit, dir) == 0;
	free(edit);
	struct fx_caught cg;
	char w[4096];
	fx_catch_start(&cg);
	c = ok ? cache_open(cd) : NULL;
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(c && cache_corrupt_count(c) == 4 && !cache_get(c, key[1]) && cache_get(c, key[0]) && cache_get(c, key[2]),
	       "corrupt records: four counted, the changed one not read, the others read (%zu)", c ? cache_corrupt_count(c) : 0);
	TAP_OK(c && cache_was_corrupt(c, key[1]) && !cache_was_corrupt(c, key[0]) && !cache_was_corrupt(c, key[2]) &&
	       cache_was_corrupt(c, hash_str("no record")) && !cache_was_corrupt(c, hash_str("other")),
	       "corrupt records: the keys of the changed record and of a bare key are remembered, no other");
	char hex[HASH_HEX];
	struct strbuf sb = STRBUF_INIT;
	/* objects/ab/cdef...: the second one a link, the third one's bytes changed */
	hash_hex(obj[1], hex);
	char *ln = xasprintf("cd '%%s/cache/objects/%.2s' && mv %s %s.real && ln -s %s.real %s", hex, hex + 2, hex + 2,
			     hex + 2, hex + 2);
	ok = sh(ln, dir) == 0;
	free(ln);
	hash_hex(obj[2], hex);
	char *chg = xasprintf("cd '%%s/cache/objects/%.2s' && chmod u+w %s && echo x >> %s", hex, hex + 2, hex + 2);
	ok = ok && sh(chg, dir) == 0;
	free(chg);
	char obj2[256];
	snprintf(obj2, sizeof obj2, "%s/objects/%.2s/%s", cd, hex, hex + 2);
	int got[5];
	char warn[5][1024];
	kopt_hash absent = hash_str("absent object\n");
	const kopt_hash which[4] = { obj[0], obj[1], obj[2], absent };
	for (int i = 0; i < 4; i++) {
		fx_catch_start(&cg);
		got[i] = c ? cache_object_get(c, which[i], &sb) : -2;
		fx_catch_end(&cg, warn[i], sizeof warn[i]);
	}
	TAP_OK(ok && got[0] == 0 && !*warn[0] && got[3] == -1 && !*warn[3],
	       "objects: a good one is read, an absent one is not, neither with a warning ('%s')", warn[3]);
	TAP_OK(got[1] == -1 && strstr(warn[1], "cannot be read: "), "objects: one that is a link is not read, with a warning");
	TAP_OK(got[2] == -1 && strstr(warn[2], "is corrupt (its bytes do not hash to its name); removed") && access(obj2, F_OK) != 0,
	       "objects: one whose bytes changed is not read, and removed with a warning");
	/* objects/ab as a file: the object under it is not a folder's */
	hash_hex(obj[0], hex);
	char *file = xasprintf("cd '%%s/cache/objects' && chmod -R u+w %.2s && rm -rf %.2s && echo x > %.2s", hex, hex, hex);
	ok = sh(file, dir) == 0;
	free(file);
	fx_catch_start(&cg);
	got[4] = c ? cache_object_get(c, obj[0], &sb) : -2;
	fx_catch_end(&cg, warn[4], sizeof warn[4]);
	TAP_OK(ok && got[4] == -1 && strstr(warn[4], "cannot be read: "),
	       "objects: one whose folder is a file is not read, with a warning ('%s')", warn[4]);
	strbuf_release(&sb);
	cache_close(c);
	sh("chmod -R u+w '%s' && rm -rf '%s'", dir);
	free(cd);
}

/* writes text to the pipe's end w */
static void pipe_put(int w, const char *text, size_t n)
{
	if (write(w, text, n) != (ssize_t)n)
		abort();
}

/* a stream's last lines (engine/tail.h): eight kept, oldest first, empty
 * lines dropped, each cut to 300 bytes; an unfinished line kept at the
 * end, and in pieces once it is longer than 1200 bytes; 0 while the
 * stream has nothing more for now, 1 at its end; every byte copied to the
 * log with its head line */
static void test_tail(void)
{
	int p[2];
	struct tail t;
	tail_init(&t);
	char *s = tail_text(&t);
	TAP_IS_STR(s, "", "tail: no lines, no text");
	free(s);
	if (pipe(p) < 0)
		abort();
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	char dir[] = "/tmp/kopt-tail-XXXXXX";
	int logged = mkdtemp(dir) && tail_copy_to(&t, dir, "w.log", false, "# head\n") == 0;
	for (int i = 1; i <= 10; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "line %d\n%s", i, i == 5 ? "\n\n" : "");
		pipe_put(p[1], line, (size_t)n);
	}
	int r0 = tail_read(&t, p[0]);
	pipe_put(p[1], "last, unfinished", 16);
	close(p[1]);
	int r1 = tail_read(&t, p[0]);
	close(p[0]);
	s = tail_text(&t);
	TAP_OK(r0 == 0 && r1 == 1, "tail: 0 while the stream has nothing for now, 1 at its end");
	TAP_IS_STR(s, "line 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nlast, unfinished",
		   "tail: the last eight lines, oldest first, empty ones dropped, the unfinished one kept at the end");
	free(s);
	tail_clear(&t);
	char *lp = xasprintf("%s/w.log", dir);
	FILE *f = fopen(lp, "r");
	char got[512] = "";
	size_t gn = f ? fread(got, 1, sizeof got - 1, f) : 0;
	got[gn] = 0;
	if (f)
		fclose(f);
	TAP_OK(logged && strncmp(got, "# head\nline 1\nline 2\nline 3\nline 4\nline 5\n\n\nline 6\n", 51) == 0 &&
	       strstr(got, "line 10\nlast, unfinished") && gn == strlen(got),
	       "tail: every byte read also goes to the log, after its head line");
	unlink(lp);
	rmdir(dir);
	free(lp);

	/* lengths: a line of 301 bytes cut to 300; an unfinished one of 1200
	 * bytes waits for its end, one of 1201 is kept as a piece at once */
	char big[1202];
	memset(big, 'x', sizeof big);
	static const size_t lens[] = { 1200, 1201 };
	static const char *const want_tail[] = { "", "\nab" };
	for (int k = 0; k < 2; k++) {
		if (pipe(p) < 0)
			abort();
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		pipe_put(p[1], big, lens[k]);
		tail_read(&t, p[0]);
		pipe_put(p[1], "ab\n", 3);
		close(p[1]);
		tail_read(&t, p[0]);
		close(p[0]);
		s = tail_text(&t);
		char want[400];
		snprintf(want, sizeof want, "%.300s%s", big, want_tail[k]);
		TAP_OK(strcmp(s, want) == 0, "tail: an unfinished line of %zu bytes %s", lens[k],
		       k ? "is kept as a piece of 300 at once" : "waits for its end, then cut to 300");
		free(s);
		tail_clear(&t);
	}
	if (pipe(p) < 0)
		abort();
	pipe_put(p[1], big, 301);
	pipe_put(p[1], "\n", 1);
	close(p[1]);
	tail_read(&t, p[0]);
	close(p[0]);
	s = tail_text(&t);
	TAP_OK(strlen(s) == 300, "tail: a line of 301 bytes is cut to 300 (%zu)", strlen(s));
	free(s);
	tail_release(&t);
}

static double guess_of(struct dag *d, struct dag_node *n)
{
	(void)d;
	return n->prio; /* the test's nodes carry their guess there */
}

/* the FIFO queue across its growth and its compaction; the heap by
 * priority, then creation order; the progress count's guesses to the
 * value (each settled guess scales the rest by the nodes it added); the
 * clock's rounding and its hours */
static void test_queue_progress(void)
{
	static struct dag_node nodes[600];
	struct queue q = { 0 };
	int fifo = queue_pop(&q) == NULL;
	for (int i = 0; i < 300; i++)
		queue_push(&q, &nodes[i]);
	for (int i = 0; i < 290; i++) /* head 290 of 512: the next growth moves the rest down */
		fifo &= queue_pop(&q) == &nodes[i];
	for (int i = 300; i < 600; i++)
		queue_push(&q, &nodes[i]);
	fifo &= q.cap == 512 && q.head + q.len <= q.cap;
	for (int i = 290; i < 600; i++)
		fifo &= queue_pop(&q) == &nodes[i];
	fifo &= queue_pop(&q) == NULL;
	TAP_OK(fifo, "queue: first in, first out, across its growth and its compaction, then empty");
	free(q.v);

	struct heap h = { 0 };
	for (int i = 0; i < 60; i++) {
		nodes[i].seq = (uint32_t)((i * 37) % 60);
		nodes[i].prio = (double)((i * 7) % 3);
		heap_push(&h, &nodes[i]);
	}
	int ordered = 1, popped = 0;
	struct dag_node *prev = NULL, *n;
	while ((n = heap_pop(&h))) {
		if (prev && (n->prio > prev->prio || (n->prio == prev->prio && n->seq < prev->seq)))
			ordered = 0;
		prev = n;
		popped++;
	}
	TAP_OK(ordered && popped == 60, "heap: the highest priority first, ties by creation order (%d popped)", popped);
	free(h.v);

	struct rule r = { .name = "reveal", .reveals = guess_of }, quiet = { .name = "quiet" };
	struct progress p = { 0 };
	struct dag d = { 0 };
	d.nnodes = 20;
	struct dag_node a = { .rule = &r, .seq = 3, .prio = 4 }, b = { .rule = &r, .seq = 10, .prio = 2 };
	struct dag_node none = { .rule = &r, .seq = 5, .prio = 0 }, settled = { .rule = &r, .seq = 6, .prio = 9 };
	struct dag_node mute = { .rule = &quiet, .seq = 7, .prio = 9 }, far = { .rule = &r, .seq = 1000 };
	settled.flags = DAG_DONE;
	progress_announce(&p, &d, &a);
	progress_announce(&p, &d, &b);
	progress_announce(&p, &d, &none);
	progress_announce(&p, &d, &settled);
	progress_announce(&p, &d, &mute);
	bool guessing;
	size_t t0 = progress_total(&p, &d, 5, &guessing);
	TAP_OK(p.left == 6 && p.prior == 8 && t0 == 30 && guessing,
	       "progress: guesses 4 and 2 announced (none, a settled step's, a rule without guesses left out): 5 + 19 + 6 = %zu", t0);
	double g = progress_settle(&p, &a);
	progress_expanded(&p, g, 12);
	size_t t1 = progress_total(&p, &d, 6, &guessing);
	TAP_OK(g == 4 && p.left == 2 && t1 == 27, "progress: a guess of 4 that added 12 scales the other 2 by 20 / 12: 6 + 18 + 3 = %zu", t1);
	TAP_OK(progress_settle(&p, &none) == 0 && progress_settle(&p, &far) == 0 && progress_settle(&p, &a) == 0 && p.nsettled == 4,
	       "progress: a step without a guess, past the guesses, or settled again gives none, and counts");
	g = progress_settle(&p, &b);
	size_t t2 = progress_total(&p, &d, 7, &guessing);
	TAP_OK(g == 2 && p.left == 0 && !guessing && t2 == 7 + 14, "progress: no guesses left: done and open steps only (%zu)", t2);
	d.nnodes = 5;
	TAP_OK(progress_total(&p, &d, 9, &guessing) == 9, "progress: with every step settled, the total is the done ones");
	progress_release(&p);

	static const struct { double s; const char *want; } clk[] = {
		{ 0, "0:00" }, { -5, "0:00" }, { 59.4, "0:59" }, { 59.5, "1:00" }, { 3599.4, "59:59" },
		{ 3599.5, "1:00:00" }, { 3661, "1:01:01" }, { 36000, "10:00:00" }, { 7198, "1:59:58" },
		{ 359999, "99:59:59" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof clk / sizeof *clk; i++) {
		struct strbuf sb = STRBUF_INIT;
		progress_clock(&sb, clk[i].s);
		if (sb.buf && strcmp(sb.buf, clk[i].want) == 0)
			right++;
		else
			tap_diag("%g s: %s", clk[i].s, sb.buf ? sb.buf : "");
		strbuf_release(&sb);
	}
	TAP_IS_INT(right, 10, "progress clock: M:SS rounded to the second, H:MM:SS from an hour");
}

/* outdir_check's state and reason for r/rel against "hello\n" */
static int out_is(const char *r, const char *rel, uint64_t size, enum outdir_state want, const char *why)
{
	const char *w = NULL;
	enum outdir_state got = outdir_check(r, rel, size, hash_bytes("hello\n", 6), &w);
	if (got == want && strcmp(w, why) == 0)
		return 1;
	tap_diag("%s: state %d, '%s'; want %d, '%s'", rel, (int)got, w, (int)want, why);
	return 0;
}

/* kopt-out/'s files: written whole below folders made on the way (a link
 * or a file where a folder goes replaced), and checked, without following
 * links, to a state and the reason a user reads */
static void test_outdir(void)
{
	char dir[] = "/tmp/kopt-outdir-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "outdir: a scratch folder");
		return;
	}
	char *root = xasprintf("%s/out", dir);
	int w = outdir_write(root, "m/a.txt", "hello\n", 6) == 0 && outdir_write(root, "m/b.txt", "hello\n", 6) == 0 &&
		outdir_write(root, "m/c.txt", "", 0) == 0 && outdir_write(root, "m/d.txt", "hellO\n", 6) == 0 &&
		outdir_write(root, "m/e.txt", "hello!\n", 7) == 0;
	struct fx_caught cg;
	char err[1024];
	fx_catch_start(&cg);
	int refused = outdir_write(root, "m/../x", "x", 1) == -1;
	fx_catch_end(&cg, err, sizeof err);
	TAP_OK(w && refused && strstr(err, "not a path of plain names below"), "outdir: files written below folders made on the way; '..' refused");
	sh("cd '%s/out/m' && ln -s a.txt link.txt && mkfifo fifo && echo x > notdir && ln -s . loop", dir);
	int right = out_is(root, "m/a.txt", 6, OUTDIR_SAME, "") + out_is(root, "m/a.txt", UINT64_MAX, OUTDIR_SAME, "") +
		    out_is(root, "m/zz.txt", 6, OUTDIR_MISSING, "it cannot be read") +
		    out_is(root, "q/a.txt", 6, OUTDIR_MISSING, "") +
		    out_is(root, "m/c.txt", 6, OUTDIR_DIFFERS, "it is empty") +
		    out_is(root, "m/e.txt", 6, OUTDIR_DIFFERS, "its size changed") +
		    out_is(root, "m/e.txt", UINT64_MAX, OUTDIR_DIFFERS, "its bytes changed") +
		    out_is(root, "m/d.txt", 6, OUTDIR_DIFFERS, "its bytes changed") +
		    out_is(root, "m/link.txt", 6, OUTDIR_DIFFERS, "it is a symbolic link") +
		    out_is(root, "m/fifo", 6, OUTDIR_DIFFERS, "it is not a regular file") +
		    out_is(root, "m/notdir/a.txt", 6, OUTDIR_DIFFERS, "a folder on its path is not a folder (a symbolic link?)") +
		    out_is(root, "m/loop/a.txt", 6, OUTDIR_DIFFERS, "a folder on its path is not a folder (a symbolic link?)") +
		    out_is(root, "m//a.txt", 6, OUTDIR_DIFFERS, "not a path of plain names");
	TAP_IS_INT(right, 13, "outdir: each file's state and the reason for it (same, missing, empty, size, bytes, link, not a file, a path through a file or a link)");
	fx_catch_start(&cg);
	w = outdir_write(root, "m/loop/f.txt", "hello\n", 6) == 0 && outdir_write(root, "m/notdir/f.txt", "hello\n", 6) == 0;
	fx_catch_end(&cg, err, sizeof err);
	TAP_OK(w && strstr(err, "/out/m/loop' is not a folder (a symbolic link or a file); replaced by one") &&
	       strstr(err, "/out/m/notdir' is not a folder") && out_is(root, "m/loop/f.txt", 6, OUTDIR_SAME, "") &&
	       out_is(root, "m/a.txt", 6, OUTDIR_SAME, ""),
	       "outdir: a link or a file where a folder goes is replaced by a folder, with a warning, the file written in it");
	sh("rm -rf '%s'", dir);
	free(root);
}

/* a worker's environment: a name set replaces its own entry only (not one
 * it is a prefix of, nor one that is a prefix of it), else is added at
 * the end; a started process reads its stdin, writes its stdout and
 * stderr through the pipes, and one that cannot run says so with 127 */
static void test_proc(void)
{
	char **env = xcalloc(4, sizeof *env);
	env[0] = xstrdup("A=1");
	env[1] = xstrdup("AB=2");
	proc_env_put(&env, "A", "3");
	proc_env_put(&env, "ABC", "4");
	proc_env_put(&env, "AB", "5");
	proc_env_put(&env, "B", "");
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; env[i]; i++)
		strbuf_addf(&sb, "%s;", env[i]);
	TAP_IS_STR(sb.buf, "A=3;AB=5;ABC=4;B=;", "proc: a name's own entry replaced, a new name added at the end");
	strbuf_release(&sb);
	char *const argv[] = { "sh", "-c", "read x; echo \"out $x\"; echo \"err $x\" >&2; exit 3", NULL };
	int in, out, err, st = -1;
	pid_t pid = proc_start(argv, env, &in, &out, &err);
	char got[2][64] = { "", "" };
	if (pid > 0) {
		fcntl(out, F_SETFL, 0);
		fcntl(err, F_SETFL, 0);
		fcntl(in, F_SETFL, 0);
		pipe_put(in, "hi\n", 3);
		close(in);
		ssize_t n = read(out, got[0], sizeof got[0] - 1);
		got[0][n > 0 ? n : 0] = 0;
		n = read(err, got[1], sizeof got[1] - 1);
		got[1][n > 0 ? n : 0] = 0;
		close(out);
		close(err);
		waitpid(pid, &st, 0);
	}
	TAP_OK(pid > 0 && !strcmp(got[0], "out hi\n") && !strcmp(got[1], "err hi\n") && WIFEXITED(st) && WEXITSTATUS(st) == 3,
	       "proc: the child reads stdin and writes stdout and stderr through its pipes, its status kept");
	char *const none[] = { "/nonexistent/kopt-no-such-program", NULL };
	pid = proc_start(none, env, &in, &out, &err);
	got[1][0] = 0;
	if (pid > 0) {
		close(in);
		close(out);
		fcntl(err, F_SETFL, 0);
		ssize_t n = read(err, got[1], sizeof got[1] - 1);
		got[1][n > 0 ? n : 0] = 0;
		close(err);
		waitpid(pid, &st, 0);
	}
	TAP_OK(pid > 0 && strstr(got[1], "cannot run '/nonexistent/kopt-no-such-program'") && WEXITSTATUS(st) == 127,
	       "proc: a program that cannot run says so on stderr and exits 127");
	/* out of descriptors at each of its three pipes: it fails, and
	 * closes the pipes it had made (a child of its own, whose limit is
	 * lowered and whose free descriptors are counted out) */
	fflush(stdout);
	fflush(stderr);
	pid_t kid = fork();
	if (kid == 0) {
		struct rlimit rl;
		int fill[64], nfill = 0, bad = getrlimit(RLIMIT_NOFILE, &rl) < 0 ? 1 : 0;
		rl.rlim_cur = 64;
		bad |= setrlimit(RLIMIT_NOFILE, &rl) < 0;
		for (int fd; nfill < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
			fill[nfill++] = fd;
		for (int k = 0; k <= 6 && !bad; k++) {
			for (int i = 0; i < k; i++)
				close(fill[--nfill]);
			int before = tap_open_fds();
			pid = proc_start(argv, env, &in, &out, &err);
			if (k < 6 && (pid != -1 || tap_open_fds() != before))
				bad |= 2 << k;
			if (k == 6) {
				if (pid <= 0)
					bad |= 2 << k;
				else {
					close(in);
					close(out);
					close(err);
					waitpid(pid, NULL, 0);
				}
			}
			for (int fd; nfill < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
				fill[nfill++] = fd;
		}
		/* descriptors again for the coverage build's counts, written
		 * at the flush (tools/mutate reads which test ran these lines) */
		while (nfill > 0)
			close(fill[--nfill]);
		for (size_t i = 0; env[i]; i++)
			free(env[i]);
		free(env);
		KOPT_COVER_FLUSH();
		_exit(bad);
	}
	int kst = -1;
	waitpid(kid, &kst, 0);
	TAP_OK(WIFEXITED(kst) && WEXITSTATUS(kst) == 0,
	       "proc: with 0 to 5 descriptors free it fails and leaves none of its pipes open; with 6 it starts (%d)",
	       WIFEXITED(kst) ? WEXITSTATUS(kst) : -1);
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* lines in the file at path */
static size_t lines_in(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/* the build log is compacted on close past 4096 records, where most are
 * superseded: at 4096 it is left as it is, at 4097 it keeps the header
 * and the live steps' lines */
static void test_blog_compact(void)
{
	char dir[] = "/tmp/kopt-blogc-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "build log: a scratch folder");
		return;
	}
	char *path = xasprintf("%s/log", dir);
	mode_t mask = umask(022);
	umask(mask);
	kopt_blog *b = blog_open(path);
	struct blog_record r = { .start = 1.7e9, .dur = 2, .outcome = "ok", .kind = "verify", .path = "all/m/k",
				 .key = { 1, 2 }, .why = "new step", .ingredients = "rule=3" };
	int ok = 1;
	for (int i = 0; i < 4096; i++)
		ok &= blog_append(b, &r) == 0;
	blog_close(b);
	size_t at = lines_in(path);
	struct stat before, after;
	int stated = stat(path, &before);
	b = blog_open(path);
	ok &= blog_append(b, &r) == 0;
	blog_close(b);
	size_t past = lines_in(path);
	stated |= stat(path, &after);
	TAP_OK(stated == 0 && (after.st_mode & 07777) == (before.st_mode & 07777) && (after.st_mode & 07777) == (0644 & ~mask),
	       "build log: the compacted log keeps the log's mode (%o, %o)", (unsigned)(before.st_mode & 07777),
	       (unsigned)(after.st_mode & 07777));
	b = blog_open(path);
	const char *a = blog_last_ingredients(b, "verify", "all/m/k");
	TAP_OK(ok && at == 4097 && past < 10 && a && !strcmp(a, "rule=3"),
	       "build log: 4096 records of one step are kept on close, 4097 compacted to the live ones (%zu, %zu lines)", at, past);
	blog_close(b);
	/* 4097 records of 1366 steps: fewer than three a step, kept; of 1365, compacted */
	size_t steps[2] = { 1366, 1365 }, got[2];
	for (int k = 0; k < 2; k++) {
		unlink(path);
		b = blog_open(path);
		for (int i = 0; i < 4097; i++) {
			char p[32];
			snprintf(p, sizeof p, "all/m/k%zu", (size_t)i % steps[k]);
			r.path = p;
			blog_append(b, &r);
		}
		blog_close(b);
		got[k] = lines_in(path);
	}
	TAP_OK(got[0] == 4098 && got[1] == 1366, "build log: compacted only where the records are more than three a step (%zu, %zu lines)",
	       got[0], got[1]);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* records of n keys, written in rounds over them, then closed: the action
 * map's lines after the close */
static size_t actions_after(const char *cd, size_t records, size_t keys)
{
	char *rm = xasprintf("rm -rf '%s'", cd);
	if (system(rm) != 0)
		return 0;
	free(rm);
	kopt_cache *c = cache_open(cd);
	for (size_t i = 0; c && i < records; i++) {
		char k[32], m[64];
		snprintf(k, sizeof k, "key %zu", i % keys);
		snprintf(m, sizeof m, "{\"kind\":\"capture\",\"n\":%zu}", i);
		cache_put(c, hash_str(k), hash_str(m), m);
	}
	cache_close(c);
	char *ap = xasprintf("%s/actions", cd);
	size_t n = lines_in(ap);
	free(ap);
	return n;
}

/* the action map is rewritten on close past 64 records where at least
 * half are superseded; the worker environments' file read back, a corrupt
 * one forgotten with a warning, an absent one without */
static void test_actions_env(void)
{
	char dir[] = "/tmp/kopt-actenv-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "actions: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir);
	size_t a64 = actions_after(cd, 64, 1), a65 = actions_after(cd, 65, 1);
	size_t h65 = actions_after(cd, 65, 33), h66 = actions_after(cd, 66, 33);
	TAP_OK(a64 == 65 && a65 == 2 && h65 == 66 && h66 == 34,
	       "actions: rewritten on close past 64 records with at least two a key (64 of 1 key: %zu lines, 65: %zu; "
	       "65 of 33 keys: %zu, 66: %zu)", a64, a65, h65, h66);

	struct fx_caught cg;
	char w[1024];
	fx_catch_start(&cg);
	kopt_cache *c = cache_open(cd);
	json_t *none = c ? cache_env_get(c, "gpu0") : (json_t *)1;
	json_t *env = json_pack("{s:s,s:i}", "gpu", "NVIDIA H200", "sms", 132);
	int set = c && cache_env_set(c, "gpu0", env) == 0;
	cache_close(c);
	c = cache_open(cd);
	json_t *back = c ? cache_env_get(c, "gpu0") : NULL;
	int same = back && json_equal(back, env);
	cache_close(c);
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(!none && set && same && !*w, "env: none at first, then read back as written, without a warning ('%s')", w);
	sh("cd '%s/cache' && sed -i 's/H200/H100/' env", dir);
	fx_catch_start(&cg);
	c = cache_open(cd);
	back = c ? cache_env_get(c, "gpu0") : (json_t *)1;
	cache_close(c);
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(!back && strstr(w, "/env' is corrupt; the environment fingerprints are forgotten"),
	       "env: a changed byte under the checksum: forgotten, with a warning");
	sh("cd '%s/cache' && rm -f env && mkdir env", dir);
	fx_catch_start(&cg);
	c = cache_open(cd);
	back = c ? cache_env_get(c, "gpu0") : (json_t *)1;
	cache_close(c);
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(!back && strstr(w, "/env' cannot be read: ") && strstr(w, "; the environment fingerprints are forgotten"),
	       "env: one that cannot be read: forgotten, with a warning");
	json_decref(env);
	sh("rm -rf '%s'", dir);
	free(cd);
}

/* a cache whose lock another holds: waited for (said once, with the pid
 * the lock file names, "unknown" where it names none) up to
 * KOPT_LOCK_WAIT_MS, then refused with that pid; once free, opened, and
 * the lock file then names this process */
static void test_lock(void)
{
	char dir[] = "/tmp/kopt-lock-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "lock: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir), *lp = xasprintf("%s/cache/lock", dir);
	kopt_cache *c = cache_open(cd);
	cache_close(c);
	int fd = open(lp, O_RDWR);
	int held = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && ftruncate(fd, 0) == 0 && write(fd, "4242\n", 5) == 5;
	struct fx_caught cg;
	char w[1024];
	setenv("KOPT_LOCK_WAIT_MS", "150", 1);
	fx_catch_start(&cg);
	double t0 = kopt_now();
	c = cache_open(cd);
	double waited = kopt_now() - t0;
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(held && !c && waited >= 0.14 && strstr(w, "waiting for the cache lock held by pid 4242\n") &&
	       strstr(w, "is in use by another koptmake (pid 4242); try again when it is done") &&
	       strstr(strstr(w, "waiting") + 1, "waiting") == NULL,
	       "lock: held by another: waited for %.2f s, said once with its pid, then refused with it", waited);
	/* the wait is the milliseconds given: 1000, not twice as many */
	setenv("KOPT_LOCK_WAIT_MS", "1000", 1);
	fx_catch_start(&cg);
	t0 = kopt_now();
	c = cache_open(cd);
	waited = kopt_now() - t0;
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(!c && waited >= 0.99 && waited < 1.6, "lock: KOPT_LOCK_WAIT_MS=1000 waits a second (%.2f s)", waited);
	setenv("KOPT_LOCK_WAIT_MS", "0", 1);
	if (ftruncate(fd, 0) != 0)
		abort();
	fx_catch_start(&cg);
	c = cache_open(cd);
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(!c && !strstr(w, "waiting") && strstr(w, "in use by another koptmake (pid unknown)"),
	       "lock: no wait at 0 ms, and a lock file without a pid says unknown ('%s')", w);
	close(fd);
	unsetenv("KOPT_LOCK_WAIT_MS");
	c = cache_open(cd);
	char pid[32] = "";
	FILE *f = fopen(lp, "r");
	if (f) {
		if (!fgets(pid, sizeof pid, f))
			pid[0] = 0;
		fclose(f);
	}
	TAP_OK(c && atol(pid) == (long)getpid(), "lock: once free, the cache opens and its lock file names this process (%s)", pid);
	cache_close(c);
	/* with standard input closed (a daemon, cron, `<&-`) the files the
	 * cache opens may take descriptor 0: it opens, records and reads back */
	fflush(stdout);
	fflush(stderr);
	pid_t kid = fork();
	if (kid == 0) {
		close(0);
		kopt_cache *k0 = cache_open(cd);
		kopt_hash kk = hash_str("stdin closed");
		int st = k0 && cache_put(k0, kk, kk, "{\"a\":1}") == 0 ? 0 : 1;
		if (k0)
			cache_close(k0);
		k0 = cache_open(cd);
		if (!k0 || !cache_get(k0, kk))
			st = 1;
		if (k0)
			cache_close(k0);
		free(cd);
		free(lp);
		KOPT_COVER_FLUSH();
		_exit(st);
	}
	int kst;
	waitpid(kid, &kst, 0);
	TAP_OK(WIFEXITED(kst) && WEXITSTATUS(kst) == 0,
	       "lock: a cache opened with standard input closed records and reads back as any other");
	sh("rm -rf '%s'", dir);
	free(cd);
	free(lp);
}

/* -t gc's sweep of objects/: a leftover temporary file goes and counts;
 * a file whose name with its folder's is not 32 hex digits goes; a file of
 * a live object stays; a hidden folder is not one of the cache's and is
 * left; a manifest with a newline is refused */
static void test_gc_sweep(void)
{
	char dir[] = "/tmp/kopt-gcs-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "gc sweep: a scratch folder");
		return;
	}
	char *cd = xasprintf("%s/cache", dir);
	kopt_cache *c = cache_open(cd);
	kopt_hash obj, key = hash_str("k");
	char hex[HASH_HEX];
	int ok = c && cache_object_put(c, "live\n", 5, &obj) == 0;
	hash_hex(obj, hex);
	/* an object already there, whole, is not written again: its file
	 * (its inode) stays the one the first put made */
	char *op = xasprintf("%s/objects/%.2s/%s", cd, hex, hex + 2);
	struct stat st1, st2;
	kopt_hash again;
	int same = stat(op, &st1) == 0 && cache_object_put(c, "live\n", 5, &again) == 0 && hash_eq(again, obj) &&
		   stat(op, &st2) == 0 && st1.st_ino == st2.st_ino;
	TAP_OK(same, "an object put again is found whole and not written again (the same file)");
	free(op);
	char *m = xasprintf("{\"kind\":\"capture\",\"objects\":{\"x\":\"%s\"}}", hex);
	ok = ok && cache_put(c, key, hash_str(m), m) == 0;
	struct fx_caught cg;
	char w[512];
	fx_catch_start(&cg);
	int nl = c ? cache_put(c, hash_str("n"), hash_str("n"), "{\"a\":\n1}") : 0;
	fx_catch_end(&cg, w, sizeof w);
	TAP_OK(nl == -1 && strstr(w, "internal: a manifest with a newline") && !cache_get(c, hash_str("n")),
	       "cache_put refuses a manifest with a newline");
	cache_close(c);
	char *plant = xasprintf("cd '%%s/cache/objects' && head -c 1000 /dev/zero > tmp.99.0 && head -c 7 /dev/zero > %.2s/short && "
				"mkdir -p zz && head -c 3 /dev/zero > zz/0123456789abcdef0123456789abcd && "
				"mkdir -p .k && head -c 11 /dev/zero > .k/0123456789abcdef0123456789abcd", hex);
	ok = ok && sh(plant, dir) == 0;
	free(plant);
	c = cache_open(cd);
	uint64_t freed = 0;
	size_t ne = 0, no = 0;
	if (c) {
		cache_mark(c, key);
		ok = ok && cache_gc(c, &freed, &ne, &no) == 0;
	}
	struct strbuf sb = STRBUF_INIT;
	TAP_OK(ok && freed == 1010 && no == 2 && ne == 0 && cache_object_get(c, obj, &sb) == 0,
	       "gc sweep: a leftover temporary file and files that name no object go (1010 bytes, 2 objects: %llu, %zu), the live object stays",
	       (unsigned long long)freed, no);
	TAP_OK(sh("test -f '%s/cache/objects/.k/0123456789abcdef0123456789abcd'", dir) == 0,
	       "gc sweep: a hidden folder in objects/ (no object's) is left alone, with what it holds");
	strbuf_release(&sb);
	cache_close(c);
	sh("rm -rf '%s'", dir);
	free(m);
	free(cd);
}

/* the graph's string store: strings of any length read back whole, a long
 * one (past a quarter of a block) on its own, many short ones across
 * blocks */
static void test_strdup(void)
{
	static const struct rule_set none = { 0 };
	struct dag *d = xcalloc(1, sizeof *d);
	d->rules = &none;
	size_t lens[] = { 16383, 16384, 16385, 70000, 65535, 1, 0 };
	char *got[7 + 200];
	char *want[7 + 200];
	int n = 0;
	for (size_t i = 0; i < 7; i++) {
		want[n] = xmalloc(lens[i] + 1);
		memset(want[n], 'a' + (int)i, lens[i]);
		want[n][lens[i]] = 0;
		got[n] = dag_strdup(d, want[n]);
		n++;
	}
	for (int i = 0; i < 200; i++) {
		want[n] = xasprintf("%0*d", 400 + i, i);
		got[n] = dag_strdup(d, want[n]);
		n++;
	}
	int same = 0;
	for (int i = 0; i < n; i++) {
		same += strcmp(got[i], want[i]) == 0;
		free(want[i]);
	}
	TAP_IS_INT(same, n, "dag strings: each read back whole, long ones and short ones across blocks");
	dag_free(d);
}

/* the twins' table by key: keys alike in one half only are two keys, each
 * with its own slot (a key is both halves) */
static void test_twins_halves(void)
{
	struct twins t = { xcalloc(8, sizeof *t.v), 8, 0 };
	struct dag_node a, b;
	kopt_hash k1 = { .lo = 3, .hi = 7 }, k2 = { .lo = 3, .hi = 8 }, k3 = { .lo = 11, .hi = 7 };
	struct twin *s1 = twins_slot(&t, k1);
	s1->key = k1;
	s1->first = &a;
	struct twin *s2 = twins_slot(&t, k2);
	TAP_OK(s2 != s1 && !s2->first, "twins: a key alike in its low half only gets a free slot of its own");
	s2->key = k2;
	s2->first = &b;
	struct twin *s3 = twins_slot(&t, k3);
	TAP_OK(s3 != s1 && s3 != s2 && !s3->first, "twins: a key alike in its high half only, probing past both, a free slot too");
	TAP_OK(twins_slot(&t, k1) == s1 && twins_slot(&t, k2) == s2, "twins: each key finds its own slot again");
	twins_release(&t);
}

/* -j's default: per GPU one worker for every four host cores, 1 to 4 */
static void test_jobs(void)
{
	static const struct { int gpus; long cpus, want; } c[] = {
		{ 1, 1, 1 }, { 1, 3, 1 }, { 1, 4, 1 }, { 1, 7, 1 }, { 1, 8, 2 }, { 1, 12, 3 }, { 1, 15, 3 },
		{ 1, 16, 4 }, { 1, 17, 4 }, { 1, 20, 4 }, { 1, 31, 4 }, { 1, 128, 4 }, { 0, 16, 4 },
		{ 8, 128, 32 }, { 2, 8, 4 }, { 1, -1, 1 },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int got = engine_jobs_for(c[i].gpus, c[i].cpus);
		if (got == c[i].want)
			right++;
		else
			tap_diag("%d GPUs, %ld cores: %d workers, want %ld", c[i].gpus, c[i].cpus, got, c[i].want);
	}
	TAP_IS_INT(right, (int)(sizeof c / sizeof c[0]),
		   "default workers: one per four cores a GPU, 1 to 4 (15 cores: 3; 16: 4, and 4 at every count above; no GPU counted: one)");
}

int main(void)
{
	/* the loaders warn about every bad input: keep the TAP stream readable */
	if (!getenv("VERBOSE"))
		freopen("/dev/null", "w", stderr);
	test_hash();
	test_explain();
	test_fuzz();
	test_blog_last();
	test_blog_record();
	test_jobs();
	test_blog_compact();
	test_gc_absent();
	test_gc();
	test_gc_sweep();
	test_corrupt();
	test_actions_env();
	test_lock();
	test_tail();
	test_strdup();
	test_queue_progress();
	test_outdir();
	test_proc();
	test_record_min();
	test_result_object();
	test_ingredients_long();
	test_ingredients_empty();
	test_key_hash_bytes();
	test_twins_halves();
	return tap_done();
}
