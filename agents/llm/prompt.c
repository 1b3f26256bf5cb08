/*
 * agents/llm/prompt.c: the kernel-writing prompt, and what is taken from a
 * reply: the kernel module, a launch config, the notes.
 *
 * The user prompt is Markdown in two parts. The context comes first and is
 * the same for every round of a kernel (the coder renders it once, for
 * candidate 0, and every later round sends those bytes again), so that a
 * provider's prompt cache holds it: Anthropic's cache_control marks its end,
 * and OpenAI-compatible servers that cache prefixes (OpenAI, vLLM with
 * prefix caching) find it by itself. A round's part follows.
 *
 *   context                                             cut
 *     # Speed up the Triton kernel `NAME`                never
 *     ## Device: name, compute capability, SMs, memory,  never
 *        measured copy bandwidth, FP32 peak, balance
 *     ## Launch: config and grid                         never
 *        its arguments' shapes and dtypes, ATen ops       4th
 *        compile metadata (registers, spills,             1st
 *        occupancy), where the worker sends it
 *     ## Profile: time, share, bytes, bandwidth, FLOPs,   never
 *        the bound and how far from it
 *     ## Diagnosis (analyst)                              5th
 *     ## Lessons from other kernels of this class         2nd
 *     ## Kernel module as Inductor generated it (or as    never
 *        the model's source defines it, a standalone one)
 *     ## Rules                                            never
 *   round
 *     ## Best so far: label, speedup, time, config,       never
 *        its source
 *     ## Attempts so far, newest first: the newest three  4th
 *        older ones                                       1st
 *     ## Your notes from the last round                   3rd
 *     ## Strategy to apply (planner)                      2nd
 *     ## Repair ...: the failed candidate, gate, reason   never
 *     ## Task: what to write and the answer's format      never
 *
 * Each part keeps within its budget (tokens estimated from bytes, four a
 * token) by leaving out whole sections, least important first: the order
 * in the right column, the context's and the round's counted apart. The
 * context's budget is the prompt's less room for a round (a best
 * candidate of the source's size and LLM_ROUND_ROOM); the round's is what
 * the context leaves. Sections marked never are sent whatever their size.
 *
 * Extraction follows CommonMark's fenced code blocks closely enough for model
 * output: an opening line of three or more backticks indented by at most
 * three spaces with an info string whose first word is empty, "python",
 * "python3" or "py"; content lines lose up to that indentation; a closing
 * line of at least as many backticks. The kernel's block is one with a line
 * `def <name>(` at column 0 (blanks allowed before the parenthesis). A
 * launch config is the last ```json block; the notes are the last lines
 * outside the blocks that start "Avoid:" and "Prioritize:".
 */
#define _POSIX_C_SOURCE 200809L
#include "../roof.h"
#include "../llm.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char llm_system_text[] =
	"You are an expert GPU kernel engineer. You rewrite Triton kernels that "
	"PyTorch Inductor generated so that they run faster on the given GPU while "
	"computing the same results, within the tolerances of the original. Your "
	"kernel replaces Inductor's inside Inductor's own wrapper code, which "
	"launches it with the same arguments and grid as before. A candidate that "
	"changes the results, the signature or the launch contract is rejected by "
	"automatic gates. Answer with the whole kernel module in one fenced python "
	"code block.";

const char *llm_prompt_system(void)
{
	return llm_system_text;
}

long llm_tokens_of(size_t bytes)
{
	return (long)((bytes + 3) / 4);
}

