/*
 * tests/fake-libcuda.c: a TEST DOUBLE of the CUDA driver's virtual memory
 * calls, for tests/unit/guard_test.c (runtime/guard.c, kopt-guard.so, loads
 * it through KOPT_GUARD_LIBCUDA). Host memory stands in for the GPU's:
 * cuMemAddressReserve reserves addresses that cannot be touched (mmap,
 * PROT_NONE), cuMemMap and cuMemSetAccess make a range readable and
 * writable, cuMemUnmap takes that back, cuMemAddressFree unmaps. So an
 * access outside the mapped part of a reservation fails, as the GPU's MMU
 * faults there. fake_cuda_log() returns the calls made, one letter each
 * (r reserve, c create, m map, a access, s synchronize, u unmap, x
 * release, f free); fake_cuda_live() the reservations not yet freed.
 * FAKE_CUDA_FAIL=create makes cuMemCreate fail (CUDA_ERROR_OUT_OF_MEMORY),
 * =map cuMemMap, =access cuMemSetAccess, =sync cuCtxSynchronize
 * (CUDA_ERROR_INVALID_CONTEXT). Arguments the driver documents as reserved
 * (flags 0) or counted (one access descriptor here) are checked.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;

#define GRANULARITY (64u << 10)

static char calls[4096];
static size_t ncalls;
static int live;

static void note(char c)
{
	if (ncalls < sizeof calls - 1)
		calls[ncalls++] = c;
}

const char *fake_cuda_log(void);
const char *fake_cuda_log(void)
{
	calls[ncalls] = '\0';
	return calls;
}

int fake_cuda_live(void);
int fake_cuda_live(void)
{
	return live;
}

CUresult cuMemGetAllocationGranularity(size_t *g, const void *prop, int option);
CUresult cuMemGetAllocationGranularity(size_t *g, const void *prop, int option)
{
	(void)prop; (void)option;
	*g = GRANULARITY;
	return 0;
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr, unsigned long long flags);
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr, unsigned long long flags)
{
	(void)addr;
	note('r');
	if (!align || size % align || flags) /* flags: reserved, must be 0 */
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	char *p = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	uintptr_t a = ((uintptr_t)p + align - 1) / align * align;
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + align > a)
		munmap((char *)a + size, (uintptr_t)p + align - a);
	*ptr = a;
	live++;
	return 0;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	note('f');
	live--;
	return munmap((void *)(uintptr_t)ptr, size) ? 1 : 0;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const void *prop, unsigned long long flags);
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const void *prop, unsigned long long flags)
{
	(void)prop; (void)flags;
	note('c');
	const char *fail = getenv("FAKE_CUDA_FAIL");
	if ((fail && strcmp(fail, "create") == 0) || size % GRANULARITY)
		return 2;
	*h = (CUmemGenericAllocationHandle)size;
	return 0;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle h);
CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
	(void)h;
	note('x');
	return 0;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
		  unsigned long long flags);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
		  unsigned long long flags)
{
	(void)offset;
	note('m');
	const char *fail = getenv("FAKE_CUDA_FAIL");
	if ((fail && strcmp(fail, "map") == 0) || ptr % GRANULARITY || size != (size_t)h || flags)
		return 1;
	return 0;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const void *desc, size_t count);
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const void *desc, size_t count)
{
	(void)desc;
	note('a');
	const char *fail = getenv("FAKE_CUDA_FAIL");
	if ((fail && strcmp(fail, "access") == 0) || count != 1)
		return 1;
	return mprotect((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE) ? 1 : 0;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	note('u');
	madvise((void *)(uintptr_t)ptr, size, MADV_DONTNEED);
	return mprotect((void *)(uintptr_t)ptr, size, PROT_NONE) ? 1 : 0;
}

CUresult cuCtxSynchronize(void);
CUresult cuCtxSynchronize(void)
{
	note('s');
	const char *fail = getenv("FAKE_CUDA_FAIL");
	return fail && strcmp(fail, "sync") == 0 ? 201 : 0; /* CUDA_ERROR_INVALID_CONTEXT */
}
