/*
 * tests/llm/prompt_golden_test.c: the LLM coder's prompts for kernels
 * recorded on the GPU machine (tests/fixtures/gpu/: the worker's hello,
 * captures and profiles), against golden files in tests/llm/golden/:
 *   - small_softmax's looped reduction, with the long-term memory's
 *     lessons of another spec for its class: the first round;
 *   - the same kernel at its fifth candidate: the best so far with its
 *     speedup and times, the attempts, the notes of the last round;
 *   - small_triton's standalone kernel (no launch config, no grid);
 *   - small_convnet's layer norm, which has no recorded profile;
 *   - the softmax's prompt within a budget of 2500 tokens: the sections
 *     that go first are gone, the ones that never go are there.
 * The device line comes from the recorded hello, the copy bandwidth from
 * the recorded profile. The recorded profiles predate the rows' `aten`,
 * so the test takes each kernel's ATen ops from the "Original ATen"
 * comment of the recorded output code, as the worker now does
 * (runtime/python/kopt/kernels.py, aten_ops).
 * KOPT_GOLDEN_UPDATE=1 rewrites the golden files (read them before
 * committing).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/llm.h"
#include "../../agents/features.h"
#include "../../agents/memory.h"
#include "../tap.h"

static const char *srcdir;
/* the built-in roles the LLM coder's prompt reads, as the dispatcher hands them */
static const struct llm_builtin builtin = { agent_builtin_analyze, agent_builtin_plan, agent_builtin_propose,
					    agent_builtin_descent };
static char tmpdir[] = "/tmp/kopt-prompt-golden-XXXXXX";

static json_t *fixture(const char *name)
{
	char *path = xasprintf("%s/tests/fixtures/gpu/%s", srcdir, name);
	json_t *j = json_load_file(path, 0, NULL);
	if (!j)
		kopt_die("%s: cannot read", path);
	free(path);
	return j;
}

static json_t *result(json_t *fx)
{
	return json_object_get(json_object_get(fx, "reply"), "result");
}

static json_t *named(json_t *arr, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
			return e;
	return NULL;
}

/* the ATen ops of the "Original ATen: [...]" line above NAME's declaration in code */
static json_t *aten_of(const char *code, const char *name)
{
	char *decl = xasprintf("\n%s = async_compile.triton(", name);
	const char *d = strstr(code, decl);
	free(decl);
	json_t *ops = json_array();
	if (!d)
		return ops;
	const char *p = d;
	while (p > code) {
		const char *ls = p - 1;
		while (ls > code && ls[-1] != '\n')
			ls--;
		if (*ls != '#')
			break;
		const char *a = strstr(ls, "Original ATen: [");
		if (a && a < p) {
			a += strlen("Original ATen: [");
			const char *e = strchr(a, ']');
			while (a < e) {
				size_t n = strcspn(a, ",]");
				char *op = xasprintf("%.*s", (int)n, a);
				json_array_append_new(ops, json_string(op));
				free(op);
				a += n;
				while (*a == ',' || *a == ' ')
					a++;
			}
			break;
		}
		p = ls - 1;
	}
	return ops;
}

struct world {
	json_t *hello, *cap, *prof;
	json_t *row, *args;
	double peak;
	struct agent_kernel k;
};

/* kernel name of the recorded capture capname (and profile profname, or NULL) */
static void world_load(struct world *w, const char *capname, const char *profname, const char *name)
{
	memset(w, 0, sizeof *w);
	w->hello = fixture("hello.json");
	w->cap = fixture(capname);
	w->prof = profname ? fixture(profname) : NULL;
	json_t *cr = result(w->cap), *ke = named(json_object_get(cr, "kernels"), name);
	if (!ke)
		kopt_die("%s: no kernel %s", capname, name);
	if (w->prof) {
		json_t *pr = result(w->prof);
		w->row = json_deep_copy(named(json_object_get(pr, "kernels"), name));
		json_object_set(w->row, "heuristic", json_object_get(ke, "heuristic"));
		json_t *ops = aten_of(json_string_value(json_object_get(cr, "output_code")), name);
		if (json_array_size(ops))
			json_object_set(w->row, "aten", ops);
		json_decref(ops);
		w->peak = json_number_value(json_object_get(pr, "peak_copy_gbps"));
	}
	w->k.model = "recorded";
	w->k.name = json_string_value(json_object_get(ke, "name"));
	w->k.heuristic = json_string_value(json_object_get(ke, "heuristic"));
	w->k.source = json_string_value(json_object_get(ke, "source"));
	w->k.config = json_is_object(json_object_get(ke, "config")) ? json_object_get(ke, "config") : NULL;
	w->k.profile_row = w->row;
	w->k.args = json_object_get(ke, "args");
	w->k.env = json_object_get(w->hello, "env");
	w->k.peak_copy_gbps = w->peak;
}