/* the longest run of backticks in s, to pick a fence that cannot close early */
static size_t llm_backtick_run(const char *s)
{
	size_t best = 0, run = 0;
	for (; s && *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

static void llm_add_fenced(struct strbuf *out, const char *code)
{
	size_t n = llm_backtick_run(code) + 1;
	if (n < 3)
		n = 3;
	for (size_t i = 0; i < n; i++)
		strbuf_addch(out, '`');
	strbuf_addstr(out, "python\n");
	strbuf_addstr(out, code);
	if (!*code || code[strlen(code) - 1] != '\n')
		strbuf_addch(out, '\n');
	for (size_t i = 0; i < n; i++)
		strbuf_addch(out, '`');
	strbuf_addch(out, '\n');
}

void llm_add_bytes(struct strbuf *out, double b)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	size_t u = 0;
	while (b >= 1000 && u + 1 < sizeof unit / sizeof unit[0]) {
		b /= 1000;
		u++;
	}
	strbuf_addf(out, u ? "%.2f %s" : "%.0f %s", b, unit[u]);
}

/* a count with a metric prefix: "117.4 M" */
static void llm_add_count(struct strbuf *out, double v)
{
	static const char *const unit[] = { "", "K", "M", "G", "T", "P" };
	size_t u = 0;
	while (v >= 1000 && u + 1 < sizeof unit / sizeof unit[0]) {
		v /= 1000;
		u++;
	}
	strbuf_addf(out, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void llm_add_section(struct strbuf *out, const char *title, const char *text)
{
	if (!text || !*text)
		return;
	strbuf_addf(out, "\n## %s\n\n%s", title, text);
	if (text[strlen(text) - 1] != '\n')
		strbuf_addch(out, '\n');
}

/* ---- sections and the budget ---- */

/* one piece of a part; cut: 0 never, else the order it goes in (1 first) */
struct llm_piece {
	struct strbuf text;
	int cut;
};

#define LLM_MAX_PIECES 16

struct llm_part {
	struct llm_piece p[LLM_MAX_PIECES];
	size_t n;
};

/* a new piece of part t, to be written into; cut as in struct llm_piece */
static struct strbuf *llm_piece(struct llm_part *t, int cut)
{
	struct llm_piece *p = &t->p[t->n++];
	strbuf_init(&p->text);
	p->cut = cut;
	return &p->text;
}

static size_t llm_part_len(const struct llm_part *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->p[i].text.len;
	return n;
}

/* leaves out pieces, least important first, until the part has at most
 * max bytes or nothing more may go; max 0: no limit */
static void llm_part_fit(struct llm_part *t, size_t max)
{
	while (max && llm_part_len(t) > max) {
		struct llm_piece *drop = NULL;
		for (size_t i = 0; i < t->n; i++)
			if (t->p[i].cut && t->p[i].text.len && (!drop || t->p[i].cut < drop->cut))
				drop = &t->p[i];
		if (!drop)
			return;
		strbuf_release(&drop->text);
	}
}

static void llm_part_emit(struct llm_part *t, struct strbuf *out)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->p[i].text.len)
			strbuf_add(out, t->p[i].text.buf, t->p[i].text.len);
		strbuf_release(&t->p[i].text);
	}
	t->n = 0;
}

/* ---- the context ---- */

static void llm_device(const struct llm_kernel_prompt *p, struct strbuf *sb)
{
	if (p->device && *p->device) {
		strbuf_addf(sb, "- device: %s", p->device);
		const char *sep = " (";
		if (p->device_cc && *p->device_cc) {
			strbuf_addf(sb, "%scompute capability %s", sep, p->device_cc);
			sep = ", ";
		}
		if (p->sms > 0) {
			strbuf_addf(sb, "%s%d SMs", sep, p->sms);
			sep = ", ";
		}
		if (p->memory_gib > 0) {
			strbuf_addf(sb, "%s%.1f GiB", sep, p->memory_gib);
			sep = ", ";
		}
		strbuf_addstr(sb, sep[0] == ',' ? ")\n" : "\n");
	}
	if (p->peak_gbs > 0 || p->peak_tflops > 0) {
		strbuf_addstr(sb, "- peaks:");
		if (p->peak_gbs > 0)
			strbuf_addf(sb, " copy bandwidth %.0f GB/s (measured)", p->peak_gbs);
		if (p->peak_tflops > 0)
			strbuf_addf(sb, "%s FP32 %.1f TFLOP/s (%s)", p->peak_gbs > 0 ? "," : "", p->peak_tflops,
				    p->peak_measured ? "measured" : "datasheet");
		if (p->peak_gbs > 0 && p->peak_tflops > 0)
			strbuf_addf(sb, "; balance %.1f FLOP per byte", p->peak_tflops * 1e3 / p->peak_gbs);
		strbuf_addch(sb, '\n');
	}
}

