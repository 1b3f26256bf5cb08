/*
 * runtime/guard.c: kopt-guard.so, the guarded allocator of gate 1's
 * memcheck (runtime/python/kopt/memcheck.py, "the guarded run").
 *
 * compute-sanitizer's memcheck reports an access outside every allocation,
 * and its --padding puts bytes that belong to no allocation after each one;
 * a pointer moved further than the padding (x_ptr + n * 1000, a term the
 * static gate cannot follow) can land inside another allocation, which the
 * sanitizer takes as in bounds. This allocator, installed as torch's CUDA
 * allocator (torch.cuda.memory.CUDAPluggableAllocator) in a child that runs
 * the model once with the candidate swapped in, gives every allocation a
 * virtual range of its own, mostly unmapped:
 *
 *     [ lead guard | mapped granules, the tensor at their end | trail guard ]
 *
 * Each guard is a random whole number of granules between G and 2G, where
 * G is the larger of GUARD_MIN and GUARD_FACTOR times the mapped size, so
 * an access moved past its tensor by less than G, either way, reads memory
 * that is not mapped and the GPU faults ("an illegal memory access"); a
 * longer move lands in mapped memory with a chance of about the mapped
 * share of all reserved ranges (under 1 in 2 * GUARD_FACTOR + 1), and where
 * the tensors are placed changes from run to run. The tensor ends where its
 * granules end (rounded up to ALIGN bytes, as torch's own allocator rounds),
 * so an access just past its end faults too; what lies just before it is
 * compute-sanitizer's part (the other run).
 *
 * Physical memory is what the tensors need, rounded up to the granularity
 * (2 MiB on current GPUs); the guards are only reserved addresses. A free
 * waits for the device first (an unmapped range that a queued kernel still
 * reads would fault as a candidate's bad access would), and leaves the
 * range mapped where it cannot wait.
 *
 * The driver is reached through dlopen ($KOPT_GUARD_LIBCUDA, default
 * libcuda.so.1) so that the library builds and its layout is tested where
 * no GPU is (tests/unit/guard_test.c, with a test double of the driver's
 * virtual memory calls over mmap). kopt_guard_error() says why the last
 * allocation failed; kopt_guard_count() how many are live.
 */
#define _GNU_SOURCE
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* the driver's types and values that this file uses (cuda.h's, kept here
 * so that the library builds without CUDA's headers) */
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct {
	int type;		/* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
	int id;
} guard_location;
typedef struct {
	int type;		/* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
	int requestedHandleTypes;
	guard_location location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType, gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} guard_prop;
typedef struct {
	guard_location location;
	int flags;		/* CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 */
} guard_access;

#define LOCATION_DEVICE 1
#define ALLOCATION_PINNED 1
#define ACCESS_READWRITE 3
#define GRANULARITY_MINIMUM 0

/* the smallest guard on each side, and its size against the mapping's */
#define GUARD_MIN (256ULL << 20)
#define GUARD_FACTOR 8ULL
/* where a tensor starts: a multiple of this, as torch's allocator rounds */
#define ALIGN 512ULL

static struct {
	CUresult (*granularity)(size_t *, const guard_prop *, int);
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*addr_free)(CUdeviceptr, size_t);
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const guard_prop *, unsigned long long);
	CUresult (*release)(CUmemGenericAllocationHandle);
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
	CUresult (*unmap)(CUdeviceptr, size_t);
	CUresult (*set_access)(CUdeviceptr, size_t, const guard_access *, size_t);
	CUresult (*sync)(void);
	int loaded;
} cu;

/* one live allocation: what the pointer handed out needs to be undone */
struct range {
	uintptr_t ptr;
	CUdeviceptr base, at;
	size_t reserved, mapped;
	CUmemGenericAllocationHandle handle;
	struct range *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct range *live;
static size_t nlive;
static char last_error[256];
static uint64_t rng_state;

static void set_error(const char *what, CUresult r)
{
	snprintf(last_error, sizeof last_error, "%s failed (CUresult %d)", what, r);
}

static int load_driver(void)
{
	if (cu.loaded)
		return cu.loaded > 0 ? 0 : -1;
	const char *name = getenv("KOPT_GUARD_LIBCUDA");
	void *h = dlopen(name && *name ? name : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cu.loaded = -1;
	if (!h) {
		snprintf(last_error, sizeof last_error, "cannot load the CUDA driver: %s", dlerror());
		return -1;
	}
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "cuMemGetAllocationGranularity", offsetof(__typeof__(cu), granularity) },
		{ "cuMemAddressReserve", offsetof(__typeof__(cu), reserve) },
		{ "cuMemAddressFree", offsetof(__typeof__(cu), addr_free) },
		{ "cuMemCreate", offsetof(__typeof__(cu), create) },
		{ "cuMemRelease", offsetof(__typeof__(cu), release) },
		{ "cuMemMap", offsetof(__typeof__(cu), map) },
		{ "cuMemUnmap", offsetof(__typeof__(cu), unmap) },
		{ "cuMemSetAccess", offsetof(__typeof__(cu), set_access) },
		{ "cuCtxSynchronize", offsetof(__typeof__(cu), sync) },
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f) {
			snprintf(last_error, sizeof last_error, "the CUDA driver has no %s", syms[i].name);
			return -1;
		}
		memcpy((char *)&cu + syms[i].off, &f, sizeof f);
	}
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &rng_state, sizeof rng_state) != (ssize_t)sizeof rng_state)
		rng_state = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)&fd;
	if (fd >= 0)
		close(fd);
	rng_state |= 1;
	cu.loaded = 1;
	return 0;
}

