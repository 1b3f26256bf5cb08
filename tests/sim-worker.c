/*
 * tests/sim-worker.c: a TEST DOUBLE of kopt-worker. It speaks the worker
 * protocol of runtime/PROTOCOL.md (version 1) but touches no GPU, no CUDA
 * and no Python: every kernel, profile, verdict and stitch result is a
 * deterministic function of the model file's bytes, the candidate and the
 * gates, so the engine can be tested end to end on any machine.
 *
 * Fake model: a hash of the model file's bytes picks 1-4 Triton kernels
 * (reduction or pointwise) plus one vendor GEMM. Kernel times sum to the
 * device time. A candidate's speedup is a hash of (model, kernel, config)
 * mapped to 0.6x..1.5x, sent as interleaved timing pairs with a little
 * jitter; one candidate in eleven is off beyond tolerance, half of those
 * rescued by the fp64 fallback. A stitch of two or more winners fails one
 * time in four. The numbers follow PROTOCOL.md; koptmake decides on them.
 *
 * Lines in the model file change its behaviour:
 *   # sim: kernels N            N Triton kernels (1..64), equal shares
 *   # sim: weights W0 W1 ...    one Triton kernel per weight (at most 64), kernel
 *                               i's time in proportion to Wi, the vendor
 *                               kernel's to 1: with weights summing to a power
 *                               of two less one, every share is exact
 *   # sim: graph-keys           the profile says which graph-cache key its compile
 *                               looked up: three parts, the file's bytes, the
 *                               variant's name and its environment's CXX
 *   # sim: crash OP             abort() during OP (capture, profile, verify, stitch)
 *   # sim: hang OP              never answer OP
 *   # sim: slow OP MS           take MS milliseconds more over OP (a step to
 *                               cancel while it runs)
 *   # sim: garbage OP [TEXT]    answer OP with a line that is not JSON (TEXT,
 *                               to the end of the line, if given)
 *   # sim: badtime WHAT         the profile's times are wrong: WHAT is negative
 *                               (a kernel's -1000 ns), nan (the string "NaN",
 *                               as a worker that formats its own numbers
 *                               would send) or huge (a model call of 2 hours);
 *                               or a kernel's other numbers: launches (its
 *                               launches_per_call -2) or share (its share 2.5)
 *   # sim: fatal OP             answer OP with a fatal (sticky device) error
 *   # sim: error OP             answer OP with a plain error ("simulated
 *                               failure in OP", or $KOPT_SIM_ERROR_TEXT)
 *   # sim: softfail race         answer the race with no times and an error, as
 *                               kopt-worker does when a race cannot be run
 *   # sim: softfail screen       answer screens with no configs and an error, as
 *                               kopt-worker does when a screen cannot be run
 *   # sim: knob EDIT            screens try the source knobs EDIT (kopt.knobs'
 *                               names) on each kernel's own config first; that
 *                               point runs 1.6x faster alone, and so does any
 *                               candidate whose source carries its mark
 *                               ("# kopt knob: EDIT", what the simulated edit
 *                               appends to the kernel's source)
 *   # sim: looped               a reduction's source is a looped one whose
 *                               statistics read its row twice: a loop sums
 *                               it, a second sums its squares (the analyst's
 *                               transforms apply: agents/builtin/transform.c)
 *   A screen request's "skills" and "transforms" (rules/screen.c) are
 *   measured first, in that order, each once, at its config (or the
 *   kernel's own): 1.6x where its edit is the model's "# sim: knob", 0.95x
 *   otherwise, and its row names the skill or the transform it came from,
 *   as kopt.screen's do.
 *   # sim: drift VARIANT         the stitch of VARIANT reads every time 1.3x
 *                               too high (a drifting clock, a busy GPU); the
 *                               race, side by side, reads true times
 *   # sim: untimed VARIANT       the stitch of VARIANT without winners fails
 *                               its correctness run with an error (out of
 *                               GPU memory): no perf, no times (null; 0 with
 *                               "untimed-zero", as older workers answered)
 *   # sim: eager F              the model runs F times faster eagerly than
 *                               compiled (the profile's side-by-side run),
 *                               and so does any variant with ATen fallbacks
 *   # sim: fast VARIANT [F]      VARIANT's compiled code runs F (default 3) times faster
 *   # sim: noisy race           the race's rounds of every variant but the
 *                               first swing 13% either way, round by round,
 *                               around the same medians (a host-bound call
 *                               on a busy host); otherwise every variant's
 *                               rounds move together, by a drift shared by
 *                               all variants in a round
 *   # sim: group                the Triton kernels of one kind (reductions,
 *                               pointwise) are one class: their sources differ
 *                               only in their names and numbers (rules/groups.c)
 *   # sim: misfit KERNEL        a stitch leaves off KERNEL where it comes as its
 *                               group's change ("from"), and says so ("dropped")
 *   # sim: recompiled KERNEL    a stitch leaves off the winner of KERNEL (* for
 *                               every kernel) where the request names the
 *                               source its search verified: the worker
 *                               compiled another, and says so ("dropped")
 *   # sim: reductions           every Triton kernel is a reduction
 *   # sim: pointwise            none is
 *   # sim: wins KEY=N           candidates whose launch config sets KEY to N
 *                               run 1.4x faster, every other 0.9x: a kernel
 *                               whose best move is known (long-term memory)
 *   # sim: host F               F of a call is the host's (default 0.05): the
 *                               kernels' times sum to the rest
 *   # sim: host VARIANT=F       that variant's profile's share, before F
 *   # sim: span F               the profile's device span (first kernel to
 *                               last) F of a call, the GPU idle in between
 *                               (default: the kernels' sum, no gaps)
 *   # sim: queued F             the profile's device time of a call queued
 *                               behind a spin F of a call (default: the
 *                               kernels' sum, back to back)
 *   # sim: queued VARIANT=F     that variant's, before F
 *   # sim: escape socket        every candidate opens an AF_INET socket when it
 *                               is loaded, as a candidate that escaped the
 *                               static gate would
 *   # sim: escape write PATH    every candidate writes the file PATH when loaded
 *   # sim: time NS              a call takes NS nanoseconds (default: 100 to 150
 *                               us, from the hash)
 *   # sim: steady               timing pairs without jitter: every figure
 *                               of a report can be worked out by hand
 *   # sim: speedup F [F1...]     every candidate runs F times faster and
 *                               within tolerance; with more factors, kernel
 *                               i's candidates run Fi times faster (the last
 *                               factor for the kernels after)
 *   # sim: clash                a stitch of two or more winners fails (gate 3)
 *   # sim: conv                 the vendor kernel is a cuDNN convolution (half
 *                               the device time, in the profile's vendor
 *                               calls), and variants with cudnn_benchmark run
 *                               1.25x faster
 *   # sim: cudnn-left F         the vendor probe finds a cuDNN algorithm F times
 *                               faster than torch's pick for the convolution
 *                               (a tenth of the device time without "# sim:
 *                               conv"); variants with cudnn_benchmark run
 *                               1.25x faster
 *   # sim: gemm32 F             the vendor probe's calls hold a float32 cuBLASLt
 *                               product of m=256 n=16384 k=32768 taking F of
 *                               the device time (what kopt.tf32x3_products
 *                               takes: rules/space_pick.c rule_gemm32_share)
 *   # sim: conv1x1 F            the vendor probe's calls hold a cuDNN 1x1
 *                               convolution of stride 1 (an EfficientNet
 *                               block's expanding one) taking F of the device
 *                               time (rules/space_pick.c rule_conv1x1_share)
 *   # sim: nocompile VARIANT    capturing or profiling VARIANT answers an error,
 *                               as a compile option torch refuses would
 *   # sim: params N             the model has N parameter elements (the
 *                               profile's facts; default 0)
 *   # sim: reject NAME=V        a request whose model has the shape NAME = V
 *                               fails, as a model that cannot take it would
 *   # sim: slower NAME=V        at the shape NAME = V, a winner the stitch is asked
 *                               to check ("check", one of an earlier shape's
 *                               search) runs 0.8x its kernel's own time
 * A request's model with a shape (kopt(5), shape) is the model at a scale F,
 *   the product of the shape's whole numbers: a call takes 1 + log2(F)/4
 *   times as long, each Triton kernel's source has size hints of 1024 F
 *   (the kernels of two shapes differ in their sizes alone), and the
 *   capture's input is F x 4096. A stitch answers "kernel_ns" for the
 *   winners it is asked to check: their kernels' median times, the
 *   original's and the winner's.
 * The profile's facts (worker.py graph_facts): one convolution with "# sim:
 *   conv" or "# sim: cudnn-left", one GEMM (the vendor kernel), one reduction
 *   per reduction kernel, and "# sim: params"'s parameters; "# sim: dwconv":
 *   one convolution, a depthwise one.
 *   # sim: baseline S [VARIANT] the profile's check of the compiled baseline
 *                               against eager (sent when the request has
 *                               gates) reads S: agrees (the default),
 *                               accurate, wrong or ill, for every variant or
 *                               only VARIANT's
 *   # sim: dram X               the profile's counters saw each Triton kernel move
 *                               X times its argument bytes (dram_bytes, PROTOCOL.md);
 *                               "# sim: dram error": the collection failed
 *   # sim: vendor uncaptured    the capture does not list the vendor kernel (as
 *                               when the output code's extern call launches one
 *                               under another name): the profile's row of it is
 *                               in no capture entry
 *   # sim: overstated F         each Triton kernel's argument bytes read as F times
 *                               the copy bandwidth over its time (bytes the
 *                               caches served, counted as moved): its frac_peak
 *                               is F, past the cap of 0.98 that holds otherwise
 *   # sim: flops OPS [N]        each Triton kernel's source does OPS operations
 *                               per element over 2^24 elements, or N for a
 *                               pointwise one (the FLOPs koptmake counts in
 *                               it: OPS x 2^24, or OPS x N, a launch)
 *   # sim: launches none        each Triton kernel's row has a null
 *                               launches_per_call (not measured); "launches
 *                               0": 0 (default 1)
 *   # sim: peak G               the profile's FP32 peak, G GFLOP/s (default
 *                               50000; 0 sends none, as when it cannot be
 *                               measured); the copy bandwidth is 4300 GB/s
 * Profile rows name ATen ops: aten._softmax for reductions, aten.add for
 * pointwise kernels, and the compile metadata of a kernel of 32 registers,
 * no spills, no shared memory, its config's warps: occupancy 1.
 * A Helion kernel file (model kind "helion") is simulated as kopt-worker's
 * runtime/python/kopt/helion.py answers: kernel i is the @helion.kernel
 * hk<i>, launching Triton kernel _helion_hk<i>, heuristic "helion", its
 * config a helion.Config as JSON, no vendor kernel; the profile adds
 * "helion", the baselines (own config, Helion's quick autotune and, with
 * "helion_full" in the request, its full effort, each with a time and a
 * simulated wall time); a verify of a config-only candidate without
 * block_sizes in its config fails gate 1 as "does not build", as the real
 * one does (a source candidate, an edit of the generated Triton, is
 * verified as any); its stitch answers "helion_race" where the request has
 * "helion_baselines" (stitch()).
 * A screen (one kernel's launch configs searched alone) answers with the
 * configs verify would pass, by the same speedups (screen()).
 * The simulator confines itself through the real worker's sandbox
 * (runtime/sandbox.c: scratch folder, Landlock, seccomp) before it answers
 * anything, and says how in its hello ("sandbox"); an escape that the
 * sandbox denies fails the candidate at gate 1 with the error, as
 * kopt-worker's verify does.
 * Environment:
 *   KOPT_SIM_LOG=FILE    append one line per executed op: "OP MODEL VARIANT [KERNEL CONFIG]"
 *   KOPT_SIM_LOST="OP KEY=N..."  (OP screen or verify) a launch config that sets
 *                        each KEY to its N kills the CUDA context, as an illegal
 *                        memory access does: the answer stands and says "lost",
 *                        and the reply is fatal (the worker is replaced). A
 *                        screen stops at that config (a row that failed), a
 *                        verify fails its candidate at correctness; a screen
 *                        sent again with "resume" measures none of its rows
 *                        again. (Not a line of the model: that would change
 *                        every number the model's bytes give.)
 *   KOPT_SIM_WHO=FILE    append "OP MODEL VARIANT PID" per executed op: which worker
 *                        process ran it (the worker affinity test)
 *   KOPT_SIM_DELAY_MS=N  sleep N ms before each answer
 *   KOPT_SIM_START_MS=N  sleep N ms before the hello (a worker as slow to start
 *                        as torch and CUDA make the real one)
 *   KOPT_SIM_WITNESS=P:Q the hello names these files as its environment's
 *                        witnesses (engine/witness.h)
 *   KOPT_SIM_TRACE=FILE  append "OP GPU START_NS END_NS" per request (GPU is
 *                        CUDA_VISIBLE_DEVICES): the multi-GPU scheduler test
 *   KOPT_SIM_TORCH=V     the torch version reported in the hello (env fingerprint)
 *   KOPT_SIM_GRAPH_CODE=V  the digest of the kopt package's graph code in the
 *                        hello (env graph_code; default "sim")
 *   KOPT_SIM_GPU=NAME    the GPU named in the hello (default "NVIDIA H200
 *                        (simulated)": the examples' devices want an H200)
 *   KOPT_SIM_WHERE=FILE  append "OP MODEL JOB.STEP GPU SGPU" when each request
 *                        starts: the Slurm job step it runs in (SLURM_JOB_ID
 *                        and SLURM_STEP_ID), its CUDA_VISIBLE_DEVICES and the
 *                        GPU Slurm gave the step (SLURM_STEP_GPUS); "-" for
 *                        each one unset
 *   KOPT_SIM_ENV_LOG=FILE  at start, append "pid N", the environment the
 *                        worker was given (one variable a line) and a blank line
 *   KOPT_SIM_MEASURED=T  the measured_at stamp of profile, stitch and race
 *                        results (default 946684800, 2000-01-01 UTC: a fixed
 *                        time, so that separate builds give the same reports);
 *                        "# sim: measured T" in a model file says it for that model
 *   KOPT_SIM_DIE=hello   exit with status 3 before the hello, after a line on
 *                        stderr (a worker whose CUDA cannot start)
 *   KOPT_SIM_DIE=MS      die by SIGALRM MS milliseconds after the hello, idle
 *                        or not (a worker the kernel's OOM killer takes)
 *   KOPT_SIM_LINGER_MS=L with KOPT_SIM_DIE=MS: at MS close stdout and stderr,
 *                        then exit with status 5 L milliseconds later (a
 *                        worker that takes a moment to end, as Python does)
 *   KOPT_SIM_HOSTSKEW=1  model-level candidate times read 8% of the baseline
 *                        low on the host's side only; the device spans, sent
 *                        with every model-level time, say otherwise
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <xxhash.h>

#include "../runtime/sandbox.h"

/* KOPT_SIM_LOG, KOPT_SIM_TRACE, KOPT_SIM_WHERE and KOPT_SIM_WHO, opened
 * before the sandbox (they are outside its scratch) */