/* the bound: memory or compute, and how far from it (agent_bound_of) */
static void llm_bound(const struct llm_kernel_prompt *p, struct strbuf *sb)
{
	if (p->flops <= 0 || p->bytes <= 0 || p->time_us <= 0 || p->peak_gbs <= 0 || p->peak_tflops <= 0)
		return;
	struct agent_bound b;
	/* bytes (its arguments', or the fewer DRAM bytes the counters saw it
	 * move: agent_bound) and FLOPs per launch, the time per call */
	bool counted = p->dram_bytes > 0;
	agent_bound_of(true, p->time_us * 1e3, p->calls > 0 ? (double)p->calls : 1, agent_bound_bytes(p->bytes, p->dram_bytes),
		       p->flops, p->peak_gbs, p->peak_tflops * 1e3, &b);
	bool mem = strcmp(b.binds, "memory") == 0;
	/* memory: the row's achieved bandwidth over the copy bandwidth, where
	 * sent and nothing better was counted */
	double frac = mem && p->achieved_gbs > 0 && !counted ? p->achieved_gbs / p->peak_gbs : b.frac;
	if (mem && frac > 1.05 && !counted) {
		strbuf_addf(sb, "- bound: not known: its arguments' bytes would move at %.0f%% of the copy "
			    "bandwidth, so it reads or writes only part of them\n", 100 * frac);
		return;
	}
	if (mem)
		strbuf_addf(sb, "- bound: memory (%.2f FLOP per byte, below the balance); at %.0f%% of the copy "
			    "bandwidth, at most %.2fx faster there", b.intensity, 100 * frac, 1 / frac);
	else
		strbuf_addf(sb, "- bound: compute (%.2f FLOP per byte, above the balance); at %.0f%% of the FP32 peak",
			    b.intensity, 100 * frac);
	strbuf_addch(sb, '\n');
}

static void llm_profile(const struct llm_kernel_prompt *p, struct strbuf *sb)
{
	struct strbuf prof = STRBUF_INIT;
	if (p->time_us >= 0) {
		strbuf_addf(&prof, "- time per call: %.2f us", p->time_us);
		if (p->calls > 0)
			strbuf_addf(&prof, ", %ld calls per model run", p->calls);
		strbuf_addch(&prof, '\n');
	}
	if (p->share >= 0)
		strbuf_addf(&prof, "- share of the model's GPU time: %.1f%%\n", p->share * 100.0);
	if (p->bytes >= 0) {
		strbuf_addstr(&prof, "- bytes moved per call: ");
		llm_add_bytes(&prof, p->bytes);
		strbuf_addstr(&prof, p->bytes > 0 ? " (its arguments' sizes, one read and written in place twice)\n" : "\n");
	}
	if (p->dram_bytes > 0) {
		strbuf_addstr(&prof, "- DRAM bytes per launch, the GPU's counters: ");
		llm_add_bytes(&prof, p->dram_bytes);
		double t = p->bytes > 0 ? p->dram_bytes / p->bytes : 0;
		if (t >= AGENT_REREAD)
			strbuf_addf(&prof, " (%.2fx its arguments': it reads or writes something again; a single pass "
					   "or a fusion cuts that)\n", t);
		else if (t > 0)
			strbuf_addf(&prof, " (%.2fx its arguments')\n", t);
		else
			strbuf_addch(&prof, '\n');
	}
	if (p->achieved_gbs >= 0) {
		strbuf_addf(&prof, "- achieved bandwidth: %.0f GB/s", p->achieved_gbs);
		if (p->peak_gbs > 0)
			strbuf_addf(&prof, " of a measured peak of %.0f GB/s (%.0f%%)", p->peak_gbs,
				    100.0 * p->achieved_gbs / p->peak_gbs);
		strbuf_addch(&prof, '\n');
	}
	if (p->flops > 0) {
		strbuf_addstr(&prof, "- FLOPs per launch: about ");
		llm_add_count(&prof, p->flops);
		strbuf_addstr(&prof, "FLOP");
		if (p->flops_how && *p->flops_how)
			strbuf_addf(&prof, " (%s)", p->flops_how);
		strbuf_addch(&prof, '\n');
	}
	llm_bound(p, &prof);
	if (prof.len)
		strbuf_addf(sb, "\n## Profile\n\n%s", prof.buf);
	strbuf_release(&prof);
}