static void world_free(struct world *w)
{
	json_decref(w->hello);
	json_decref(w->cap);
	json_decref(w->prof);
	json_decref(w->row);
}

/* the coder's agents: an OpenAI-compatible model, the default prompt budget */
static struct kopt_agents agents_cfg(long prompt_tokens)
{
	struct kopt_agents a = lang_agents_default;
	struct kopt_llm l = KOPT_LLM_INIT;
	l.provider = (char *)"openai";
	l.model = (char *)"m";
	l.prompt_tokens = prompt_tokens;
	a.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	a.roles[KOPT_ROLE_CODER].llm = l;
	return a;
}

/* compares text with tests/llm/golden/name (or writes it) */
static void golden(const char *name, const char *text, const char *what)
{
	char *path = xasprintf("%s/tests/llm/golden/%s", srcdir, name);
	const char *up = getenv("KOPT_GOLDEN_UPDATE");
	if (up && strcmp(up, "1") == 0) {
		FILE *f = fopen(path, "w");
		if (!f || fputs(text, f) < 0 || fclose(f) != 0)
			kopt_die("%s: %s", path, strerror(errno));
	}
	struct strbuf want = STRBUF_INIT;
	int rd = strbuf_read_file(&want, path);
	bool same = rd == 0 && strcmp(want.len ? want.buf : "", text) == 0;
	if (!TAP_OK(same, "%s (tests/llm/golden/%s)", what, name)) {
		char *got = xasprintf("%s/%s", tmpdir, name);
		FILE *f = fopen(got, "w");
		if (f) {
			fputs(text, f);
			fclose(f);
		}
		tap_diag("differs: diff -u %s %s", path, got);
		free(got);
	}
	strbuf_release(&want);
	free(path);
}

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* the prompt for req, with the system prompt first as the API gets it */
static char *prompt_of(const struct agent_request *req, size_t *stable)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "[system]\n%s\n\n[user]\n", llm_prompt_system());
	size_t at = sb.len;
	*stable = agent_llm_prompt(req, &builtin, &sb);
	*stable += at;
	return strbuf_detach(&sb);
}

#define SOFTMAX "triton_red_fused__softmax_add_exp_mul_prepare_softmax_online_sub_0"