static int log_fd = -1, trace_fd = -1, where_fd = -1, who_fd = -1;

struct model {
	uint64_t h;
	int nk;            /* Triton kernels */
	bool equal;        /* # sim: kernels N given: equal shares */
	double w[64];      /* # sim: weights: the kernels' weights */
	bool weighted;
	char text[4096];   /* the model file's first bytes, for directives */
	bool helion;       /* model kind "helion": a Helion kernel file */
	bool shaped;       /* the request's model has a shape */
	double scale;      /* its scale: the product of its whole numbers (1 without) */
	char shape[256];   /* its names and values, "NAME=V NAME=V" */
};

static void out(json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(msg);
}

static uint64_t h64(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

static int load_model(json_t *req, struct model *m)
{
	const char *path = json_string_value(json_object_get(json_object_get(req, "model"), "path"));
	const char *kind = json_string_value(json_object_get(json_object_get(req, "model"), "kind"));
	memset(m, 0, sizeof *m);
	m->helion = kind && strcmp(kind, "helion") == 0;
	m->scale = 1;
	json_t *shape = json_object_get(json_object_get(req, "model"), "shape"), *sv;
	const char *sk;
	size_t used = 0;
	json_object_foreach(shape, sk, sv) {
		m->shaped = true;
		if (json_is_integer(sv) && json_integer_value(sv) > 0)
			m->scale *= (double)json_integer_value(sv);
		char *t = json_dumps(sv, JSON_COMPACT | JSON_ENCODE_ANY);
		if (t && used < sizeof m->shape)
			used += (size_t)snprintf(m->shape + used, sizeof m->shape - used, "%s%s=%s", used ? " " : "", sk, t);
		free(t);
	}
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f)
		return -1;
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	char buf[4096];
	size_t n, total = 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (total < sizeof m->text - 1) {
			size_t c = n < sizeof m->text - 1 - total ? n : sizeof m->text - 1 - total;
			memcpy(m->text + total, buf, c);
			total += c;
		}
		XXH3_64bits_update(st, buf, n);
	}
	fclose(f);
	m->h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	m->nk = 1 + (int)(m->h % 4);
	const char *k = strstr(m->text, "# sim: kernels ");
	if (k) {
		int v = atoi(k + 15);
		if (v >= 1 && v <= 64) {
			m->nk = v;
			m->equal = true;
		}
	}
	const char *w = strstr(m->text, "# sim: weights ");
	if (w) {
		char *p = (char *)w + 15, *e;
		int nw = 0;
		for (double v; nw < 64 && (v = strtod(p, &e)) > 0 && e != p; p = e)
			m->w[nw++] = v;
		if (nw > 0) {
			m->nk = nw;
			m->weighted = true;
		}
	}
	return 0;
}

static bool wants(const struct model *m, const char *what, const char *op)
{
	char pat[64];
	snprintf(pat, sizeof pat, "# sim: %s %s", what, op);
	const char *p = strstr(m->text, pat);
	if (!p)
		return false;
	char c = p[strlen(pat)];
	return c == '\n' || c == '\0' || c == ' ' || c == '\r';
}

/* whether the config c sets each KEY to its N, where $KOPT_SIM_LOST is
 * "OP KEY=N [KEY=N...]" */
static bool loses(const char *op, const json_t *c)
{
	char key[32];
	long long v;
	int used;
	const char *p = getenv("KOPT_SIM_LOST");
	size_t n = strlen(op);
	if (!p || strncmp(p, op, n) != 0 || p[n] != ' ' || !json_is_object(c))
		return false;
	bool all = false;
	for (p += n; sscanf(p, " %31[A-Za-z0-9_]=%lld%n", key, &v, &used) == 2; p += used) {
		if (!json_is_integer(json_object_get(c, key)) || json_integer_value(json_object_get(c, key)) != v)
			return false;
		all = true;
	}
	return all;
}

#define LOST "it lost the CUDA context (RuntimeError: CUDA error: an illegal memory access was encountered " \
	     "(simulated)); the worker was replaced"

static bool is_red(const struct model *m, int i)
{
	if (strstr(m->text, "# sim: reductions\n"))
		return true;
	if (strstr(m->text, "# sim: pointwise\n"))
		return false;
	return ((m->h >> (i % 60)) & 1) != 0;
}

static char *kname(const struct model *m, int i)
{
	char *s;
	if (m->helion)
		asprintf(&s, "_helion_hk%d", i);
	else if (is_red(m, i))
		asprintf(&s, "triton_red_fused__softmax_%d", i);
	else
		asprintf(&s, "triton_poi_fused_add_mul_%d", i);
	return s;
}

/* "# sim: flops OPS [N]": OPS, else 0; *elems, N where given, else 2^24 */
static int flops_ops(const struct model *m, long *elems)
{
	const char *f = strstr(m->text, "# sim: flops ");
	char *end = NULL;
	int ops = f ? (int)strtol(f + 13, &end, 10) : 0;
	long n = end && *end == ' ' ? strtol(end + 1, NULL, 10) : 0;
	*elems = n > 0 ? n : 16777216;
	return ops > 0 && ops <= 4096 ? ops : 0;
}

static char *ksource(const struct model *m, int i)
{
	char *n = kname(m, i), *s;
	/* with "# sim: flops OPS", Inductor's numel line and OPS lines of math
	 * per element: agents/roof.c counts OPS x 2^24 FLOPs a launch (a
	 * reduction: 2^10 rows of its 2^14) */
	long elems;
	int ops = flops_ops(m, &elems);
	char *math = NULL;
	size_t mlen = 0;
	FILE *mf = open_memstream(&math, &mlen);
	if (ops) {
		fprintf(mf, "    xnumel = %ld\n    tmp0 = tl.load(in_ptr0 + (x0), None)\n", is_red(m, i) ? 1024 : elems);
		for (int k = 1; k <= ops; k++)
			fprintf(mf, "    tmp%d = tmp%d * tmp0\n", k, k - 1);
	}
	fclose(mf);
	/* a class of its own (rules/groups.c: what is left without its name
	 * and numbers), unless "# sim: group" makes the kernels of one kind a
	 * class: the same text but for their sizes */
	char cls[8] = "";
	if (!strstr(m->text, "# sim: group\n"))
		for (int k = 0, v = i; k < 6; k++, v /= 26)
			cls[k] = (char)('a' + v % 26);
	char hints[96] = ""; /* at a shape, the sizes differ (rules/shapes.c) */
	if (m->shaped)
		snprintf(hints, sizeof hints, "@triton_heuristics.pointwise(size_hints={'x': %.0f})\n", 1024 * m->scale);
	/* "# sim: looped": a looped reduction whose statistics read the row twice */
	static const char looped[] =
		"    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)\n"
		"    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
		"        r0_index = r0_offset + r0_base\n"
		"        r0_mask = r0_index < r0_numel\n"
		"        tmp0 = tl.load(in_ptr0 + (r0_index + 16384*x0), r0_mask, other=0.0)\n"
		"        tmp3 = _tmp2 + tmp0\n"
		"        _tmp2 = tl.where(r0_mask, tmp3, _tmp2)\n"
		"    tmp2 = tl.sum(_tmp2, 1)[:, None]\n"
		"    _tmp10 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)\n"
		"    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
		"        r0_index = r0_offset + r0_base\n"
		"        r0_mask = r0_index < r0_numel\n"
		"        tmp4 = tl.load(in_ptr0 + (r0_index + 16384*x0), r0_mask, other=0.0)\n"
		"        tmp8 = tmp4 * tmp4\n"
		"        tmp11 = _tmp10 + tmp8\n"
		"        _tmp10 = tl.where(r0_mask, tmp11, _tmp10)\n";
	bool loop = is_red(m, i) && strstr(m->text, "# sim: looped\n");
	asprintf(&s, "%s@triton.jit\ndef %s(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
		     "    # simulated kernel %d of model %016llx%s%s\n%s%s%s    pass\n", hints, n, i, (unsigned long long)m->h,
		 *cls ? ", class " : "", cls, is_red(m, i) ? "    r0_numel = 16384\n" : "", math, loop ? looped : "");
	free(math);
	free(n);
	return s;
}

