/*
 * agents/llm/prompt.c: the kernel-writing prompt and the kernel taken from a reply.
 *
 * The user prompt is Markdown: the kernel's name, its profile row, the
 * analyst's diagnosis, the planner's strategy, the source as Inductor wrote
 * it, on repair the candidate that failed with the gate's reason, then the
 * rules the candidate must keep to slot into Inductor's wrapper, and the
 * output contract: exactly one fenced ```python block holding the whole
 * kernel module.
 *
 * Extraction follows CommonMark's fenced code blocks closely enough for model
 * output: an opening line of three or more backticks indented by at most
 * three spaces with an info string whose first word is empty, "python",
 * "python3" or "py"; content lines lose up to that indentation; a closing
 * line of at least as many backticks. The kernel's block is one with a line
 * `def <name>(` at column 0 (blanks allowed before the parenthesis).
 */
#define _POSIX_C_SOURCE 200809L
#include "../llm.h"

#include <ctype.h>
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

static void llm_add_bytes(struct strbuf *out, double b)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	size_t u = 0;
	while (b >= 1000 && u + 1 < sizeof unit / sizeof unit[0]) {
		b /= 1000;
		u++;
	}
	strbuf_addf(out, u ? "%.2f %s" : "%.0f %s", b, unit[u]);
}

static void llm_add_section(struct strbuf *out, const char *title, const char *text)
{
	if (!text || !*text)
		return;
	strbuf_addf(out, "\n## %s\n\n%s", title, text);
	if (text[strlen(text) - 1] != '\n')
		strbuf_addch(out, '\n');
}

void llm_prompt_kernel(const struct llm_kernel_prompt *p, struct strbuf *out)
{
	const char *name = p->kernel_name ? p->kernel_name : "";
	bool repair = p->candidate != NULL;

	strbuf_addf(out, "# %s the Triton kernel `%s`\n", repair ? "Repair a faster version of" : "Speed up", name);

	/* profile row: only what is known */
	struct strbuf prof = STRBUF_INIT;
	if (p->device && *p->device)
		strbuf_addf(&prof, "- device: %s\n", p->device);
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
		strbuf_addch(&prof, '\n');
	}
	if (p->achieved_gbs >= 0) {
		strbuf_addf(&prof, "- achieved bandwidth: %.0f GB/s", p->achieved_gbs);
		if (p->peak_gbs > 0)
			strbuf_addf(&prof, " of a measured peak of %.0f GB/s (%.0f%%)", p->peak_gbs,
				    100.0 * p->achieved_gbs / p->peak_gbs);
		strbuf_addch(&prof, '\n');
	}
	if (prof.len)
		strbuf_addf(out, "\n## Profile\n\n%s", prof.buf);
	strbuf_release(&prof);

	llm_add_section(out, "Diagnosis (analyst)", p->diagnosis);
	llm_add_section(out, "Strategy to apply (planner)", p->strategy);

	strbuf_addstr(out, "\n## Kernel module as Inductor generated it\n\n");
	llm_add_fenced(out, p->source ? p->source : "");

	if (repair) {
		strbuf_addstr(out, "\n## The candidate that failed\n\n");
		strbuf_addf(out, "It failed the `%s` gate", p->gate && *p->gate ? p->gate : "?");
		if (p->gate_reason && *p->gate_reason)
			strbuf_addf(out, ": %s", p->gate_reason);
		strbuf_addstr(out, "\n\n");
		llm_add_fenced(out, p->candidate);
		strbuf_addstr(out, "\nFix the cause of this failure and keep the speed-up; "
			      "if the strategy cannot work for this kernel, return the original "
			      "kernel module unchanged.\n");
	}

	strbuf_addf(out,
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
		"(imports, decorators and the kernel); keep any explanation short and outside it.\n",
		name);
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
