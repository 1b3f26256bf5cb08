/*
 * runtime/sandbox.h: what a worker may do, set up before it loads code it
 * did not write (models, agents' candidates).
 *
 * Two halves, in one place so that the lists are written once:
 *
 * - koptmake (engine/worker_pool.c) starts every worker with the
 *   environment of sandbox_env(): the variables on the keep list
 *   (sandbox_env_keep, documented in koptmake(1)) and those $KOPT_WORKER_ENV
 *   names, less any whose name looks like a secret (sandbox_env_secret) and
 *   any a spec's key_env names. Only the engine talks to LLMs.
 *
 * - The worker (runtime/kopt-worker.c, and tests/sim-worker.c, its test
 *   double, through the same code) calls sandbox_enter() first thing: it
 *   makes its scratch folder, then Landlock denies writes anywhere but
 *   there, the compile caches it must write, /dev/shm, the GPU's device
 *   files and /proc (root: its dangerous part read-only, capabilities
 *   given up), and reads of the user's home and of anything but the
 *   system's, Python's and the spec's folders, and a seccomp filter
 *   denies socket() for every address family but AF_UNIX (CUDA's own IPC),
 *   and io_uring. $KOPT_SANDBOX=off turns both off.
 *
 * Plain libc (no common/util): the worker links it without libkopt.
 */
#ifndef KOPT_SANDBOX_H
#define KOPT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

/* ---- the environment a worker starts with (koptmake's side) ---- */

/* NULL-terminated: names, or prefixes written NAME* */
extern const char *const sandbox_env_keep[];

/* whether a variable name looks like a secret, in any case: it holds KEY_,
 * TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, APIKEY, _AUTH,
 * PRIVATE or COOKIE, or ends in KEY, _PASS, _PWD, _PW, _DSN or
 * DATABASE_URL. The one list: the spec's env() asks it too (lang/). */
bool sandbox_env_secret(const char *name, size_t len);

/* whether the variable NAME (len bytes) reaches a worker; extra: the value
 * of $KOPT_WORKER_ENV (names and NAME* prefixes separated by blanks, commas
 * or colons) or NULL; deny: names never passed (NULL-terminated, or NULL) */
bool sandbox_env_passes(const char *name, size_t len, const char *extra, const char *const *deny);

/* A new NULL-terminated environment: the entries of env that pass (with
 * $KOPT_WORKER_ENV read from env). Free with sandbox_env_free. */
char **sandbox_env(char *const *env, const char *const *deny);
void sandbox_env_free(char **env);

/* Removes the scratch folders below root that a worker made (they hold its
 * mark), then root when it is empty: koptmake's, after its workers are gone. */
void sandbox_scratch_remove(const char *root);

/* ---- confinement (the worker's side) ---- */

struct sandbox_state {
	int landlock_abi;     /* the kernel's Landlock ABI; 0: none */
	bool fs;              /* writes are confined (Landlock) */
	bool net;             /* network sockets are denied (seccomp) */
	bool off;             /* KOPT_SANDBOX=off */
	bool proc;            /* /proc may be written (its children start CUDA); root: its
	                       * dangerous part read-only in a mount namespace of its own */
	bool caps;            /* root, and it gave up every capability */
	char scratch[4096];   /* the scratch folder ($TMPDIR now points there) */
	char note[512];       /* one warning line when something is not confined, else "" */
};

/*
 * Makes the scratch folder ($KOPT_SCRATCH, else a new one under $TMPDIR or
 * /tmp; emptied when it is one of ours), points TMPDIR at it and
 * TORCHINDUCTOR_CACHE_DIR at Inductor's usual cache (unless set), then
 * confines the process and everything it starts: writes only below the
 * scratch folder, the Inductor, Triton, CUDA and kopt caches, /dev and the
 * folders in $KOPT_SANDBOX_WRITE (colon-separated); reads only below the
 * system's folders (/usr, /lib*, /bin, /sbin, /etc, /opt, /proc, /sys,
 * /run, /nix, /snap) less the home folders ($HOME, the user's, /home,
 * /root, $XDG_RUNTIME_DIR, /run/user) and root's secrets (/etc/shadow,
 * /etc/ssh, ...), the folders in $KOPT_SANDBOX_READ (colon-separated:
 * koptmake names the spec's), reads (NULL-terminated paths, or NULL: the
 * Python install and sys.path, which kopt-worker asks its Python for),
 * $LD_LIBRARY_PATH, $PATH, $CUDA_HOME, $CUDA_PATH and ~/.nv (none of
 * these lists' entries that holds a home folder), and where it writes; no
 * socket() but AF_UNIX; no io_uring. Where the kernel lacks Landlock (or
 * seccomp), says so in st->note and goes on without it. Returns 0, or -1
 * when the scratch folder cannot be made or a mechanism the kernel offers
 * fails (st->note). sandbox_enter(st) is sandbox_enter_reading(st, NULL).
 */
int sandbox_enter_reading(struct sandbox_state *st, const char *const *reads);
int sandbox_enter(struct sandbox_state *st);

/* "fs+net", "net only (no Landlock in this kernel)", "off (KOPT_SANDBOX=off)", ... (static) */
const char *sandbox_describe(const struct sandbox_state *st);

#endif