void llm_prompt_context(const struct llm_kernel_prompt *p, struct strbuf *out)
{
	const char *name = p->kernel_name ? p->kernel_name : "";
	struct llm_part t = { .n = 0 };
	struct strbuf *sb = llm_piece(&t, 0);

	strbuf_addf(sb, "# Speed up the Triton kernel `%s`\n", name);
	if (p->heuristic && strcmp(p->heuristic, "jit") == 0)
		strbuf_addstr(sb, "\nA standalone Triton kernel, launched by the model's own code.\n");
	else if (p->heuristic && *p->heuristic)
		strbuf_addf(sb, "\nInductor generated it for a PyTorch model (its heuristic: %s).\n", p->heuristic);

	struct strbuf dev = STRBUF_INIT;
	llm_device(p, &dev);
	if (dev.len)
		strbuf_addf(sb, "\n## Device\n\n%s", dev.buf);
	strbuf_release(&dev);

	/* the section's heading goes with its first piece that has lines */
	static const char launch[] = "\n## Launch\n\n";
	bool head = false;
	if ((p->config && *p->config) || (p->grid && *p->grid)) {
		strbuf_addstr(sb, launch);
		head = true;
	}
	if (p->config && *p->config)
		strbuf_addf(sb, "- launch config: %s\n", p->config);
	if (p->grid && *p->grid)
		strbuf_addf(sb, "- grid: %s programs\n", p->grid);
	sb = llm_piece(&t, 4);
	if ((p->args && *p->args) || (p->aten && *p->aten)) {
		strbuf_addstr(sb, head ? "" : launch);
		if (p->args && *p->args)
			strbuf_addf(sb, "- tensor arguments: %s\n", p->args);
		if (p->aten && *p->aten)
			strbuf_addf(sb, "- implements the ATen ops: %s\n", p->aten);
		head = true;
	}
	sb = llm_piece(&t, 1);
	if (p->registers > 0)
	{
		strbuf_addf(sb, "%s- compiled: %ld registers per thread, %ld spilled", head ? "" : launch, p->registers,
			    p->spills > 0 ? p->spills : 0);
		if (p->occupancy > 0)
			strbuf_addf(sb, "; occupancy %.0f%% (resident warps of an SM's most)", 100 * p->occupancy);
		strbuf_addch(sb, '\n');
	}

	sb = llm_piece(&t, 0);
	llm_profile(p, sb);
	llm_add_section(llm_piece(&t, 5), "Diagnosis (analyst)", p->diagnosis);
	llm_add_section(llm_piece(&t, 2), "Lessons from other kernels of this class (long-term memory)", p->lessons);

	sb = llm_piece(&t, 0);
	bool jit = p->heuristic && strcmp(p->heuristic, "jit") == 0;
	strbuf_addstr(sb, jit ? "\n## Kernel module as the model's source defines it\n\n"
			      : "\n## Kernel module as Inductor generated it\n\n");
	llm_add_fenced(sb, p->source ? p->source : "");
	strbuf_addf(sb,
		"\n## Rules\n\n"
		"1. Keep the kernel's name `%s`, its parameters (names, order, `tl.constexpr` "
		"parameters) and its decorators (`@triton_heuristics...` with its `triton_meta` "
		"and `inductor_meta` unchanged, then `@triton.jit`), so that it slots into "
		"Inductor's wrapper, which launches it with the same arguments and grid. "
		"Decorator arguments are literals only.\n"
		"2. Use only `triton`, `triton.language as tl` and Inductor's runtime helpers "
		"imported at the top of the module (`triton_helpers`, `triton_heuristics`, "
		"`libdevice`, `tl_math`, the hints); add no other imports.\n"
		"3. No `try`/`except`, no printing, no inline assembly, no string formatting, no "
		"file, network or process I/O, no global state.\n"
		"4. Compute the same values for every element; keep the output dtypes. Every "
		"`tl.load` and `tl.store` keeps a mask at least as strict as the original's "
		"(the same bounds, such as `xindex < xnumel`).\n"
		"5. Return exactly one fenced ```python block with the whole kernel module "
		"(imports, decorators and the kernel), or none when you change only the launch "
		"config; keep any explanation short and outside it.\n",
		name);

	long max = p->max_tokens > 0 ? p->max_tokens - llm_tokens_of(p->source ? strlen(p->source) : 0) - LLM_ROUND_ROOM
				     : 0;
	llm_part_fit(&t, max > 0 ? (size_t)max * 4 : p->max_tokens > 0 ? 1 : 0);
	llm_part_emit(&t, out);
}