static json_t *kconfig(const struct model *m, int i)
{
	if (m->helion)
		return json_pack("{s:[i,i], s:i, s:i, s:s, s:s, s:[[i,i]], s:[n,b], s:[b], s:[s,s]}", "block_sizes", 64, 32,
				 "num_warps", 4, "num_stages", 2, "indexing", "pointer", "pid_type", "flat", "loop_orders", 0, 1,
				 "range_flattens", true, "static_ranges", false, "load_eviction_policies", "", "last");
	if (is_red(m, i))
		return json_pack("{s:i, s:i, s:i, s:i}", "XBLOCK", 1, "R0_BLOCK", 2048, "num_warps", 16, "num_stages", 1);
	return json_pack("{s:i, s:i, s:i}", "XBLOCK", 1024, "num_warps", 4, "num_stages", 1);
}

/* how much faster the current request's variant runs (variant_speed) */
static double g_speed = 1.0;

static double model_ns(const struct model *m)
{
	const char *t = strstr(m->text, "# sim: time ");
	double ns = t ? atof(t + 12) : 0;
	if (ns <= 0)
		ns = 100000.0 + (double)(m->h % 50000);
	if (m->scale > 1)
		ns *= 1 + log2(m->scale) / 4;
	return ns / g_speed;
}

static const char *g_variant; /* the request's variant's name, or NULL */

/* the text after "# sim: NAME VARIANT=" for the request's variant
 * (per_variant), or after the first "# sim: NAME " that a number follows;
 * NULL where the model has none */
static const char *sim_knob(const struct model *m, const char *name, bool per_variant)
{
	char key[96];
	if (per_variant) {
		if (!g_variant)
			return NULL;
		snprintf(key, sizeof key, "# sim: %s %s=", name, g_variant);
		const char *v = strstr(m->text, key);
		return v ? v + strlen(key) : NULL;
	}
	size_t n = (size_t)snprintf(key, sizeof key, "# sim: %s ", name);
	const char *h = m->text;
	while ((h = strstr(h, key)) && !(h[n] == '.' || (h[n] >= '0' && h[n] <= '9')))
		h += n;
	return h ? h + n : NULL;
}

/* "# sim: host F": F of a call, else 0.05; "# sim: host VARIANT=F": that
 * variant's, before the model's */
static double host_share(const struct model *m)
{
	const char *v = sim_knob(m, "host", true);
	double host = v ? atof(v) : 0;
	if (host > 0 && host < 1)
		return host;
	v = sim_knob(m, "host", false);
	host = v ? atof(v) : 0.05;
	return host <= 0 || host >= 1 ? 0.05 : host;
}

/* "# sim: queued VARIANT=F", else "# sim: queued F": F of a call, else NAN */
static double queued_share(const struct model *m)
{
	const char *v = sim_knob(m, "queued", true);
	if (!v)
		v = sim_knob(m, "queued", false);
	return v ? atof(v) : NAN;
}

/* "# sim: eager F": F, else 0 */
static double eager_factor(const struct model *m)
{
	const char *p = strstr(m->text, "# sim: eager ");
	double f = p ? atof(p + 13) : 0;
	return f > 0 ? f : 0;
}

static double variant_speed(const struct model *m, const json_t *variant)
{
	double f = eager_factor(m);
	if (f > 0 && json_array_size(json_object_get(variant, "aten_fallback")))
		return f;
	if ((strstr(m->text, "# sim: conv\n") || strstr(m->text, "# sim: cudnn-left ")) &&
	    json_is_true(json_object_get(variant, "cudnn_benchmark")))
		return 1.25;
	const char *name = json_string_value(json_object_get(variant, "name"));
	if (!name || !wants(m, "fast", name))
		return 1.0;
	char pat[64];
	snprintf(pat, sizeof pat, "# sim: fast %s ", name);
	const char *p = strstr(m->text, pat);
	double x = p ? atof(p + strlen(pat)) : 0;
	return x > 0 ? x : 3.0;
}

static double weight(const struct model *m, int i)
{
	if (m->weighted)
		return i < 0 ? 1.0 : m->w[i];
	if (i < 0) /* the vendor kernel */
		return m->equal ? 0.5 : 2.0 + (double)((m->h >> 40) % 8);
	return m->equal ? 1.0 : 1.0 + (double)((m->h >> (8 + (i * 4) % 48)) & 15);
}

static double kernel_ns(const struct model *m, int i)
{
	double sum = m->helion ? 0 : weight(m, -1);
	for (int k = 0; k < m->nk; k++)
		sum += weight(m, k);
	/* the rest of a call is the host's: 5%, or "# sim: host F" */
	return model_ns(m) * (1 - host_share(m)) * weight(m, i) / sum;
}

static json_t *capture(const struct model *m, json_t *req)
{
	json_t *ks = json_array();
	char *code = NULL;
	size_t codelen = 0;
	FILE *cf = open_memstream(&code, &codelen);
	fprintf(cf, "# output code of %s (simulated)\n",
		json_string_value(json_object_get(json_object_get(req, "model"), "name")));
	for (int i = 0; i < m->nk; i++) {
		char *n = kname(m, i), *src = ksource(m, i), hx[17];
		snprintf(hx, sizeof hx, "%016llx", (unsigned long long)h64(src));
		json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:[{s:[i,i], s:s, s:i, s:i}]}",
			"name", n, "kind", "triton", "source_hash", hx, "source", src,
			"heuristic", m->helion ? "helion" : is_red(m, i) ? "reduction" : "pointwise", "config", kconfig(m, i),
			"args", "shape", 4096, 4096, "dtype", "float32", "numel", 16777216, "bytes", 67108864);
		if (m->helion)
			json_object_set_new(e, "helion_kernel", json_string(n + 8));
		json_array_append_new(ks, e);
		fprintf(cf, "%s\n", src);
		free(n);
		free(src);
	}
	if (!m->helion && !strstr(m->text, "# sim: vendor uncaptured\n"))
		json_array_append_new(ks, json_pack("{s:s, s:s, s:n}", "name", "sm90_xmma_gemm_f32f32_tn", "kind",
						    "vendor", "source_hash"));
	fprintf(cf, "def call(args):\n    pass\n");
	fclose(cf);
	json_t *r = json_pack("{s:s, s:f, s:[{s:[i,i], s:s}], s:o}", "output_code", code, "compile_s", 1.5,
			      "inputs", "shape", m->shaped ? (int)m->scale : 4096, 4096, "dtype", "float32", "kernels", ks);
	/* where the 1.5 s went (kopt.compile_time): a variant with a mode
	 * autotunes for half of it */
	bool tunes = json_is_string(json_object_get(json_object_get(req, "variant"), "mode"));
	json_object_set_new(r, "compile_phases", json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "dynamo_s", 0.25,
		"inductor_s", tunes ? 0.25 : 0.5, "triton_s", tunes ? 0.25 : 0.5, "autotune_s", tunes ? 0.75 : 0.0,
		"run_s", 0.25, "gpu_lock_wait_s", 0.0));
	/* and the capture's other parts: 2.5 s in the worker in all */
	json_object_set_new(r, "capture_parts", json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "worker_age_s",
		0.5, "load_s", 0.5, "compile_s", 1.5, "around_s", 0.25, "warm_s", 0.125, "args_s", 0.0625, "kernels_s",
		0.0625, "after_s", 0.25, "total_s", 2.5));
	free(code);
	return r;
}

/* the profile's "helion": per kernel its own config's time, Helion's
 * quick autotune's (a config with the first block doubled, 1.2x faster,
 * 40 s of wall time) and with full, its full effort's (1.3x, 900 s) */
static json_t *helion_baselines(const struct model *m, bool full)
{
	json_t *ks = json_array();
	for (int i = 0; i < m->nk; i++) {
		char *n = kname(m, i);
		double ns = model_ns(m);
		json_t *quick = kconfig(m, i);
		json_array_set_new(json_object_get(quick, "block_sizes"), 0, json_integer(128));
		json_t *row = json_pack("{s:s, s:[s], s:{s:o, s:f}, s:{s:o, s:f, s:f, s:s}}", "kernel", n + 8,
			"names", n, "default", "config", kconfig(m, i), "ns", ns, "quick", "config", quick, "ns",
			ns / 1.2, "wall_s", 40.0, "decorator", "@helion.kernel(config=helion.Config(...))");
		if (full) {
			json_t *fc = kconfig(m, i);
			json_object_set_new(fc, "num_warps", json_integer(8));
			json_object_set_new(row, "full", json_pack("{s:o, s:f, s:f}", "config", fc, "ns", ns / 1.3,
								  "wall_s", 900.0));
		}
		json_array_append_new(ks, row);
		free(n);
	}
	return json_pack("{s:o, s:[s]}", "kernels", ks, "efforts", "quick");
}

