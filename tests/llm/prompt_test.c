/* tests/llm/prompt_test.c: the kernel prompt and the kernel taken from a reply, a
 * gate's reason as the prompt quotes it, who made a candidate, the search so far,
 * a reply's launch config, the budget's limits, the conversation as JSON and an
 * error body's message (no network) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agents/llm.h"
#include "../../agents/llm/facts.h"
#include "../../agents/llm/run.h"
#include "../../agents/llm/trajectory.h"
#include "../../agents/llm/wire.h"
#include "../tap.h"

#define K "triton_poi_fused_add_0"

static const char src[] =
	"import triton\n"
	"import triton.language as tl\n"
	"\n"
	"@triton.jit\n"
	"def " K "(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
	"    xoffset = tl.program_id(0) * XBLOCK\n"
	"    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
	"    xmask = xindex < xnumel\n"
	"    tmp0 = tl.load(in_ptr0 + (xindex), xmask)\n"
	"    tl.store(out_ptr0 + (xindex), tmp0 + 1.0, xmask)\n";

static int has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* extraction of reply into out; returns rc, err kept in *e */
static int ex(const char *reply, struct strbuf *out, struct strbuf *e)
{
	strbuf_reset(out);
	strbuf_reset(e);
	return llm_extract_kernel(reply, K, out, e);
}

static void t_prompt(void)
{
	struct llm_kernel_prompt p = {
		.kernel_name = K, .source = src,
		.time_us = 12.5, .calls = 4, .share = 0.234, .bytes = 2.1e6, .achieved_gbs = 1710,
		.peak_gbs = 4250, .device = "NVIDIA H200",
		.diagnosis = "memory-bound: 2.10 MB per call at 40% of the copy bandwidth",
		.strategy = "raise XBLOCK to 1024 and num_warps to 8",
		.candidate = NULL,
	};
	struct strbuf sb = STRBUF_INIT;
	size_t ctx = llm_prompt_kernel(&p, &sb);
	TAP_OK(has(sb.buf, "# Speed up the Triton kernel `" K "`"), "prompt: names the kernel");
	/* what it returns is the context's length, wherever the buffer started */
	struct strbuf after = STRBUF_INIT, alone = STRBUF_INIT;
	strbuf_addstr(&after, "an earlier message\n");
	size_t ctx2 = llm_prompt_kernel(&p, &after);
	llm_prompt_context(&p, &alone);
	TAP_OK(ctx == alone.len && ctx2 == alone.len && !strcmp(after.buf + strlen("an earlier message\n"), sb.buf),
	       "prompt: the context's length returned (%zu), also after text already in the buffer (%zu)", ctx, ctx2);
	strbuf_release(&after);
	strbuf_release(&alone);
	TAP_OK(has(sb.buf, "```python\n" "import triton\n") && has(sb.buf, src), "prompt: carries the full source, fenced");
	TAP_OK(has(sb.buf, "- device: NVIDIA H200") && has(sb.buf, "- time per call: 12.50 us, 4 calls per model run") &&
	       has(sb.buf, "- share of the model's GPU time: 23.4%") && has(sb.buf, "- bytes moved per call: 2.10 MB") &&
	       has(sb.buf, "- achieved bandwidth: 1710 GB/s of a measured peak of 4250 GB/s (40%)"),
	       "prompt: carries the profile row");
	TAP_OK(has(sb.buf, "## Diagnosis (analyst)\n\nmemory-bound: 2.10 MB") &&
	       has(sb.buf, "## Strategy to apply (planner)\n\nraise XBLOCK"), "prompt: carries diagnosis and strategy");
	TAP_OK(has(sb.buf, "Keep the kernel's name `" K "`") && has(sb.buf, "No `try`/`except`") &&
	       has(sb.buf, "no file, network or process I/O") && has(sb.buf, "exactly one fenced ```python block") &&
	       has(sb.buf, "`triton_helpers`"), "prompt: states the rules and the output contract");
	TAP_OK(!has(sb.buf, "failed"), "prompt: no repair section without a candidate");
	TAP_OK(strlen(llm_prompt_system()) > 100 && has(llm_prompt_system(), "Triton"), "system prompt");

	/* repair, with unknown profile fields left out */
	struct llm_kernel_prompt r = {
		.kernel_name = K, .source = src,
		.time_us = -1, .calls = -1, .share = -1, .bytes = -1, .achieved_gbs = -1, .peak_gbs = -1,
		.candidate = "def " K "(x):\n    pass\n",
		.gate = "correctness",
		.gate_reason = "max abs error 3.1e-02 > atol 1e-04 (seed 2)",
	};
	strbuf_reset(&sb);
	llm_prompt_kernel(&r, &sb);
	TAP_OK(has(sb.buf, "# Repair") && has(sb.buf, "It failed the `correctness` gate: max abs error 3.1e-02 > atol 1e-04 (seed 2)") &&
	       has(sb.buf, "```python\ndef " K "(x):\n    pass\n```"), "repair prompt: gate, numbers and the failing candidate");
	TAP_OK(!has(sb.buf, "## Profile") && !has(sb.buf, "## Diagnosis"), "repair prompt: unknown fields left out");
	/* a gate without a reason (none, or an empty one): the gate alone, and no
	 * gate either: "?" */
	r.gate_reason = "";
	strbuf_reset(&sb);
	llm_prompt_kernel(&r, &sb);
	TAP_OK(has(sb.buf, "It failed the `correctness` gate\n\n```python\n"), "repair prompt: an empty gate reason left out");
	r.gate_reason = NULL;
	r.gate = "";
	strbuf_reset(&sb);
	llm_prompt_kernel(&r, &sb);
	TAP_OK(has(sb.buf, "It failed the `?` gate\n\n```python\n"), "repair prompt: no reason and no gate: the gate is `?`");

	/* a kernel that moves nothing: its 0 GB/s is a measurement, not an unknown */
	struct llm_kernel_prompt z = {
		.kernel_name = K, .source = src,
		.time_us = 3, .calls = 1, .share = 0.01, .bytes = 0, .achieved_gbs = 0, .peak_gbs = 4250,
	};
	strbuf_reset(&sb);
	llm_prompt_kernel(&z, &sb);
	TAP_OK(has(sb.buf, "- achieved bandwidth: 0 GB/s of a measured peak of 4250 GB/s (0%)\n"),
	       "prompt: an achieved bandwidth of 0 GB/s is stated");

	/* a source holding ``` gets a longer fence, and extraction gets it back whole */
	static const char tricky[] = "def " K "(x):\n    s = '```'\n    return s\n";
	struct llm_kernel_prompt t = { .kernel_name = K, .source = tricky, .time_us = -1, .share = -1,
				       .bytes = -1, .achieved_gbs = -1 };
	strbuf_reset(&sb);
	llm_prompt_kernel(&t, &sb);
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
	TAP_OK(has(sb.buf, "````python\n") && ex(sb.buf, &out, &e) == 0 && strcmp(out.buf, tricky) == 0,
	       "a source holding ``` is fenced with four backticks and round-trips");
	/* one or two backticks in a row: a fence is never shorter than three */
	static const char *const few[] = { "def " K "(x):\n    s = '`'\n    return s\n",
					   "def " K "(x):\n    s = '``'\n    return s\n" };
	int three = 0;
	for (size_t i = 0; i < 2; i++) {
		struct llm_kernel_prompt f = t;
		f.source = few[i];
		strbuf_reset(&sb);
		llm_prompt_kernel(&f, &sb);
		three += has(sb.buf, "\n```python\n") && !has(sb.buf, "````python") && ex(sb.buf, &out, &e) == 0 &&
			 strcmp(out.buf, few[i]) == 0;
	}
	TAP_IS_INT(three, 2, "a source holding one or two backticks in a row: fenced with three, and round-trips");
	strbuf_release(&out);
	strbuf_release(&e);
	strbuf_release(&sb);
}