/* ---- a round ---- */

static void llm_best(const struct llm_kernel_prompt *p, struct strbuf *sb)
{
	strbuf_addf(sb, "\n## Best so far\n\n%s, passed every gate at %.3fx the original kernel's speed",
		    p->best_label, p->best_speedup);
	if (p->best_us > 0 && p->best_base_us > 0)
		strbuf_addf(sb, " (%.2f us per call against %.2f us)", p->best_us, p->best_base_us);
	else if (p->best_us > 0)
		strbuf_addf(sb, " (%.2f us per call)", p->best_us);
	if (p->best_config && *p->best_config)
		strbuf_addf(sb, ", with the launch config %s", p->best_config);
	else
		strbuf_addstr(sb, ", with Inductor's launch config");
	if (p->best) {
		strbuf_addstr(sb, ". Its source:\n\n");
		llm_add_fenced(sb, p->best);
	} else {
		strbuf_addstr(sb, "; its source is Inductor's, above.\n");
	}
}

void llm_prompt_round(const struct llm_kernel_prompt *p, size_t context_len, struct strbuf *out)
{
	const char *name = p->kernel_name ? p->kernel_name : "";
	bool repair = p->candidate != NULL;
	struct llm_part t = { .n = 0 };
	struct strbuf *sb = llm_piece(&t, 0);

	if (p->best_label)
		llm_best(p, sb);
	if (p->nattempts) {
		size_t recent = p->nattempts < 3 ? p->nattempts : 3;
		sb = llm_piece(&t, 4);
		strbuf_addstr(sb, "\n## Attempts so far\n\nNewest first; a time is the kernel's median per call.\n");
		for (size_t i = 0; i < recent; i++)
			strbuf_addf(sb, "%s\n", p->attempts[i]);
		sb = llm_piece(&t, 1);
		for (size_t i = recent; i < p->nattempts; i++)
			strbuf_addf(sb, "%s\n", p->attempts[i]);
	}
	size_t older = t.n - 1;
	llm_add_section(llm_piece(&t, 3), "Your notes from the last round", p->notes);
	llm_add_section(llm_piece(&t, 2), "Strategy to apply (planner)", p->strategy);

	sb = llm_piece(&t, 0);
	if (repair) {
		strbuf_addstr(sb, "\n## Repair the candidate that failed\n\n");
		strbuf_addf(sb, "It failed the `%s` gate", p->gate && *p->gate ? p->gate : "?");
		if (p->gate_reason && *p->gate_reason)
			strbuf_addf(sb, ": %s", p->gate_reason);
		strbuf_addstr(sb, "\n\n");
		llm_add_fenced(sb, p->candidate);
		strbuf_addstr(sb, "\nFix the cause of this failure and keep the speed-up; "
			      "if the strategy cannot work for this kernel, return the original "
			      "kernel module unchanged.\n");
	}
	strbuf_addstr(sb, "\n## Task\n\n");
	if (repair)
		strbuf_addf(sb, "Repair the candidate above so that `%s` passes every gate.", name);
	else if (p->best)
		strbuf_addf(sb, "Make `%s` faster than the best so far: start from its source, not from "
			    "Inductor's, and keep what made it fast.", name);
	else if (p->best_label)
		strbuf_addf(sb, "Make `%s` faster than the best so far: start from Inductor's source with its "
			    "launch config.", name);
	else
		strbuf_addf(sb, "Make `%s` faster.", name);
	strbuf_addstr(sb, " Answer with the whole kernel module in one fenced python block. To run it (or "
		      "Inductor's kernel, when you change only the launch config) with a launch config of its "
		      "own, add one fenced json block holding an object with the keys of the launch config above, "
		      "e.g. {\"XBLOCK\": 1, \"num_warps\": 8, \"num_stages\": 1}. End with two lines of one sentence "
		      "each, which the next round will read: `Avoid: ...` (what not to try again) and "
		      "`Prioritize: ...` (what to try next).\n");

	long ctx = llm_tokens_of(context_len);
	long max = p->max_tokens > 0 ? p->max_tokens - ctx : 0;
	llm_part_fit(&t, max > 0 ? (size_t)max * 4 : p->max_tokens > 0 ? 1 : 0);
	/* the older attempts went: say so */
	if (p->nattempts > 3 && !t.p[older].text.len && t.p[older - 1].text.len)
		strbuf_addf(&t.p[older - 1].text, "- (%zu older attempts left out for space)\n", p->nattempts - 3);
	llm_part_emit(&t, out);
}

