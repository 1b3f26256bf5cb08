/*
 * tests/unit/seal_test.c: the seals (engine/seal.h). SHA-256 against FIPS
 * 180-4's examples, HMAC-SHA256 against RFC 4231's cases; the key file is
 * made on first use with mode 0600 in a folder of mode 0700, read again by
 * the next process, and refused as a link, as another's, or readable by
 * others; $KOPT_SEAL_KEY stands for it; a seal holds only for its bytes,
 * name and domain, and another key's seal does not hold.
 */
#define _GNU_SOURCE
#include <config.h>

#include "../tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/util.h"
#include "../../engine/seal.h"

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static const char *sha(const void *d, size_t n)
{
	static char out[SEAL_HEX];
	uint8_t m[SEAL_LEN];
	seal_sha256(d, n, m);
	hex(m, sizeof m, out);
	return out;
}

static const char *hmac(const void *k, size_t kn, const void *d, size_t n)
{
	static char out[SEAL_HEX];
	uint8_t m[SEAL_LEN];
	seal_hmac(k, kn, d, n, m);
	hex(m, sizeof m, out);
	return out;
}

static void digests(void)
{
	TAP_IS_STR(sha("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256: empty");
	TAP_IS_STR(sha("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256: abc");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	TAP_IS_STR(sha(two, strlen(two)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		   "sha256: two blocks (448 bits)");
	char *million = xmalloc(1000000);
	memset(million, 'a', 1000000);
	TAP_IS_STR(sha(million, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		   "sha256: a million a's");
	free(million);
	uint8_t k1[20], k6[131];
	memset(k1, 0x0b, sizeof k1);
	memset(k6, 0xaa, sizeof k6);
	TAP_IS_STR(hmac(k1, sizeof k1, "Hi There", 8),
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "hmac: RFC 4231 case 1");
	const char *m2 = "what do ya want for nothing?";
	TAP_IS_STR(hmac("Jefe", 4, m2, strlen(m2)), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		   "hmac: RFC 4231 case 2");
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	TAP_IS_STR(hmac(k6, sizeof k6, m6, strlen(m6)),
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
		   "hmac: RFC 4231 case 6 (a key longer than a block)");
}

/* the exit status of a child that loads the key with stderr in err */
static int load_in_child(const char *err)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(err, "w", stderr))
			_exit(3);
		seal_key_reset();
		int r = seal_key_load();
		fflush(stderr);
		KOPT_COVER_FLUSH(); /* a coverage build's counts, which _exit would lose */
		_exit(r == 0 ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 9;
}

static bool has(const char *path, const char *needle)
{
	struct strbuf sb = STRBUF_INIT;
	bool r = strbuf_read_file(&sb, path) == 0 && strstr(sb.buf, needle);
	strbuf_release(&sb);
	return r;
}

static void key_file(const char *tmp)
{
	char *cfg = xasprintf("%s/config", tmp), *file = xasprintf("%s/koptmake/seal.key", cfg);
	char *err = xasprintf("%s/err", tmp);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	unsetenv("KOPT_SEAL_KEY");
	seal_key_reset();
	char a[SEAL_HEX], b[SEAL_HEX];
	TAP_OK(seal_make("output", "substitutions.json", "x", 1, a) == 0 && strlen(a) == 64,
	       "the first seal makes the key file");
	struct stat st, dst;
	char *kdir = xasprintf("%s/koptmake", cfg);
	TAP_OK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0600 && stat(kdir, &dst) == 0 && (dst.st_mode & 0777) == 0700,
	       "the key file has mode 0600, its folder 0700");
	TAP_IS_STR(seal_key_where(), file, "the key's place is named for messages");
	TAP_OK(strlen(seal_key_id()) == 16, "a key has an id of 16 hex digits");
	TAP_OK(seal_key_load() == 0 && seal_key_load() == 0, "a loaded key: each later load answers 0, as seal.h says");
	seal_key_reset();
	TAP_OK(seal_make("output", "substitutions.json", "x", 1, b) == 0 && strcmp(a, b) == 0,
	       "the next process reads the same key: the same seal");
	TAP_OK(seal_check("output", "substitutions.json", "x", 1, a), "a seal holds for its bytes");
	TAP_OK(!seal_check("output", "substitutions.json", "y", 1, a), "... not for other bytes");
	TAP_OK(!seal_check("output", "helion.json", "x", 1, a), "... nor another name");
	TAP_OK(!seal_check("record", "substitutions.json", "x", 1, a), "... nor another domain");
	TAP_OK(!seal_check("output", "substitutions.json", "x", 1, "00") && !seal_check("output", "substitutions.json", "x", 1, NULL),
	       "... and a short or missing seal holds for nothing");

	chmod(file, 0640);
	TAP_OK(load_in_child(err) == 1 && has(err, "others may read it"), "a key file others may read is refused");
	chmod(file, 0600);
	char *moved = xasprintf("%s/real.key", tmp);
	rename(file, moved);
	symlink(moved, file);
	TAP_OK(load_in_child(err) == 1 && has(err, "symbolic link"), "a key file that is a link is refused");
	unlink(file);
	rename(moved, file);
	if (geteuid() == 0) {
		chown(file, 1, 1);
		TAP_OK(load_in_child(err) == 1 && has(err, "not this user's"), "a key file of another user is refused");
		chown(file, 0, 0);
	} else {
		TAP_OK(1, "a key file of another user is refused # SKIP not root");
	}

	setenv("KOPT_SEAL_KEY", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 1);
	seal_key_reset();
	TAP_OK(seal_make("output", "substitutions.json", "x", 1, b) == 0 && strcmp(a, b) != 0 &&
	       strcmp(seal_key_where(), "$KOPT_SEAL_KEY") == 0, "KOPT_SEAL_KEY stands for the key file");
	TAP_OK(!seal_check("output", "substitutions.json", "x", 1, a), "the key file's seal does not hold under another key");
	/* the same key written in capitals, and in both cases: the same key */
	static const char *const cases[] = {
		"00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF",
		"00112233445566778899aAbBcCdDeEfF00112233445566778899AaBbCcDdEeFf",
	};
	int same = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char c[65];
		setenv("KOPT_SEAL_KEY", cases[i], 1);
		seal_key_reset();
		if (seal_make("output", "substitutions.json", "x", 1, c) == 0 && strcmp(b, c) == 0 &&
		    seal_check("output", "substitutions.json", "x", 1, b))
			same++;
	}
	TAP_OK(same == 2, "KOPT_SEAL_KEY's hex digits in capitals or mixed case are the same key (the same seals)");
	setenv("KOPT_SEAL_KEY", "not-a-key", 1);
	TAP_OK(load_in_child(err) == 1 && has(err, "KOPT_SEAL_KEY: not a seal key") && !has(err, "not-a-key"),
	       "a malformed KOPT_SEAL_KEY is refused without repeating it");
	unsetenv("KOPT_SEAL_KEY");
	seal_key_reset();
	free(moved);
	free(kdir);
	free(cfg);
	free(file);
	free(err);
}

/* a koptmake started with its standard input closed (from a daemon, cron,
 * `<&-`): the files it opens take descriptor 0, the seal key's among them,
 * and the key is made and read as any other */
static void key_without_stdin(const char *tmp)
{
	char *cfg = xasprintf("%s/nostdin", tmp), *file = xasprintf("%s/koptmake/seal.key", cfg);
	char *err = xasprintf("%s/err0", tmp);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(err, "w", stderr))
			_exit(3);
		close(0);
		setenv("XDG_CONFIG_HOME", cfg, 1);
		unsetenv("KOPT_SEAL_KEY");
		seal_key_reset();
		char a[SEAL_HEX];
		int made = seal_make("output", "substitutions.json", "x", 1, a);
		fflush(stderr);
		int st = made == 0 && fcntl(0, F_GETFD) < 0 ? 0 : 1;
		KOPT_COVER_FLUSH();
		_exit(st);
	}
	int st;
	waitpid(pid, &st, 0);
	struct stat fst;
	TAP_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && stat(file, &fst) == 0 && fst.st_size == 65,
	       "standard input closed: the seal key is made on descriptor 0 and sealed with");
	free(cfg);
	free(file);
	free(err);
}

int main(void)
{
	digests();
	char tmpl[] = "/tmp/kopt-seal-XXXXXX";
	if (!mkdtemp(tmpl))
		return 1;
	key_file(tmpl);
	key_without_stdin(tmpl);
	char *rm = xasprintf("rm -rf '%s'", tmpl);
	if (system(rm) != 0)
		tap_diag("could not remove %s", tmpl);
	free(rm);
	return tap_done();
}