/* xorshift64*: where the guards fall, not a secret */
static uint64_t next_random(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* a guard of G to 2G bytes, a whole number of granules, G for the mapping */
static size_t guard_size(size_t mapped, size_t gran)
{
	size_t g = mapped > GUARD_MIN / GUARD_FACTOR ? mapped * GUARD_FACTOR : GUARD_MIN;
	g = round_up(g, gran);
	size_t steps = g / gran + 1;
	return g + (size_t)(next_random() % steps) * gran;
}

static void undo(CUdeviceptr base, size_t reserved, CUdeviceptr at, size_t mapped, CUmemGenericAllocationHandle h,
		 int stage)
{
	if (stage >= 3)
		cu.unmap(at, mapped);
	if (stage >= 2)
		cu.release(h);
	if (stage >= 1)
		cu.addr_free(base, reserved);
}

/* torch's CUDAPluggableAllocator: void *alloc(ssize_t size, int device, cudaStream_t stream) */
void *kopt_guard_malloc(ssize_t size, int device, void *stream);
void *kopt_guard_malloc(ssize_t size, int device, void *stream)
{
	(void)stream;
	pthread_mutex_lock(&lock);
	void *out = NULL;
	if (size < 0 || load_driver() < 0)
		goto done;
	guard_prop prop;
	memset(&prop, 0, sizeof prop);
	prop.type = ALLOCATION_PINNED;
	prop.location.type = LOCATION_DEVICE;
	prop.location.id = device;
	size_t gran = 0;
	CUresult r = cu.granularity(&gran, &prop, GRANULARITY_MINIMUM);
	if (r || !gran) {
		set_error("cuMemGetAllocationGranularity", r);
		goto done;
	}
	size_t want = round_up(size ? (size_t)size : 1, ALIGN);
	size_t mapped = round_up(want, gran);
	size_t lead = guard_size(mapped, gran), trail = guard_size(mapped, gran);
	size_t reserved = lead + mapped + trail;
	CUdeviceptr base = 0, at;
	CUmemGenericAllocationHandle h = 0;
	if ((r = cu.reserve(&base, reserved, gran, 0, 0))) {
		set_error("cuMemAddressReserve", r);
		goto done;
	}
	at = base + lead;
	if ((r = cu.create(&h, mapped, &prop, 0))) {
		set_error("cuMemCreate", r);
		undo(base, reserved, at, mapped, h, 1);
		goto done;
	}
	if ((r = cu.map(at, mapped, 0, h, 0))) {
		set_error("cuMemMap", r);
		undo(base, reserved, at, mapped, h, 2);
		goto done;
	}
	guard_access acc = { { LOCATION_DEVICE, device }, ACCESS_READWRITE };
	if ((r = cu.set_access(at, mapped, &acc, 1))) {
		set_error("cuMemSetAccess", r);
		undo(base, reserved, at, mapped, h, 3);
		goto done;
	}
	struct range *rg = calloc(1, sizeof *rg);
	if (!rg) {
		snprintf(last_error, sizeof last_error, "out of host memory");
		undo(base, reserved, at, mapped, h, 3);
		goto done;
	}
	*rg = (struct range){ (uintptr_t)(at + mapped - want), base, at, reserved, mapped, h, live };
	live = rg;
	nlive++;
	out = (void *)rg->ptr;
done:
	pthread_mutex_unlock(&lock);
	return out;
}

/* torch's CUDAPluggableAllocator: void free(void *ptr, ssize_t size, int device, cudaStream_t stream) */
void kopt_guard_free(void *ptr, ssize_t size, int device, void *stream);
void kopt_guard_free(void *ptr, ssize_t size, int device, void *stream)
{
	(void)size; (void)device; (void)stream;
	pthread_mutex_lock(&lock);
	struct range **p = &live;
	while (*p && (*p)->ptr != (uintptr_t)ptr)
		p = &(*p)->next;
	struct range *rg = *p;
	if (rg) {
		*p = rg->next;
		nlive--;
		/* a kernel still queued may read it: unmapped, it would fault as a
		 * bad access does; where the device cannot be waited for (no
		 * context on this thread), the range stays mapped to the end */
		if (cu.sync() == 0)
			undo(rg->base, rg->reserved, rg->at, rg->mapped, rg->handle, 3);
		free(rg);
	}
	pthread_mutex_unlock(&lock);
}

const char *kopt_guard_error(void);
const char *kopt_guard_error(void)
{
	return last_error;
}

size_t kopt_guard_count(void);
size_t kopt_guard_count(void)
{
	pthread_mutex_lock(&lock);
	size_t n = nlive;
	pthread_mutex_unlock(&lock);
	return n;
}
