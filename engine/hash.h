/*
 * engine/hash.h: keys and content hashes (XXH3-128).
 *
 * A key is built from named ingredients (the step kind, its rule version, the
 * parameters that change its output, the content hashes of its inputs'
 * outputs) serialized canonically: "koptkey1\0", then per ingredient its name,
 * a NUL, a 4-byte little-endian length and the value bytes. The key is the
 * XXH3-128 of that byte string. The serialization is kept so that -d explain
 * can name the ingredient that changed (hash_key_ingredients).
 */
#ifndef KOPT_HASH_H
#define KOPT_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/util.h"

typedef struct kopt_hash {
	uint64_t hi, lo;
} kopt_hash;

#define HASH_HEX 33 /* 32 hex digits and a NUL */

kopt_hash hash_bytes(const void *p, size_t n);
kopt_hash hash_str(const char *s);
bool hash_eq(kopt_hash a, kopt_hash b);
bool hash_is_zero(kopt_hash h);
/* writes 32 lowercase hex digits and a NUL into out (HASH_HEX bytes) */
void hash_hex(kopt_hash h, char *out);
/* parses exactly 32 hex digits; 0 or -1 */
int hash_parse(const char *s, kopt_hash *out);
/* 64-bit checksum of bytes (XXH3-64), for state-file records */
uint64_t hash_sum64(const void *p, size_t n);

/* A key under construction. */
struct hash_key {
	struct strbuf ser; /* the canonical serialization so far */
};
void hash_key_init(struct hash_key *k, const char *kind, int version);
/* starts again with the same buffer */
void hash_key_reset(struct hash_key *k, const char *kind, int version);
/* a key with no header: collects ingredients to splice into keys later */
void hash_key_init_bare(struct hash_key *k);
/* appends ingredients collected in a bare key */
void hash_key_splice(struct hash_key *k, const struct hash_key *bare);
void hash_key_add(struct hash_key *k, const char *name, const void *val, size_t n);
void hash_key_str(struct hash_key *k, const char *name, const char *val); /* NULL -> "\xff" */
void hash_key_int(struct hash_key *k, const char *name, long long v);
void hash_key_double(struct hash_key *k, const char *name, double v); /* %.17g */
void hash_key_hash(struct hash_key *k, const char *name, kopt_hash h);
kopt_hash hash_key_final(const struct hash_key *k);
void hash_key_release(struct hash_key *k);

/*
 * Summarizes a serialization as "name=xxxxxxxx,name=xxxxxxxx" (8 hex digits
 * of each value's XXH3-64): the build log keeps it, -d explain compares two.
 * Names with ',' or '=' are not produced by the rules. Caller frees.
 */
char *hash_key_ingredients(const struct hash_key *k);

#endif
