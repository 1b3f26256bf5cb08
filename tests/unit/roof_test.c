/*
 * tests/unit/roof_test.c: a kernel's FLOPs counted in its source and its
 * bound (agents/roof.c), worked by hand, and the built-in analyst leaving a
 * kernel alone at its bound, memory or compute, where the copy bandwidth
 * alone would not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/roof.h"
#include "../tap.h"

static json_t *J(const char *t)
{
	json_t *j = json_loads(t, 0, NULL);
	if (!j) {
		fprintf(stderr, "bad JSON %s\n", t);
		exit(2);
	}
	return j;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* an Inductor pointwise kernel: two operations per element (the constant
 * and the load count none) over 2^20 elements */
static const char *pointwise =
	"@triton.jit\n"
	"def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
	"    xnumel = 1048576\n"
	"    xoffset = tl.program_id(0) * XBLOCK\n"
	"    x0 = xindex\n"
	"    tmp0 = tl.load(in_ptr0 + (x0), None)\n"
	"    tmp1 = 2.0\n"
	"    tmp2 = tmp0 * tmp1\n"
	"    tmp3 = tmp2 + tmp0\n"
	"    tl.store(out_ptr0 + (x0), tmp3, None)\n";

static void t_flops(void)
{
	char *how = NULL;
	double f = agent_flops(pointwise, &how);
	TAP_OK(f == 2.0 * 1048576, "flops: 2 per element x 2^20 elements (got %.0f)", f);
	TAP_IS_STR(how, "2 per element x 1.0 M elements, counted in the source: a lower bound", "flops: how they were counted");
	free(how);
	/* a reduction: xnumel rows of r0_numel, one sum and one exp per element */
	const char *red = "def k(in_ptr0, out_ptr0, xnumel, r0_numel):\n    xnumel = 4096\n    r0_numel = 1024\n"
			  "        tmp0 = tl.load(in_ptr0 + (r0_1 + 1024*x0))\n        tmp1 = tl_math.exp(tmp0)\n"
			  "    tmp2 = tl.sum(tmp1, 1)[:, None]\n";
	TAP_OK(agent_flops(red, NULL) == 2.0 * 4096 * 1024, "flops: a reduction counts each line over rows x r0_numel");
	/* an operation whose right operand is short, to the line's last byte */
	const char *shortop = "def k(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    xnumel = 1000\n"
			      "    tmp0 = tl.load(in_ptr0 + (x0), None)\n    tmp1 = tmp0 * x0\n    tmp2 = tmp1 + 1";
	TAP_OK(agent_flops(shortop, NULL) == 2.0 * 1000,
	       "flops: a line's operation is counted up to its last byte (tmp0 * x0, then tmp1 + 1 without a newline)");
	/* the unit steps at 1000 elements: 999 are said as they are, 1000 as 1.0 K */
	static const struct { const char *n; const char *says; } sizes[] = {
		{ "600", "2 per element x 600 elements," }, { "999", "2 per element x 999 elements," },
		{ "1000", "2 per element x 1.0 K elements," }, { "1500000", "2 per element x 1.5 M elements," },
		{ "2000000000", "2 per element x 2.0 G elements," }, { "3000000000000", "2 per element x 3.0 T elements," },
		/* past the last unit: counted in it */
		{ "4000000000000000", "2 per element x 4000.0 T elements," },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char *src = xasprintf("def k(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    xnumel = %s\n"
				      "    tmp0 = tl.load(in_ptr0 + (x0), None)\n    tmp2 = tmp0 * tmp0\n    tmp3 = tmp2 + tmp0\n",
				      sizes[i].n);
		char *h = NULL;
		agent_flops(src, &h);
		right += h && !strncmp(h, sizes[i].says, strlen(sizes[i].says));
		if (!h || strncmp(h, sizes[i].says, strlen(sizes[i].says)))
			tap_diag("%s elements: %s", sizes[i].n, h ? h : "(none)");
		free(h);
		free(src);
	}
	TAP_IS_INT(right, (int)(sizeof sizes / sizeof *sizes),
		   "flops: elements said as they are under 1000, in K, M, G and T above, past T in T");
	TAP_OK(agent_flops("def k(x):\n    pass\n", &how) == 0 && how == NULL, "flops: no numel in the source: unknown");
	TAP_OK(agent_flops(NULL, &how) == 0 && how == NULL, "flops: no source: unknown");
	TAP_IS_INT(agent_src_const(pointwise, "xnumel"), 1048576, "the source's constants are read where Inductor writes them");
	/* only as Inductor writes them: NAME, " = ", digits, the line's end;
	 * anything else is not read (0), rather than read wrong */
	static const struct { const char *src; long long v; } cs[] = {
		{ "    xnumel = 4096\n", 4096 },    { "    xnumel = 4096\r\n", 4096 }, { "    xnumel =4096\n", 0 },
		{ "    xnumel= 4096\n", 0 },        { "    xnumel  = 4096\n", 0 },     { "    rxnumel = 4096\n", 0 },
		{ "    xnumel = 4096 # n\n", 0 },   { "    xnumel = \n", 0 },          { "xnumel = 4096\n", 0 },
		{ "    x = 1\n    xnumel = 64\n", 64 },
	};
	int read_right = 0;
	for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
		long long v = agent_src_const(cs[i].src, "xnumel");
		read_right += v == cs[i].v;
		if (v != cs[i].v)
			tap_diag("'%s': %lld", cs[i].src, v);
	}
	TAP_IS_INT(read_right, (int)(sizeof cs / sizeof *cs), "a constant read only as Inductor writes it: NAME = digits, nothing else");
}