size_t llm_prompt_kernel(const struct llm_kernel_prompt *p, struct strbuf *out)
{
	size_t start = out->len;
	llm_prompt_context(p, out);
	size_t n = out->len - start;
	llm_prompt_round(p, n, out);
	return n;
}

/* ---- extraction ---- */

struct llm_line {
	const char *s;
	size_t len; /* without the newline */
};

static bool llm_next_line(const char **p, struct llm_line *l)
{
	if (!**p)
		return false;
	const char *nl = strchr(*p, '\n');
	l->s = *p;
	l->len = nl ? (size_t)(nl - *p) : strlen(*p);
	if (l->len && l->s[l->len - 1] == '\r')
		l->len--;
	*p = nl ? nl + 1 : *p + strlen(*p);
	return true;
}

/* a fence line: indentation (<= 3 spaces), backtick count and info word; false if not one */
static bool llm_fence(const struct llm_line *l, size_t *indent, size_t *ticks,
		      const char **info, size_t *info_len)
{
	size_t i = 0;
	while (i < l->len && i < 4 && l->s[i] == ' ')
		i++;
	if (i > 3)
		return false;
	*indent = i;
	size_t t = 0;
	while (i < l->len && l->s[i] == '`') {
		i++;
		t++;
	}
	if (t < 3)
		return false;
	*ticks = t;
	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	size_t w = i;
	while (w < l->len && !isspace((unsigned char)l->s[w]))
		w++;
	*info = l->s + i;
	*info_len = w - i;
	/* a backtick in the info string means it is no fence (CommonMark) */
	return memchr(l->s + i, '`', l->len - i) == NULL;
}