static void t_extract(void)
{
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
	struct strbuf reply = STRBUF_INIT;

	strbuf_addf(&reply, "Here it is:\n\n```python\n%s```\nDone.", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0, "```python block extracted exactly");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```\n%s```", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0, "bare ``` block accepted");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```py\n%s```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0, "```py block accepted");

	/* each name a Python block goes by, in any case; no other word */
	const char *infos[] = { "python", "python3", "Python3", "PY", "python2", "python33", "pytho", "py3" };
	int taken = 0;
	for (int i = 0; i < 8; i++) {
		strbuf_reset(&reply);
		strbuf_addf(&reply, "```%s\n%s```\n", infos[i], src);
		taken |= (ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0) << i;
	}
	TAP_OK(taken == 0x0f, "```python, ```python3 and ```py blocks taken in any case; python2, python33, pytho, py3 not (%#x)",
	       taken);

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\ndef helper(x):\n    pass\n```\n\n```python\n%s```\n"
		    "```python\ndef other(y):\n    pass\n```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0,
	       "of several blocks, the one defining the kernel");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s```\nbetter:\n```python\n%s    # v2\n```\n", src, src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && has(out.buf, "# v2"), "of two defining blocks, the last");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```text\n%s```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "no fenced python block in the reply defines"),
	       "a ```text block is not taken");

	strbuf_reset(&reply);
	strbuf_addstr(&reply, "```python\ndef " K "_v2(x):\n    pass\n```\n");
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "found `def " K "_v2(`"),
	       "a longer name is not the kernel; the error lists what was found");

	TAP_OK(ex("Just raise XBLOCK.", &out, &e) == -1 &&
	       strcmp(e.buf, "llm: the reply has no fenced code block") == 0, "no fenced block");
	TAP_OK(ex("", &out, &e) == -1 && ex(NULL, &out, &e) == -1, "empty and NULL replies");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "is not closed"), "an unclosed block (truncated reply)");

	/* CRLF line endings and an indented fence */
	strbuf_reset(&reply);
	strbuf_addstr(&reply, "Intro\r\n  ```python\r\n  import triton\r\n  def " K "(a):\r\n      return a\r\n  ```\r\n");
	TAP_OK(ex(reply.buf, &out, &e) == 0 &&
	       strcmp(out.buf, "import triton\ndef " K "(a):\n    return a\n") == 0,
	       "CRLF lines and a fence indented by two spaces");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n@triton.jit\ndef   " K "  (x):\n    pass\n```");
	TAP_OK(ex(reply.buf, &out, &e) == 0, "blanks around the name in the def line");

	strbuf_reset(&reply);
	strbuf_addstr(&reply, "```python\nclass X:\n    def " K "(self):\n        pass\n```");
	TAP_OK(ex(reply.buf, &out, &e) == -1, "an indented (nested) def is not the kernel");

	strbuf_reset(&reply);
	strbuf_addf(&reply, "```sh\n%s```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "no fenced python block in the reply defines"),
	       "a ```sh block (two letters, not py) is not taken");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "```pycon\n%s```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "no fenced python block in the reply defines"),
	       "a ```pycon block (py, then more) is not taken");

	/* a call of the kernel is no definition of it */
	strbuf_reset(&reply);
	strbuf_addstr(&reply, "```python\ny = " K "(x)\n```\n");
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "no fenced python block in the reply defines"),
	       "`y = " K "(x)` does not define the kernel");

	/* backticks in the block's first line belong to the code, not to the fence */
	strbuf_reset(&reply);
	static const char ticked[] = "# `tmp0` is loaded once\n";
	strbuf_addf(&reply, "```python\n%s%s```\n", ticked, src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strncmp(out.buf, ticked, strlen(ticked)) == 0 &&
	       strcmp(out.buf + strlen(ticked), src) == 0, "a first line holding backticks stays in the block");

	strbuf_release(&reply);
	strbuf_release(&out);
	strbuf_release(&e);
}

/* a launch config and the notes taken from a reply */
static void t_reply(void)
{
	json_t *c = NULL;
	struct strbuf e = STRBUF_INIT, a = STRBUF_INIT, z = STRBUF_INIT;
	TAP_OK(llm_extract_config("```json\n{\"XBLOCK\": 1}\n```\nthen\n```json\n{\"num_warps\": 8}\n```\n", &c, &e) == 1 &&
	       json_integer_value(json_object_get(c, "num_warps")) == 8 && !json_object_get(c, "XBLOCK"),
	       "config: the last json block");
	json_decref(c);
	TAP_OK(llm_extract_config("```python\nx = {\"a\": 1}\n```\n{\"b\": 2}\n", &c, &e) == 0 && !c,
	       "config: none outside a json block");
	TAP_OK(llm_extract_config("```json\n[1, 2]\n```\n", &c, &e) == -1 && !c && has(e.buf, "not a JSON object"),
	       "config: a json block that is not an object");
	strbuf_reset(&e);
	TAP_OK(llm_extract_config("```json\n{\"XBLOCK\": \n```\n", &c, &e) == -1 && has(e.buf, "not a JSON object: "),
	       "config: a json block that does not parse, with the parser's reason");
	strbuf_release(&e);

	llm_extract_notes("Avoid: first\n```python\nAvoid: in code\n```\n**Avoid:** the last one\n"
			  "- Prioritize: shorter rows\n", &a, &z);
	TAP_OK(strcmp(a.len ? a.buf : "", "the last one") == 0 && strcmp(z.len ? z.buf : "", "shorter rows") == 0,
	       "notes: the last Avoid and Prioritize lines outside code, bold or listed");
	strbuf_reset(&a);
	strbuf_reset(&z);
	llm_extract_notes("Avoidance: no\nprioritise: British spelling\n", &a, &z);
	TAP_OK(a.len == 0 && strcmp(z.len ? z.buf : "", "British spelling") == 0, "notes: the word exactly, either spelling");
	strbuf_reset(&z);
	/* the marks and blanks around a note go, each alone at either end, and
	 * none inside it */
	static const char *const ends[] = { "Avoid: a b\t\n", "Avoid: a b \n", "Avoid: a b*\n", "Avoid: a b_\n",
					    "Avoid:\ta b\n", "Avoid:_a b\n", "Avoid: _*\t a b \t*_ \t\n",
					    "Avoid: a b" };
	int trimmed = 0;
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
		strbuf_reset(&a);
		llm_extract_notes(ends[i], &a, &z);
		trimmed += a.len == 3 && !strcmp(a.buf, "a b");
	}
	TAP_IS_INT(trimmed, (int)(sizeof ends / sizeof *ends),
		   "notes: a tab, a space, a star or an underscore at either end goes, each alone or mixed");
	strbuf_reset(&a);
	/* a note left empty, its marks or blanks at the line's end, is no note
	 * (the last Avoid line wins, so the earlier one goes too) */
	static const char *const empty[] = { "Avoid: earlier\n- Avoid: \nthe reply goes on past the line\n",
					     "Avoid: earlier\n**Avoid:**\nthe reply goes on past the line\n",
					     "- Avoid: ", "**Avoid:** \t", "Avoid: earlier\nAvoid:\n", "Avoid: earlier\nAvoid:" };
	int none = 0;
	for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
		strbuf_reset(&a);
		llm_extract_notes(empty[i], &a, &z);
		none += a.len == 0;
		if (a.len)
			tap_diag("'%s' gave the note '%.40s' (%zu bytes)", empty[i], a.buf, a.len);
	}
	TAP_IS_INT(none, (int)(sizeof empty / sizeof *empty),
		   "notes: an empty Avoid note, '- Avoid: ', '**Avoid:**' or 'Avoid:' and nothing after, gives no avoid note");
	strbuf_reset(&a);
	struct strbuf longer = STRBUF_INIT;
	strbuf_addstr(&longer, "Prioritize: ");
	for (int i = 0; i < 200; i++)
		strbuf_addstr(&longer, "\xc3\xa9"); /* e with an acute accent: two bytes */
	llm_extract_notes(longer.buf, &a, &z);
	TAP_OK(z.len == LLM_NOTE_MAX && (((unsigned char)z.buf[z.len - 1]) & 0xc0) != 0xc0,
	       "notes: cut to %d bytes, not inside a character", LLM_NOTE_MAX);
	/* a cut that falls inside a character of two, three or four bytes (one
	 * ASCII byte first shifts the characters off the limit) backs up to
	 * its first byte: the note is whole characters, as long as fits */
	static const char *const chars[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	int whole = 0;
	for (size_t ch = 0; ch < 3; ch++) {
		size_t w = strlen(chars[ch]);
		strbuf_reset(&longer);
		strbuf_addstr(&longer, "Prioritize: x");
		for (int i = 0; i < 200; i++)
			strbuf_addstr(&longer, chars[ch]);
		strbuf_reset(&z);
		llm_extract_notes(longer.buf, &a, &z);
		size_t want = 1 + (LLM_NOTE_MAX - 1) / w * w;
		whole += z.len == want;
		if (z.len != want)
			tap_diag("%zu-byte characters: %zu bytes, want %zu", w, z.len, want);
	}
	TAP_IS_INT(whole, 3, "notes: a cut inside a character of 2, 3 or 4 bytes backs up to its first byte");
	strbuf_reset(&z);
	strbuf_release(&longer);
	strbuf_release(&a);
	strbuf_release(&z);
}

/* a round over its budget: older attempts go first, then the strategy,
 * then the notes; the best and the task stay */
