/*
 * engine/seal.h: what koptmake vouches for, keyed with a secret that the
 * user's machine holds.
 *
 * A seal is HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256) of
 *
 *     "koptmake seal 1" NUL DOMAIN NUL NAME NUL BYTES
 *
 * under the seal key: 32 random bytes, written as 64 hex digits. The key
 * is $KOPT_SEAL_KEY (64 hex digits) when set, else the key file
 * $XDG_CONFIG_HOME/koptmake/seal.key (~/.config/koptmake/seal.key without
 * XDG_CONFIG_HOME), which the first seal creates (mode 0600 in a folder of
 * mode 0700, from /dev/urandom). A key file that is a symbolic link, not
 * the user's, or readable by others is refused: whoever reads the key can
 * forge seals. The domains:
 *
 *   "output"  NAME the path below kopt-out/ of a file that kopt.backend
 *             loads (<model>/substitutions.json, <model>/helion.json,
 *             <model>/<shape>/substitutions.json); BYTES its bytes. The
 *             seals are in kopt-out/<model>/seal.json (rules/stitch_out.c),
 *             version SEAL_OUTPUT_VERSION, with the model's folder below
 *             kopt-out/ ("folder"), checked by
 *             runtime/python/kopt/seal.py, which computes the same HMAC
 *             with Python's standard library and refuses a seal whose
 *             folder the deployed folder's path does not end with: the
 *             folder in the name keeps a seal from vouching for another
 *             model's (or shape's) table copied into this folder.
 *   "record"  NAME empty; BYTES an action record of the remote cache, the
 *             local action map's line without its newline (engine/remote.c)
 *   "object"  NAME an object's 32 hex digits; BYTES its bytes (remote.c)
 *
 * The local cache folder is not sealed: it is the user's own, as the key
 * is (SECURITY.md says what that trusts).
 */
#ifndef KOPT_SEAL_H
#define KOPT_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SEAL_LEN 32  /* bytes of a seal (and of the key) */
#define SEAL_HEX 65  /* its hex digits and a NUL */
/* seal.json's version: 2 binds each file's seal to its folder below
 * kopt-out/ (1 sealed the file's base name alone) */
#define SEAL_OUTPUT_VERSION 2

/* SHA-256 of data, and HMAC-SHA256 of msg under key (for the tests and
 * for seal_mac) */
void seal_sha256(const void *data, size_t n, uint8_t out[SEAL_LEN]);
void seal_hmac(const uint8_t *key, size_t klen, const void *msg, size_t n, uint8_t out[SEAL_LEN]);

/* Loads the key (creating the key file when neither it nor $KOPT_SEAL_KEY
 * is there) once per process: 0, or -1 after printing an error once (every
 * later call then answers -1 without a word). */
int seal_key_load(void);
/* where the key comes from, for messages: "$KOPT_SEAL_KEY" or the key
 * file's path (static; NULL where no home tells where) */
const char *seal_key_where(void);
/* the first 16 hex digits of the key's SHA-256: which key made a seal,
 * without saying anything of the key (static; "" before a load) */
const char *seal_key_id(void);
/* forgets the loaded key (tests) */
void seal_key_reset(void);

/* The seal of (domain, name, data) under the loaded key into out (64 hex
 * digits and a NUL): 0, or -1 when no key could be loaded. */
int seal_make(const char *domain, const char *name, const void *data, size_t n, char out[SEAL_HEX]);
/* whether hex is the seal of (domain, name, data), compared in constant
 * time; false without a key */
bool seal_check(const char *domain, const char *name, const void *data, size_t n, const char *hex);

#endif
