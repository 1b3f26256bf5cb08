/*
 * engine/witness.h: files that stand for a worker's environment.
 *
 * A worker's hello names the files whose bytes decide its environment
 * fingerprint (the driver's version file, the GPU list, torch's version.py,
 * triton, the interpreter, the kopt package). koptmake records a digest of
 * each beside the remembered fingerprint; while every digest is unchanged,
 * the next build keys its captures on the remembered fingerprint without
 * starting a worker, so a null build runs nothing on the GPU and no Python.
 *
 * A record is a JSON array of {"path": P, "sum": HEX|null}: sum is XXH3-64
 * of the file's bytes (read to its end: /proc files report size 0), of
 * "size mtime" for files over 4 MiB (an interpreter binary), of the sorted
 * names for a folder; null for a path that cannot be read.
 */
#ifndef KOPT_WITNESS_H
#define KOPT_WITNESS_H

#include <jansson.h>
#include <stdbool.h>

/* The record of paths (a JSON array of strings); NULL when paths is not one
 * or is empty. New reference. */
json_t *witness_record(const json_t *paths);

/* Whether every file of record still has its digest. On false, *why (when
 * why is not NULL) says which changed; the caller frees it. A NULL or
 * malformed record is never fresh. */
bool witness_fresh(const json_t *record, char **why);

struct dag;
struct kopt_device;
typedef struct wpool wpool;

/*
 * The start of a build: each device's worker environment (part of some
 * keys). Where the files its last worker named as the environment's
 * witnesses are unchanged, the remembered fingerprint stands and no worker
 * starts; otherwise (or with KOPT_CHECK_ENV=1, or for workers started
 * through a launcher) one worker per device is started to read its hello
 * and stays for the first step. KOPT_TRUST_ENV=1 skips the check. devs are
 * the pool's devices, in its order. A worker that cannot be had is told
 * to on_fail (NULL: a warning).
 */
void witness_check_envs(struct dag *d, wpool *pool, const struct kopt_device *const *devs, int ndevs,
			void (*on_fail)(void *ctx, const char *device, const char *why), void *ctx);

/* Whether a device's worker runs on the GPU its spec names (`gpu`, found
 * in the environment's "gpu" in any case: "H200" in "NVIDIA H200"): NULL
 * when it does, when the device names none or the environment is not
 * known; else the one-line error, which the caller frees. */
char *witness_gpu_mismatch(const struct kopt_device *dev, const json_t *env);

/* Why a worker whose hello told of env cannot serve dev, whose first
 * worker in this pool told of first: not on the device's GPU (as
 * witness_gpu_mismatch), or in another environment than that first one (a
 * launcher that lands on machines set up apart: no key holds for both).
 * NULL when it can; else the one-line error, which the caller frees. */
char *witness_unfit(const struct kopt_device *dev, const json_t *first, const json_t *env);

/* Remembers env as dev's worker environment in d's cache; true (and a line
 * on stderr where another was remembered) when it is new. */
bool witness_remember(struct dag *d, const struct kopt_device *dev, json_t *env);

#endif