static void t_budget(void)
{
	const char *lines[6];
	char buf[6][200];
	for (int i = 0; i < 6; i++) {
		snprintf(buf[i], sizeof buf[i], "- c%d, llm rewrite: fail at perf, 0.990x, 46.10 us: perf: kernel speedup 0.990x < gamma 1.030 %s",
			 5 - i, "padding padding padding padding padding padding padding padding");
		lines[i] = buf[i];
	}
	struct llm_kernel_prompt p = {
		.kernel_name = K, .source = src, .time_us = -1, .share = -1, .bytes = -1, .achieved_gbs = -1,
		.best = src, .best_label = "c0, llm rewrite", .best_speedup = 1.2, .attempts = lines, .nattempts = 6,
		.notes = "Avoid: this\nPrioritize: that\n", .strategy = "a strategy",
	};
	struct strbuf all = STRBUF_INIT, cut = STRBUF_INIT;
	/* two or three attempts: all shown, and no note of older ones */
	for (size_t na = 1; na <= 3; na++) {
		p.nattempts = na;
		strbuf_reset(&all);
		llm_prompt_round(&p, 0, &all);
		TAP_OK(!has(all.buf, "older attempts left out") && has(all.buf, "- c5,"),
		       "round: %zu attempt(s), all shown, no note of older ones left out", na);
	}
	p.nattempts = 6;
	strbuf_reset(&all);
	/* the best's time alone, without the original's: said for any time above 0 */
	p.best_us = 0.5;
	llm_prompt_round(&p, 0, &all);
	TAP_OK(has(all.buf, "at 1.200x the original kernel's speed (0.50 us per call), with"),
	       "round: the best's time under a microsecond, the original's unknown");
	p.best_us = 0;
	strbuf_reset(&all);
	llm_prompt_round(&p, 0, &all);
	TAP_OK(has(all.buf, "- c0,") && has(all.buf, "## Strategy") && has(all.buf, "## Your notes"), "round: all of it without a budget");
	p.max_tokens = llm_tokens_of(all.len) - 60;
	llm_prompt_round(&p, 0, &cut);
	TAP_OK(has(cut.buf, "- c5,") && has(cut.buf, "- c3,") && !has(cut.buf, "- c2,") &&
	       has(cut.buf, "- (3 older attempts left out for space)") && has(cut.buf, "## Strategy"),
	       "round: a little over, the older attempts go and say so");
	TAP_OK(has(cut.buf, "padding padding\n- (3 older attempts left out for space)\n") &&
		       strstr(cut.buf, "- c3,") < strstr(cut.buf, "- (3 older attempts") &&
		       strstr(cut.buf, "## Attempts so far") < strstr(cut.buf, "- c5,"),
	       "... the note on the line after the last attempt kept, in the attempts' section");
	strbuf_reset(&cut);
	p.max_tokens = llm_tokens_of(all.len) - 120;
	llm_prompt_round(&p, 0, &cut);
	TAP_OK(!has(cut.buf, "## Strategy") && has(cut.buf, "## Your notes") && has(cut.buf, "- c5,"),
	       "round: more over, the strategy goes before the notes and the newest attempts");
	strbuf_reset(&cut);
	p.max_tokens = 10;
	llm_prompt_round(&p, 0, &cut);
	TAP_OK(!has(cut.buf, "## Attempts") && !has(cut.buf, "## Your notes") && has(cut.buf, "## Best so far") &&
	       has(cut.buf, "## Task"), "round: far over, the best and the task stay");
	/* the context before it took the whole budget: the same, all that can
	 * go goes (a budget of 100 tokens, a context of 1000) */
	strbuf_reset(&cut);
	p.max_tokens = 100;
	llm_prompt_round(&p, 4000, &cut);
	TAP_OK(!has(cut.buf, "## Attempts") && !has(cut.buf, "## Strategy") && !has(cut.buf, "## Your notes") &&
	       has(cut.buf, "## Best so far") && has(cut.buf, "## Task"),
	       "round: the context already past the budget, all that can go goes; the best and the task stay");
	strbuf_release(&all);
	strbuf_release(&cut);
}