static json_t *profile(const struct model *m)
{
	json_t *ks = json_array();
	/* the kernels' times sum to this, to the last bits */
	double dev = model_ns(m) * (1 - host_share(m));
	for (int i = 0; i < m->nk; i++) {
		char *n = kname(m, i), *src = ksource(m, i), hx[17];
		snprintf(hx, sizeof hx, "%016llx", (unsigned long long)h64(src));
		double ns = kernel_ns(m, i), bytes = 67108864.0 * (1 + i % 3);
		double gbps = bytes / ns;
		const char *over = strstr(m->text, "# sim: overstated ");
		if (over) {
			gbps = atof(over + 18) * 4300.0;
			bytes = gbps * ns;
		} else if (gbps > 0.98 * 4300.0) { /* no kernel beats the copy bandwidth */
			gbps = 0.98 * 4300.0;
			bytes = gbps * ns;
		}
		json_t *cfg = kconfig(m, i);
		json_t *lpc = strstr(m->text, "# sim: launches none\n") ? json_null()
			      : json_real(strstr(m->text, "# sim: launches 0\n") ? 0.0 : 1.0);
		json_array_append_new(ks, json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:f, s:[s], s:i, s:i, s:O, s:i, s:f}",
			"name", n, "kind", "triton", "source_hash", hx, "launches_per_call", lpc, "ns_per_call", ns,
			"share", ns / dev, "bytes", bytes, "achieved_gbps", gbps, "frac_peak", gbps / 4300.0,
			"aten", is_red(m, i) ? "aten._softmax" : "aten.add", "n_regs", 32, "n_spills", 0,
			"num_warps", json_object_get(cfg, "num_warps"), "shared_bytes", 0, "occupancy", 1.0));
		json_decref(cfg);
		free(n);
		free(src);
	}
	if (!m->helion)
		json_array_append_new(ks, json_pack("{s:s, s:s, s:n, s:f, s:f, s:f, s:n, s:n, s:n}", "name",
			"sm90_xmma_gemm_f32f32_tn", "kind", "vendor", "source_hash", "launches_per_call", 1.0,
			"ns_per_call", kernel_ns(m, -1), "share", kernel_ns(m, -1) / dev, "bytes", "achieved_gbps",
			"frac_peak"));
	const char *pk = strstr(m->text, "# sim: peak ");
	double peak = pk ? atof(pk + 12) : 50000.0;
	const char *sp = strstr(m->text, "# sim: span ");
	double span = sp ? atof(sp + 12) * model_ns(m) : dev;
	double queued = queued_share(m);
	queued = isnan(queued) ? dev : queued * model_ns(m);
	json_t *r = json_pack("{s:i, s:f, s:f, s:f, s:f, s:o, s:o}", "calls", 20, "model_ns_per_call", model_ns(m),
			      "device_ns_per_call", span, "queued_ns_per_call", queued, "peak_copy_gbps", 4300.0,
			      "peak_fp32_gflops", peak > 0 ? json_real(peak) : json_null(), "kernels", ks);
	const char *left = strstr(m->text, "# sim: cudnn-left ");
	bool conv = strstr(m->text, "# sim: conv\n") != NULL;
	json_t *calls = json_array();
	if (conv || left) {
		double tns = (conv ? 0.5 : 0.1) * dev;
		json_t *call = json_pack("{s:s, s:s, s:s, s:i, s:f}", "lib", "cuDNN", "op", "convolution", "shape",
					 "simulated", "count", 1, "torch_ns", tns);
		if (left && atof(left + 18) > 0) {
			json_object_set_new(call, "best_ns", json_real(tns / atof(left + 18)));
			json_object_set_new(call, "best_rank", json_integer(3));
		}
		json_array_append_new(calls, call);
	}
	/* the calls "# sim: KNOB F" adds, each in F of the device time */
	static const struct { const char *knob, *lib, *op, *shape; } knob_calls[] = {
		{ "# sim: conv1x1 ", "cuDNN", "convolution", "N=10 C=112 H=224 W=224 K=672 1x1 stride 1 pad 0" },
		{ "# sim: gemm32 ", "cuBLASLt", "mm", "m=256 n=16384 k=32768" },
	};
	for (size_t i = 0; i < sizeof knob_calls / sizeof *knob_calls; i++) {
		const char *f = strstr(m->text, knob_calls[i].knob);
		if (f)
			json_array_append_new(calls, json_pack("{s:s, s:s, s:s, s:s, s:i, s:f}", "lib", knob_calls[i].lib, "op",
							       knob_calls[i].op, "shape", knob_calls[i].shape, "dtype", "float32",
							       "count", 1, "torch_ns", atof(f + strlen(knob_calls[i].knob)) * dev));
	}
	if (json_array_size(calls))
		json_object_set_new(r, "vendor", json_pack("{s:o}", "calls", calls));
	else
		json_decref(calls);
	int nred = 0;
	for (int i = 0; i < m->nk; i++)
		nred += is_red(m, i);
	const char *pp = strstr(m->text, "# sim: params ");
	bool dw = strstr(m->text, "# sim: dwconv\n") != NULL;
	json_object_set_new(r, "facts", json_pack("{s:i, s:i, s:i, s:I, s:i}", "convolutions", conv || left || dw ? 1 : 0,
						  "gemms", 1, "reductions", nred, "parameters",
						  (json_int_t)(pp ? atoll(pp + 14) : 0), "depthwise_convolutions", dw));
	double f = eager_factor(m);
	if (f > 0)
		json_object_set_new(r, "eager", json_pack("{s:i, s:f, s:f}", "calls", 10, "compiled_ns", model_ns(m),
							  "eager_ns", model_ns(m) * g_speed / f));
	const char *dram = strstr(m->text, "# sim: dram ");
	if (dram && strncmp(dram + 12, "error", 5) == 0)
		json_object_set_new(r, "counters", json_pack("{s:s}", "error", "counters: cuptiProfilerHostInitialize: "
							     "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
	else if (dram) {
		size_t i;
		json_t *row;
		json_array_foreach(ks, i, row)
			if (strcmp(json_string_value(json_object_get(row, "kind")), "triton") == 0) {
				double b = json_number_value(json_object_get(row, "bytes")) * atof(dram + 12);
				json_object_set_new(row, "dram_bytes", json_real(b));
				json_object_set_new(row, "dram_gbps",
						    json_real(b / json_number_value(json_object_get(row, "ns_per_call"))));
			}
		json_object_set_new(r, "counters", json_pack("{s:[s,s], s:i, s:i, s:i, s:[]}", "metrics",
							     "dram__bytes_read.sum", "dram__bytes_write.sum", "passes", 1,
							     "dropped", 0, "rows", m->nk, "unmatched"));
	}
	/* where the profile's time went, as kopt-worker says it: the counters'
	 * collection 0.75 s where there was one */
	json_object_set_new(r, "phases", json_pack("{s:f, s:f, s:f}", "measure_s", 0.5, "vendor_s", 0.01,
						   dram ? "counters_s" : "eager_s", dram ? 0.75 : 0.05));
	if (strstr(m->text, "# sim: graph-keys\n")) {
		/* the graph-cache key its compile looked up (kopt/graphkeys.py):
		 * the model's bytes and the variant's name, each a part */
		const char *cxx = getenv("CXX") ? getenv("CXX") : "g++"; /* as Inductor's cpp.cxx */
		char gk[48], gm[20], gv[20], gc[20];
		snprintf(gm, sizeof gm, "%016llx", (unsigned long long)m->h);
		snprintf(gv, sizeof gv, "%016llx", (unsigned long long)h64(g_variant ? g_variant : "?"));
		snprintf(gc, sizeof gc, "%016llx", (unsigned long long)h64(cxx));
		snprintf(gk, sizeof gk, "fsim%.8s%.8s%.8s", gm, gv, gc);
		json_object_set_new(r, "graph_keys", json_pack("[{s:s, s:{s:s, s:s, s:s}}]", "key", gk, "parts", "gm", gm,
							       "inductor_config[variant]", gv,
							       "inductor_config[cpp.cxx]", gc));
	}
	json_t *k0 = json_array_get(ks, 0);
	if (strstr(m->text, "# sim: badtime negative\n"))
		json_object_set_new(k0, "ns_per_call", json_real(-1000.0));
	if (strstr(m->text, "# sim: badtime nan\n"))
		json_object_set_new(k0, "ns_per_call", json_string("NaN"));
	if (strstr(m->text, "# sim: badtime huge\n"))
		json_object_set_new(r, "model_ns_per_call", json_real(7.2e12));
	if (strstr(m->text, "# sim: badtime launches\n"))
		json_object_set_new(k0, "launches_per_call", json_real(-2.0));
	if (strstr(m->text, "# sim: badtime share\n"))
		json_object_set_new(k0, "share", json_real(2.5));
	return r;
}

/* "# sim: baseline S [VARIANT]": the profile's check, in PROTOCOL.md's
 * shape: seed 0 agrees; seed 1's output is as S says */
static json_t *baseline_check(const struct model *m, const json_t *req)
{
	const char *status = "agrees";
	const char *k = strstr(m->text, "# sim: baseline ");
	const char *vname = json_string_value(json_object_get(json_object_get(req, "variant"), "name"));
	if (k) {
		char st[16] = "", var[64] = "", line[96];
		size_t len = strcspn(k + 16, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), k + 16);
		int n = sscanf(line, "%15s %63s", st, var);
		if (n == 1 || (n == 2 && vname && strcmp(var, vname) == 0))
			status = strcmp(st, "wrong") == 0 ? "wrong" : strcmp(st, "ill") == 0 ? "ill" :
				 strcmp(st, "accurate") == 0 ? "accurate" : "agrees";
	}
	json_t *seeds = json_array();
	int nseeds = (int)json_integer_value(json_object_get(json_object_get(req, "gates"), "seeds"));
	for (int s = 0; s < (nseeds > 0 ? nseeds : 1); s++) {
		bool bad = s == 1 && strcmp(status, "agrees") != 0;
		json_t *o = json_pack("{s:i, s:s, s:b, s:b, s:b, s:b, s:f, s:f, s:f, s:b}", "index", 0, "dtype", "float32",
				      "shape_mismatch", 0, "dtype_mismatch", 0, "nan_mismatch", 0, "inf_mismatch", 0,
				      "max_abs", bad ? 1.0 : 2e-6, "max_rel", bad ? 0.3 : 1e-6, "ref_max_abs", 3.0,
				      "allclose", !bad);
		if (bad) {
			bool wrong = strcmp(status, "wrong") == 0, acc = strcmp(status, "accurate") == 0;
			json_object_set_new(o, "rmse_compiled", json_real(acc ? 1e-7 : 0.6));
			json_object_set_new(o, "rmse_eager", json_real(wrong ? 0.0 : 0.1));
			json_object_set_new(o, "eager_close64", json_boolean(wrong));
			json_object_set_new(o, "compiled_close64", json_boolean(acc));
		}
		json_array_append_new(seeds, json_pack("{s:i, s:[o]}", "seed", s, "outputs", o));
	}
	return json_pack("{s:o}", "seeds", seeds);
}

static int kernel_index(const struct model *m, const char *name)
{
	for (int i = 0; i < m->nk; i++) {
		char *n = kname(m, i);
		int eq = strcmp(n, name) == 0;
		free(n);
		if (eq)
			return i;
	}
	return -1;
}

/* "# sim: knob EDIT": EDIT, or NULL; caller frees */
static char *knob_edit(const struct model *m)
{
	const char *k = strstr(m->text, "# sim: knob ");
	if (!k)
		return NULL;
	k += 12;
	size_t n = strcspn(k, " \r\n");
	return n ? strndup(k, n) : NULL;
}

