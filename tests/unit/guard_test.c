/*
 * tests/unit/guard_test.c: kopt-guard.so (runtime/guard.c), the guarded
 * allocator of gate 1's memcheck, over tests/fake-libcuda.so (a TEST
 * DOUBLE of the driver's virtual memory calls, host memory for the GPU's):
 * each allocation readable and writable over its bytes, ending where its
 * mapping ends, with addresses that cannot be touched before and after it
 * for at least the guard (256 MiB, or 8 times the mapping); where the
 * tensors fall changes; a free waits for the device, then unmaps (and
 * leaves the range mapped where it cannot wait); a failed
 * driver call leaves nothing reserved and says which call failed.
 *
 * Whether an address can be read or written is asked of the kernel through
 * a pipe (write(2) from it, read(2) into it: EFAULT where it cannot), so
 * that no access faults in the test's own process.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "../tap.h"

#define MiB (1ULL << 20)
#define GRAN (64ULL << 10) /* the double's granularity */

static void *(*g_malloc)(ssize_t, int, void *);
static void (*g_free)(void *, ssize_t, int, void *);
static const char *(*g_error)(void);
static size_t (*g_count)(void);
static const char *(*f_log)(void);
static int (*f_live)(void);
static int pfd[2];

/* 1 where the byte at p can be read and written, 0 where it cannot */
static int touchable(uintptr_t p)
{
	char c = 'k';
	if (write(pfd[1], (void *)p, 1) != 1)
		return errno == EFAULT ? 0 : -1;
	if (read(pfd[0], &c, 1) != 1)
		return -1;
	if (write(pfd[1], &c, 1) != 1)
		return -1;
	if (read(pfd[0], (void *)p, 1) != 1)
		return errno == EFAULT ? 0 : -1;
	return 1;
}

static void *load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		printf("# %s\n", dlerror());
	return h;
}