/* compile metadata, where the worker sends it, and what is cut first in the context */
static void t_context(void)
{
	struct llm_kernel_prompt p = {
		.kernel_name = K, .source = src, .heuristic = "pointwise", .config = "{\"XBLOCK\": 1024}",
		.grid = "(1024, 1, 1)", .args = "in_ptr0 float32[1048576] (4.19 MB)", .aten = "aten.add",
		.registers = 40, .spills = 16, .time_us = 3.1, .share = 0.5, .bytes = 8.4e6, .achieved_gbs = 2700,
		.peak_gbs = 4200, .peak_tflops = 67, .flops = 1048576, .flops_how = "1 per element",
		.lessons = "- the built-in move `x-up`: passed 1 of 1 try, mean 1.050x\n", .diagnosis = "memory-bound",
	};
	struct strbuf all = STRBUF_INIT, cut = STRBUF_INIT;
	llm_prompt_context(&p, &all);
	TAP_OK(has(all.buf, "## Launch\n\n- launch config: {\"XBLOCK\": 1024}\n- grid: (1024, 1, 1) programs\n") &&
	       has(all.buf, "- compiled: 40 registers per thread, 16 spilled\n") &&
	       has(all.buf, "- bound: memory (0.12 FLOP per byte, below the balance); at 64% of the copy bandwidth, at most 1.56x faster there"),
	       "context: launch, compile metadata where sent, and the bound with how far from it");
	TAP_OK(has(all.buf, "FP32 67.0 TFLOP/s (datasheet)"), "context: a peak not measured is the datasheet's, and says so");
	TAP_OK(!has(all.buf, "DRAM bytes"), "context: no counters, no DRAM line");
	/* the GPU's counters saw it move twice its arguments: the bound still
	 * counts them once, and the prompt says what the traffic means */
	struct llm_kernel_prompt q = p;
	q.dram_bytes = 2 * 8.4e6;
	strbuf_reset(&cut);
	llm_prompt_context(&q, &cut);
	TAP_OK(has(cut.buf, "- DRAM bytes per launch, the GPU's counters: 16.80 MB (2.00x its arguments': it reads or "
			    "writes something again; a single pass or a fusion cuts that)\n") &&
	       has(cut.buf, "- bound: memory (0.12 FLOP per byte, below the balance); at 65% of the copy bandwidth"),
	       "context: DRAM traffic twice the arguments is named, the bound on the arguments (the bound over the time)");
	/* arguments that would beat the copy bandwidth, half of them counted:
	 * the bound is known, on what it moved */
	q.dram_bytes = 4.2e6;
	q.achieved_gbs = 5000;
	strbuf_reset(&cut);
	llm_prompt_context(&q, &cut);
	TAP_OK(has(cut.buf, "(0.50x its arguments')\n") && !has(cut.buf, "bound: not known") &&
	       has(cut.buf, "- bound: memory (0.25 FLOP per byte, below the balance); at 32% of the copy bandwidth, at most 3.10x faster there"),
	       "context: counted DRAM bytes fewer than the arguments make the bound known");
	q.dram_bytes = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&q, &cut);
	TAP_OK(has(cut.buf, "- bound: not known: its arguments' bytes would move at 119% of the copy bandwidth, so it "
			    "reads or writes only part of them\n"),
	       "context: without counts, arguments beyond the copy bandwidth leave it unknown, at their percentage");
	/* the limit: 5% over the copy bandwidth, 4452 and 4389 GB/s of 4200 */
	q.achieved_gbs = 4452;
	strbuf_reset(&cut);
	llm_prompt_context(&q, &cut);
	TAP_OK(has(cut.buf, "would move at 106% of the copy bandwidth"), "context: arguments at 106%% of the copy bandwidth: not known");
	q.achieved_gbs = 4389;
	strbuf_reset(&cut);
	llm_prompt_context(&q, &cut);
	TAP_OK(!has(cut.buf, "bound: not known") && has(cut.buf, "- bound: memory"),
	       "context: arguments at 104.5%% of the copy bandwidth: the bound is known");
	/* a count is a count from its first byte: counters that saw one byte
	 * a launch (its data in L2), arguments that would beat the copy
	 * bandwidth, a FLOP a launch (memory binds even on that byte): the
	 * bound is known, on the byte moved */
	struct llm_kernel_prompt one = q;
	one.dram_bytes = 1;
	one.flops = 1;
	one.achieved_gbs = 5000;
	strbuf_reset(&cut);
	llm_prompt_context(&one, &cut);
	TAP_OK(!has(cut.buf, "bound: not known") &&
	       has(cut.buf, "- bound: memory (1.00 FLOP per byte, below the balance); at 0% of the copy bandwidth"),
	       "context: one DRAM byte counted a launch is a count: the bound is known, on that byte");
	/* a kernel under a microsecond per call has its bound as any other;
	 * one with no time has none (nothing to divide by) */
	struct llm_kernel_prompt fast = p;
	fast.time_us = 0.8;
	fast.bytes = 2.4e6;
	fast.achieved_gbs = 3000;
	strbuf_reset(&cut);
	llm_prompt_context(&fast, &cut);
	TAP_OK(has(cut.buf, "- time per call: 0.80 us") &&
	       has(cut.buf, "- bound: memory (0.44 FLOP per byte, below the balance); at 71% of the copy bandwidth, at most 1.40x faster there\n"),
	       "context: a kernel of 0.8 us per call still has its bound, from its own time");
	fast.time_us = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&fast, &cut);
	TAP_OK(!has(cut.buf, "- bound:"), "context: a kernel without a time has no bound line");
	/* nor one without a copy bandwidth or an FP32 peak to bound it by */
	fast.time_us = 0.8;
	fast.peak_gbs = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&fast, &cut);
	TAP_OK(!has(cut.buf, "- bound:"), "context: a GPU without a copy bandwidth has no bound line");
	fast.peak_gbs = 4200;
	fast.peak_tflops = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&fast, &cut);
	TAP_OK(!has(cut.buf, "- bound:"), "context: ... nor one without an FP32 peak");
	q.achieved_gbs = 5000;
	strbuf_reset(&cut);
	p.peak_measured = true;
	p.peak_tflops = 51.2;
	p.occupancy = 0.75;
	llm_prompt_context(&p, &cut);
	TAP_OK(has(cut.buf, "FP32 51.2 TFLOP/s (measured); balance 12.2 FLOP per byte") &&
	       has(cut.buf, "- compiled: 40 registers per thread, 16 spilled; occupancy 75% (resident warps of an SM's most)\n"),
	       "context: the measured FP32 peak and the occupancy, where the worker sent them");
	/* each peak where it is above zero, however small; the balance where both are */
	struct llm_kernel_prompt pk = p;
	pk.peak_tflops = 0.5;
	strbuf_reset(&cut);
	llm_prompt_context(&pk, &cut);
	int peaks = has(cut.buf, "- peaks: copy bandwidth 4200 GB/s (measured), FP32 0.5 TFLOP/s (measured); balance 0.1 FLOP per byte\n");
	pk.peak_gbs = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&pk, &cut);
	peaks |= has(cut.buf, "- peaks: FP32 0.5 TFLOP/s (measured)\n") << 1;
	pk.peak_gbs = 2;
	pk.peak_tflops = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&pk, &cut);
	peaks |= has(cut.buf, "- peaks: copy bandwidth 2 GB/s (measured)\n") << 2;
	pk.peak_gbs = 0;
	strbuf_reset(&cut);
	llm_prompt_context(&pk, &cut);
	peaks |= !has(cut.buf, "- peaks:") << 3;
	TAP_IS_INT(peaks, 15, "context: each peak where above zero (0.5 too), the balance only with both, no line with neither");
	strbuf_reset(&cut);
	p.peak_measured = false;
	p.peak_tflops = 67;
	p.occupancy = 0;
	p.registers = 0;
	llm_prompt_context(&p, &cut);
	TAP_OK(!has(cut.buf, "- compiled:") && !has(cut.buf, "registers"), "context: no compile metadata sent, no line");
	/* no launch facts at all (none sent, or empty): no Launch section */
	struct llm_kernel_prompt bare = p;
	bare.config = NULL;
	bare.grid = "";
	bare.args = NULL;
	bare.aten = "";
	strbuf_reset(&cut);
	llm_prompt_context(&bare, &cut);
	TAP_OK(!has(cut.buf, "## Launch"), "context: no launch config, grid, arguments or ATen ops: no Launch section");
	bare.args = "";
	bare.aten = NULL;
	strbuf_reset(&cut);
	llm_prompt_context(&bare, &cut);
	TAP_OK(!has(cut.buf, "## Launch"), "... nor with the arguments sent empty");
	bare.aten = "aten.add";
	strbuf_reset(&cut);
	llm_prompt_context(&bare, &cut);
	TAP_OK(has(cut.buf, "\n## Launch\n\n- implements the ATen ops: aten.add\n") && !has(cut.buf, "tensor arguments"),
	       "... and the ATen ops alone open it");
	strbuf_reset(&cut);
	p.registers = 40;
	/* the source's tokens and the room for a round come off the budget first */
	long room = llm_tokens_of(strlen(src)) + LLM_ROUND_ROOM;
	p.max_tokens = room + llm_tokens_of(all.len) - 12;
	llm_prompt_context(&p, &cut);
	TAP_OK(!has(cut.buf, "- compiled:") && has(cut.buf, "## Lessons"), "context: a little over, the compile metadata goes first");
	strbuf_reset(&cut);
	p.max_tokens = room + llm_tokens_of(all.len) - 40;
	llm_prompt_context(&p, &cut);
	TAP_OK(!has(cut.buf, "## Lessons") && has(cut.buf, "- tensor arguments:") && has(cut.buf, "## Diagnosis"),
	       "context: then the lessons, before the arguments and the diagnosis");
	strbuf_reset(&cut);
	p.max_tokens = 1;
	llm_prompt_context(&p, &cut);
	TAP_OK(!has(cut.buf, "- tensor arguments:") && !has(cut.buf, "## Diagnosis") && has(cut.buf, "## Launch\n\n- launch config") &&
	       has(cut.buf, "## Profile") && has(cut.buf, src) && has(cut.buf, "## Rules"),
	       "context: far over, the device, launch, profile, source and rules stay");
	strbuf_release(&all);
	strbuf_release(&cut);
}

/* a "def NAME(" line: spaces or tabs after def and before the parenthesis,
 * and nothing else between the name and it */
static void t_def_line(void)
{
	static const struct { const char *line; int defines; } defs[] = {
		{ "def " K "(x):", 1 },      { "def  " K "  (x):", 1 }, { "def\t" K "\t(x):", 1 },
		{ "def " K " :", 0 },        { "def " K " x(y):", 0 },  { "def " K, 0 },
		{ "def " K "   ", 0 },       { "def(" K "):", 0 },      { "define " K "(x):", 0 },
	};
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT, reply = STRBUF_INIT;
	int right = 0;
	for (size_t i = 0; i < sizeof defs / sizeof *defs; i++) {
		strbuf_reset(&reply);
		strbuf_addf(&reply, "```python\n%s\n    pass\n```\n", defs[i].line);
		int rc = ex(reply.buf, &out, &e);
		if (defs[i].defines ? rc == 0 : rc == -1 && has(e.buf, "no fenced python block in the reply defines"))
			right++;
		else
			printf("# '%s': %d, %s\n", defs[i].line, rc, e.buf ? e.buf : "");
	}
	TAP_OK(right == (int)(sizeof defs / sizeof *defs), "a block defines the kernel by a def NAME( line alone");
	strbuf_release(&out);
	strbuf_release(&e);
	strbuf_release(&reply);
}

/* a gate's reason for the prompt: a path from its first character on or
 * after a character that cannot be in a path is "<path>", a slash inside
 * a word is none; cut at max bytes on a character's first byte */
