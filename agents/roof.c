/*
 * agents/roof.c: what bounds a kernel, the one place that says it. The
 * profile rule writes each kernel's FLOPs and bound into its row, the
 * built-in analyst leaves a kernel alone at its bound, the LLM prompt
 * tells the model which roof binds, and the report sums the bounds of a
 * model's kernels.
 *
 * FLOPs are counted in an Inductor kernel's source: the operators and
 * math calls of its "tmpN = ..." lines that compute (not loads,
 * constants, broadcasts or selects), per element, times the numels
 * Inductor writes into the kernel (xnumel, ynumel, r0_numel). That is a
 * lower bound: a line inside a loop counts once per element of the loop,
 * a line outside it as if it were inside.
 *
 * A Triton kernel's bound is its bytes (its arguments' sizes, one read and
 * written in place twice, or, where the profile has them, the DRAM bytes
 * the GPU's counters saw it move when those are fewer) at the measured
 * copy bandwidth or its FLOPs at the measured FP32 peak,
 * whichever is longer, per launch, times its launches; a vendor or ATen
 * kernel's is its measured time (koptmake does not rewrite it).
 */
#include <config.h>

#include "roof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

/* a constant Inductor writes into the kernel ("    xnumel = 4096"); 0 when absent */
static long long src_const(const char *src, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = src; p && (p = strstr(p, name)); p += n) {
		if (p == src || p[-1] != ' ' || strncmp(p + n, " = ", 3) != 0)
			continue;
		char *end;
		long long v = strtoll(p + n + 3, &end, 10);
		if (end > p + n + 3 && (*end == '\n' || *end == '\r'))
			return v;
	}
	return 0;
}

long long agent_src_const(const char *source, const char *name)
{
	return source ? src_const(source, name) : 0;
}

/* the math in the kernel's body, per element */
static int ops_per_element(const char *src)
{
	static const char *const skip[] = { "tl.load(", "tl.full(", "tl.broadcast_to(", "tl.where(", "tl.zeros(",
					    "tl.arange(" };
	static const char *const ops[] = { " + ", " - ", " * ", " / ", "libdevice.", "tl_math.", "tl.sum(",
					   "tl.max(", "tl.min(", "triton_helpers.max", "triton_helpers.min",
					   "tl.exp(", "tl.log(", "tl.sqrt(", "tl.rsqrt(" };
	int n = 0;
	for (const char *l = src; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *s = l;
		while (s < l + len && *s == ' ')
			s++;
		const char *eq = strstr(s, " = ");
		if (strncmp(s, "tmp", 3) == 0 && s[3] >= '0' && s[3] <= '9' && eq && eq < l + len) {
			char *rhs = xasprintf("%.*s", (int)(l + len - eq - 3), eq + 3);
			bool compute = true;
			for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
				if (strncmp(rhs, skip[i], strlen(skip[i])) == 0)
					compute = false;
			for (size_t i = 0; compute && i < sizeof ops / sizeof *ops; i++)
				for (const char *q = rhs; (q = strstr(q, ops[i])); q += strlen(ops[i]))
					n++;
			free(rhs);
		}
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

double agent_flops(const char *source, char **how)
{
	if (how)
		*how = NULL;
	if (!source)
		return 0;
	long long x = src_const(source, "xnumel"), r = src_const(source, "r0_numel");
	long long y = src_const(source, "ynumel");
	int ops = ops_per_element(source);
	if (x <= 0 || ops <= 0)
		return 0;
	double elems = (double)x * (double)(r > 0 ? r : 1) * (double)(y > 0 ? y : 1);
	if (how) {
		static const char *const unit[] = { "", " K", " M", " G", " T" };
		double e = elems;
		size_t u = 0;
		while (e >= 1000 && u + 1 < sizeof unit / sizeof *unit) {
			e /= 1000;
			u++;
		}
		*how = xasprintf(u ? "%d per element x %.1f%s elements, counted in the source: a lower bound"
				   : "%d per element x %.0f%s elements, counted in the source: a lower bound",
				 ops, e, unit[u]);
	}
	return ops * elems;
}

void agent_bound_of(bool triton, double ns, double launches, double bytes, double flops, double copy_gbps,
		    double peak_gflops, struct agent_bound *b)
{
	b->ns = b->mem_ns = b->flop_ns = b->intensity = b->frac = b->traffic = NAN;
	b->binds = NULL;
	if (!(ns > 0))
		ns = NAN;
	if (!triton) {
		if (!isnan(ns)) {
			b->ns = ns;
			b->frac = 1;
			b->binds = "measured";
		}
		return;
	}
	double l = launches > 0 ? launches : 1;
	if (bytes > 0 && copy_gbps > 0)
		b->mem_ns = bytes * l / copy_gbps; /* bytes per ns = GB/s */
	if (flops > 0 && peak_gflops > 0)
		b->flop_ns = flops * l / peak_gflops;
	if (flops > 0 && bytes > 0)
		b->intensity = flops / bytes;
	double raw = NAN;
	if (!isnan(b->mem_ns) && (isnan(b->flop_ns) || b->mem_ns >= b->flop_ns)) {
		raw = b->mem_ns;
		b->binds = "memory";
	} else if (!isnan(b->flop_ns)) {
		raw = b->flop_ns;
		b->binds = "compute";
	}
	if (isnan(raw))
		return;
	/* above the measured time the byte count is not the traffic (a
	 * gather): the bound is no more than what was achieved, frac says by
	 * how much the count overstates */
	b->ns = isnan(ns) ? raw : fmin(raw, ns);
	b->frac = isnan(ns) ? NAN : raw / ns;
}

double agent_bound_bytes(double args, double dram)
{
	if (!(dram > 0))
		return args;
	return args > 0 ? fmin(args, dram) : dram;
}

static double num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

void agent_bound(const json_t *row, double flops, double copy_gbps, double peak_gflops, struct agent_bound *b)
{
	const char *kind = json_string_value(json_object_get(row, "kind"));
	if (!(flops > 0))
		flops = num(row, "flops");
	double args = num(row, "bytes"), dram = num(row, "dram_bytes");
	agent_bound_of(!kind || strcmp(kind, "triton") == 0, num(row, "ns_per_call"), num(row, "launches_per_call"),
		       agent_bound_bytes(args, dram), flops, copy_gbps, peak_gflops, b);
	if (dram > 0 && args > 0)
		b->traffic = dram / args;
}
