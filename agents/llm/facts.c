/*
 * agents/llm/facts.c: what the coder's prompts tell the model.
 *
 * The context is rendered once, for candidate 0 (the device, launch,
 * profile, diagnosis, the long-term memory's lessons as numbers, the
 * source), and kept in it ("context"), so that every round sends the same
 * bytes first (the providers' prompt caches) and no round reads a
 * measurement or a lesson that candidate 0's did not. A round's part adds
 * the best passing candidate with its speedup and time, the attempts so
 * far with their times and gate reasons, the notes (avoid, prioritize) the
 * model wrote last round, the planner's strategy, and on repair the
 * candidate with its gate's reason; a reason goes in bounded and scrubbed
 * (llm_reason). agents/llm/prompt.c renders both.
 */
#define _GNU_SOURCE
#include <config.h>

#include "facts.h"
#include "trajectory.h"
#include "../features.h"
#include "../memory.h"
#include "../roof.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/sandbox.h"

extern char **environ;

/* ---- the kernel's facts, for the context ---- */

/* FP32 (non-tensor) peaks from the datasheets, TFLOP/s; the first match of
 * the GPU's name wins */
static const struct {
	const char *name;
	double tflops;
} peaks[] = {
	{ "H200 NVL", 60.0 }, { "H200", 67.0 }, { "H100 PCIe", 51.2 }, { "H100", 67.0 },
	{ "A100", 19.5 },     { "L40S", 91.6 },
};

static double peak_tflops(const char *gpu)
{
	for (size_t i = 0; gpu && i < sizeof peaks / sizeof *peaks; i++)
		if (strstr(gpu, peaks[i].name))
			return peaks[i].tflops;
	return 0;
}

static long long cfg_int(const json_t *config, const char *key)
{
	json_t *v = json_object_get(config, key);
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* "(4096, 1, 1)": Inductor's grid, the numels over the blocks */
static char *grid_of(const char *src, const json_t *config)
{
	long long x = agent_src_const(src, "xnumel"), y = agent_src_const(src, "ynumel");
	long long xb = cfg_int(config, "XBLOCK"), yb = cfg_int(config, "YBLOCK");
	if (x <= 0 || xb <= 0 || (y > 0 && yb <= 0))
		return NULL;
	return xasprintf("(%lld, %lld, 1)", (x + xb - 1) / xb, y > 0 ? (y + yb - 1) / yb : 1);
}

/* whether the l bytes at p name a pointer ("in_ptr0", "x_ptr") */
static bool names_ptr(const char *p, size_t l)
{
	for (size_t i = 0; i + 3 <= l; i++)
		if (memcmp(p + i, "ptr", 3) == 0)
			return true;
	return false;
}

/* "in_ptr0 float32[4096, 4096] (67.11 MB), ...": the pointer parameters
 * of the kernel's def line, in order, against the capture's arguments */
static char *args_of(const char *src, const char *name, const json_t *args)
{
	if (!json_array_size(args))
		return NULL;
	char *def = xasprintf("def %s(", name);
	const char *p = src ? strstr(src, def) : NULL;
	const char *names[64];
	size_t lens[64], nn = 0;
	if (p) {
		p += strlen(def);
		const char *end = strchr(p, ')');
		while (p && end && p < end && nn < 64) {
			while (*p == ' ')
				p++;
			size_t l = strcspn(p, ",):");
			while (l && p[l - 1] == ' ')
				l--;
			if (l && names_ptr(p, l))
				names[nn] = p, lens[nn++] = l;
			p = strchr(p, ',');
			p = p && p < end ? p + 1 : NULL;
		}
	}
	free(def);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *a;
	json_array_foreach(args, i, a) {
		if (i)
			strbuf_addstr(&sb, ", ");
		if (nn == json_array_size(args))
			strbuf_addf(&sb, "%.*s ", (int)lens[i], names[i]);
		strbuf_addf(&sb, "%s[", llm_str(a, "dtype") ? llm_str(a, "dtype") : "?");
		size_t j;
		json_t *d;
		json_array_foreach(json_object_get(a, "shape"), j, d)
			strbuf_addf(&sb, "%s%lld", j ? ", " : "", (long long)json_integer_value(d));
		double b = json_number_value(json_object_get(a, "bytes"));
		strbuf_addch(&sb, ']');
		if (b > 0) {
			strbuf_addstr(&sb, " (");
			llm_add_bytes(&sb, b);
			strbuf_addch(&sb, ')');
		}
	}
	return strbuf_detach(&sb);
}

#define MAX_LESSONS 8

/* what the long-term memory holds for k's class from other specs, as
 * Markdown lines with their numbers; NULL when nothing */
static char *lessons_of(const struct agent_kernel *k, const char *memory, const char *scope)
{
	if (!memory)
		return NULL;
	char *features = agent_features(k);
	struct memory m;
	memory_load(&m, memory, features, scope);
	if (!m.n) {
		free(features);
		memory_release(&m);
		return NULL;
	}
	memory_sort(&m);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "What candidates of other specs did on kernels of this class (`%s`; a launch config "
		    "gives R0_BLOCK as a fraction of the reduction's length):\n", features);
	for (size_t i = 0; i < m.n && i < MAX_LESSONS; i++) {
		const struct mem_stat *st = &m.stats[i];
		if (st->strategy[0] == '=')
			strbuf_addf(&sb, "- launch config %s", st->strategy + 1);
		else if (strcmp(st->strategy, "llm") == 0)
			strbuf_addstr(&sb, "- LLM rewrites");
		else
			strbuf_addf(&sb, "- the built-in move `%s`", st->strategy);
		strbuf_addf(&sb, ": passed %d of %d %s", st->wins, st->tries, st->tries == 1 ? "try" : "tries");
		if (st->wins)
			strbuf_addf(&sb, ", mean %.3fx", exp(st->gain / st->wins));
		strbuf_addch(&sb, '\n');
	}
	free(features);
	memory_release(&m);
	return strbuf_detach(&sb);
}