static void t_reason(void)
{
	static const struct { const char *in, *out; } rs[] = {
		{ "/etc/passwd: denied", "<path>: denied" },
		{ "open('/root/x.py') here", "open('<path>') here" },
		{ "a/b and x/y", "a/b and x/y" },
		{ "ratio 3/4 of /", "ratio 3/4 of /" },
		{ "tab\there/x\n/y", "tab here/x <path>" },
		/* a path's characters, each range's ends and every mark it takes */
		{ "/az09AZ._-+@~%/q end", "<path> end" },
		/* and the characters beside those ranges end it */
		{ "/a:x /a`x /a{x /a[x /a!x /a x", "<path>:x <path>`x <path>{x <path>[x <path>!x <path> x" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof rs / sizeof *rs; i++) {
		char *got = llm_reason(rs[i].in, NULL, 600);
		if (strcmp(got, rs[i].out) == 0)
			right++;
		else
			printf("# '%s' gave '%s'\n", rs[i].in, got);
		free(got);
	}
	TAP_OK(right == (int)(sizeof rs / sizeof *rs), "reason: paths made <path>, from the first character on");
	/* the spec's folder (its realpath): paths below it stay, anywhere in
	 * the reason; one that only begins with its name is none of them */
	char tmpl[] = "/tmp/kopt-reason-XXXXXX";
	char *made = mkdtemp(tmpl), *root = made ? realpath(made, NULL) : NULL;
	if (root) {
		char *scope = xasprintf("%s/this.kopt", root);
		char *in = xasprintf("%s/m.py: line 3; in %s/models/k.py, not /etc/x or %sx/y", root, root, root);
		char *want = xasprintf("%s/m.py: line 3; in %s/models/k.py, not <path> or <path>", root, root);
		char *got = llm_reason(in, scope, 600);
		TAP_IS_STR(got, want, "reason: paths below the spec's folder stay, at the start and later; others are <path>");
		free(got);
		free(want);
		free(in);
		free(scope);
		free(root);
		rmdir(made);
	} else {
		TAP_OK(0, "reason: a scratch folder for the spec's");
	}
	char *cut = llm_reason("ab\xc3\xa9z", NULL, 3), *whole = llm_reason("ab\xc3\xa9z", NULL, 5);
	TAP_OK(!strcmp(cut, "ab...") && !strcmp(whole, "ab\xc3\xa9z"), "reason: cut on a character's first byte, not past max");
	free(cut);
	free(whole);
	/* the values of secret variables (by their names) go, from 4 bytes
	 * on; a shorter one would take out words */
	setenv("KOPT_PT_TOKEN", "q7z9", 1);
	setenv("KOPT_PT_SECRET", "xyz", 1);
	char *sec = llm_reason("token q7z9 and xyz here", NULL, 600);
	TAP_IS_STR(sec, "token [redacted] and xyz here",
		   "reason: a secret variable's value of 4 bytes is scrubbed, one of 3 is left");
	free(sec);
	unsetenv("KOPT_PT_TOKEN");
	unsetenv("KOPT_PT_SECRET");
}

/* who made a candidate: the LLM's coder or debugger, named "llm" */
static void t_made_by(void)
{
	static const struct { const char *j; bool llm; } c[] = {
		{ "{\"name\":\"llm\",\"role\":\"coder\"}", true },   { "{\"name\":\"llm\",\"role\":\"debugger\"}", true },
		{ "{\"name\":\"llm\",\"role\":\"tuner\"}", false },  { "{\"name\":\"x-up\",\"role\":\"coder\"}", false },
		{ "{\"name\":\"llm\"}", false },                     { "{\"role\":\"coder\"}", false },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		json_t *j = json_loads(c[i].j, 0, NULL);
		right += llm_made_by_llm(j) == c[i].llm;
		json_decref(j);
	}
	TAP_OK(right == (int)(sizeof c / sizeof *c), "made by the LLM: named llm and from its coder or debugger, nothing else");
}

/* counts and byte sizes as the prompt writes them: the unit steps at 1000,
 * and the largest unit takes what is past it */
static void t_units(void)
{
	static const struct { double v; const char *says; } fl[] = {
		{ 999, "about 999 FLOP\n" },           { 1000, "about 1.0 KFLOP\n" },
		{ 1048576, "about 1.0 MFLOP\n" },      { 1e15, "about 1.0 PFLOP\n" },
		{ 1e18, "about 1000.0 PFLOP\n" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof fl / sizeof *fl; i++) {
		struct llm_kernel_prompt p = { .kernel_name = K, .source = src, .time_us = 3.1, .calls = 1,
					       .achieved_gbs = -1, .flops = fl[i].v };
		struct strbuf sb = STRBUF_INIT;
		llm_prompt_context(&p, &sb);
		if (has(sb.buf, fl[i].says))
			right++;
		else
			printf("# %g FLOPs: %s\n", fl[i].v, sb.buf);
		strbuf_release(&sb);
	}
	TAP_OK(right == (int)(sizeof fl / sizeof *fl), "FLOPs in the prompt: K at 1000, P the largest unit");
	static const struct { double v; const char *says; } by[] = {
		{ 999, "999 B" }, { 1000, "1.00 KB" }, { 2.1e6, "2.10 MB" }, { 1e12, "1.00 TB" }, { 1e15, "1000.00 TB" },
	};
	right = 0;
	for (size_t i = 0; i < sizeof by / sizeof *by; i++) {
		struct strbuf sb = STRBUF_INIT;
		llm_add_bytes(&sb, by[i].v);
		right += sb.buf && strcmp(sb.buf, by[i].says) == 0;
		strbuf_release(&sb);
	}
	TAP_OK(right == (int)(sizeof by / sizeof *by), "bytes in the prompt: KB at 1000, TB the largest unit");
}

/* a reply's launch config against the kernel's: blocks it has and warps
 * powers of two up to the block's largest (XBLOCK 4096, R0_BLOCK 65536:
 * Inductor's, past which gate 1 refuses a config) and 32, stages 1 to 8,
 * whole numbers; the keys left out keep the kernel's values */
static void t_reply_config(void)
{
	static const struct { const char *cfg, *want, *err; } cs[] = {
		{ "{\"XBLOCK\": 4096, \"num_warps\": 32, \"num_stages\": 8}", "{\"XBLOCK\":4096,\"R0_BLOCK\":64,\"num_warps\":32,\"num_stages\":8}", NULL },
		{ "{\"R0_BLOCK\": 65536}", "{\"XBLOCK\":8,\"R0_BLOCK\":65536,\"num_warps\":4,\"num_stages\":2}", NULL },
		{ "{\"XBLOCK\": 8192}", NULL, "the launch config's XBLOCK = 8192 is out of range" },
		{ "{\"R0_BLOCK\": 131072}", NULL, "the launch config's R0_BLOCK = 131072 is out of range" },
		{ "{\"num_stages\": 1, \"num_warps\": 1, \"R0_BLOCK\": 1}", "{\"XBLOCK\":8,\"R0_BLOCK\":1,\"num_warps\":1,\"num_stages\":1}", NULL },
		{ "{\"XBLOCK\": 131072}", NULL, "the launch config's XBLOCK = 131072 is out of range" },
		{ "{\"XBLOCK\": 48}", NULL, "the launch config's XBLOCK = 48 is out of range" },
		{ "{\"XBLOCK\": 0}", NULL, "the launch config's XBLOCK = 0 is out of range" },
		{ "{\"num_warps\": 64}", NULL, "the launch config's num_warps = 64 is out of range" },
		{ "{\"num_warps\": 12}", NULL, "the launch config's num_warps = 12 is out of range" },
		{ "{\"num_stages\": 0}", NULL, "the launch config's num_stages = 0 is out of range" },
		{ "{\"num_stages\": 9}", NULL, "the launch config's num_stages = 9 is out of range" },
		{ "{\"num_warps\": 4.0}", NULL, "the launch config's num_warps is not a whole number" },
		{ "{\"YBLOCK\": 4}", NULL, "the launch config's key YBLOCK is not one of the kernel's" },
		{ "{\"maxnreg\": 128}", NULL, "the launch config's key maxnreg is not one of the kernel's" },
	};
	json_t *kc = json_loads("{\"XBLOCK\":8,\"R0_BLOCK\":64,\"num_warps\":4,\"num_stages\":2}", 0, NULL);
	struct agent_kernel k = { "m", K, "reduction", src, kc, NULL, NULL, NULL, 0, 0, NULL };
	struct agent_request rq = { &k, NULL, 1, NULL, 0, NULL, NULL, NULL, NULL, NULL };
	int right = 0;
	for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
		char *text = NULL;
		if (asprintf(&text, "Here:\n```json\n%s\n```\n", cs[i].cfg) < 0)
			abort();
		json_t *smp = llm_sample_of(&rq, text, NULL), *w = cs[i].want ? json_loads(cs[i].want, 0, NULL) : NULL;
		const char *ce = json_string_value(json_object_get(smp, "config_error"));
		/* a config alone (no source) is a usable reply: no error */
		if (w ? json_equal(json_object_get(smp, "config"), w) && !ce && !json_object_get(smp, "error")
		      : !json_object_get(smp, "config") && ce && !strcmp(ce, cs[i].err))
			right++;
		else {
			char *d = json_dumps(smp, JSON_COMPACT);
			printf("# %s: %s\n", cs[i].cfg, d);
			free(d);
		}
		json_decref(w);
		json_decref(smp);
		free(text);
	}
	TAP_OK(right == (int)(sizeof cs / sizeof *cs), "a reply's launch config: each range's ends in, one past out, its keys the kernel's; a config "
	       "without a source is no error");
	struct agent_kernel bare = { "m", K, "pointwise", src, NULL, NULL, NULL, NULL, 0, 0, NULL };
	rq.kernel = &bare;
	json_t *smp = llm_sample_of(&rq, "```json\n{\"YBLOCK\": 16, \"num_warps\": 2}\n```\n", NULL);
	json_t *w = json_loads("{\"YBLOCK\":16,\"num_warps\":2}", 0, NULL);
	TAP_OK(json_equal(json_object_get(smp, "config"), w), "a kernel without a config takes any block key of the list");
	json_decref(w);
	json_decref(smp);
	json_decref(kc);
}

static json_t *JS(const char *t)
{
	json_t *j = json_loads(t, 0, NULL);
	if (!j)
		abort();
	return j;
}

/* the search so far as the LLM coder reads it: the best pass (the first of
 * equal speedups), the last round's head and replies, whether the round is
 * still open, and how many rounds in a row built nothing (failed gate 1) */
static void t_state(void)
{
	json_t *b0 = JS("{\"name\":\"x-up\",\"role\":\"coder\",\"config\":{\"XBLOCK\":8}}");
	json_t *h0 = JS("{\"name\":\"llm\",\"role\":\"coder\",\"source\":\"a\",\"round\":0,\"sample\":0,\"beam\":[{},{},{}]}");
	json_t *s1 = JS("{\"name\":\"llm\",\"role\":\"coder\",\"source\":\"b\",\"round\":0,\"sample\":2}");
	json_t *h1 = JS("{\"name\":\"llm\",\"role\":\"coder\",\"source\":\"c\",\"round\":1,\"sample\":0,\"beam\":[{},{}]}");
	json_t *rp = JS("{\"name\":\"llm\",\"role\":\"debugger\",\"source\":\"d\",\"round\":1,\"sample\":1,\"repair_of\":3}");
	json_t *tu = JS("{\"name\":\"descent\",\"role\":\"tuner\",\"config\":{\"XBLOCK\":16}}");
	struct agent_kernel k = { "m", K, "pointwise", src, NULL, NULL, NULL, NULL, 0, 0, NULL };
	struct llm_state st;
	struct agent_request rq = { &k, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL };
	llm_state_of(&rq, &st);
	TAP_OK(st.head == -1 && st.best == -1 && st.rounds == 0 && st.failed == 0 && !st.open, "state: nothing yet");
	struct agent_try t[6] = {
		{ 0, b0, "pass", "perf", NULL, 1.2, 0, 0 }, { 1, h0, "fail", "static", NULL, 0, 0, 0 },
		{ 2, s1, "fail", "correctness", NULL, 0, 0, 0 }, { 3, h1, "pass", "perf", NULL, 1.2, 0, 0 },
		{ 4, rp, "fail", "static", NULL, 0, 0, 0 }, { 5, tu, "pass", "perf", NULL, 1.3, 0, 0 },
	};
	rq.traj = t;
	rq.ntraj = 3;
	llm_state_of(&rq, &st);
	TAP_OK(st.head == 1 && st.round == 0 && st.rounds == 1 && st.open && st.last_sample == 2 && st.best == 0 && st.failed == 0,
	       "state: a round open with its replies 0 and 2, one of them past gate 1: no failed round (head %d, last %d, failed %d)",
	       st.head, st.last_sample, st.failed);
	t[2].gate = "static";
	llm_state_of(&rq, &st);
	TAP_OK(st.failed == 1, "state: a round whose replies all failed gate 1 built nothing (%d)", st.failed);
	rq.ntraj = 4;
	llm_state_of(&rq, &st);
	TAP_OK(st.head == 3 && st.round == 1 && st.rounds == 2 && st.open && st.last_sample == 0 && st.best == 0 && st.failed == 0,
	       "state: the next round's head, which passed at a speedup equal to the best's: the best stays the first (best %d)",
	       st.best);
	rq.ntraj = 5;
	llm_state_of(&rq, &st);
	TAP_OK(st.head == 3 && !st.open && st.last_sample == 0, "state: a repair after the round's head closes the round");
	t[1].gate = "perf";
	rq.ntraj = 6;
	llm_state_of(&rq, &st);
	TAP_OK(st.best == 5 && !st.open && st.failed == 0, "state: a faster pass is the best; a tuner's step closes the round");
	t[3].verdict = "fail";
	t[3].gate = "static";
	llm_state_of(&rq, &st);
	TAP_OK(st.failed == 1, "state: the last round built nothing (its repair failed gate 1 too): one failed round");
	json_decref(b0);
	json_decref(h0);
	json_decref(s1);
	json_decref(h1);
	json_decref(rp);
	json_decref(tu);
}

/* whether a reply makes a new candidate: a kernel or a config, not the
 * kernel as it is, not an earlier candidate (source and config both) */
static void t_fresh(void)
{
	json_t *c0 = JS("{\"source\":\"new\",\"config\":{\"XBLOCK\":8}}"), *c1 = JS("{\"source\":null,\"config\":{\"XBLOCK\":16}}");
	struct agent_kernel k = { "m", K, "pointwise", src, NULL, NULL, NULL, NULL, 0, 0, NULL };
	struct agent_try t[2] = { { 0, c0, "fail", "perf", NULL, 0, 0, 0 }, { 1, c1, "fail", "perf", NULL, 0, 0, 0 } };
	struct agent_request rq = { &k, NULL, 2, t, 2, NULL, NULL, NULL, NULL, NULL };
	json_t *own = json_pack("{s:s}", "source", src), *own_cfg = json_pack("{s:s, s:{s:i}}", "source", src, "config", "XBLOCK", 4);
	static const struct { const char *j; bool fresh; } f[] = {
		{ "{}", false }, { "{\"config\":[1]}", false }, { "{\"source\":\"new\",\"config\":{\"XBLOCK\":8}}", false },
		{ "{\"source\":\"new\",\"config\":{\"XBLOCK\":32}}", true }, { "{\"source\":\"new\"}", true },
		{ "{\"config\":{\"XBLOCK\":16}}", false }, { "{\"config\":{\"XBLOCK\":8}}", true },
		{ "{\"source\":\"newer\",\"config\":{\"XBLOCK\":8}}", true },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
		json_t *x = JS(f[i].j);
		if (llm_fresh(&rq, x) == f[i].fresh)
			right++;
		else
			printf("# %s: %d\n", f[i].j, !f[i].fresh);
		json_decref(x);
	}
	TAP_OK(right == (int)(sizeof f / sizeof *f) && !llm_fresh(&rq, own) && llm_fresh(&rq, own_cfg),
	       "fresh: a kernel or a config that is neither the kernel as it is nor an earlier candidate");
	json_decref(own);
	json_decref(own_cfg);
	json_decref(c0);
	json_decref(c1);
}

/* the budget check of one call at each limit: calls used up at the limit,
 * tokens at the limit or short of what the call needs, wall time when
 * less than a second or a twentieth of it is left; none without limits */
static void t_budget_edges(void)
{
	struct strbuf e = STRBUF_INIT;
	double now = kopt_now();
	struct llm_budget b = { 3, -1, -1, now, 2, 0 };
	int ok = llm_budget_check(&b, 10, &e) == 0 && !e.len;
	b.calls = 3;
	ok &= llm_budget_check(&b, 10, &e) == -1 && !strcmp(e.buf, "llm budget: 3 calls used of 3");
	TAP_OK(ok, "budget: two calls of three leave one, three of three none");
	strbuf_reset(&e);
	b = (struct llm_budget){ -1, 100, -1, now, 50, 99 };
	ok = llm_budget_check(&b, 1, &e) == 0;
	ok &= llm_budget_check(&b, 2, &e) == -1 && !strcmp(e.buf, "llm budget: 99 tokens used of 100, this call needs about 2");
	strbuf_reset(&e);
	b.tokens = 100;
	ok &= llm_budget_check(&b, 0, &e) == -1 && !strcmp(e.buf, "llm budget: 100 tokens used of 100");
	TAP_OK(ok, "budget: a call that needs exactly the tokens left starts, one more does not, none at the limit");
	strbuf_reset(&e);
	b = (struct llm_budget){ -1, -1, 100, now - 94, 0, 0 };
	ok = llm_budget_check(&b, 0, &e) == 0;
	b.start = now - 99.3;
	ok &= llm_budget_check(&b, 0, &e) == -1 && !strncmp(e.buf, "llm budget: 99.", 15) && strstr(e.buf, "s of wall time used of 100.0 s");
	strbuf_reset(&e);
	b = (struct llm_budget){ -1, -1, 10, now - 9.2, 0, 0 };
	ok &= llm_budget_check(&b, 0, &e) == 0;
	b.start = now - 9.7;
	ok &= llm_budget_check(&b, 0, &e) == -1;
	TAP_OK(ok, "budget: no call with a second left of 100 s, or a twentieth left of 10 s (%s)", e.buf ? e.buf : "");
	strbuf_reset(&e);
	b = (struct llm_budget){ -1, -1, -1, now - 1e6, 1000000, 1000000000 };
	TAP_OK(llm_budget_check(&b, 1000000, &e) == 0 && !e.len, "budget: no limits, no refusal");
	strbuf_release(&e);
}

/* the conversation as JSON messages: earlier turns by role, then the user
 * prompt; text that is not UTF-8 is refused, saying which; an error body's
 * message (error.message with its type, a bare error, detail, message),
 * else an excerpt of the body with control characters escaped */
static void t_wire(void)
{
	struct llm_turn turns[2] = { { LLM_USER, "first" }, { LLM_ASSISTANT, NULL } };
	struct llm_request q = { 0 };
	q.user = "now";
	q.turns = turns;
	q.nturns = 2;
	json_t *m = json_array();
	struct strbuf e = STRBUF_INIT;
	int rc = llm_json_turns(m, &q, "openai", &e);
	char *t = json_dumps(m, JSON_COMPACT);
	TAP_OK(rc == 0 && !strcmp(t, "[{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"assistant\",\"content\":\"\"},"
			     "{\"role\":\"user\",\"content\":\"now\"}]"), "wire: earlier turns by role, an empty one empty, then the prompt");
	free(t);
	json_decref(m);
	m = json_array();
	turns[1].text = "bad \xff";
	rc = llm_json_turns(m, &q, "openai", &e);
	TAP_OK(rc == -1 && !strcmp(e.buf, "llm: openai: the text of an earlier turn is not valid UTF-8"), "wire: a turn that is not UTF-8 is refused (%s)", e.buf);
	strbuf_reset(&e);
	json_decref(m);
	m = json_array();
	turns[1].text = "ok";
	q.user = "\xc3";
	rc = llm_json_turns(m, &q, "anthropic", &e);
	TAP_OK(rc == -1 && !strcmp(e.buf, "llm: anthropic: the user prompt is not valid UTF-8"), "wire: a prompt that is not UTF-8 is refused");
	json_decref(m);
	static const struct { const char *body, *says; } em[] = {
		{ "{\"error\":{\"message\":\"bad key\",\"type\":\"auth\"}}", "bad key (auth)" },
		{ "{\"error\":{\"message\":\"bad key\"}}", "bad key" },
		{ "{\"error\":\"plain\"}", "plain" },
		{ "{\"detail\":\"d\",\"message\":\"m\"}", "d" },
		{ "{\"message\":\"m\"}", "m" },
		{ "{\"error\":{\"type\":\"t\"},\"message\":\"m\"}", "m (t)" },
		{ "<html>\n\tgone\x01</html>", "<html>  gone\\x01</html>" },
		{ "", "(empty body)" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof em / sizeof *em; i++) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, "x: ");
		size_t n = llm_error_message(em[i].body, strlen(em[i].body), &msg);
		if (!strcmp(msg.buf + 3, em[i].says) && n == strlen(em[i].says))
			right++;
		else
			printf("# %s: '%s'\n", em[i].body, msg.buf);
		strbuf_release(&msg);
	}
	TAP_OK(right == (int)(sizeof em / sizeof *em), "wire: an error body's message, else its excerpt, and the bytes added");
	strbuf_release(&e);
}