static void t_softmax(const char *memory)
{
	struct world w;
	world_load(&w, "capture-small_softmax.json", "profile-small_softmax.json", SOFTMAX);
	struct kopt_agents a = agents_cfg(12000);
	struct agent_request rq = { .kernel = &w.k, .cfg = &a, .index = 0, .traj = NULL, .ntraj = 0, .memory = memory, .scope = "/specs/this.kopt" };
	size_t stable;
	char *p = prompt_of(&rq, &stable);
	golden("small_softmax-c0.md", p, "small_softmax's kernel, the first round");
	TAP_OK(has(p, "- device: NVIDIA H200 (compute capability 9.0, 132 SMs, 139.8 GiB)\n") &&
	       has(p, "copy bandwidth 4159 GB/s (measured), FP32 67.0 TFLOP/s (datasheet)"),
	       "the device line: the recorded GPU, its measured copy bandwidth and its FP32 peak");
	TAP_OK(has(p, "- launch config: {\"XBLOCK\": 1, \"R0_BLOCK\": 4096, \"num_warps\": 16, \"num_stages\": 1}") &&
	       has(p, "- grid: (4096, 1, 1) programs") &&
	       has(p, "in_ptr0 float32[4096, 4096] (67.11 MB), out_ptr2 float32[4096, 4096] (67.11 MB)"),
	       "the launch config, the grid and the arguments' shapes and dtypes");
	TAP_OK(has(p, "aten.mul, aten.add, prims.prepare_softmax_online, aten.sub, aten.exp, aten._softmax") &&
	       has(p, "- bound: memory") && has(p, "at 69% of the copy bandwidth"),
	       "the ATen ops, the bound and how far from it");
	TAP_OK(has(p, "launch config XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1: passed 3 of 4 tries, mean 1.190x") &&
	       !has(p, "this.kopt"), "memory's lessons as numbers, other specs' only");
	TAP_OK(!has(p, "## Best so far") && !has(p, "## Attempts so far") && !has(p, "failed"),
	       "the first round: no best, no attempts");
	TAP_OK(stable > 12 && has(p + stable, "## Strategy to apply") && !has(p + stable, "## Device") &&
	       strncmp(p + stable - 12, "outside it.\n", 12) == 0, "the stable context ends after the rules; the round follows");
	free(p);

	/* the fifth candidate: c0 passed (an LLM rewrite), c1 (descent on it)
	 * passed slower, c2 failed correctness, c3 its repair failed perf */
	struct agent_candidate c0 = { .source = "@triton.jit\ndef " SOFTMAX "(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):\n    pass  # the first rewrite\n",
				      .role = "coder", .name = "llm", .strategy = "llm rewrite (round 1, reply 1 of 2)" };
	json_t *j0 = agent_candidate_new(&c0);
	json_object_set_new(j0, "round", json_integer(0));
	json_object_set_new(j0, "sample", json_integer(0));
	json_object_set_new(j0, "beam", json_array());
	json_t *cfg1 = json_pack("{s:i, s:i, s:i, s:i}", "XBLOCK", 1, "R0_BLOCK", 4096, "num_warps", 8, "num_stages", 1);
	struct agent_candidate c1 = { .source = c0.source, .config = cfg1, .role = "tuner", .name = "descent",
				      .strategy = "tuner: descent warps-down from the best so far (XBLOCK=1 R0_BLOCK=4096 num_warps=8 num_stages=1)" };
	json_t *j1 = agent_candidate_new(&c1);
	struct agent_candidate c2 = { .source = "@triton.jit\ndef " SOFTMAX "(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):\n    pass  # the second rewrite\n",
				      .role = "coder", .name = "llm", .strategy = "llm rewrite (round 2, reply 1 of 1)" };
	json_t *j2 = agent_candidate_new(&c2);
	json_object_set_new(j2, "round", json_integer(1));
	json_object_set_new(j2, "sample", json_integer(0));
	json_object_set_new(j2, "beam", json_array());
	json_object_set_new(j2, "notes", json_pack("{s:s, s:s}", "avoid", "reading the row twice from global memory",
						   "prioritize", "a single pass that keeps the row in registers"));
	struct agent_candidate c3 = { .source = "@triton.jit\ndef " SOFTMAX "(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):\n    pass  # the repair\n",
				      .role = "debugger", .name = "llm", .strategy = "llm repair of c2" };
	json_t *j3 = agent_candidate_new(&c3);
	json_object_set_new(j3, "round", json_integer(1));
	json_object_set_new(j3, "repair_of", json_integer(2));
	/* candidate 0 keeps the context its round rendered */
	struct strbuf ctx = STRBUF_INIT;
	size_t n0 = agent_llm_prompt(&rq, &builtin, &ctx);
	json_object_set_new(j0, "context", json_stringn(ctx.buf, n0));
	json_object_set_new(j0, "analysis", json_string("analyst: memory-bound at 69% of the copy bandwidth, 46.7 us per call: launch config and block shape first"));
	json_object_set_new(j0, "plan", json_pack("[s, s, s]", "persistent", "r-down", "warps-down"));
	struct agent_try traj[4] = {
		{ 0, j0, "pass", NULL, "kernel: 1.120x", 1.12, 46510, 41527 },
		{ 1, j1, "pass", NULL, "kernel: 1.090x", 1.09, 46480, 42642 },
		{ 2, j2, "fail", "correctness", "correctness: max abs error 3.1e-02 > atol 1e-04 + rtol 1e-04 * |ref| at seed 2 (output 0)", 0, 0, 0 },
		{ 3, j3, "fail", "perf", "perf: kernel speedup 1.012x < gamma 1.030", 1.012, 46500, 45949 },
	};
	struct agent_request r4 = { .kernel = &w.k, .cfg = &a, .index = 4, .traj = traj, .ntraj = 4, .memory = memory, .scope = "/specs/this.kopt" };
	p = prompt_of(&r4, &stable);
	golden("small_softmax-c4.md", p, "small_softmax's kernel at its fifth candidate");
	TAP_OK(has(p, "## Best so far\n\nc0, llm rewrite (round 1, reply 1 of 2), passed every gate at 1.120x the original kernel's speed (41.53 us per call against 46.51 us), with Inductor's launch config. Its source:") &&
	       has(p, "pass  # the first rewrite"), "the best so far: its speedup, times and source");
	TAP_OK(has(p, "- c3, llm repair of c2: fail at perf, 1.012x, 45.95 us: perf: kernel speedup 1.012x < gamma 1.030") &&
	       has(p, "- c2, llm rewrite (round 2, reply 1 of 1): fail at correctness: correctness: max abs error 3.1e-02") &&
	       strstr(p, "- c3,") < strstr(p, "- c0,"), "the attempts, newest first, with times and gate reasons");
	TAP_OK(has(p, "## Your notes from the last round\n\nAvoid: reading the row twice from global memory\nPrioritize: a single pass"),
	       "the notes carried from the last round");
	TAP_OK(strncmp(p + strlen("[system]\n") + strlen(llm_prompt_system()) + strlen("\n\n[user]\n"), ctx.buf, n0) == 0,
	       "the later round sends candidate 0's context, byte for byte");
	free(p);

	/* within a small budget: the lessons and the older attempts go first */
	struct kopt_agents small = agents_cfg(2500);
	struct agent_request r5 = { .kernel = &w.k, .cfg = &small, .index = 0, .traj = NULL, .ntraj = 0, .memory = memory, .scope = "/specs/this.kopt" };
	p = prompt_of(&r5, &stable);
	TAP_OK(!has(p, "## Lessons") && has(p, "## Device") && has(p, "## Profile") && has(p, "## Rules") &&
	       has(p, "def " SOFTMAX "(") && has(p, "## Task"),
	       "a prompt over its budget leaves the lessons out, never the device, profile, source, rules or task");
	free(p);
	strbuf_release(&ctx);
	json_decref(j0);
	json_decref(j1);
	json_decref(j2);
	json_decref(j3);
	json_decref(cfg1);
	world_free(&w);
}