static void t_bound(void)
{
	struct agent_bound b;
	/* 8 MiB at 4000 GB/s: 2097.152 ns; 2 MFLOP at 50 TFLOP/s: 41.94 ns */
	agent_bound_of(true, 2500, 1, 8388608, 2097152, 4000, 50000, &b);
	TAP_OK(strcmp(b.binds, "memory") == 0 && near(b.ns, 2097.152) && near(b.frac, 2097.152 / 2500) &&
	       near(b.intensity, 0.25) && near(b.flop_ns, 2097152 / 50000.0),
	       "bound: a pointwise kernel is memory-bound, 2097.152 ns, 84%% of its time (0.25 FLOP per byte)");
	/* a matmul tile kernel twice a call: 3 x 4 MiB and 2 x 512^3 FLOPs each */
	agent_bound_of(true, 11000, 2, 12582912, 268435456, 4000, 50000, &b);
	TAP_OK(strcmp(b.binds, "compute") == 0 && near(b.ns, 2 * 268435456 / 50000.0) && near(b.mem_ns, 2 * 12582912 / 4000.0),
	       "bound: a matmul is compute-bound: its FLOPs at the peak, times its launches (%.3f ns)", b.ns);
	/* more bytes than the time could move: the bound is the time */
	agent_bound_of(true, 1000, 1, 8388608, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 1000) && near(b.frac, 2.097152) && strcmp(b.binds, "memory") == 0 && isnan(b.intensity),
	       "bound: arguments that would beat the copy: the bound is the measured time, frac says by how much");
	agent_bound_of(false, 5000, 1, 8388608, 1e9, 4000, 50000, &b);
	TAP_OK(near(b.ns, 5000) && strcmp(b.binds, "measured") == 0 && b.frac == 1,
	       "bound: a vendor kernel is bound by its own measured time");
	agent_bound_of(true, 5000, 1, -1, 0, 4000, 50000, &b);
	TAP_OK(isnan(b.ns) && b.binds == NULL, "bound: a Triton kernel with neither bytes nor FLOPs: unknown");
	/* FLOPs counted, bytes not (0): compute binds, and no intensity (a
	 * division by zero bytes would put it at infinity, off the roofline) */
	agent_bound_of(true, 5000, 1, 0, 1e8, 4000, 50000, &b);
	TAP_OK(strcmp(b.binds ? b.binds : "", "compute") == 0 && near(b.ns, 1e8 / 50000.0) && isnan(b.intensity),
	       "bound: FLOPs without bytes: compute-bound, no FLOP per byte [%g]", b.intensity);
	json_t *row = J("{\"kind\":\"triton\",\"ns_per_call\":2500,\"launches_per_call\":1,\"bytes\":8388608,\"flops\":2097152}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 2097.152) && near(b.intensity, 0.25) && isnan(b.traffic),
	       "bound: from a profile row, its FLOPs the row's; no counters, no traffic");
	json_decref(row);
	/* the counters saw 4 MiB move for 8 MiB of arguments (a gather, L2
	 * hits): its bound is what it moved */
	row = J("{\"kind\":\"triton\",\"ns_per_call\":1500,\"launches_per_call\":1,\"bytes\":8388608,"
		"\"dram_bytes\":4194304}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 1048.576) && near(b.frac, 1048.576 / 1500) && near(b.traffic, 0.5),
	       "bound: DRAM bytes fewer than the arguments': the bound counts what it moved (%.3f ns)", b.ns);
	json_decref(row);
	/* 16 MiB moved for 8 MiB of arguments (an input read twice): its
	 * bound counts each argument once */
	row = J("{\"kind\":\"triton\",\"ns_per_call\":4500,\"launches_per_call\":2,\"bytes\":8388608,"
		"\"dram_bytes\":16777216}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.mem_ns, 2 * 2097.152) && near(b.traffic, 2), "bound: DRAM bytes beyond the arguments': the "
	       "bound counts the arguments, traffic 2 (%.3f ns)", b.mem_ns);
	json_decref(row);
	/* a count of 0 is no count: the bound stays on the arguments */
	row = J("{\"kind\":\"triton\",\"ns_per_call\":2500,\"launches_per_call\":1,\"bytes\":8388608,\"dram_bytes\":0}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 2097.152) && isnan(b.traffic), "bound: DRAM bytes of 0 are not counted: the arguments' bound");
	json_decref(row);
	/* no argument bytes (a kernel whose arguments are not tensors): the
	 * counted bytes alone, and no traffic over them */
	row = J("{\"kind\":\"triton\",\"ns_per_call\":2500,\"launches_per_call\":1,\"bytes\":0,\"dram_bytes\":4194304}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 1048.576) && isnan(b.traffic), "bound: without argument bytes, the counted bytes are the bound's");
	json_decref(row);
	row = J("{\"kind\":\"vendor\",\"ns_per_call\":4500,\"launches_per_call\":1,\"dram_bytes\":16777216}");
	agent_bound(row, 0, 4000, 50000, &b);
	TAP_OK(near(b.ns, 4500) && strcmp(b.binds, "measured") == 0 && isnan(b.traffic),
	       "bound: a vendor kernel's counted bytes leave its bound its time");
	json_decref(row);
}

static char *analyze(const char *row_text, const char *source, double copy, double peak, int *r)
{
	json_t *row = J(row_text);
	struct agent_kernel k = { .model = "m", .name = "triton_red_fused_0", .heuristic = "reduction",
				  .source = source, .profile_row = row, .peak_copy_gbps = copy, .peak_fp32_gflops = peak };
	char *why = NULL;
	*r = agent_builtin_analyze(&k, &why);
	json_decref(row);
	return why;
}

static void t_analyst(void)
{
	int r;
	/* compute-bound at 97.6% of the FP32 peak, 57% of the copy bandwidth */
	const char *mm = "{\"kind\":\"triton\",\"ns_per_call\":11000,\"launches_per_call\":2,\"bytes\":12582912,"
			 "\"flops\":268435456,\"achieved_gbps\":2287.8,\"frac_peak\":0.572}";
	char *why = analyze(mm, NULL, 4000, 50000, &r);
	TAP_OK(r == 1 && strstr(why, "compute-bound (21.33 FLOP per byte), its bound 10.7 us at the FP32 peak") &&
	       strstr(why, "98% of its bound: left alone"),
	       "analyst: a compute-bound kernel at 98%% of its bound is left alone, at 57%% of the copy bandwidth (%s)", why);
	free(why);
	why = analyze(mm, NULL, 4000, 0, &r);
	TAP_OK(r == 0 && strstr(why, "memory-bound at 57% of the copy bandwidth"),
	       "analyst: without a measured FP32 peak, today's rule: the copy bandwidth alone (%s)", why);
	free(why);
	const char *slow = "{\"kind\":\"triton\",\"ns_per_call\":20000,\"launches_per_call\":2,\"bytes\":12582912,"
			   "\"flops\":268435456,\"achieved_gbps\":1258.3,\"frac_peak\":0.315}";
	why = analyze(slow, NULL, 4000, 50000, &r);
	TAP_OK(r == 0 && strstr(why, "compute-bound") && strstr(why, "54% of its bound") && strstr(why, "tensor cores"),
	       "analyst: a compute-bound kernel at 54%% of its bound gets candidates, and says what binds (%s)", why);
	free(why);
	/* FLOPs the time could not hold (the count overstates them): the copy
	 * bandwidth alone decides, and at 57% the kernel gets candidates */
	const char *over = "{\"kind\":\"triton\",\"ns_per_call\":11000,\"launches_per_call\":2,\"bytes\":12582912,"
			   "\"flops\":2684354560,\"achieved_gbps\":2287.8,\"frac_peak\":0.572}";
	why = analyze(over, NULL, 4000, 50000, &r);
	TAP_OK(r == 0 && strstr(why, "memory-bound at 57% of the copy bandwidth"),
	       "analyst: FLOPs beyond what the time holds at the peak are not the bound: the copy bandwidth decides (%s)", why);
	free(why);
	/* memory-bound, FLOPs counted in its source (no flops in the row) */
	why = analyze("{\"kind\":\"triton\",\"ns_per_call\":2150,\"launches_per_call\":1,\"bytes\":8388608,"
		      "\"achieved_gbps\":3901.7,\"frac_peak\":0.975}",
		      pointwise, 4000, 50000, &r);
	TAP_OK(r == 1 && strstr(why, "memory-bound (0.25 FLOP per byte), its bound 2.1 us at the copy bandwidth"),
	       "analyst: FLOPs from the source, memory binds, 97.5%% of its bound: left alone (%s)", why);
	free(why);
	why = analyze("{\"kind\":\"triton\",\"ns_per_call\":1000,\"launches_per_call\":1,\"bytes\":8388608,"
		      "\"achieved_gbps\":8388.6,\"frac_peak\":2.1}",
		      pointwise, 4000, 50000, &r);
	TAP_OK(r == 0 && strstr(why, "analyst: 1.0 us per call; its arguments (210% of the copy bandwidth) overstate"),
	       "analyst: arguments beyond the copy bandwidth still overstate the traffic, and by how much (%s)", why);
	free(why);
	/* with the DRAM bytes the GPU's counters saw each kernel move: one
	 * row per case, its source (NULL: no FLOPs), the analyst's answer and
	 * two phrases its reason holds */
	static const struct {
		const char *row;
		bool source;
		int left_alone;
		const char *says[2];
		const char *name;
	} counted[] = {
		{ "\"ns_per_call\":1000,\"bytes\":8388608,\"dram_bytes\":3900000,\"achieved_gbps\":8388.6,\"frac_peak\":2.1",
		  true, 1, { "on the bytes it moved", "98% of its bound: left alone" },
		  "arguments beyond the copy bandwidth, 3.9 MB counted in 1 us, at it: left alone" },
		{ "\"ns_per_call\":2000,\"bytes\":8388608,\"dram_bytes\":2000000,\"achieved_gbps\":4194.3,\"frac_peak\":1.05",
		  true, 0, { "25% of its bound", "launch config" },
		  "counted bytes far under the time: not at its bound, whatever its arguments say" },
		{ "\"ns_per_call\":4300,\"bytes\":8388608,\"dram_bytes\":16777216,\"achieved_gbps\":1950.8,\"frac_peak\":0.49",
		  false, 0, { "moves 2.00x its arguments' bytes", "single pass or a fusion first" },
		  "DRAM traffic twice its arguments (an input read twice): a single pass first, without FLOPs too" },
		{ "\"ns_per_call\":2340,\"bytes\":8388608,\"dram_bytes\":16777216,\"achieved_gbps\":3584.9,\"frac_peak\":0.9",
		  false, 0, { "moves 2.00x its arguments' bytes (the GPU's counters), 2.3 us per call at 90% of its bound", "single pass" },
		  "the same at 90% of its bound: the share said as a percentage" },
		{ "\"ns_per_call\":2150,\"bytes\":8388608,\"dram_bytes\":8400000,\"achieved_gbps\":3901.7,\"frac_peak\":0.975",
		  false, 1, { "memory-bound, its bound 2.1 us at the copy bandwidth", "already at 98%" },
		  "counted bytes as many as its arguments, no FLOPs: the copy bandwidth decides" },
	};
	for (size_t i = 0; i < sizeof counted / sizeof *counted; i++) {
		char *row = xasprintf("{\"kind\":\"triton\",\"launches_per_call\":1,%s}", counted[i].row);
		why = analyze(row, counted[i].source ? pointwise : NULL, 4000, 50000, &r);
		TAP_OK(r == counted[i].left_alone && strstr(why, counted[i].says[0]) && strstr(why, counted[i].says[1]),
		       "analyst: %s (%s)", counted[i].name, why);
		free(why);
		free(row);
	}
}

/* the bound's edges: which bytes count (the fewer of the two where both
 * are known, even one byte), a tie between the roofs, launches and a
 * time that are not positive, a roof without its rate */
static void t_bound_edges(void)
{
	TAP_OK(agent_bound_bytes(8388608, 1) == 1 && agent_bound_bytes(8388608, 0) == 8388608 &&
	       agent_bound_bytes(8388608, NAN) == 8388608 && agent_bound_bytes(0, 4096) == 4096 &&
	       agent_bound_bytes(NAN, 4096) == 4096 && agent_bound_bytes(2048, 4096) == 2048 &&
	       agent_bound_bytes(4096, 2048) == 2048 && isnan(agent_bound_bytes(NAN, NAN)),
	       "bound bytes: the fewer of the arguments' and the counted, a count of 1 byte counts, 0 or none does not");
	struct agent_bound b;
	/* 4000 bytes at 4000 GB/s and 50000 FLOPs at 50000 GFLOP/s: 1 ns each */
	agent_bound_of(true, 4, 1, 4000, 50000, 4000, 50000, &b);
	TAP_OK(b.binds && strcmp(b.binds, "memory") == 0 && b.ns == 1 && b.frac == 0.25 && b.intensity == 12.5,
	       "bound: where the two roofs tie, memory binds (1 ns of a 4 ns call)");
	agent_bound_of(true, 0, 0, 4000, 0, 4000, 50000, &b);
	TAP_OK(b.ns == 1 && b.mem_ns == 1 && isnan(b.frac) && isnan(b.flop_ns) && strcmp(b.binds, "memory") == 0,
	       "bound: launches of 0 count as one, a time of 0 as unknown: the bound is the roof's, no share of the time");
	agent_bound_of(true, 10, 3, 4000, 0, 4000, 50000, &b);
	TAP_OK(b.ns == 3 && b.mem_ns == 3 && b.frac == 0.3, "bound: three launches a call, three times one launch's bytes");
	agent_bound_of(true, 10, 1, 4000, 50000, 0, 50000, &b);
	TAP_OK(isnan(b.mem_ns) && b.flop_ns == 1 && strcmp(b.binds, "compute") == 0 && b.ns == 1,
	       "bound: without a copy bandwidth, the FLOPs alone bind");
	agent_bound_of(true, 10, 1, 4000, 50000, 4000, 0, &b);
	TAP_OK(isnan(b.flop_ns) && b.mem_ns == 1 && strcmp(b.binds, "memory") == 0 && b.intensity == 12.5,
	       "bound: without an FP32 peak, the bytes alone bind");
	agent_bound_of(false, 0, 1, 4000, 50000, 4000, 50000, &b);
	TAP_OK(isnan(b.ns) && isnan(b.frac) && b.binds == NULL, "bound: a vendor kernel without a time: unknown");
}

/* the analyst at its thresholds, each side: left alone from 97% of the
 * bound (96.99% not), arguments overstate the traffic past 105% (105%
 * itself is at the bound), a re-read from 1.25 times the arguments'
 * bytes (1.2499 not), with and without the GPU's counters and FLOPs; times
 * of 1450 ns said as 1.4 us (to the tenth, from ns / 1000), and of 250 us
 * as 250.0 us, where any other divisor shows */
static void t_analyst_edges(void)
{
	static const struct {
		const char *row, *heur;
		bool source;
		int r;
		const char *says;
	} cases[] = {
		{ "\"ns_per_call\":1000,\"bytes\":100,\"frac_peak\":0.97", "reduction", false, 1,
		  "analyst: memory-bound and already at 97% of the copy bandwidth: left alone" },
		{ "\"ns_per_call\":1450,\"bytes\":100,\"frac_peak\":0.9699", "reduction", false, 0,
		  "analyst: memory-bound at 97% of the copy bandwidth, 1.4 us per call: launch config and block shape first" },
		{ "\"ns_per_call\":1000,\"bytes\":100,\"frac_peak\":1.05", "reduction", false, 1,
		  "analyst: memory-bound and already at 105% of the copy bandwidth: left alone" },
		{ "\"ns_per_call\":1450,\"bytes\":100,\"frac_peak\":1.0501", "reduction", false, 0,
		  "analyst: 1.4 us per call; its arguments (105% of the copy bandwidth) overstate what it moves: launch config first" },
		{ "\"ns_per_call\":1450", "reduction", false, 0, "analyst: 1.4 us per call; no byte count: launch config first" },
		{ "\"ns_per_call\":2500,\"frac_peak\":0.5", "jit", false, 1,
		  "analyst: a standalone kernel without its source: nothing to rewrite" },
		{ "\"ns_per_call\":2500,\"frac_peak\":0.5", "jit", true, 0,
		  "analyst: memory-bound at 50% of the copy bandwidth, 2.5 us per call: launch config and block shape first" },
		/* counted bytes at 4000 GB/s: 97 ns of a 100 ns call is 97% */
		{ "\"ns_per_call\":100,\"bytes\":388000,\"dram_bytes\":388000", "reduction", false, 1,
		  "analyst: memory-bound, its bound 0.1 us at the copy bandwidth: already at 97% of its bound: left alone" },
		{ "\"ns_per_call\":100,\"bytes\":387960,\"dram_bytes\":387960", "reduction", false, 0,
		  "analyst: memory-bound, its bound 0.1 us at the copy bandwidth, 0.1 us per call (97% of its bound): launch config" },
		{ "\"ns_per_call\":1000,\"bytes\":400000,\"dram_bytes\":500000", "reduction", false, 0,
		  "analyst: moves 1.25x its arguments' bytes (the GPU's counters), 1.0 us per call at 10% of its bound" },
		{ "\"ns_per_call\":1000,\"bytes\":400000,\"dram_bytes\":499960", "reduction", false, 0,
		  "analyst: memory-bound, its bound 0.1 us at the copy bandwidth, 1.0 us per call (10% of its bound)" },
		/* FLOPs from the source (2 per element of 2^20), 8 MiB: 2097.152 ns
		 * at the copy bandwidth; past 105% without counters, arguments overstate */
		{ "\"ns_per_call\":1997,\"bytes\":8388608", "pointwise", true, 0,
		  "analyst: 2.0 us per call; its arguments (105% of the copy bandwidth) overstate what it moves" },
		{ "\"ns_per_call\":1998,\"bytes\":8388608", "pointwise", true, 1,
		  "analyst: memory-bound (0.25 FLOP per byte), its bound 2.1 us at the copy bandwidth: already at 105% of its bound: left alone" },
		/* a call of 250 us: every sentence's time to the tenth of a
		 * microsecond, its share to the percent, whole */
		{ "\"ns_per_call\":250000,\"bytes\":400000000,\"dram_bytes\":500000000", "reduction", false, 0,
		  "analyst: moves 1.25x its arguments' bytes (the GPU's counters), 250.0 us per call at 40% of its bound: "
		  "a single pass or a fusion first, then launch config" },
		{ "\"ns_per_call\":250000,\"bytes\":600000000,\"dram_bytes\":600000000", "reduction", false, 0,
		  "analyst: memory-bound, its bound 150.0 us at the copy bandwidth, 250.0 us per call (60% of its bound): "
		  "launch config and block shape first" },
		{ "\"ns_per_call\":250000,\"bytes\":100,\"frac_peak\":0.6", "reduction", false, 0,
		  "analyst: memory-bound at 60% of the copy bandwidth, 250.0 us per call: launch config and block shape first" },
		{ "\"ns_per_call\":250000,\"bytes\":100,\"frac_peak\":1.5", "reduction", false, 0,
		  "analyst: 250.0 us per call; its arguments (150% of the copy bandwidth) overstate what it moves: launch config first" },
		{ "\"ns_per_call\":250000", "reduction", false, 0, "analyst: 250.0 us per call; no byte count: launch config first" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *rt = xasprintf("{\"kind\":\"triton\",\"launches_per_call\":1,%s}", cases[i].row);
		json_t *row = J(rt);
		struct agent_kernel k = { .model = "m", .name = "k", .heuristic = cases[i].heur,
					  .source = cases[i].source ? pointwise : NULL, .profile_row = row,
					  .peak_copy_gbps = 4000, .peak_fp32_gflops = 50000 };
		char *why = NULL;
		int r = agent_builtin_analyze(&k, &why);
		if (r == cases[i].r && why && strncmp(why, cases[i].says, strlen(cases[i].says)) == 0)
			right++;
		else
			tap_diag("%s: %d, %s", cases[i].row, r, why ? why : "(none)");
		free(why);
		json_decref(row);
		free(rt);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases), "analyst: each threshold, at it and one step past");
}

int main(void)
{
	t_flops();
	t_bound();
	t_bound_edges();
	t_analyst();
	t_analyst_edges();
	return tap_done();
}