/* the context the LLM roles render for kernel k, candidate 0's (freed by
 * the caller) */
static char *context_for(const struct agent_kernel *k)
{
	struct agent_request rq = { k, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL };
	struct llm_run run;
	llm_run_init(&run, &rq, NULL);
	char *ctx = llm_context_of(&run, "d");
	llm_run_release(&run);
	return ctx;
}

/* the context of a pointwise kernel (XBLOCK 1024) with the worker's
 * environment env and its profile row, both JSON texts */
static char *context_with(const char *env, const char *row)
{
	json_t *e = JS(env), *r = JS(row), *cfg = JS("{\"XBLOCK\":1024}");
	struct agent_kernel k = { "m", K, "pointwise", src, cfg, r, NULL, e, 0, 0, NULL };
	char *ctx = context_for(&k);
	json_decref(cfg);
	json_decref(r);
	json_decref(e);
	return ctx;
}

/* the grid the context gives: the numels over the blocks, rounded up
 * (1024 over 64 is 16 programs, 1025 is 17), 1 where there is no ynumel */
static void t_grid(void)
{
	static const struct { const char *src, *cfg, *grid; } g[] = {
		{ "    xnumel = 1024\n    ynumel = 100\n", "{\"XBLOCK\":64,\"YBLOCK\":32}", "- grid: (16, 4, 1) programs" },
		{ "    xnumel = 1025\n    ynumel = 96\n", "{\"XBLOCK\":64,\"YBLOCK\":32}", "- grid: (17, 3, 1) programs" },
		{ "    xnumel = 1\n", "{\"XBLOCK\":1024}", "- grid: (1, 1, 1) programs" },
		/* a block of one row: as many programs as rows */
		{ "    xnumel = 512\n    ynumel = 7\n", "{\"XBLOCK\":256,\"YBLOCK\":1}", "- grid: (2, 7, 1) programs" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
		char *source = NULL;
		if (asprintf(&source, "def %s(in_ptr0, xnumel, XBLOCK : tl.constexpr):\n%s    tmp0 = tl.load(in_ptr0)\n", K,
			     g[i].src) < 0)
			abort();
		json_t *cfg = JS(g[i].cfg);
		struct agent_kernel k = { "m", K, "pointwise", source, cfg, NULL, NULL, NULL, 0, 0, NULL };
		char *ctx = context_for(&k);
		if (has(ctx, g[i].grid))
			right++;
		else
			printf("# %s", ctx ? ctx : "(none)\n");
		free(ctx);
		json_decref(cfg);
		free(source);
	}
	TAP_OK(right == (int)(sizeof g / sizeof *g), "context: the grid, each numel over its block rounded up");
}

/* the compile line's spills: as the worker sent them, down to one; none
 * or an unknown count (negative) is 0 spilled */
static void t_spills(void)
{
	static const struct { long spills; const char *line; } g[] = {
		{ 16, "- compiled: 40 registers per thread, 16 spilled\n" },
		{ 1, "- compiled: 40 registers per thread, 1 spilled\n" },
		{ 0, "- compiled: 40 registers per thread, 0 spilled\n" },
		{ -1, "- compiled: 40 registers per thread, 0 spilled\n" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
		struct llm_kernel_prompt p = {
			.kernel_name = K, .source = src, .heuristic = "pointwise", .config = "{\"XBLOCK\": 1024}",
			.registers = 40, .spills = g[i].spills, .time_us = 3.1,
		};
		struct strbuf sb = STRBUF_INIT;
		llm_prompt_context(&p, &sb);
		if (has(sb.buf, g[i].line))
			right++;
		else
			printf("# spills %ld: %s", g[i].spills, sb.buf);
		strbuf_release(&sb);
	}
	TAP_OK(right == (int)(sizeof g / sizeof *g), "context: the spilled registers as sent, 1 included; unknown is 0");
}

/* the FP32 peak the context states where the profile measured none: the
 * datasheet's for each GPU the table knows, by the name the driver gives
 * (the first entry that the name holds: "H200 NVL" before "H200", "H100
 * PCIe" before "H100"), and no peak line for a GPU it does not know */
static void t_datasheet_peaks(void)
{
	static const struct { const char *gpu, *line; } g[] = {
		{ "NVIDIA H200 NVL", "FP32 60.0 TFLOP/s (datasheet)" },
		{ "NVIDIA H200", "FP32 67.0 TFLOP/s (datasheet)" },
		{ "NVIDIA H100 PCIe", "FP32 51.2 TFLOP/s (datasheet)" },
		{ "NVIDIA H100 80GB HBM3", "FP32 67.0 TFLOP/s (datasheet)" },
		{ "NVIDIA A100-SXM4-80GB", "FP32 19.5 TFLOP/s (datasheet)" },
		{ "NVIDIA L40S", "FP32 91.6 TFLOP/s (datasheet)" },
		{ "Tesla T4", NULL },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
		char *env_text = NULL;
		if (asprintf(&env_text, "{\"gpu\": \"%s\", \"cc\": \"9.0\", \"sms\": 132}", g[i].gpu) < 0)
			abort();
		char *ctx = context_with(env_text, "{\"ns_per_call\": 3100, \"achieved_gbps\": 2700, \"frac_peak\": 0.6}");
		bool good = g[i].line ? has(ctx, g[i].line) : ctx && !has(ctx, "TFLOP/s");
		if (good)
			right++;
		else
			printf("# %s: %s", g[i].gpu, ctx ? ctx : "(none)\n");
		free(ctx);
		free(env_text);
	}
	TAP_OK(right == (int)(sizeof g / sizeof *g),
	       "context: a peak not measured is the datasheet's for each GPU the table knows, none for another");
	/* the copy bandwidth's peak, where the profile sent none, from the
	 * row's own fraction of it: 2700 GB/s at 0.6 of it, 4500 GB/s; a
	 * fraction of 0 says nothing */
	static const struct { const char *row, *says; bool has; } bw[] = {
		{ "{\"ns_per_call\": 3100, \"achieved_gbps\": 2700, \"frac_peak\": 0.6}",
		  "- achieved bandwidth: 2700 GB/s of a measured peak of 4500 GB/s (60%)", true },
		{ "{\"ns_per_call\": 3100, \"achieved_gbps\": 2700, \"frac_peak\": 1.0}",
		  "- achieved bandwidth: 2700 GB/s of a measured peak of 2700 GB/s (100%)", true },
		{ "{\"ns_per_call\": 3100, \"achieved_gbps\": 2700, \"frac_peak\": 0}", "of a measured peak", false },
	};
	right = 0;
	for (size_t i = 0; i < sizeof bw / sizeof *bw; i++) {
		char *ctx = context_with("{\"gpu\": \"NVIDIA H200\", \"cc\": \"9.0\", \"sms\": 132}", bw[i].row);
		if ((ctx && has(ctx, bw[i].says)) == bw[i].has)
			right++;
		else
			printf("# %s: %s", bw[i].row, ctx ? ctx : "(none)\n");
		free(ctx);
	}
	TAP_OK(right == (int)(sizeof bw / sizeof *bw),
	       "context: the copy peak from the row's fraction of it where none was measured, at 0.6 and at 1, none at 0");
}

/* a fence's indentation (up to three spaces; four make code), its
 * backticks (at least three; a closing one at least the opening's) and
 * what may follow a closing one (blanks only), each at its limit and one
 * past, for the kernel, the launch config and the notes alike */
static void t_fence_limits(void)
{
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT, reply = STRBUF_INIT;

	strbuf_addf(&reply, "```python\n%s   ```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0,
	       "fences: a closing fence indented by three spaces closes the block");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s    ```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "is not closed"),
	       "fences: a closing fence indented by four spaces is code: the block is not closed");
	strbuf_reset(&reply);
	strbuf_addstr(&reply, "   ```python\n   def " K "(a):\n       return a\n   ```\n");
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, "def " K "(a):\n    return a\n") == 0,
	       "fences: a block opened three spaces in loses three spaces of each line");
	strbuf_reset(&reply);
	strbuf_addstr(&reply, "    ```python\n    def " K "(a):\n        return a\n    ```\n");
	TAP_OK(ex(reply.buf, &out, &e) == -1 && strcmp(e.buf, "llm: the reply has no fenced code block") == 0,
	       "fences: lines four spaces in are an indented code block, no fence");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "``python\n%s``\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && strcmp(e.buf, "llm: the reply has no fenced code block") == 0,
	       "fences: two backticks open no block");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s````\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0,
	       "fences: four backticks close a block opened with three");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "````python\n%s```\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "is not closed"),
	       "fences: three backticks do not close a block opened with four");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s``` \t\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == 0 && strcmp(out.buf, src) == 0,
	       "fences: blanks after a closing fence");
	strbuf_reset(&reply);
	strbuf_addf(&reply, "```python\n%s``` x\n", src);
	TAP_OK(ex(reply.buf, &out, &e) == -1 && has(e.buf, "is not closed"),
	       "fences: a word after the backticks is no closing fence");

	/* the error names the first three other definitions, not a fourth */
	strbuf_reset(&reply);
	strbuf_addstr(&reply, "```python\ndef a(x):\n    pass\ndef b(x):\n    pass\ndef c(x):\n    pass\n"
			      "def d(x):\n    pass\n```\n");
	TAP_OK(ex(reply.buf, &out, &e) == -1 &&
	       strcmp(e.buf, "llm: no fenced python block in the reply defines `def " K "(` "
			     "(found `def a(`, `def b(`, `def c(`)") == 0,
	       "no kernel defined: of four other definitions the error names the first three");

	json_t *c = NULL;
	TAP_OK(llm_extract_config("   ```json\n{\"num_warps\": 4}\n   ```\n", &c, &e) == 1 &&
	       json_integer_value(json_object_get(c, "num_warps")) == 4,
	       "fences: a json block opened and closed three spaces in is the config");
	json_decref(c);
	c = NULL;
	strbuf_reset(&e);
	TAP_OK(llm_extract_config("```json\n{\"num_warps\": 4}\n    ```\n", &c, &e) == 0 && !c,
	       "fences: a json block whose closing fence is four spaces in is never closed: no config");
	json_decref(c);
	c = NULL;
	TAP_OK(llm_extract_config("    ```json\n    {\"num_warps\": 4}\n    ```\n", &c, &e) == 0 && !c,
	       "fences: a json block four spaces in is no block: no config");
	json_decref(c);

	struct strbuf a = STRBUF_INIT, z = STRBUF_INIT;
	llm_extract_notes("```python\nAvoid: inside\n   ```\nAvoid: after\n", &a, &z);
	TAP_OK(strcmp(a.buf ? a.buf : "", "after") == 0, "fences: a note after a block closed three spaces in is read");
	strbuf_reset(&a);
	llm_extract_notes("```python\nAvoid: inside\n    ```\nAvoid: after\n", &a, &z);
	TAP_OK(a.len == 0, "fences: a note after a closing line four spaces in is still inside the block");
	strbuf_reset(&a);
	llm_extract_notes("    ```python\nAvoid: outside\n", &a, &z);
	TAP_OK(strcmp(a.buf ? a.buf : "", "outside") == 0, "fences: a note after a line four spaces in is read");
	strbuf_release(&a);
	strbuf_release(&z);
	strbuf_release(&reply);
	strbuf_release(&out);
	strbuf_release(&e);
}