static double speedup_of(const struct model *m, const char *kernel, json_t *cand, uint64_t *hx)
{
	const char *csrc = json_string_value(json_object_get(cand, "source"));
	if (csrc && strstr(csrc, "# kopt knob: ")) { /* a screened knob's source: as fast as screened */
		if (hx)
			*hx = 1;
		return 1.6;
	}
	char *c = json_dumps(cand, JSON_COMPACT | JSON_SORT_KEYS);
	char *s;
	asprintf(&s, "%016llx/%s/%s", (unsigned long long)m->h, kernel, c);
	uint64_t x = h64(s);
	free(s);
	free(c);
	if (hx)
		*hx = x;
	const char *f = strstr(m->text, "# sim: speedup ");
	if (f && atof(f + 15) > 0) {
		if (hx)
			*hx = x / 11 * 11 + 1; /* within tolerance */
		/* the factor of this kernel: the ki-th, else the last */
		int ki = kernel_index(m, kernel);
		char *p = (char *)f + 15, *e;
		double v = 0;
		for (int i = 0; i <= ki || !v; i++) {
			double w = strtod(p, &e);
			if (e == p || w <= 0 || (*e != ' ' && *e != '\n' && *e != '\r' && *e != '\0'))
				break;
			v = w;
			p = e;
		}
		return v;
	}
	const char *w = strstr(m->text, "# sim: wins ");
	if (w) {
		char key[32];
		long long v;
		bool hit = sscanf(w + 12, "%31[A-Za-z0-9_]=%lld", key, &v) == 2 &&
			   json_integer_value(json_object_get(json_object_get(cand, "config"), key)) == v;
		if (hx)
			*hx = x / 11 * 11 + 1; /* within tolerance: the speed decides */
		return hit ? 1.4 : 0.9;
	}
	return 0.6 + (double)(x % 1000) / 1000.0 * 0.9;
}

#define HOST_NS 20000.0 /* a model call's host time before its first kernel */

/* repeats interleaved timing pairs around base and cand, a little jitter;
 * for model times (kb "model_base_ns") also the device spans, the host's
 * time less, and with KOPT_SIM_HOSTSKEW the candidate's event times read
 * 8% of the baseline lower than its device time says (a cheaper launch of
 * the swapped kernel object) */
static bool g_steady; /* "# sim: steady" */

static void add_pairs(json_t *perf, const char *kb, const char *kc, double base, double cand, int n, uint64_t seed,
		      bool skew)
{
	json_t *b = json_array(), *c = json_array(), *db = json_array(), *dc = json_array();
	bool model = strcmp(kb, "model_base_ns") == 0;
	for (int i = 0; i < n; i++) {
		char k[64];
		snprintf(k, sizeof k, "%llu/%d", (unsigned long long)seed, i);
		uint64_t x = h64(k);
		double jb = g_steady ? 0 : ((double)(x % 1000) / 1000.0 - 0.5) * 0.004;
		double jc = g_steady ? 0 : ((double)((x >> 20) % 1000) / 1000.0 - 0.5) * 0.004;
		json_array_append_new(b, json_real(base * (1 + jb)));
		json_array_append_new(c, json_real(cand * (1 + jc) - (skew ? 0.08 * base : 0)));
		json_array_append_new(db, json_real(base * (1 + jb) - HOST_NS));
		json_array_append_new(dc, json_real(cand * (1 + jc) - HOST_NS));
	}
	json_object_set_new(perf, kb, b);
	json_object_set_new(perf, kc, c);
	if (model) {
		json_object_set_new(perf, "model_base_dev_ns", db);
		json_object_set_new(perf, "model_cand_dev_ns", dc);
	} else {
		json_decref(db);
		json_decref(dc);
	}
}

/*
 * "# sim: escape socket" and "# sim: escape write PATH": what a candidate
 * that got past the static gate would do when loaded. -1 with the reason
 * when the sandbox denied it (as kopt-worker's verify words it), 0 when it
 * was not asked for or went through.
 */
static int escape(const struct model *m, char *why, size_t n)
{
	static const char sandbox[] = " (the worker's sandbox denies the network and writes outside its scratch folder)";
	if (strstr(m->text, "# sim: escape socket")) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0) {
			snprintf(why, n, "does not build: PermissionError: [Errno %d] %s: socket(AF_INET, SOCK_STREAM)%s",
				 errno, strerror(errno), sandbox);
			return -1;
		}
		close(fd);
	}
	const char *w = strstr(m->text, "# sim: escape write ");
	if (w) {
		char path[300];
		size_t len = strcspn(w + 20, "\r\n");
		snprintf(path, sizeof path, "%.*s", (int)(len < sizeof path ? len : sizeof path - 1), w + 20);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			snprintf(why, n, "does not build: PermissionError: [Errno %d] %s: '%s'%s", errno, strerror(errno),
				 path, sandbox);
			return -1;
		}
		ssize_t r = write(fd, "escaped\n", 8);
		(void)r;
		close(fd);
	}
	return 0;
}

/* the correctness object: every seed with one float32 output */
static json_t *correctness(int seeds, bool close)
{
	json_t *arr = json_array();
	for (int i = 0; i < seeds + 1; i++)
		json_array_append_new(arr, json_pack("{s:i, s:b, s:[{s:i, s:s, s:b, s:b, s:b, s:b, s:b, s:b, s:f, s:f, s:f, s:b}]}",
			"seed", i, "input_modified", 0, "outputs", "index", 0, "dtype", "float32",
			"shape_mismatch", 0, "stride_mismatch", 0, "dtype_mismatch", 0, "aliases_input", 0,
			"nan_mismatch", 0, "inf_mismatch", 0, "max_abs", close ? 3.1e-7 : 3.2e-2,
			"max_rel", close ? 1.2e-6 : 8e-3, "ref_max_abs", 4.0, "allclose", close));
	return json_pack("{s:o}", "seeds", arr);
}

static json_t *verify(const struct model *m, json_t *req)
{
	const char *kernel = json_string_value(json_object_get(req, "kernel"));
	json_t *cand = json_object_get(req, "candidate");
	json_t *gates = json_object_get(req, "gates");
	double gamma = json_number_value(json_object_get(gates, "gamma"));
	int seeds = (int)json_integer_value(json_object_get(gates, "seeds"));
	int repeats = (int)json_integer_value(json_object_get(gates, "repeats"));
	bool fallback = json_is_true(json_object_get(gates, "fp64_fallback"));
	int ki = kernel ? kernel_index(m, kernel) : -1;
	if (ki < 0)
		return NULL;
	if (repeats < 3)
		repeats = 3;
	uint64_t x;
	double sp = speedup_of(m, kernel, cand, &x);
	double base = kernel_ns(m, ki), cand_ns = base / sp;
	const char *src = json_string_value(json_object_get(cand, "source"));
	json_t *nums = json_object();
	char reason[160];
	char escaped[1024];
	if (escape(m, escaped, sizeof escaped) < 0) {
		json_object_set_new(nums, "static", json_pack("{s:b, s:s}", "ok", 0, "reason", escaped));
		return json_pack("{s:o}", "numbers", nums);
	}
	if (src && strstr(src, "import os")) {
		json_object_set_new(nums, "static", json_pack("{s:b, s:s}", "ok", 0, "reason", "imports os"));
		return json_pack("{s:s, s:s, s:s, s:o}", "verdict", "fail", "gate", "static", "reason",
				 "the candidate imports os", "numbers", nums);
	}
	if (m->helion && !src && !json_is_array(json_object_get(json_object_get(cand, "config"), "block_sizes"))) {
		json_object_set_new(nums, "static", json_pack("{s:b, s:s}", "ok", 0, "reason",
			"does not build: ValueError: a Helion candidate needs a helion.Config or an edit of the generated code"));
		return json_pack("{s:o}", "numbers", nums);
	}
	json_object_set_new(nums, "static", json_pack("{s:b, s:s}", "ok", 1, "reason",
						      src ? "same name and signature" : "config only"));
	if (loses("verify", json_object_get(cand, "config"))) { /* as verify.py answers it */
		json_object_set_new(nums, "correctness", json_pack("{s:[], s:s}", "seeds", "error", LOST));
		return json_pack("{s:o, s:s}", "numbers", nums, "lost", LOST);
	}
	bool close = x % 11 != 0;
	json_object_set_new(nums, "correctness", correctness(seeds, close));
	/* the worker's store (PROTOCOL.md): the first verify of a model in this
	 * process computes its references, the next ones find them */
	static uint64_t last_model;
	bool cached = last_model == m->h;
	last_model = m->h;
	char bref[48];
	snprintf(bref, sizeof bref, "cached %d, computed %d", cached ? seeds : 0, cached ? 0 : seeds);
	json_object_set_new(nums, "reference", json_pack("{s:s, s:s, s:s}", "baseline", bref, "fp64",
							  cached ? "cached 1, computed 0" : "cached 0, computed 1",
							  "key", "sim"));
	if (!close) {
		if (!fallback)
			return json_pack("{s:s, s:s, s:s, s:o}", "verdict", "fail", "gate", "correctness", "reason",
					 "max_abs 3.2e-02 > atol", "numbers", nums);
		bool rescued = (x / 11) % 2 == 0;
		json_object_set_new(nums, "fp64", json_pack("{s:[{s:i, s:s, s:f, s:f}]}", "outputs", "index", 0,
			"dtype", "float32", "rmse_cand", rescued ? 1.5e-6 : 4e-4, "rmse_base", 1e-6));
		if (!rescued)
			return json_pack("{s:s, s:s, s:s, s:o}", "verdict", "fail", "gate", "fp64", "reason",
					 "rmse to fp64 beyond 2x the baseline's", "numbers", nums);
	}
	json_t *perf = json_object();
	add_pairs(perf, "base_ns", "cand_ns", base, cand_ns, repeats, x, false);
	add_pairs(perf, "model_base_ns", "model_cand_ns", model_ns(m), model_ns(m) - base + cand_ns, repeats, x ^ 1,
		  getenv("KOPT_SIM_HOSTSKEW") != NULL);
	json_object_set_new(nums, "perf", perf);
	snprintf(reason, sizeof reason, "speedup %.3fx (gamma %.3f)", sp, gamma);
	return json_pack("{s:s, s:o, s:s, s:o}", "verdict", sp >= gamma ? "pass" : "fail",
			 "gate", sp >= gamma ? json_null() : json_string("perf"), "reason", reason, "numbers", nums);
}

