/*
 * engine/seal.c: see seal.h. SHA-256 as FIPS 180-4 gives it (checked
 * against its examples and RFC 4231's HMAC cases in tests/unit/seal_test.c),
 * HMAC as RFC 2104 does, and the key's file.
 */
#define _GNU_SOURCE
#include <config.h>

#include "seal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/util.h"

/* ---- SHA-256 ---- */

struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	size_t nbuf;
	uint64_t bits;
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(a, s->h, sizeof a);
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = a[7] + (ror(a[4], 6) ^ ror(a[4], 11) ^ ror(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6])) + K[i] + w[i];
		uint32_t t2 = (ror(a[0], 2) ^ ror(a[0], 13) ^ ror(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
		memmove(a + 1, a, 7 * sizeof *a);
		a[4] += t1;
		a[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += a[i];
}

static void sha_init(struct sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, h0, sizeof h0);
	s->nbuf = 0;
	s->bits = 0;
}

static void sha_add(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->bits += (uint64_t)n * 8;
	while (n) {
		size_t take = 64 - s->nbuf < n ? 64 - s->nbuf : n;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		n -= take;
		if (s->nbuf == 64) {
			sha_block(s, s->buf);
			s->nbuf = 0;
		}
	}
}

static void sha_end(struct sha256 *s, uint8_t out[SEAL_LEN])
{
	uint64_t bits = s->bits;
	uint8_t pad = 0x80, zero = 0, len[8];
	sha_add(s, &pad, 1);
	while (s->nbuf != 56)
		sha_add(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_add(s, len, 8);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void seal_sha256(const void *data, size_t n, uint8_t out[SEAL_LEN])
{
	struct sha256 s;
	sha_init(&s);
	sha_add(&s, data, n);
	sha_end(&s, out);
}

/* ---- HMAC ---- */

struct part {
	const void *p;
	size_t n;
};

static void hmac_parts(const uint8_t *key, size_t klen, const struct part *parts, size_t nparts, uint8_t out[SEAL_LEN])
{
	uint8_t k[64] = { 0 }, pad[64], inner[SEAL_LEN];
	if (klen > 64)
		seal_sha256(key, klen, k);
	else
		memcpy(k, key, klen);
	struct sha256 s;
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha_init(&s);
	sha_add(&s, pad, 64);
	for (size_t i = 0; i < nparts; i++)
		sha_add(&s, parts[i].p, parts[i].n);
	sha_end(&s, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha_init(&s);
	sha_add(&s, pad, 64);
	sha_add(&s, inner, sizeof inner);
	sha_end(&s, out);
	memset(k, 0, sizeof k);
	memset(pad, 0, sizeof pad);
}

void seal_hmac(const uint8_t *key, size_t klen, const void *msg, size_t n, uint8_t out[SEAL_LEN])
{
	struct part p = { msg, n };
	hmac_parts(key, klen, &p, 1, out);
}

/* ---- the key ---- */

static struct {
	int state;             /* 0: not loaded; 1: loaded; -1: failed (said once) */
	uint8_t key[SEAL_LEN];
	char id[17];
	char *where;           /* "$KOPT_SEAL_KEY" or the file's path */
} seal;

static int unhex(const char *s, size_t n, uint8_t *out)
{
	if (strlen(s) < 2 * n)
		return -1;
	for (size_t i = 0; i < 2 * n; i++) {
		int c = s[i], v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
				       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return -1;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
	}
	return 0;
}

static void tohex(const uint8_t *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* 64 hex digits, then at most a newline */
static int parse_key(const char *text)
{
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	if (n != 2 * SEAL_LEN)
		return -1;
	return unhex(text, SEAL_LEN, seal.key);
}

static char *key_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	if (x && *x == '/')
		return xasprintf("%s/koptmake/seal.key", x);
	if (h && *h)
		return xasprintf("%s/.config/koptmake/seal.key", h);
	return NULL;
}

/* a new key file at path: 32 bytes of /dev/urandom as hex, written to a
 * temporary file and linked into place (another koptmake that got there
 * first wins; its key is read) */
static int create_key(const char *path)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int r = -1;
	if (kopt_mkdirs(dir) < 0 && errno != EEXIST) {
		kopt_error("cannot make the seal key's folder '%s': %s", dir, strerror(errno));
		goto out;
	}
	chmod(dir, 0700);
	uint8_t k[SEAL_LEN];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, k, sizeof k) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof k) {
		kopt_error("cannot make a seal key: /dev/urandom: %s", got < 0 ? strerror(errno) : "short read");
		goto out;
	}
	char text[2 * SEAL_LEN + 2];
	tohex(k, sizeof k, text);
	strcat(text, "\n");
	memset(k, 0, sizeof k);
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ok = fd >= 0 && kopt_write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	memset(text, 0, sizeof text);
	if (!ok || (link(tmp, path) < 0 && errno != EEXIST)) {
		kopt_error("cannot write the seal key '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		goto out;
	}
	unlink(tmp);
	free(tmp);
	r = 0;
out:
	free(dir);
	return r;
}

/* reads the key file, refusing one that others could read or replace */
static int read_key(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create_key(path) == 0)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		kopt_error("cannot read the seal key '%s': %s", path,
			   errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	struct stat st;
	char text[2 * SEAL_LEN + 8];
	ssize_t n = -1;
	const char *bad = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		bad = "it is not a regular file";
	else if (st.st_uid != geteuid())
		bad = "it is not this user's";
	else if (st.st_mode & 077)
		bad = "others may read it (chmod 600 it, and make a new one if they did)";
	else if ((n = read(fd, text, sizeof text - 1)) < 0)
		bad = strerror(errno);
	close(fd);
	if (!bad) {
		text[n] = '\0';
		if (parse_key(text) < 0)
			bad = "it does not hold 64 hex digits";
	}
	memset(text, 0, sizeof text);
	if (bad) {
		kopt_error("cannot use the seal key '%s': %s", path, bad);
		return -1;
	}
	return 0;
}

int seal_key_load(void)
{
	if (seal.state)
		return seal.state > 0 ? 0 : -1;
	seal.state = -1;
	const char *env = getenv("KOPT_SEAL_KEY");
	if (env && *env) {
		free(seal.where);
		seal.where = xstrdup("$KOPT_SEAL_KEY");
		if (parse_key(env) < 0) {
			kopt_error("KOPT_SEAL_KEY: not a seal key (64 hex digits, as in a key file)");
			return -1;
		}
	} else {
		char *path = key_path();
		free(seal.where);
		seal.where = path;
		if (!path) {
			kopt_error("no seal key: neither KOPT_SEAL_KEY, XDG_CONFIG_HOME nor HOME is set");
			return -1;
		}
		if (read_key(path) < 0)
			return -1;
	}
	uint8_t d[SEAL_LEN];
	seal_sha256(seal.key, sizeof seal.key, d);
	tohex(d, 8, seal.id);
	seal.state = 1;
	return 0;
}

const char *seal_key_where(void)
{
	if (!seal.where && !getenv("KOPT_SEAL_KEY"))
		seal.where = key_path();
	return getenv("KOPT_SEAL_KEY") && *getenv("KOPT_SEAL_KEY") ? "$KOPT_SEAL_KEY" : seal.where;
}

const char *seal_key_id(void)
{
	return seal.state > 0 ? seal.id : "";
}

void seal_key_reset(void)
{
	memset(seal.key, 0, sizeof seal.key);
	free(seal.where);
	memset(&seal, 0, sizeof seal);
}

int seal_make(const char *domain, const char *name, const void *data, size_t n, char out[SEAL_HEX])
{
	out[0] = '\0';
	if (seal_key_load() < 0)
		return -1;
	static const char head[] = "koptmake seal 1";
	struct part parts[] = { { head, sizeof head }, { domain, strlen(domain) + 1 }, { name, strlen(name) + 1 },
				{ data, n } };
	uint8_t mac[SEAL_LEN];
	hmac_parts(seal.key, sizeof seal.key, parts, sizeof parts / sizeof *parts, mac);
	tohex(mac, sizeof mac, out);
	return 0;
}

bool seal_check(const char *domain, const char *name, const void *data, size_t n, const char *hex)
{
	char want[SEAL_HEX];
	if (!hex || strlen(hex) != 2 * SEAL_LEN || seal_make(domain, name, data, n, want) < 0)
		return false;
	unsigned diff = 0;
	for (size_t i = 0; i < 2 * SEAL_LEN; i++)
		diff |= (unsigned)(want[i] ^ hex[i]);
	return diff == 0;
}