static void t_others(void)
{
	struct world w;
	world_load(&w, "capture-small_triton.json", "profile-small_triton.json", "scale_bias_kernel");
	struct kopt_agents a = agents_cfg(12000);
	struct agent_request rq = { .kernel = &w.k, .cfg = &a, .index = 0, .traj = NULL, .ntraj = 0, .memory = NULL, .scope = NULL };
	size_t stable;
	char *p = prompt_of(&rq, &stable);
	golden("small_triton-c0.md", p, "small_triton's standalone kernel");
	TAP_OK(has(p, "A standalone Triton kernel") && !has(p, "- grid:") && !has(p, "- launch config:") &&
	       has(p, "x_ptr float32[8192, 8192] (268.44 MB), b_ptr float32[8192] (32.77 KB), y_ptr float32[8192, 8192]"),
	       "a standalone kernel: no launch config or grid, its pointers' shapes");
	free(p);
	/* parameters that hold "pt" but not "ptr" (depth, opt) are no
	 * pointers: the three pointers still meet the three arguments */
	const char *src0 = w.k.source;
	char *renamed = NULL;
	const char *at = strstr(src0, "n_cols, scale,");
	if (at)
		renamed = xasprintf("%.*sdepth, opt,%s", (int)(at - src0), src0, at + strlen("n_cols, scale,"));
	w.k.source = renamed;
	p = renamed ? prompt_of(&rq, &stable) : NULL;
	TAP_OK(p && has(p, "x_ptr float32[8192, 8192] (268.44 MB), b_ptr float32[8192] (32.77 KB), y_ptr float32[8192, 8192]"),
	       "... its parameters depth and opt (\"pt\" but not \"ptr\") are no pointers: the three pointers named");
	free(p);
	w.k.source = src0;
	free(renamed);
	/* a def line of N pointer parameters against N arguments: named up to
	 * the 64 the facts hold, listed without names past them */
	for (int n = 64; n <= 70; n += 6) {
		struct strbuf src = STRBUF_INIT;
		json_t *args = json_array();
		strbuf_addstr(&src, "@triton.jit\ndef scale_bias_kernel(");
		for (int i = 0; i < n; i++) {
			strbuf_addf(&src, "%sp%d_ptr", i ? ", " : "", i);
			json_array_append_new(args, json_pack("{s:s, s:[i], s:i}", "dtype", "float16", "shape", i + 1, "bytes", 2 * (i + 1)));
		}
		strbuf_addstr(&src, ", n):\n    pass\n");
		const json_t *args0 = w.k.args;
		w.k.source = src.buf;
		w.k.args = args;
		p = prompt_of(&rq, &stable);
		bool named = n <= 64;
		char *first = xasprintf("%sfloat16[1] (2 B), %sfloat16[2] (4 B)", named ? "p0_ptr " : "", named ? "p1_ptr " : "");
		char *last = named ? xasprintf(", p%d_ptr float16[%d] (%d B)", n - 1, n, 2 * n)
				   : xasprintf(", float16[%d] (%d B)", n, 2 * n);
		TAP_OK(p && has(p, first) && has(p, last) && has(p, "p63_ptr float16[64]") == named,
		       "a kernel of %d pointers against %d arguments: %s", n, n,
		       named ? "each named" : "listed without names, past the 64 names the facts hold");
		free(first);
		free(last);
		free(p);
		w.k.source = src0;
		w.k.args = args0;
		json_decref(args);
		strbuf_release(&src);
	}
	world_free(&w);

	world_load(&w, "capture-small_convnet.json", NULL, "triton_per_fused_gelu_native_layer_norm_3");
	rq.kernel = &w.k;
	p = prompt_of(&rq, &stable);
	golden("small_convnet-layer_norm-c0.md", p, "small_convnet's layer norm, without a profile");
	TAP_OK(has(p, "- device: NVIDIA H200") && !has(p, "- time per call") && !has(p, "copy bandwidth") &&
	       has(p, "- grid: (256, 1, 1) programs") && has(p, "- FLOPs per launch: about 4.5 MFLOP (17 per element"),
	       "without a profile: the device, the launch and the FLOPs the source gives, no times");
	free(p);
	world_free(&w);
}

