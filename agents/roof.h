/*
 * agents/roof.h: what bounds a kernel (agents/roof.c): its FLOPs counted
 * in its source, its bound at the copy bandwidth or the FP32 peak, and
 * the thresholds the analyst and the rules read the bound against.
 */
#ifndef KOPT_AGENT_ROOF_H
#define KOPT_AGENT_ROOF_H

#include <jansson.h>
#include <stdbool.h>

/* FLOPs per launch of an Inductor kernel, counted in its source (a lower
 * bound; roof.c says how); 0 when the source does not say. Where how is
 * not NULL, *how is a phrase on how they were counted, or NULL with 0;
 * caller frees. */
double agent_flops(const char *source, char **how);
/* a constant Inductor writes into the kernel ("    xnumel = 4096"); 0 when absent */
long long agent_src_const(const char *source, const char *name);

/* a bound over the measured time above this: the kernel's argument bytes
 * overstate what it moves, and its bound is not known (DESIGN-NOTES.md,
 * "Argument bytes are an upper bound on traffic") */
#define AGENT_OVERSTATED 1.05
/* the built-in analyst leaves a kernel alone at this fraction of its
 * bound (agents/builtin/plan.c says why) */
#define AGENT_LEAVE_ALONE 0.97
/* a kernel whose DRAM traffic is this many times its arguments' bytes
 * reads or writes something again: a single pass or a fusion first */
#define AGENT_REREAD 1.25

/* what bounds a kernel's time per call */
struct agent_bound {
	double ns;          /* the bound per call, at most the measured time; NAN unknown */
	double mem_ns;      /* its bytes at the copy bandwidth; NAN unknown */
	double flop_ns;     /* its FLOPs at the FP32 peak; NAN unknown */
	double intensity;   /* FLOP per byte; NAN unknown */
	const char *binds;  /* "memory", "compute", "measured" (a vendor or ATen kernel: its
			     * own time), NULL unknown; static */
	double frac;        /* the bound's time over the measured time, 1 at the bound,
			     * above 1 where the bytes overstate the traffic; NAN unknown */
	double traffic;     /* the DRAM bytes the GPU's counters saw it move over its
			     * arguments' bytes (agent_bound, a row's dram_bytes); NAN unknown */
};
/* the bound of a kernel (triton: computed, else its measured time ns) that
 * runs launches times per call, each moving bytes and doing flops; a
 * quantity <= 0 or NAN is unknown */
void agent_bound_of(bool triton, double ns, double launches, double bytes, double flops, double copy_gbps,
		    double peak_gflops, struct agent_bound *b);
/* the same from a profile row (kind, ns_per_call, launches_per_call,
 * bytes, flops, dram_bytes); flops > 0 stands for the row's. Where the
 * row has the DRAM bytes the counters measured, the bound's bytes are the
 * fewer of those and its arguments': a kernel that moved less than its
 * arguments (a gather, L2 hits) is bound by what it moved, one that moved
 * more (an input read twice) by its arguments, once each */
void agent_bound(const json_t *row, double flops, double copy_gbps, double peak_gflops, struct agent_bound *b);
/* the bytes a bound counts: the arguments' (args), or the DRAM bytes the
 * counters saw move (dram > 0) where those are fewer or the only ones */
double agent_bound_bytes(double args, double dram);

#endif