static size_t round_to(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* every byte of [p, p + n) touchable, sampled at its ends and each page */
static int all_touchable(uintptr_t p, size_t n)
{
	for (size_t off = 0; off < n; off += 4096)
		if (touchable(p + off) != 1)
			return 0;
	return touchable(p + n - 1) == 1;
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void layout(void)
{
	size_t sizes[] = { 1, 1000, 4096, 3 * GRAN + 7, 64 * MiB };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t n = sizes[i];
		uintptr_t p = (uintptr_t)g_malloc((ssize_t)n, 0, NULL);
		if (!TAP_OK(p, "a tensor of %zu bytes is allocated", n)) {
			printf("# %s\n", g_error());
			continue;
		}
		size_t want = round_to(n, 512), mapped = round_to(want, GRAN);
		uintptr_t start = p + want - mapped, end = p + want;
		size_t guard = mapped * 8 > 256 * MiB ? mapped * 8 : 256 * MiB;
		TAP_OK(p % 512 == 0, "%zu bytes: it starts on 512 bytes", n);
		TAP_OK(all_touchable(p, n), "%zu bytes: every byte can be read and written", n);
		TAP_OK(touchable(end) == 0, "%zu bytes: the byte after its mapping's end cannot be touched", n);
		TAP_OK(touchable(start - 1) == 0, "%zu bytes: the byte before its mapping cannot", n);
		int far = touchable(end + guard - 1) == 0 && touchable(end + guard / 2) == 0 &&
			  touchable(start - guard) == 0 && touchable(start - guard / 3) == 0;
		TAP_OK(far, "%zu bytes: nothing within the guard (%zu MiB) either way can be touched", n,
		       (size_t)(guard / MiB));
		g_free((void *)p, (ssize_t)n, 0, NULL);
		TAP_OK(touchable(p) == 0, "%zu bytes: after the free it cannot be touched", n);
	}
	TAP_IS_INT(g_count(), 0, "no allocation is left live");
	TAP_IS_INT(f_live(), 0, "no reservation is left");
}

static uintptr_t distance(uintptr_t a, uintptr_t b)
{
	return a > b ? a - b : b - a;
}

/* two tensors of n bytes made one after the other lie at least two
 * guards apart: the guard after the first and the one before the second */
static void neighbours(size_t n)
{
	uintptr_t a = (uintptr_t)g_malloc((ssize_t)n, 0, NULL), b = (uintptr_t)g_malloc((ssize_t)n, 0, NULL);
	size_t mapped = round_to(round_to(n, 512), GRAN);
	size_t guard = mapped * 8 > 256 * MiB ? mapped * 8 : 256 * MiB;
	TAP_OK(a && b && distance(a, b) >= 2 * guard + mapped,
	       "two tensors of %zu bytes made in a row: %zu MiB apart, at least two guards of %zu MiB", n,
	       (size_t)(distance(a, b) / MiB), (size_t)(guard / MiB));
	g_free((void *)a, (ssize_t)n, 0, NULL);
	g_free((void *)b, (ssize_t)n, 0, NULL);
}

static void placement(void)
{
	enum { N = 8, M = 16 };
	uintptr_t p[N];
	for (int i = 0; i < N; i++)
		p[i] = (uintptr_t)g_malloc(4096, 0, NULL);
	int distinct = 0;
	for (int i = 2; i < N; i++)
		distinct |= (p[i] - p[i - 1]) != (p[1] - p[0]);
	TAP_OK(p[0] && distinct, "eight equal tensors: the distances between them differ (the guards are random)");
	/* and over their whole range: each guard anywhere from G to 2G, so
	 * the distances of sixteen spread over more than a quarter of G */
	uintptr_t q[M], lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < M; i++)
		q[i] = (uintptr_t)g_malloc(4096, 0, NULL);
	for (int i = 1; i < M; i++) {
		uintptr_t d = distance(q[i], q[i - 1]);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	TAP_OK(hi - lo > 64 * MiB, "sixteen equal tensors: their distances spread over %zu MiB (more than a quarter "
	       "of the 256 MiB guard)", (size_t)((hi - lo) / MiB));
	for (int i = 0; i < M; i++)
		g_free((void *)q[i], 4096, 0, NULL);
	neighbours(4096);
	neighbours(64 * MiB);
	TAP_IS_INT(g_count(), N, "eight allocations live");
	const char *before = f_log();
	size_t at = strlen(before);
	g_free((void *)p[3], 4096, 0, NULL);
	TAP_IS_STR(f_log() + at, "suxf", "a free waits for the device, then unmaps, releases and frees its addresses");
	g_free((void *)0x1234, 4096, 0, NULL);
	TAP_IS_INT(g_count(), N - 1, "a pointer it did not hand out is left alone");
	for (int i = 0; i < N; i++)
		if (i != 3)
			g_free((void *)p[i], 4096, 0, NULL);
	TAP_IS_INT(f_live(), 0, "every reservation freed");
}

/* the calls a failed allocation makes, and what it leaves */
static void fails_at(const char *call, const char *name, const char *calls)
{
	size_t at = strlen(f_log());
	setenv("FAKE_CUDA_FAIL", call, 1);
	void *p = g_malloc(4096, 0, NULL);
	unsetenv("FAKE_CUDA_FAIL");
	char want[64];
	snprintf(want, sizeof want, "%s failed", name);
	TAP_OK(!p && strstr(g_error(), want) && strcmp(f_log() + at, calls) == 0 && f_live() == 0,
	       "a failed %s: no pointer, the error names it (%s), what was made undone in order (%s), no "
	       "reservation left", name, g_error(), f_log() + at);
}

static void failure(void)
{
	fails_at("create", "cuMemCreate", "rcf");
	fails_at("map", "cuMemMap", "rcmxf");
	fails_at("access", "cuMemSetAccess", "rcmauxf");
	TAP_OK(!g_malloc(-1, 0, NULL), "a negative size: no pointer");
	/* a free where the device cannot be waited for: left mapped, since a
	 * kernel still queued may read it */
	uintptr_t q = (uintptr_t)g_malloc(4096, 0, NULL);
	size_t at = strlen(f_log());
	setenv("FAKE_CUDA_FAIL", "sync", 1);
	g_free((void *)q, 4096, 0, NULL);
	unsetenv("FAKE_CUDA_FAIL");
	TAP_OK(q && touchable(q) == 1 && strcmp(f_log() + at, "s") == 0 && g_count() == 0,
	       "a free that cannot wait for the device leaves the range mapped, and forgets it (%s)", f_log() + at);
}

int main(void)
{
	if (pipe(pfd) < 0) {
		perror("pipe");
		return 2;
	}
	setenv("KOPT_GUARD_LIBCUDA", "tests/fake-libcuda.so", 1);
	void *fake = load("tests/fake-libcuda.so"), *guard = load("./kopt-guard.so");
	if (!TAP_OK(fake && guard, "kopt-guard.so and the driver's double load"))
		return tap_done();
	*(void **)&g_malloc = dlsym(guard, "kopt_guard_malloc");
	*(void **)&g_free = dlsym(guard, "kopt_guard_free");
	*(void **)&g_error = dlsym(guard, "kopt_guard_error");
	*(void **)&g_count = dlsym(guard, "kopt_guard_count");
	*(void **)&f_log = dlsym(fake, "fake_cuda_log");
	*(void **)&f_live = dlsym(fake, "fake_cuda_live");
	if (!TAP_OK(g_malloc && g_free && g_error && g_count && f_log && f_live,
		    "torch's allocator entry points and the error are exported"))
		return tap_done();
	/* the first allocation loads the driver and reads /dev/urandom */
	int fds = open_fds();
	void *first = g_malloc(4096, 0, NULL);
	TAP_OK(first && open_fds() == fds, "the first allocation leaves no file open (%d before, %d after)", fds, open_fds());
	g_free(first, 4096, 0, NULL);
	layout();
	placement();
	failure();
	return tap_done();
}