static json_t *stitch(const struct model *m, json_t *req)
{
	json_t *ws = json_object_get(req, "winners");
	json_t *gates = json_object_get(req, "gates");
	int seeds = (int)json_integer_value(json_object_get(gates, "seeds"));
	int repeats = (int)json_integer_value(json_object_get(gates, "repeats"));
	double base = model_ns(m), opt = base;
	char *code = NULL;
	size_t codelen = 0;
	FILE *cf = open_memstream(&code, &codelen);
	fprintf(cf, "# stitched output code (simulated)\n");
	uint64_t x = m->h;
	size_t i;
	json_t *w, *dropped = json_array(), *kns = json_object();
	if (repeats < 3)
		repeats = 3;
	json_array_foreach(ws, i, w) {
		const char *k = json_string_value(json_object_get(w, "kernel"));
		int ki = k ? kernel_index(m, k) : -1;
		/* as kopt-worker: a group's change that does not fit a member is
		 * left off, and said so ("# sim: misfit KERNEL") */
		if (k && json_is_string(json_object_get(w, "from")) && wants(m, "misfit", k)) {
			json_array_append_new(dropped, json_pack("{s:s, s:s}", "kernel", k,
				"reason", "KnobError: the knobs do not apply here (simulated)"));
			continue;
		}
		/* as kopt-worker (verify.not_searched): a winner whose kernel
		 * compiled here has another source than its "source_hash", the
		 * one its search verified, is left off ("# sim: recompiled
		 * KERNEL", or * for every kernel) */
		if (k && json_is_string(json_object_get(w, "source_hash")) &&
		    (wants(m, "recompiled", k) || wants(m, "recompiled", "*"))) {
			json_array_append_new(dropped, json_pack("{s:s, s:s}", "kernel", k, "reason",
				"compiled here is not the kernel its search verified (simulated)"));
			continue;
		}
		/* as kopt-worker: a winner names a kernel of the model and its candidate */
		if (ki < 0 || !json_is_object(json_object_get(w, "candidate"))) {
			fclose(cf);
			free(code);
			json_decref(dropped);
			json_decref(kns);
			return NULL;
		}
		json_t *cand = json_object_get(w, "candidate");
		uint64_t cx;
		double sp = speedup_of(m, k, cand, &cx);
		x ^= cx;
		if (json_is_true(json_object_get(w, "check"))) {
			/* an earlier shape's winner: its kernel against the one it replaces */
			char pat[300];
			snprintf(pat, sizeof pat, "# sim: slower %s\n", m->shape);
			if (m->shaped && strstr(m->text, pat))
				sp = 0.8;
			json_object_set_new(kns, k, json_pack("{s:f, s:f}", "base_ns", kernel_ns(m, ki), "cand_ns",
							      kernel_ns(m, ki) / sp));
		}
		opt -= kernel_ns(m, ki) * (1.0 - 1.0 / sp);
		char *c = json_dumps(json_object_get(cand, "config"), JSON_COMPACT | JSON_SORT_KEYS);
		fprintf(cf, "# %s: %s\n", k, c ? c : "null");
		free(c);
	}
	fprintf(cf, "def call(args):\n    pass\n");
	const char *vname = json_string_value(json_object_get(json_object_get(req, "variant"), "name"));
	if (vname && wants(m, "drift", vname)) {
		base *= 1.3;
		opt *= 1.3;
	}
	fclose(cf);
	bool bad = json_array_size(ws) >= 2 && (x % 4 == 0 || strstr(m->text, "# sim: clash\n"));
	/* "# sim: untimed VARIANT": that variant's compiled code alone fails
	 * in the stitch (as a worker whose GPU memory ran out did): no perf,
	 * no times */
	bool untimed = json_array_size(ws) == 0 && vname && (wants(m, "untimed", vname) || wants(m, "untimed-zero", vname));
	json_t *nums = json_object();
	json_object_set_new(nums, "correctness", untimed ? json_pack("{s:[], s:s}", "seeds", "error",
		"OutOfMemoryError: simulated: CUDA out of memory") : correctness(seeds, !bad));
	if (untimed) {
		/* "# sim: untimed-zero VARIANT": 0 for both times, as workers
		 * before this answered such a stitch */
		bool zero = wants(m, "untimed-zero", vname);
		json_t *r = json_pack("{s:s, s:o, s:o, s:n, s:o}", "output_code", code, "base_ns_per_call",
				      zero ? json_real(0) : json_null(), "opt_ns_per_call", zero ? json_real(0) : json_null(),
				      "speedup", "numbers", nums);
		json_decref(dropped);
		json_decref(kns);
		free(code);
		return r;
	} else if (bad)
		json_object_set_new(nums, "fp64", json_pack("{s:[{s:i, s:s, s:f, s:f}]}", "outputs", "index", 0,
			"dtype", "float32", "rmse_cand", 4e-4, "rmse_base", 1e-6));
	else {
		json_t *perf = json_object();
		add_pairs(perf, "model_base_ns", "model_cand_ns", base, opt, repeats, x,
			  getenv("KOPT_SIM_HOSTSKEW") != NULL);
		json_object_set_new(nums, "perf", perf);
	}
	json_t *r = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:o}", "verdict", bad ? "fail" : "pass",
			      "reason", bad ? "stitched outputs differ from fp64 beyond 2x the baseline error" : "stitched",
			      "output_code", code, "base_ns_per_call", base, "opt_ns_per_call", opt,
			      "speedup", base / opt, "numbers", nums);
	json_object_set_new(r, "gate", bad ? json_string("fp64") : json_null());
	if (json_array_size(dropped))
		json_object_set(r, "dropped", dropped);
	json_decref(dropped);
	if (json_object_size(kns))
		json_object_set(r, "kernel_ns", kns);
	json_decref(kns);
	/* a Helion file's configs side by side (helion.py's race): the
	 * autotuner's quick config 1.2x faster than the own, its full one 1.3x,
	 * koptmake's winners as the stitch measured them (where they passed) */
	json_t *hb = json_object_get(req, "helion_baselines"), *b;
	if (m->helion && json_array_size(hb)) {
		json_t *hr = json_pack("{s:f}", "own_ns", base);
		json_array_foreach(hb, i, b) {
			json_t *q = json_object_get(b, "quick");
			if (json_is_object(q)) /* faster only with the profile's own quick config */
				json_object_set_new(hr, "quick_ns", json_real(json_integer_value(json_array_get(
					json_object_get(q, "block_sizes"), 0)) == 128 ? base / 1.2 : base));
			if (json_is_object(json_object_get(b, "full")))
				json_object_set_new(hr, "full_ns", json_real(base / 1.3));
		}
		if (json_array_size(ws) && !bad)
			json_object_set_new(hr, "koptmake_ns", json_real(opt));
		json_object_set_new(r, "helion_race", hr);
	}
	free(code);
	return r;
}

/* race: the variants' baselines side by side, each at its variant's speed
 * (one time for all unless "# sim: eager" or "# sim: fast" says otherwise),
 * so the race confirms the stitches' times; each call's time in rounds
 * ("# sim: noisy race" for rounds that disagree) */
static json_t *race(const struct model *m, json_t *req)
{
	if (wants(m, "softfail", "race"))
		return json_pack("{s:i, s:n, s:s}", "calls", 0, "ns", "error", "simulated: out of memory compiling 3 variants");
	json_t *ns = json_array(), *rounds = json_array(), *vars = json_object_get(req, "variants");
	bool noisy = wants(m, "noisy", "race");
	for (size_t v = 0; v < json_array_size(vars); v++) {
		g_speed = variant_speed(m, json_array_get(vars, v));
		double t = model_ns(m);
		json_t *r = json_array();
		for (int i = 0; i < 20; i++) {
			double f = 1.0 + 0.002 * (i % 5 - 2); /* the round's drift, every variant's */
			if (noisy && v > 0)
				f *= i % 2 ? 1.13 : 1 / 1.13;
			json_array_append_new(r, json_real(t * f));
		}
		json_array_append_new(ns, json_real(t));
		json_array_append_new(rounds, r);
	}
	g_speed = 1.0;
	return json_pack("{s:i, s:o, s:o}", "calls", 20, "ns", ns, "rounds", rounds);
}

/*
 * screen: one kernel's launch configs searched alone (PROTOCOL.md
 * "screen"). Breadth first from its own config and each of "starts", over
 * the moves runtime/python/kopt/screen.py makes (a block or num_warps
 * doubled or halved, num_stages up or down with a reduction block, the
 * paired moves); a config's speedup alone is the one verify measures for
 * it as a candidate (speedup_of), and one config in eleven is off beyond
 * tolerance, as in verify; its own config runs at 1x. Each request's
 * times read a factor off (within 0.2%, from its parameters: measurements
 * drift), the same for every config, so their order stays. Each config costs half a second of simulated
 * time (nothing sleeps), so budget_s and max_configs both bound the search.
 */
#define SCREEN_BLOCKS 4
static const char *const screen_blocks[SCREEN_BLOCKS] = { "XBLOCK", "YBLOCK", "R0_BLOCK", "R1_BLOCK" };
static const struct { const char *a; double fa; const char *b; double fb; } screen_pairs[] = {
	{ "XBLOCK", 2, "R0_BLOCK", 0.5 }, { "XBLOCK", 0.5, "R0_BLOCK", 2 }, { "XBLOCK", 2, "YBLOCK", 0.5 },
	{ "XBLOCK", 0.5, "YBLOCK", 2 }, { "num_warps", 2, "R0_BLOCK", 2 }, { "num_warps", 0.5, "R0_BLOCK", 0.5 },
	{ "num_warps", 2, "XBLOCK", 2 }, { "num_warps", 0.5, "XBLOCK", 0.5 },
};

/* c with key scaled by f, or NULL (absent, not whole) */
static json_t *screen_scaled(const json_t *c, const char *key, double f)
{
	json_t *v = json_object_get(c, key);
	if (!c || !json_is_integer(v))
		return NULL;
	double x = (double)json_integer_value(v) * f;
	if (x != floor(x))
		return NULL;
	json_t *d = json_deep_copy(c);
	json_object_set_new(d, key, json_integer((json_int_t)x));
	return d;
}

static bool screen_valid(const json_t *c)
{
	long long elems = 1;
	for (int i = 0; i < SCREEN_BLOCKS; i++) {
		json_t *v = json_object_get(c, screen_blocks[i]);
		if (!v)
			continue;
		if (json_integer_value(v) < 1 || json_integer_value(v) > 4096)
			return false;
		elems *= json_integer_value(v);
	}
	json_t *w = json_object_get(c, "num_warps"), *st = json_object_get(c, "num_stages");
	return elems <= 65536 && (!w || (json_integer_value(w) >= 1 && json_integer_value(w) <= 32)) &&
	       (!st || (json_integer_value(st) >= 1 && json_integer_value(st) <= 5));
}

/* appends c (stolen) to queue unless invalid or seen */
static void screen_push(json_t *queue, json_t *seen, json_t *c)
{
	if (!c)
		return;
	char *k = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	if (screen_valid(c) && !json_object_get(seen, k)) {
		json_object_set_new(seen, k, json_true());
		json_array_append(queue, c);
	}
	free(k);
	json_decref(c);
}

static void screen_neighbours(json_t *queue, json_t *seen, const json_t *c)
{
	static const char *const single[] = { "XBLOCK", "YBLOCK", "R0_BLOCK", "R1_BLOCK", "num_warps" };
	for (size_t i = 0; i < sizeof single / sizeof *single; i++) {
		screen_push(queue, seen, screen_scaled(c, single[i], 2));
		screen_push(queue, seen, screen_scaled(c, single[i], 0.5));
	}
	if (json_object_get(c, "num_stages") && json_object_get(c, "R0_BLOCK"))
		for (int dv = 1; dv >= -1; dv -= 2) {
			json_t *d = json_deep_copy(c);
			json_object_set_new(d, "num_stages", json_integer(json_integer_value(json_object_get(c, "num_stages")) + dv));
			screen_push(queue, seen, d);
		}
	for (size_t i = 0; i < sizeof screen_pairs / sizeof *screen_pairs; i++) {
		json_t *d = screen_scaled(c, screen_pairs[i].a, screen_pairs[i].fa);
		json_t *e = d ? screen_scaled(d, screen_pairs[i].b, screen_pairs[i].fb) : NULL;
		json_decref(d);
		screen_push(queue, seen, e);
	}
}