/* a memory file where another spec learned about the softmax's class */
static char *memory_file(void)
{
	struct world w;
	world_load(&w, "capture-small_softmax.json", "profile-small_softmax.json", SOFTMAX);
	char *features = agent_features(&w.k);
	char *path = xasprintf("%s/memory.jsonl", tmpdir);
	static const struct {
		const char *s, *shape;
		int pass;
		double x;
	} l[] = {
		{ "r-down4", "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", 1, 1.21 },
		{ "r-down4", "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", 1, 1.18 },
		{ "warps-up", "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", 1, 1.181 },
		{ "r-down", "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1", 0, 0.97 },
		{ "persistent", NULL, 1, 1.02 },
		{ "llm", NULL, 0, 0 },
		{ "llm", NULL, 1, 1.3 },
	};
	for (size_t i = 0; i < sizeof l / sizeof *l; i++) {
		char key[32];
		snprintf(key, sizeof key, "k%zu", i);
		memory_append(path, "/specs/other.kopt", features, l[i].s, l[i].shape, key, l[i].pass, l[i].x);
	}
	/* this spec's own lesson is not shown */
	memory_append(path, "/specs/this.kopt", features, "x-up", NULL, "own", 1, 9.0);
	free(features);
	world_free(&w);
	return path;
}

int main(void)
{
	srcdir = getenv("top_srcdir");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	if (!mkdtemp(tmpdir))
		kopt_die("mkdtemp: %s", strerror(errno));
	char *memory = memory_file();
	t_softmax(memory);
	t_others();
	unlink(memory);
	free(memory);
	return tap_done();
}