/* a launch config as JSON text, its keys in Inductor's order (the blocks,
 * then warps and stages), the others after them; caller frees */
char *llm_config_json(const json_t *config)
{
	const char *const *order = agent_launch_order;
	json_t *o = json_object();
	for (size_t i = 0; i < AGENT_LAUNCH_NORDER; i++)
		if (json_object_get(config, order[i]))
			json_object_set(o, order[i], json_object_get(config, order[i]));
	json_t *rest = json_deep_copy(config);
	for (size_t i = 0; i < AGENT_LAUNCH_NORDER; i++)
		json_object_del(rest, order[i]);
	char *r = json_dumps(rest, JSON_SORT_KEYS);
	json_decref(rest);
	json_t *sorted = r ? json_loads(r, 0, NULL) : NULL;
	free(r);
	json_object_update(o, sorted);
	json_decref(sorted);
	char *s = json_dumps(o, 0);
	json_decref(o);
	return s;
}

/* the facts of a prompt's context, and the strings made for them */
struct facts {
	struct llm_kernel_prompt p;
	char *config, *grid, *args, *aten, *how;
};

static void facts_fill(struct facts *f, const struct agent_kernel *k)
{
	const json_t *row = k->profile_row, *env = k->env;
	struct llm_kernel_prompt *p = &f->p;
	memset(f, 0, sizeof *f);
	p->kernel_name = k->name;
	p->source = k->source;
	p->heuristic = k->heuristic;
	p->device = llm_str(env, "gpu");
	p->device_cc = llm_str(env, "cc");
	p->sms = (int)json_integer_value(json_object_get(env, "sms"));
	p->memory_gib = json_number_value(json_object_get(env, "memory_gib"));
	double v = json_number_value(json_object_get(row, "ns_per_call"));
	p->time_us = v > 0 ? v / 1e3 : -1;
	v = json_number_value(json_object_get(row, "launches_per_call"));
	p->calls = v > 0 ? lround(v) : -1;
	v = json_number_value(json_object_get(row, "share"));
	p->share = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "bytes"));
	p->bytes = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "achieved_gbps"));
	p->achieved_gbs = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "dram_bytes"));
	p->dram_bytes = v > 0 ? v : 0;
	double frac = json_number_value(json_object_get(row, "frac_peak"));
	p->peak_gbs = k->peak_copy_gbps > 0 ? k->peak_copy_gbps : frac > 0 && p->achieved_gbs > 0 ? p->achieved_gbs / frac : -1;
	if (k->peak_fp32_gflops > 0) {
		p->peak_tflops = k->peak_fp32_gflops / 1e3;
		p->peak_measured = true;
	} else {
		p->peak_tflops = peak_tflops(p->device);
	}
	if (json_is_object(k->config))
		p->config = f->config = llm_config_json(k->config);
	p->grid = f->grid = k->source ? grid_of(k->source, k->config) : NULL;
	p->args = f->args = args_of(k->source, k->name, k->args);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *op;
	json_array_foreach(json_object_get(row, "aten"), i, op)
		if (json_is_string(op))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", json_string_value(op));
	p->aten = f->aten = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
	/* compile metadata, where the worker sent it (PROTOCOL.md, profile) */
	p->registers = (long)json_integer_value(json_object_get(row, "n_regs"));
	p->spills = (long)json_integer_value(json_object_get(row, "n_spills"));
	p->occupancy = json_number_value(json_object_get(row, "occupancy"));
	double flops = agent_flops(k->source, &f->how);
	if (flops > 0) {
		p->flops = flops;
		p->flops_how = f->how;
	}
}

