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

static void placement(void)
{
	enum { N = 8 };
	uintptr_t p[N];
	for (int i = 0; i < N; i++)
		p[i] = (uintptr_t)g_malloc(4096, 0, NULL);
	int distinct = 0;
	for (int i = 2; i < N; i++)
		distinct |= (p[i] - p[i - 1]) != (p[1] - p[0]);
	TAP_OK(p[0] && distinct, "eight equal tensors: the distances between them differ (the guards are random)");
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

static void failure(void)
{
	setenv("FAKE_CUDA_FAIL", "create", 1);
	void *p = g_malloc(4096, 0, NULL);
	unsetenv("FAKE_CUDA_FAIL");
	TAP_OK(!p, "a failed cuMemCreate: no pointer");
	TAP_OK(strstr(g_error(), "cuMemCreate failed"), "... and the error names the call: %s", g_error());
	TAP_IS_INT(f_live(), 0, "... and its addresses are freed");
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
	layout();
	placement();
	failure();
	return tap_done();
}