static json_t *screen(const struct model *m, json_t *req)
{
	const char *kernel = json_string_value(json_object_get(req, "kernel"));
	int ki = kernel ? kernel_index(m, kernel) : -1;
	json_t *budget = json_object_get(req, "budget_s"), *maxc = json_object_get(req, "max_configs");
	json_t *keep = json_object_get(req, "keep"), *starts = json_object_get(req, "starts");
	if (ki < 0 || !json_is_number(budget) || !json_is_integer(maxc) || !json_is_integer(keep) ||
	    !json_is_integer(json_object_get(req, "reps")) || !json_is_array(starts) ||
	    !json_is_object(json_object_get(req, "gates")))
		return NULL;
	if (wants(m, "softfail", "screen")) /* as kopt-worker answers a screen it cannot run */
		return json_pack("{s:s, s:[], s:[], s:i, s:s}", "kernel", kernel, "tried", "best", "compiles", 0, "error",
				 "simulated: no launch config to start from");
	json_t *own = kconfig(m, ki), *queue = json_array(), *seen = json_object(), *tried = json_array();
	/* the rows of the workers lost before (rules/screen.c's "resume"): not measured again */
	json_t *resume = json_object_get(req, "resume"), *done = json_object();
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(resume, "tried"), i, c) {
		char *k = json_dumps(json_object_get(c, "config"), JSON_COMPACT | JSON_SORT_KEYS);
		if (k)
			json_object_set(done, k, c);
		free(k);
	}
	const char *lost = NULL;
	screen_push(queue, seen, json_deep_copy(own));
	json_array_foreach(starts, i, c)
		if (json_is_object(c))
			screen_push(queue, seen, json_deep_copy(c));
	/* measurements drift from run to run: every time alone of a request
	 * reads a factor off, the same for all (the configs keep their order) */
	/* the screen's own fields: the same screen reads the same wherever it runs */
	json_t *fields = json_pack("{s:O, s:O, s:O, s:O, s:O}", "budget_s", budget, "max_configs", maxc, "keep", keep,
				   "starts", starts, "reps", json_object_get(req, "reps"));
	char *params = json_dumps(fields, JSON_COMPACT | JSON_SORT_KEYS);
	double drift = 1 + ((double)(h64(params) % 1001) / 1000.0 - 0.5) * 0.004;
	free(params);
	json_decref(fields);
	double base = kernel_ns(m, ki), elapsed = json_number_value(json_object_get(resume, "elapsed_s"));
	bool spent = false;
	int prefetched = 0;
	char *knob = knob_edit(m);
	/* the skills' and the analyst's transforms first, each once */
	bool knob_tried = false;
	static const char *const firsts[] = { "skills", "transforms" }, *const origin[] = { "skill", "transform" };
	for (size_t f = 0; f < 2; f++)
		json_array_foreach(json_object_get(req, firsts[f]), i, c) {
			const char *e = json_string_value(json_object_get(c, "edit"));
			json_t *cfg = json_object_get(c, "config");
			if (!e || !*e)
				continue; /* a launch config start: the search's own */
			bool dup = false;
			for (size_t j = 0; j < json_array_size(tried); j++) {
				json_t *r = json_array_get(tried, j);
				dup |= strcmp(json_string_value(json_object_get(r, "edit")) ?: "", e) == 0;
			}
			if (dup)
				continue;
			double x = (knob && strcmp(knob, e) == 0 ? 1.6 : 0.95) * drift;
			knob_tried |= knob && strcmp(knob, e) == 0;
			elapsed += 0.5;
			const char *why = json_string_value(json_object_get(c, origin[f]));
			if (!why)
				why = json_string_value(json_object_get(c, "why"));
			json_array_append_new(tried, json_pack("{s:O, s:s, s:b, s:f, s:f, s:f, s:f, s:s}", "config",
							      json_is_object(cfg) ? cfg : own, "edit", e, "ok", 1, "ns",
							      base / x, "base_ns", base, "speedup", x, "q25", x * 0.99,
							      origin[f], why ? why : e));
		}
	if (knob && !knob_tried) { /* the kernel's own config with the knobs: 1.6x alone */
		elapsed += 0.5;
		json_array_append_new(tried, json_pack("{s:O, s:s, s:b, s:f, s:f, s:f, s:f}", "config", own, "edit", knob,
						      "ok", 1, "ns", base / (1.6 * drift), "base_ns", base, "speedup",
						      1.6 * drift, "q25", 1.6 * drift * 0.99));
	}
	for (i = 0; i < json_array_size(queue); i++) {
		if (json_array_size(tried) >= (size_t)json_integer_value(maxc) || elapsed >= json_number_value(budget)) {
			spent = true;
			break;
		}
		c = json_array_get(queue, i);
		char *ck = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
		json_t *again = json_object_get(done, ck);
		free(ck);
		if (again) { /* measured by a worker before; the search goes on from it but where it crashed */
			json_array_append(tried, again);
			const char *e = json_string_value(json_object_get(again, "error"));
			if (!e || strcmp(e, LOST) != 0)
				screen_neighbours(queue, seen, c);
			continue;
		}
		if (loses("screen", c)) {
			elapsed += 0.5;
			json_array_append_new(tried, json_pack("{s:O, s:b, s:s}", "config", c, "ok", 0, "error", LOST));
			lost = LOST;
			break;
		}
		json_t *cand = json_pack("{s:n, s:O}", "source", "config", c);
		uint64_t x;
		bool is_own = json_equal(c, own);
		double sp = is_own ? 1.0 : speedup_of(m, kernel, cand, &x);
		json_decref(cand);
		elapsed += 0.5;
		if (is_own)
			x = 1; /* its own config: its own outputs, its own time */
		json_t *row;
		if (x % 11 == 0)
			row = json_pack("{s:O, s:b, s:s}", "config", c, "ok", 0, "error",
					"outputs differ from the baseline kernel's");
		else
			row = json_pack("{s:O, s:b, s:f, s:f, s:f, s:f}", "config", c, "ok", 1, "ns", base / (sp * drift),
					"base_ns", base, "speedup", sp * drift, "q25", sp * drift * 0.99);
		/* every second point after the first compiled ahead by a compile
		 * child, and every third of those not in Triton's cache (the
		 * real worker's load says so through Triton's listener) */
		if (i % 2 == 1) {
			json_object_set_new(row, "prefetched", json_true());
			json_object_set_new(row, "load_parts", json_pack("{s:b}", "cache_hit", (i / 2) % 3 != 0));
			prefetched++;
		}
		json_array_append_new(tried, row);
		screen_neighbours(queue, seen, c);
	}
	/* the fastest correct configs but its own, fastest first (ties: tried
	 * first); a point with knobs goes with its edited source */
	json_t *best = json_array(), *picked = json_array();
	for (json_int_t k = 0; k < json_integer_value(keep); k++) {
		json_t *pick = NULL;
		json_array_foreach(tried, i, c) {
			double sp = json_number_value(json_object_get(c, "speedup"));
			bool taken = false;
			for (size_t j = 0; j < json_array_size(picked); j++)
				taken |= json_array_get(picked, j) == c;
			if (json_is_true(json_object_get(c, "ok")) && !taken &&
			    (!json_equal(json_object_get(c, "config"), own) || json_object_get(c, "edit")) &&
			    (!pick || sp > json_number_value(json_object_get(pick, "speedup"))))
				pick = c;
		}
		if (!pick)
			break;
		json_array_append(picked, pick);
		json_t *b = json_deep_copy(pick);
		if (json_object_get(b, "edit")) {
			char *src = ksource(m, ki), *edited;
			asprintf(&edited, "%s    # kopt knob: %s\n", src, json_string_value(json_object_get(b, "edit")));
			json_object_set_new(b, "source", json_string(edited));
			free(src);
			free(edited);
		}
		json_array_append_new(best, b);
	}
	json_decref(picked);
	free(knob);
	json_t *numel = is_red(m, ki) ? json_pack("{s:i, s:i}", "xnumel", 1024, "r0_numel", 16384)
				      : json_pack("{s:i}", "xnumel", 16777216);
	json_t *r = json_pack("{s:s, s:o, s:o, s:i, s:i, s:f, s:b, s:o, s:o}", "kernel", kernel, "own", own, "numel",
			      numel, "compiles", (int)json_array_size(tried), "prefetched", prefetched, "elapsed_s",
			      elapsed, "budget_spent", spent, "tried", tried, "best", best);
	if (lost)
		json_object_set_new(r, "lost", json_string(lost));
	json_decref(queue);
	json_decref(seen);
	json_decref(done);
	return r;
}

/* which worker process ran an op (KOPT_SIM_WHO) */
static void log_who(const char *op, const char *model, const char *variant)
{
	if (who_fd < 0)
		return;
	char *line;
	int n = asprintf(&line, "%s %s %s %ld\n", op, model ? model : "-", variant ? variant : "-", (long)getpid());
	if (n > 0) {
		ssize_t w = write(who_fd, line, (size_t)n); /* one write: lines of several workers do not mix */
		(void)w;
		free(line);
	}
}

static void log_op(const char *op, json_t *req)
{
	const char *model = json_string_value(json_object_get(json_object_get(req, "model"), "name"));
	const char *variant = json_string_value(json_object_get(json_object_get(req, "variant"), "name"));
	log_who(op, model, variant);
	if (log_fd < 0)
		return;
	const char *kernel = json_string_value(json_object_get(req, "kernel"));
	char *cand = json_dumps(json_object_get(json_object_get(req, "candidate"), "config"), JSON_COMPACT | JSON_SORT_KEYS);
	char *line;
	int n = asprintf(&line, "%s %s %s%s%s%s%s\n", op, model ? model : "-", variant ? variant : "-",
			 kernel ? " " : "", kernel ? kernel : "", cand ? " " : "", cand ? cand : "");
	free(cand);
	if (n > 0) {
		ssize_t w = write(log_fd, line, (size_t)n);
		(void)w;
	}
	free(line);
}

/* one line per request: op, GPU, start and end (monotonic ns) */
static void trace(const char *op, const struct timespec *t0)
{
	if (trace_fd < 0)
		return;
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const char *gpu = getenv("CUDA_VISIBLE_DEVICES");
	char *line;
	int n = asprintf(&line, "%s %s %lld %lld\n", op, gpu && *gpu ? gpu : "-",
			 (long long)t0->tv_sec * 1000000000LL + t0->tv_nsec,
			 (long long)t1.tv_sec * 1000000000LL + t1.tv_nsec);
	if (n > 0) {
		ssize_t w = write(trace_fd, line, (size_t)n);
		(void)w;
	}
	free(line);
}