static void facts_release(struct facts *f)
{
	free(f->config);
	free(f->grid);
	free(f->args);
	free(f->aten);
	free(f->how);
}

/* the analyst's text: candidate 0's, else the built-in's or, with an LLM
 * analyst, its reply (one call, for candidate 0) */
char *llm_diagnosis_of(struct llm_run *run, bool call)
{
	const struct agent_request *req = run->req;
	const char *saved = req->ntraj ? llm_str(req->traj[0].candidate, "analysis") : NULL;
	if (saved)
		return xstrdup(saved);
	char *why = NULL;
	run->builtin->analyze(req->kernel, &why);
	if (!call || !agent_role_is_llm(req->cfg, KOPT_ROLE_ANALYST) || req->index > 0)
		return why;
	struct strbuf u = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addf(&u, "Kernel %s, profile: %s\nSay in two sentences whether it is memory- or compute-bound "
		    "and what limits it.\n\n```python\n%s```\n", req->kernel->name, why,
		    req->kernel->source ? req->kernel->source : "");
	if (llm_run_ask(run, KOPT_ROLE_ANALYST, "You analyse GPU kernel profiles.", u.buf, 0, &text, &err) == 0) {
		free(why);
		why = strbuf_detach(&text);
	}
	strbuf_release(&u);
	strbuf_release(&text);
	strbuf_release(&err);
	return why;
}

/* the context of the kernel's prompts: candidate 0's, else rendered now */
char *llm_context_of(struct llm_run *run, const char *diagnosis)
{
	const struct agent_request *req = run->req;
	const char *saved = req->ntraj ? llm_str(req->traj[0].candidate, "context") : NULL;
	if (saved)
		return xstrdup(saved);
	struct facts f;
	facts_fill(&f, req->kernel);
	f.p.diagnosis = diagnosis;
	/* the lessons only for candidate 0: its key holds no memory, and the
	 * later ones read them from it */
	char *lessons = req->index == 0 ? lessons_of(req->kernel, req->memory, req->scope) : NULL;
	f.p.lessons = lessons;
	f.p.max_tokens = llm_coder_cfg(req)->prompt_tokens;
	struct strbuf sb = STRBUF_INIT;
	llm_prompt_context(&f.p, &sb);
	free(lessons);
	facts_release(&f);
	return strbuf_detach(&sb);
}

/* ---- a round's prompt ---- */

/* whether c may be part of a path that starts with '/' */
static bool path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("/._-+@~%", c);
}

char *llm_reason(const char *reason, const char *scope, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb);
	for (const char *c = reason ? reason : ""; *c; c++)
		strbuf_addch(&sb, *c == '\n' || *c == '\r' || *c == '\t' ? ' ' : *c);
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (eq && strlen(eq + 1) >= 4 && sandbox_env_secret(*e, (size_t)(eq - *e)))
			llm_scrub(&sb, eq + 1);
	}
	/* the spec's folder, resolved: paths below it stay */
	char *dir = scope ? xstrdup(scope) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*slash = '\0';
	char *root = dir ? realpath(slash ? dir : ".", NULL) : NULL;
	free(dir);
	size_t rl = root ? strlen(root) : 0;
	struct strbuf out = STRBUF_INIT;
	strbuf_init(&out);
	for (size_t i = 0; i < sb.len;) {
		bool starts = sb.buf[i] == '/' && (i == 0 || !path_char(sb.buf[i - 1])) && i + 1 < sb.len &&
			      path_char(sb.buf[i + 1]);
		if (!starts) {
			strbuf_addch(&out, sb.buf[i++]);
			continue;
		}
		size_t j = i;
		while (j < sb.len && path_char(sb.buf[j]))
			j++;
		if (root && j - i > rl && strncmp(sb.buf + i, root, rl) == 0 && sb.buf[i + rl] == '/')
			strbuf_add(&out, sb.buf + i, j - i);
		else
			strbuf_addstr(&out, "<path>");
		i = j;
	}
	free(root);
	strbuf_release(&sb);
	if (out.len > max) { /* cut on a character's first byte */
		size_t n = max;
		while (n > 0 && ((unsigned char)out.buf[n] & 0xc0) == 0x80)
			n--;
		out.len = n;
		out.buf[n] = '\0';
		strbuf_addstr(&out, "...");
	}
	return strbuf_detach(&out);
}