static bool llm_is_closing(const struct llm_line *l, size_t ticks)
{
	size_t i = 0, t = 0;
	while (i < l->len && i < 4 && l->s[i] == ' ')
		i++;
	if (i > 3)
		return false;
	while (i < l->len && l->s[i] == '`') {
		i++;
		t++;
	}
	if (t < ticks)
		return false;
	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	return i == l->len;
}

static bool llm_python_info(const char *info, size_t n)
{
	return n == 0 || (n == 6 && strncasecmp(info, "python", 6) == 0) ||
	       (n == 7 && strncasecmp(info, "python3", 7) == 0) ||
	       (n == 2 && strncasecmp(info, "py", 2) == 0);
}

/* the name defined by a "def NAME(" line at column 0, or 0 */
static size_t llm_def_name(const char *s, size_t len, const char **name)
{
	if (len < 5 || strncmp(s, "def", 3) != 0 || (s[3] != ' ' && s[3] != '\t'))
		return 0;
	size_t i = 3;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t b = i;
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
		i++;
	size_t e = i;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (e == b || i >= len || s[i] != '(')
		return 0;
	*name = s + b;
	return e - b;
}

int llm_extract_kernel(const char *reply_text, const char *kernel_name,
		       struct strbuf *out, struct strbuf *err)
{
	const char *p = reply_text ? reply_text : "";
	size_t klen = strlen(kernel_name);
	struct strbuf cur = STRBUF_INIT, best = STRBUF_INIT, others = STRBUF_INIT;
	bool in = false, python = false, defines = false, found = false, open_defines = false;
	size_t indent = 0, ticks = 0, nblocks = 0, nothers = 0;
	struct llm_line l;

	while (llm_next_line(&p, &l)) {
		if (!in) {
			const char *info;
			size_t ilen;
			if (llm_fence(&l, &indent, &ticks, &info, &ilen)) {
				in = true;
				python = llm_python_info(info, ilen);
				defines = false;
				strbuf_reset(&cur);
			}
			continue;
		}
		if (llm_is_closing(&l, ticks)) {
			in = false;
			nblocks++;
			if (python && defines) {
				strbuf_reset(&best);
				strbuf_add(&best, cur.buf, cur.len);
				found = true;
			}
			continue;
		}
		size_t k = 0;
		while (k < indent && k < l.len && l.s[k] == ' ')
			k++;
		const char *s = l.s + k;
		size_t n = l.len - k;
		const char *dn;
		size_t dlen = llm_def_name(s, n, &dn);
		if (dlen == klen && strncmp(dn, kernel_name, klen) == 0) {
			defines = true;
		} else if (dlen && python && nothers < 3) {
			strbuf_addf(&others, "%s`def %.*s(`", nothers ? ", " : "", (int)dlen, dn);
			nothers++;
		}
		strbuf_add(&cur, s, n);
		strbuf_addch(&cur, '\n');
	}
	if (in) {
		nblocks++;
		open_defines = python && defines;
	}

	int rc = -1;
	if (open_defines) {
		strbuf_addf(err, "llm: the code block defining `def %s(` is not closed (reply truncated?)",
			    kernel_name);
	} else if (found) {
		strbuf_add(out, best.buf, best.len);
		rc = 0;
	} else if (nblocks == 0) {
		strbuf_addstr(err, "llm: the reply has no fenced code block");
	} else {
		strbuf_addf(err, "llm: no fenced python block in the reply defines `def %s(`", kernel_name);
		if (nothers)
			strbuf_addf(err, " (found %s)", others.buf);
	}
	strbuf_release(&cur);
	strbuf_release(&best);
	strbuf_release(&others);
	return rc;
}

/* ---- a launch config and the notes ---- */