/* the report's line of LLM use: calls and tokens per model, the money of
 * each priced model at the spec's prices, and the sum where every model
 * is priced */
static void t_usage(void)
{
	struct kopt_agents cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_CODER].llm = (struct kopt_llm){ .model = (char *)"big", .price_in = 3, .price_out = 15,
							    .price_cached = 0.3 };
	cfg.roles[KOPT_ROLE_TUNER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_TUNER].llm = (struct kopt_llm){ .model = (char *)"small", .price_in = 1, .price_out = 2 };
	json_t *c1 = json_loads("{\"llm\":{\"usage\":[{\"model\":\"big\",\"calls\":2,\"in\":100000,\"cached\":40000,"
				"\"out\":20000},{\"model\":\"small\",\"calls\":1,\"in\":500000,\"cached\":0,\"out\":100000}]}}",
				0, NULL);
	json_t *c2 = json_loads("{\"llm\":{\"usage\":[{\"model\":\"big\",\"calls\":1,\"in\":50000,\"cached\":0,"
				"\"out\":10000}]}}", 0, NULL);
	struct agent_usage u = { 0 };
	agent_usage_add(&u, c1);
	agent_usage_add(&u, c2);
	struct strbuf md = STRBUF_INIT;
	agent_usage_line(&u, &cfg, &md);
	/* big: (150000 - 40000) x 3 + 40000 x 0.3 + 30000 x 15 per million = 0.33 + 0.012 + 0.45 = 0.792;
	 * small: 500000 x 1 + 100000 x 2 per million = 0.70 */
	TAP_IS_STR(md.buf, "LLM use: big, 3 calls, 150000 tokens in (40000 of them from the provider's cache), 30000 out, "
			   "$0.79; small, 1 call, 500000 tokens in (0 of them from the provider's cache), 100000 out, $0.70; "
			   "$1.49 in all (at the spec's prices).\n",
		   "LLM use: each model's calls, tokens and money, and their sum");
	cfg.roles[KOPT_ROLE_TUNER].llm.price_in = 0;
	cfg.roles[KOPT_ROLE_TUNER].llm.price_out = 0;
	strbuf_reset(&md);
	agent_usage_line(&u, &cfg, &md);
	TAP_OK(strstr(md.buf, "30000 out, $0.79; small, 1 call") && strstr(md.buf, "100000 out.\n") && !strstr(md.buf, "in all"),
	       "a model without prices: no money for it, and no sum");
	strbuf_release(&md);
	agent_usage_release(&u);
	json_decref(c1);
	json_decref(c2);
}

int main(void)
{
	t_prompt();
	t_extract();
	t_fence_limits();
	t_def_line();
	t_reason();
	t_made_by();
	t_units();
	t_reply_config();
	t_state();
	t_fresh();
	t_budget_edges();
	t_wire();
	t_grid();
	t_datasheet_peaks();
	t_spills();
	t_reply();
	t_budget();
	t_context();
	t_usage();
	return tap_done();
}