/* "- c3, tuner: descent x-up (...): pass, 1.189x, 39.27 us" */
char *llm_attempt_line(const struct agent_try *t, const char *scope)
{
	struct strbuf sb = STRBUF_INIT;
	const char *what = llm_str(t->candidate, "strategy");
	strbuf_addf(&sb, "- c%d, %s: ", t->index, what ? what : "?");
	bool pass = t->verdict && strcmp(t->verdict, "pass") == 0;
	if (pass)
		strbuf_addstr(&sb, "pass");
	else if (t->gate)
		strbuf_addf(&sb, "fail at %s", t->gate);
	else
		strbuf_addstr(&sb, t->verdict && strcmp(t->verdict, "fail") == 0 ? "fail" : "no verdict");
	if (t->speedup > 0)
		strbuf_addf(&sb, ", %.3fx", t->speedup);
	if (t->cand_ns > 0)
		strbuf_addf(&sb, ", %.2f us", t->cand_ns / 1e3);
	if (!pass && t->reason && *t->reason) {
		char *r = llm_reason(t->reason, scope, 200);
		strbuf_addf(&sb, ": %s", r);
		free(r);
	}
	return strbuf_detach(&sb);
}

/* the latest notes the model wrote, as prompt text; NULL when none */
static char *notes_of(const struct agent_request *req)
{
	for (size_t i = req->ntraj; i-- > 0;) {
		const json_t *n = json_object_get(req->traj[i].candidate, "notes");
		if (!n)
			continue;
		struct strbuf sb = STRBUF_INIT;
		if (llm_str(n, "avoid"))
			strbuf_addf(&sb, "Avoid: %s\n", llm_str(n, "avoid"));
		if (llm_str(n, "prioritize"))
			strbuf_addf(&sb, "Prioritize: %s\n", llm_str(n, "prioritize"));
		if (sb.len)
			return strbuf_detach(&sb);
		strbuf_release(&sb);
	}
	return NULL;
}

/* the planner's text when it is built in: its ranked moves */
char *llm_builtin_strategy(const struct llm_run *run)
{
	const struct agent_request *req = run->req;
	const json_t *plan = req->ntraj ? json_object_get(req->traj[0].candidate, "plan") : NULL;
	json_t *made = plan ? NULL : run->builtin->plan(req->kernel, req->memory, req->scope, NULL);
	char *ps = json_dumps(plan ? plan : made, JSON_COMPACT);
	char *s = xasprintf("ranked by what paid on similar kernels: %s. These are launch-config moves and edits "
			    "that the built-in search makes itself; a rewrite is worth most where a launch config "
			    "cannot reach.", ps ? ps : "[]");
	free(ps);
	json_decref(made);
	return s;
}

/* appends the prompt of a round to user: the context, then the round's
 * part (the best, the attempts, the notes, the strategy, fix to repair) */
void llm_round_prompt(const struct agent_request *req, const char *context, const char *strategy,
		      const struct agent_try *fix, long max_tokens, struct strbuf *user)
{
	struct llm_kernel_prompt p;
	memset(&p, 0, sizeof p);
	p.kernel_name = req->kernel->name;
	p.source = req->kernel->source;
	p.time_us = p.share = p.bytes = p.achieved_gbs = -1;
	p.max_tokens = max_tokens;
	struct llm_state st;
	llm_state_of(req, &st);
	char *label = NULL, *bcfg = NULL;
	if (st.best >= 0) {
		const struct agent_try *b = &req->traj[st.best];
		const json_t *c = json_object_get(b->candidate, "config");
		p.best = llm_str(b->candidate, "source");
		p.best_config = bcfg = json_is_object(c) ? llm_config_json(c) : NULL;
		p.best_label = label = xasprintf("c%d, %s", b->index, llm_str(b->candidate, "strategy") ? llm_str(b->candidate, "strategy") : "?");
		p.best_speedup = b->speedup;
		p.best_us = b->cand_ns / 1e3;
		p.best_base_us = b->base_ns / 1e3;
	}
	char **lines = xcalloc(req->ntraj + 1, sizeof *lines);
	for (size_t i = 0; i < req->ntraj; i++)
		lines[i] = llm_attempt_line(&req->traj[req->ntraj - 1 - i], req->scope);
	p.attempts = (const char *const *)lines;
	p.nattempts = req->ntraj;
	char *notes = notes_of(req);
	p.notes = notes;
	p.strategy = strategy;
	char *why = NULL;
	if (fix) {
		p.candidate = llm_str(fix->candidate, "source");
		p.gate = fix->gate;
		p.gate_reason = why = fix->reason ? llm_reason(fix->reason, req->scope, 600) : NULL;
	}
	strbuf_addstr(user, context);
	llm_prompt_round(&p, strlen(context), user);
	for (size_t i = 0; i < req->ntraj; i++)
		free(lines[i]);
	free(lines);
	free(notes);
	free(label);
	free(bcfg);
	free(why);
}