int llm_extract_config(const char *reply_text, json_t **config, struct strbuf *err)
{
	const char *p = reply_text ? reply_text : "";
	struct strbuf cur = STRBUF_INIT, last = STRBUF_INIT;
	bool in = false, json = false, found = false;
	size_t indent = 0, ticks = 0;
	struct llm_line l;

	*config = NULL;
	while (llm_next_line(&p, &l)) {
		if (!in) {
			const char *info;
			size_t ilen;
			if (llm_fence(&l, &indent, &ticks, &info, &ilen)) {
				in = true;
				json = ilen == 4 && strncasecmp(info, "json", 4) == 0;
				strbuf_reset(&cur);
			}
			continue;
		}
		if (llm_is_closing(&l, ticks)) {
			in = false;
			if (json) {
				strbuf_reset(&last);
				strbuf_add(&last, cur.buf ? cur.buf : "", cur.len);
				found = true;
			}
			continue;
		}
		strbuf_add(&cur, l.s, l.len);
		strbuf_addch(&cur, '\n');
	}
	int rc = 0;
	if (found) {
		json_error_t je;
		json_t *j = json_loadb(last.len ? last.buf : "", last.len, 0, &je);
		if (json_is_object(j)) {
			*config = j;
			rc = 1;
		} else {
			json_decref(j);
			strbuf_addf(err, "llm: the reply's json block is not a JSON object%s%s", j ? "" : ": ",
				    j ? "" : je.text);
			rc = -1;
		}
	}
	strbuf_release(&cur);
	strbuf_release(&last);
	return rc;
}

/* the text after "word:" at the start of a line set off as a list item or
 * in bold, or NULL */
static const char *llm_note_of(const struct llm_line *l, const char *word, size_t *len)
{
	const char *s = l->s, *end = l->s + l->len;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '-' || *s == '*' || *s == '>' || *s == '_'))
		s++;
	size_t w = strlen(word);
	if ((size_t)(end - s) < w + 1 || strncasecmp(s, word, w) != 0)
		return NULL;
	s += w;
	while (s < end && (*s == '*' || *s == '_'))
		s++;
	if (s == end || *s != ':')
		return NULL;
	s++;
	while (s < end && (*s == '*' || *s == '_' || *s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '*' || end[-1] == '_'))
		end--;
	*len = (size_t)(end - s);
	return s;
}

/* sets note to s, cut to LLM_NOTE_MAX bytes at a character boundary */
static void llm_set_note(struct strbuf *note, const char *s, size_t n)
{
	if (n > LLM_NOTE_MAX) {
		n = LLM_NOTE_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	strbuf_reset(note);
	strbuf_add(note, s, n);
}

void llm_extract_notes(const char *reply_text, struct strbuf *avoid, struct strbuf *prioritize)
{
	const char *p = reply_text ? reply_text : "";
	struct strbuf a = STRBUF_INIT, z = STRBUF_INIT;
	bool in = false, have_a = false, have_z = false;
	size_t indent = 0, ticks = 0, n;
	struct llm_line l;
	while (llm_next_line(&p, &l)) {
		const char *info, *s;
		size_t ilen;
		if (in) {
			in = !llm_is_closing(&l, ticks);
			continue;
		}
		if (llm_fence(&l, &indent, &ticks, &info, &ilen)) {
			in = true;
			continue;
		}
		if ((s = llm_note_of(&l, "avoid", &n))) {
			llm_set_note(&a, s, n);
			have_a = true;
		} else if ((s = llm_note_of(&l, "prioritize", &n)) || (s = llm_note_of(&l, "prioritise", &n))) {
			llm_set_note(&z, s, n);
			have_z = true;
		}
	}
	if (have_a && a.len)
		strbuf_add(avoid, a.buf, a.len);
	if (have_z && z.len)
		strbuf_add(prioritize, z.buf, z.len);
	strbuf_release(&a);
	strbuf_release(&z);
}