/* where a request runs: its Slurm job step and GPU (KOPT_SIM_WHERE) */
static void where(const char *op, json_t *req)
{
	if (where_fd < 0)
		return;
	const char *model = json_string_value(json_object_get(json_object_get(req, "model"), "name"));
	const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
	const char *gpu = getenv("CUDA_VISIBLE_DEVICES"), *sgpu = getenv("SLURM_STEP_GPUS");
	char *line;
	int n = asprintf(&line, "%s %s %s%s%s %s %s\n", op, model ? model : "-", job ? job : "-", job ? "." : "",
			 job ? (step ? step : "?") : "", gpu && *gpu ? gpu : "-", sgpu && *sgpu ? sgpu : "-");
	if (n > 0) {
		ssize_t w = write(where_fd, line, (size_t)n);
		(void)w;
	}
	free(line);
}

/* the stamp of a measuring reply: "# sim: measured T", $KOPT_SIM_MEASURED, or 2000-01-01 */
static json_int_t measured_at(const struct model *m)
{
	const char *p = strstr(m->text, "# sim: measured ");
	if (p)
		return (json_int_t)atoll(p + strlen("# sim: measured "));
	const char *e = getenv("KOPT_SIM_MEASURED");
	return e && *e ? (json_int_t)atoll(e) : 946684800;
}

/* KOPT_SIM_LINGER_MS: the pipes closed, the process still there a moment */
static long linger_ms;
static void end_lingering(int sig)
{
	(void)sig;
	close(1);
	close(2);
	struct timespec ts = { linger_ms / 1000, (linger_ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	_exit(5);
}

int main(void)
{
	const char *torch = getenv("KOPT_SIM_TORCH");
	const char *delay = getenv("KOPT_SIM_DELAY_MS");
	long delay_ms = delay ? atol(delay) : 0;
	if (getenv("KOPT_SIM_LOG"))
		log_fd = open(getenv("KOPT_SIM_LOG"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (getenv("KOPT_SIM_TRACE"))
		trace_fd = open(getenv("KOPT_SIM_TRACE"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (getenv("KOPT_SIM_WHERE"))
		where_fd = open(getenv("KOPT_SIM_WHERE"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (getenv("KOPT_SIM_WHO"))
		who_fd = open(getenv("KOPT_SIM_WHO"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (getenv("KOPT_SIM_ENV_LOG")) {
		FILE *f = fopen(getenv("KOPT_SIM_ENV_LOG"), "a");
		if (f) {
			fprintf(f, "pid %ld\n", (long)getpid());
			for (char **e = environ; *e; e++)
				fprintf(f, "%s\n", *e);
			fprintf(f, "\n");
			fclose(f);
		}
	}
	struct sandbox_state sb;
	if (sandbox_enter(&sb) < 0) {
		fprintf(stderr, "sim-worker: cannot start its sandbox: %s\n", sb.note);
		return 2;
	}
	if (sb.note[0])
		fprintf(stderr, "sim-worker: warning: %s\n", sb.note);
	const char *start = getenv("KOPT_SIM_START_MS");
	if (start && atol(start) > 0) {
		struct timespec ts = { atol(start) / 1000, (atol(start) % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	const char *die = getenv("KOPT_SIM_DIE");
	if (die && strcmp(die, "hello") == 0) {
		fprintf(stderr, "sim-worker: no CUDA device (KOPT_SIM_DIE=hello)\n");
		return 3;
	}
	json_t *witness = json_array();
	for (const char *w = getenv("KOPT_SIM_WITNESS"); w && *w;) {
		size_t len = strcspn(w, ":");
		if (len)
			json_array_append_new(witness, json_stringn(w, len));
		w += len + (w[len] == ':');
	}
	const char *gcode = getenv("KOPT_SIM_GRAPH_CODE");
	out(json_pack("{s:s, s:o, s:i, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}, s:{s:b, s:b, s:i, s:s, s:s}}",
		      "hello", "kopt-sim-worker", "witness", witness, "protocol", 1, "env", "gpu",
		      getenv("KOPT_SIM_GPU") ? getenv("KOPT_SIM_GPU") : "NVIDIA H200 (simulated)", "cc", "0.0", "driver",
		      "sim", "cuda", "sim", "torch", torch ? torch : "2.11.0+sim", "triton", "3.6.0+sim", "python",
		      "sim", "graph_code", gcode ? gcode : "sim", "sandbox", "fs", sb.fs, "net", sb.net, "landlock_abi", sb.landlock_abi, "scratch",
		      sb.scratch, "how", sandbox_describe(&sb)));
	if (die && atol(die) > 0) {
		struct itimerval it = { { 0, 0 }, { atol(die) / 1000, (atol(die) % 1000) * 1000L } };
		const char *linger = getenv("KOPT_SIM_LINGER_MS");
		linger_ms = linger ? atol(linger) : 0;
		signal(SIGALRM, linger_ms > 0 ? end_lingering : SIG_DFL);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_t *req = json_loadb(line, (size_t)n, 0, NULL);
		json_t *id = json_object_get(req, "id");
		const char *op = json_string_value(json_object_get(req, "op"));
		if (!req || !json_is_integer(id) || !op) {
			fprintf(stderr, "sim-worker: a request that is not one\n");
			json_decref(req);
			continue;
		}
		json_int_t rid = json_integer_value(id);
		fprintf(stderr, "sim-worker: %s %s\n", op,
			json_string_value(json_object_get(json_object_get(req, "model"), "name")) ?
			json_string_value(json_object_get(json_object_get(req, "model"), "name")) : "");
		where(op, req);
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (delay_ms > 0) {
			struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		trace(op, &t0);
		if (strcmp(op, "ping") == 0 || strcmp(op, "bandwidth") == 0) {
			out(json_pack("{s:I, s:b, s:o}", "id", rid, "ok", 1, "result",
				      strcmp(op, "ping") == 0 ? json_object() : json_pack("{s:f}", "copy_gbps", 4300.0)));
			json_decref(req);
			continue;
		}
		struct model m;
		if (load_model(req, &m) < 0) {
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error", "cannot read the model file",
				      "detail", "", "fatal", 0));
			json_decref(req);
			continue;
		}
		char slow[64];
		snprintf(slow, sizeof slow, "# sim: slow %s ", op);
		const char *sp = strstr(m.text, slow);
		if (sp) {
			long ms = atol(sp + strlen(slow));
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		if (wants(&m, "crash", op)) {
			fprintf(stderr, "sim-worker: simulated crash during %s\n", op);
			fflush(stderr);
			abort();
		}
		if (wants(&m, "hang", op)) {
			fprintf(stderr, "sim-worker: simulated hang during %s\n", op);
			for (;;)
				pause();
		}
		if (wants(&m, "garbage", op)) {
			/* "# sim: garbage OP TEXT": that line; else a fixed one */
			char pat[64];
			snprintf(pat, sizeof pat, "# sim: garbage %s ", op);
			const char *t = strstr(m.text, pat);
			if (t) {
				t += strlen(pat);
				printf("%.*s\n", (int)strcspn(t, "\n"), t);
			} else {
				printf("Traceback (most recent call last): this is not json {{{\n");
			}
			fflush(stdout);
			json_decref(req);
			continue;
		}
		if (wants(&m, "fatal", op)) {
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error",
				      "CUDA error: an illegal memory access was encountered (simulated)", "detail",
				      "RuntimeError: CUDA error: an illegal memory access", "fatal", 1));
			json_decref(req);
			continue;
		}
		char rej[300];
		snprintf(rej, sizeof rej, "# sim: reject %s\n", m.shape);
		if (m.shaped && strstr(m.text, rej)) {
			char *e;
			asprintf(&e, "RuntimeError: the model cannot take the shape %s (simulated)", m.shape);
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error", e, "detail",
				      "Traceback: simulated", "fatal", 0));
			free(e);
			json_decref(req);
			continue;
		}
		if (wants(&m, "error", op)) {
			char *e;
			if (getenv("KOPT_SIM_ERROR_TEXT"))
				e = strdup(getenv("KOPT_SIM_ERROR_TEXT"));
			else
				asprintf(&e, "simulated failure in %s", op);
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error", e, "detail",
				      "Traceback: simulated", "fatal", 0));
			free(e);
			json_decref(req);
			continue;
		}
		const char *vn = json_string_value(json_object_get(json_object_get(req, "variant"), "name"));
		if (vn && wants(&m, "nocompile", vn) && (strcmp(op, "capture") == 0 || strcmp(op, "profile") == 0)) {
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error",
				      "simulated: the compile of this variant failed", "detail", "Traceback: simulated",
				      "fatal", 0));
			json_decref(req);
			continue;
		}
		json_t *res = NULL;
		g_speed = variant_speed(&m, json_object_get(req, "variant"));
		g_variant = json_string_value(json_object_get(json_object_get(req, "variant"), "name"));
		g_steady = strstr(m.text, "# sim: steady\n") != NULL;
		if (strcmp(op, "capture") == 0)
			res = capture(&m, req);
		else if (strcmp(op, "profile") == 0) {
			res = profile(&m);
			if (m.helion)
				json_object_set_new(res, "helion", helion_baselines(&m, json_is_true(json_object_get(req, "helion_full"))));
		}
		if (res && strcmp(op, "profile") == 0 && json_is_object(json_object_get(req, "gates")))
			json_object_set_new(res, "check", baseline_check(&m, req));
		else if (strcmp(op, "verify") == 0) {
			res = verify(&m, req);
			/* where a verify's time went, as kopt-worker says it: the
			 * model compiled by a process's first verify, kept after */
			static int verifies;
			if (res)
				json_object_set_new(res, "phases",
						    json_pack("{s:f, s:b, s:f, s:f, s:f}", "model_s", verifies ? 0.0 : 2.5,
							      "compiled", verifies == 0, "static_s", 0.125, "build_s",
							      0.25, "gates_s", 1.5));
			verifies++;
		}
		else if (strcmp(op, "stitch") == 0)
			res = stitch(&m, req);
		else if (strcmp(op, "race") == 0)
			res = race(&m, req);
		else if (strcmp(op, "screen") == 0)
			res = screen(&m, req);
		log_op(op, req);
		if (res && (strcmp(op, "profile") == 0 || strcmp(op, "stitch") == 0 || strcmp(op, "race") == 0))
			json_object_set_new(res, "measured_at", json_integer(measured_at(&m)));
		if (res && json_object_get(res, "lost")) /* the answer stands; the worker is replaced */
			out(json_pack("{s:I, s:b, s:o, s:b}", "id", rid, "ok", 1, "result", res, "fatal", 1));
		else if (res)
			out(json_pack("{s:I, s:b, s:o}", "id", rid, "ok", 1, "result", res));
		else
			out(json_pack("{s:I, s:b, s:s, s:s, s:b}", "id", rid, "ok", 0, "error", "bad request",
				      "detail", "", "fatal", 0));
		json_decref(req);
	}
	free(line);
	return 0;
}
