/* engine/hash.c: see hash.h */
#define _GNU_SOURCE
#include <config.h>

#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

kopt_hash hash_bytes(const void *p, size_t n)
{
	XXH128_hash_t h = XXH3_128bits(p, n);
	kopt_hash r = { h.high64, h.low64 };
	return r;
}

kopt_hash hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

bool hash_eq(kopt_hash a, kopt_hash b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

bool hash_is_zero(kopt_hash h)
{
	return h.hi == 0 && h.lo == 0;
}

static const char hexdig[] = "0123456789abcdef";

void hash_hex(kopt_hash h, char *out)
{
	for (int i = 0; i < 16; i++)
		out[i] = hexdig[(h.hi >> (60 - 4 * i)) & 15];
	for (int i = 0; i < 16; i++)
		out[16 + i] = hexdig[(h.lo >> (60 - 4 * i)) & 15];
	out[32] = '\0';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static signed char hextab[256];

static void hextab_init(void)
{
	if (hextab['1'])
		return;
	for (int c = 0; c < 256; c++)
		hextab[c] = (signed char)hexval(c);
}

int hash_parse(const char *s, kopt_hash *out)
{
	uint64_t v[2] = { 0, 0 };
	int bad = 0;
	hextab_init();
	if (strnlen(s, 32) < 32)
		return -1;
	for (int half = 0; half < 2; half++) {
		uint64_t x = 0;
		for (int i = 0; i < 16; i++) {
			int d = hextab[(unsigned char)s[16 * half + i]];
			bad |= d;
			x = (x << 4) | (uint64_t)(d & 15);
		}
		v[half] = x;
	}
	if (bad < 0)
		return -1;
	out->hi = v[0];
	out->lo = v[1];
	return 0;
}

uint64_t hash_sum64(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

void hash_key_init(struct hash_key *k, const char *kind, int version)
{
	strbuf_init(&k->ser);
	strbuf_add(&k->ser, "koptkey1", 9);
	hash_key_str(k, "kind", kind);
	hash_key_int(k, "rule", version);
}

void hash_key_reset(struct hash_key *k, const char *kind, int version)
{
	strbuf_reset(&k->ser);
	strbuf_add(&k->ser, "koptkey1", 9);
	hash_key_str(k, "kind", kind);
	hash_key_int(k, "rule", version);
}

void hash_key_init_bare(struct hash_key *k)
{
	strbuf_init(&k->ser);
}

void hash_key_splice(struct hash_key *k, const struct hash_key *bare)
{
	strbuf_add(&k->ser, bare->ser.buf, bare->ser.len);
}

void hash_key_add(struct hash_key *k, const char *name, const void *val, size_t n)
{
	unsigned char len[4] = { (unsigned char)n, (unsigned char)(n >> 8),
				 (unsigned char)(n >> 16), (unsigned char)(n >> 24) };
	strbuf_add(&k->ser, name, strlen(name) + 1);
	strbuf_add(&k->ser, len, 4);
	strbuf_add(&k->ser, val, n);
}

void hash_key_str(struct hash_key *k, const char *name, const char *val)
{
	if (!val)
		hash_key_add(k, name, "\xff", 1);
	else
		hash_key_add(k, name, val, strlen(val));
}

void hash_key_int(struct hash_key *k, const char *name, long long v)
{
	char buf[24], *p = buf + sizeof buf;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--p = '-';
	hash_key_add(k, name, p, (size_t)(buf + sizeof buf - p));
}

void hash_key_double(struct hash_key *k, const char *name, double v)
{
	char buf[40];
	int n = snprintf(buf, sizeof buf, "%.17g", v);
	hash_key_add(k, name, buf, (size_t)n);
}

void hash_key_hash(struct hash_key *k, const char *name, kopt_hash h)
{
	unsigned char b[16];
	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(h.hi >> (56 - 8 * i));
		b[8 + i] = (unsigned char)(h.lo >> (56 - 8 * i));
	}
	hash_key_add(k, name, b, 16);
}

kopt_hash hash_key_final(const struct hash_key *k)
{
	return hash_bytes(k->ser.buf, k->ser.len);
}

void hash_key_release(struct hash_key *k)
{
	strbuf_release(&k->ser);
}

char *hash_key_ingredients(const struct hash_key *k)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = k->ser.buf + 9, *end = k->ser.buf + k->ser.len;
	strbuf_init(&out);
	while (p < end) {
		const char *name = p;
		size_t nl = strnlen(p, (size_t)(end - p));
		p += nl + 1;
		if (p + 4 > end)
			break;
		const unsigned char *l = (const unsigned char *)p;
		size_t n = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
		p += 4;
		if (n > (size_t)(end - p))
			break;
		if (out.len)
			strbuf_addch(&out, ',');
		strbuf_addf(&out, "%s=%08x", name, (unsigned)XXH3_64bits(p, n));
		p += n;
	}
	return strbuf_detach(&out);
}
