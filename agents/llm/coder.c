/*
 * agents/llm/coder.c: the LLM roles, and how an LLM coder shares a
 * kernel's candidates with the built-in search.
 *
 * With coder = llm(...), candidate i of a kernel comes from the first that
 * applies of:
 *   1. the round's next reply. A round asks the model once for `beam`
 *      replies (parallel calls of one request); the candidate that sent it
 *      (the round's head) takes the first usable reply and carries them all
 *      ("beam"), and the next candidates take the others in turn, leaving
 *      out a reply that repeats an earlier candidate (DESIGN-NOTES.md, "A
 *      round's replies are its head's");
 *   2. at a round's end, when none of its candidates passed and the
 *      debugger is an LLM: the repair of the first that failed gate 1, 2
 *      or 3, once per round;
 *   3. after a round that made a new best, and after each tuner step that
 *      improved on it: the built-in tuner's descent around the best, on
 *      its source (or the LLM tuner, where the spec says so);
 *   4. a new round, while the kernel's LLM budget (calls, tokens, wall
 *      time) lasts and not both of the last two rounds gave nothing that
 *      built;
 *   5. the built-in search (its plan, descent, random jumps): it fills the
 *      budget the LLM leaves, and a candidate it makes says why the model
 *      was not asked ("llm_off").
 * A round whose request fails, or whose replies hold nothing usable, gives
 * its slot to the built-in search; the candidate records the error and
 * what the calls cost.
 *
 * The prompt (agents/llm/prompt.c): its context is rendered once, for
 * candidate 0 (the device, launch, profile, diagnosis, the long-term
 * memory's lessons as numbers, the source), and kept in it ("context"), so
 * that every round sends the same bytes first (the providers' prompt
 * caches) and no round reads a measurement or a lesson that candidate 0's
 * did not. Each round adds the best passing candidate with its speedup and
 * time, the attempts so far with their times and gate reasons, the notes
 * (avoid, prioritize) the model wrote last round, the planner's strategy,
 * and on repair the candidate with its gate's reason (the analyst's
 * diagnosis is in the context).
 *
 * A reply may carry a kernel module, a launch config (a json block whose
 * keys are the kernel's config's) or both; a config with other keys or
 * values out of range is left out, and said so.
 *
 * The context digest (agent_llm_digest) is the whole trajectory as the
 * prompts and these choices read it: each candidate, its verdict, gate and
 * reason, and its speedup and times as the prompt rounds them.
 *
 * Usage: a candidate whose proposal called a model records "llm":
 * {"calls", "tokens", "wall_s", "usage": [{"model", "calls", "in",
 * "cached", "out"}]}: the budget sums it over the trajectory, the model's
 * report per LLM model (agent_usage_line).
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "../agent.h"
#include "../llm.h"
#include "../memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct kopt_role_cfg *role_of(const struct kopt_agents *cfg, enum kopt_role r)
{
	static const struct kopt_role_cfg builtin = { KOPT_BACKEND_BUILTIN, { 0 } };
	return cfg ? &cfg->roles[r] : &builtin;
}

static bool is_llm(const struct kopt_agents *cfg, enum kopt_role r)
{
	return role_of(cfg, r)->backend == KOPT_BACKEND_LLM;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ---- one proposal's calls: the budget and the usage ---- */

struct llm_run {
	const struct agent_request *req;
	struct llm_budget b, before;
	double t0;
	json_t *usage; /* [{"model", "calls", "in", "cached", "out"}] */
};

static void run_init(struct llm_run *run, const struct agent_request *req)
{
	run->req = req;
	llm_budget_init(&run->b, req->cfg);
	long tokens = 0;
	int calls = 0;
	double wall = 0;
	for (size_t i = 0; i < req->ntraj; i++) {
		json_t *l = json_object_get(req->traj[i].candidate, "llm");
		calls += (int)json_integer_value(json_object_get(l, "calls"));
		tokens += (long)json_integer_value(json_object_get(l, "tokens"));
		wall += json_number_value(json_object_get(l, "wall_s"));
	}
	run->b.calls = calls;
	run->b.tokens = tokens;
	run->b.start = kopt_now() - wall;
	run->before = run->b;
	run->t0 = kopt_now();
	run->usage = json_array();
}

static void run_note(struct llm_run *run, const struct kopt_llm *cfg, const struct llm_reply *r)
{
	if (r->attempts <= 0)
		return;
	const char *model = cfg->model ? cfg->model : "?";
	json_t *row = NULL, *e;
	size_t i;
	json_array_foreach(run->usage, i, e)
		if (strcmp(str(e, "model"), model) == 0)
			row = e;
	if (!row) {
		row = json_pack("{s:s, s:i, s:I, s:I, s:I}", "model", model, "calls", 0, "in", (json_int_t)0, "cached",
				(json_int_t)0, "out", (json_int_t)0);
		json_array_append_new(run->usage, row);
	}
	json_object_set_new(row, "calls", json_integer(json_integer_value(json_object_get(row, "calls")) + 1));
	const char *k[] = { "in", "cached", "out" };
	long v[] = { r->input_tokens, r->cached_tokens, r->output_tokens };
	for (size_t j = 0; j < 3; j++)
		if (v[j] > 0)
			json_object_set_new(row, k[j], json_integer(json_integer_value(json_object_get(row, k[j])) + v[j]));
}

/* c records what the proposal's calls cost (when it made any) */
static void run_stamp(struct llm_run *run, json_t *c)
{
	if (c && run->b.calls > run->before.calls)
		json_object_set_new(c, "llm", json_pack("{s:i, s:I, s:f, s:O}", "calls", run->b.calls - run->before.calls,
							 "tokens", (json_int_t)(run->b.tokens - run->before.tokens),
							 "wall_s", kopt_now() - run->t0, "usage", run->usage));
}

static void run_release(struct llm_run *run)
{
	json_decref(run->usage);
}

/* one call of role r; its text appended to text */
static int ask(struct llm_run *run, enum kopt_role r, const char *system, const char *user, size_t stable,
	       struct strbuf *text, struct strbuf *err)
{
	const struct kopt_llm *cfg = &role_of(run->req->cfg, r)->llm;
	struct llm_request q = { 0 };
	q.system = system;
	q.user = user;
	q.user_stable = stable;
	struct llm_reply rep;
	llm_reply_init(&rep);
	int rc = llm_complete(cfg, &q, &run->b, &rep, err);
	run_note(run, cfg, &rep);
	if (rc == 0)
		strbuf_addstr(text, rep.text.buf);
	llm_reply_release(&rep);
	return rc;
}

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
		strbuf_addf(&sb, "%s[", str(a, "dtype") ? str(a, "dtype") : "?");
		size_t j;
		json_t *d;
		json_array_foreach(json_object_get(a, "shape"), j, d)
			strbuf_addf(&sb, "%s%lld", j ? ", " : "", (long long)json_integer_value(d));
		double b = json_number_value(json_object_get(a, "bytes"));
		strbuf_addch(&sb, ']');
		if (b > 0) {
			static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
			size_t u = 0;
			while (b >= 1000 && u + 1 < sizeof unit / sizeof *unit) {
				b /= 1000;
				u++;
			}
			strbuf_addf(&sb, u ? " (%.2f %s)" : " (%.0f %s)", b, unit[u]);
		}
	}
	return strbuf_detach(&sb);
}

static int cmp_stat(const void *a, const void *b)
{
	const struct mem_stat *x = *(const struct mem_stat *const *)a, *y = *(const struct mem_stat *const *)b;
	if (x->wins != y->wins)
		return y->wins - x->wins;
	if (x->tries != y->tries)
		return y->tries - x->tries;
	return strcmp(x->strategy, y->strategy);
}

#define MAX_LESSONS 8

/* what the long-term memory holds for k's class from other specs, as
 * Markdown lines with their numbers; NULL when nothing */
static char *lessons_of(const struct agent_kernel *k, const char *memory, const char *scope)
{
	if (!memory)
		return NULL;
	char *features = agent_builtin_features(k);
	struct memory m;
	memory_load(&m, memory, features, scope);
	if (!m.n) {
		free(features);
		memory_release(&m);
		return NULL;
	}
	const struct mem_stat **v = xcalloc(m.n, sizeof *v);
	for (size_t i = 0; i < m.n; i++)
		v[i] = &m.stats[i];
	qsort(v, m.n, sizeof *v, cmp_stat);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "What candidates of other specs did on kernels of this class (`%s`; a launch config "
		    "gives R0_BLOCK as a fraction of the reduction's length):\n", features);
	for (size_t i = 0; i < m.n && i < MAX_LESSONS; i++) {
		const struct mem_stat *st = v[i];
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
	free(v);
	free(features);
	memory_release(&m);
	return strbuf_detach(&sb);
}

/* a launch config as JSON text, its keys in Inductor's order (the blocks,
 * then warps and stages), the others after them; caller frees */
static char *config_json(const json_t *config)
{
	static const char *const order[] = { "XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK", "num_warps",
					     "num_stages" };
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
		if (json_object_get(config, order[i]))
			json_object_set(o, order[i], json_object_get(config, order[i]));
	json_t *rest = json_deep_copy(config);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
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
	p->device = str(env, "gpu");
	p->device_cc = str(env, "cc");
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
	double frac = json_number_value(json_object_get(row, "frac_peak"));
	p->peak_gbs = k->peak_copy_gbps > 0 ? k->peak_copy_gbps : frac > 0 && p->achieved_gbs > 0 ? p->achieved_gbs / frac : -1;
	if (k->peak_fp32_gflops > 0) {
		p->peak_tflops = k->peak_fp32_gflops / 1e3;
		p->peak_measured = true;
	} else {
		p->peak_tflops = peak_tflops(p->device);
	}
	if (json_is_object(k->config))
		p->config = f->config = config_json(k->config);
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

static const struct kopt_llm *coder_llm(const struct agent_request *req)
{
	return &role_of(req->cfg, KOPT_ROLE_CODER)->llm;
}

/* the analyst's text: candidate 0's, else the built-in's or, with an LLM
 * analyst, its reply (one call, for candidate 0) */
static char *diagnosis_of(struct llm_run *run, bool call)
{
	const struct agent_request *req = run->req;
	const char *saved = req->ntraj ? str(req->traj[0].candidate, "analysis") : NULL;
	if (saved)
		return xstrdup(saved);
	char *why = NULL;
	agent_builtin_analyze(req->kernel, &why);
	if (!call || !is_llm(req->cfg, KOPT_ROLE_ANALYST) || req->index > 0)
		return why;
	struct strbuf u = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addf(&u, "Kernel %s, profile: %s\nSay in two sentences whether it is memory- or compute-bound "
		    "and what limits it.\n\n```python\n%s```\n", req->kernel->name, why,
		    req->kernel->source ? req->kernel->source : "");
	if (ask(run, KOPT_ROLE_ANALYST, "You analyse GPU kernel profiles.", u.buf, 0, &text, &err) == 0) {
		free(why);
		why = strbuf_detach(&text);
	}
	strbuf_release(&u);
	strbuf_release(&text);
	strbuf_release(&err);
	return why;
}

/* the context of the kernel's prompts: candidate 0's, else rendered now */
static char *context_of(struct llm_run *run, const char *diagnosis)
{
	const struct agent_request *req = run->req;
	const char *saved = req->ntraj ? str(req->traj[0].candidate, "context") : NULL;
	if (saved)
		return xstrdup(saved);
	struct facts f;
	facts_fill(&f, req->kernel);
	f.p.diagnosis = diagnosis;
	/* the lessons only for candidate 0: its key holds no memory, and the
	 * later ones read them from it */
	char *lessons = req->index == 0 ? lessons_of(req->kernel, req->memory, req->scope) : NULL;
	f.p.lessons = lessons;
	f.p.max_tokens = coder_llm(req)->prompt_tokens;
	struct strbuf sb = STRBUF_INIT;
	llm_prompt_context(&f.p, &sb);
	free(lessons);
	facts_release(&f);
	return strbuf_detach(&sb);
}

/* ---- the search so far ---- */

struct llm_state {
	int head;        /* traj index of the last round's head (it holds the replies), -1: none */
	int round;       /* that round's number */
	int last_sample; /* the highest reply of it proposed so far */
	bool open;       /* every candidate since the head is one of its replies */
	int rounds;      /* rounds so far */
	int failed;      /* the last rounds in a row that gave nothing that built */
	int best;        /* traj index of the best passing candidate, -1: none */
};

static bool made_by_llm(const json_t *c)
{
	const char *n = str(c, "name"), *r = str(c, "role");
	return n && strcmp(n, "llm") == 0 && r && (strcmp(r, "coder") == 0 || strcmp(r, "debugger") == 0);
}

static void state_of(const struct agent_request *req, struct llm_state *st)
{
	memset(st, 0, sizeof *st);
	st->head = st->best = -1;
	double bx = 0;
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		if (t->verdict && strcmp(t->verdict, "pass") == 0 && t->speedup > bx) {
			bx = t->speedup;
			st->best = (int)i;
		}
		if (json_is_array(json_object_get(t->candidate, "beam"))) {
			st->head = (int)i;
			st->round = (int)json_integer_value(json_object_get(t->candidate, "round"));
			st->rounds = st->round + 1;
		}
	}
	if (st->head >= 0) {
		st->open = true;
		st->last_sample = (int)json_integer_value(json_object_get(req->traj[st->head].candidate, "sample"));
		for (size_t i = (size_t)st->head + 1; i < req->ntraj; i++) {
			const json_t *c = req->traj[i].candidate;
			if (!json_object_get(c, "sample") || json_object_get(c, "repair_of") ||
			    json_integer_value(json_object_get(c, "round")) != st->round) {
				st->open = false;
				break;
			}
			st->last_sample = (int)json_integer_value(json_object_get(c, "sample"));
		}
	}
	/* rounds that built something: a candidate of the model's that passed
	 * or failed after gate 1 */
	bool *built = xcalloc((size_t)st->rounds + 1, sizeof *built);
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		json_t *r = json_object_get(t->candidate, "round");
		if (!json_is_integer(r) || json_integer_value(r) < 0 || json_integer_value(r) >= st->rounds ||
		    !made_by_llm(t->candidate) || !t->verdict)
			continue;
		if (strcmp(t->verdict, "pass") == 0 || (t->gate && strcmp(t->gate, "static") != 0))
			built[json_integer_value(r)] = true;
	}
	for (int r = st->rounds - 1; r >= 0 && !built[r]; r--)
		st->failed++;
	free(built);
}

static bool same_candidate(const json_t *a, const char *src, const json_t *cfg)
{
	const char *as = str(a, "source");
	const json_t *ac = json_object_get(a, "config");
	if ((as == NULL) != (src == NULL) || (as && strcmp(as, src) != 0))
		return false;
	bool an = !json_is_object(ac), bn = !json_is_object(cfg);
	return an == bn && (an || json_equal(ac, cfg));
}

/* whether a reply would make a new candidate: it holds a kernel or a
 * config, not the kernel as it is, nor an earlier candidate */
static bool fresh(const struct agent_request *req, const json_t *sample)
{
	const char *src = str(sample, "source");
	const json_t *cfg = json_object_get(sample, "config");
	if (!src && !json_is_object(cfg))
		return false;
	if (src && req->kernel->source && strcmp(src, req->kernel->source) == 0 && !json_is_object(cfg))
		return false;
	for (size_t i = 0; i < req->ntraj; i++)
		if (same_candidate(req->traj[i].candidate, src, json_is_object(cfg) ? cfg : NULL))
			return false;
	return true;
}

/* candidate of reply j of round r (n replies) */
static json_t *from_sample(const json_t *sample, int r, int j, int n, const char *role)
{
	const char *src = str(sample, "source");
	const json_t *cfg = json_object_get(sample, "config");
	bool has_cfg = json_is_object(cfg);
	char *what = xasprintf("llm %s (round %d, reply %d of %d)",
			       src && has_cfg ? "rewrite and launch config" : src ? "rewrite" : "launch config", r + 1,
			       j + 1, n);
	struct agent_candidate ac = { .source = src, .config = has_cfg ? cfg : NULL, .role = role, .name = "llm",
				      .strategy = what };
	json_t *c = agent_candidate_new(&ac);
	free(what);
	json_object_set_new(c, "round", json_integer(r));
	json_object_set_new(c, "sample", json_integer(j));
	if (json_object_get(sample, "notes"))
		json_object_set(c, "notes", json_object_get(sample, "notes"));
	if (str(sample, "config_error"))
		json_object_set(c, "config_error", json_object_get(sample, "config_error"));
	return c;
}

/* ---- a round's prompt ---- */

/* "- c3, tuner: descent x-up (...): pass, 1.189x, 39.27 us" */
static char *attempt_line(const struct agent_try *t)
{
	struct strbuf sb = STRBUF_INIT;
	const char *what = str(t->candidate, "strategy");
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
		strbuf_addstr(&sb, ": ");
		size_t n = 0;
		for (const char *c = t->reason; *c && n < 200; c++, n++)
			strbuf_addch(&sb, *c == '\n' || *c == '\r' ? ' ' : *c);
		if (strlen(t->reason) > 200)
			strbuf_addstr(&sb, "...");
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
		if (str(n, "avoid"))
			strbuf_addf(&sb, "Avoid: %s\n", str(n, "avoid"));
		if (str(n, "prioritize"))
			strbuf_addf(&sb, "Prioritize: %s\n", str(n, "prioritize"));
		if (sb.len)
			return strbuf_detach(&sb);
		strbuf_release(&sb);
	}
	return NULL;
}

/* the planner's text when it is built in: its ranked moves */
static char *builtin_strategy(const struct agent_request *req)
{
	const json_t *plan = req->ntraj ? json_object_get(req->traj[0].candidate, "plan") : NULL;
	json_t *made = plan ? NULL : agent_builtin_plan(req->kernel, req->memory, req->scope, NULL);
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
static void round_prompt(const struct agent_request *req, const char *context, const char *strategy,
			 const struct agent_try *fix, long max_tokens, struct strbuf *user)
{
	struct llm_kernel_prompt p;
	memset(&p, 0, sizeof p);
	p.kernel_name = req->kernel->name;
	p.source = req->kernel->source;
	p.time_us = p.share = p.bytes = p.achieved_gbs = -1;
	p.max_tokens = max_tokens;
	struct llm_state st;
	state_of(req, &st);
	char *label = NULL, *bcfg = NULL;
	if (st.best >= 0) {
		const struct agent_try *b = &req->traj[st.best];
		const json_t *c = json_object_get(b->candidate, "config");
		p.best = str(b->candidate, "source");
		p.best_config = bcfg = json_is_object(c) ? config_json(c) : NULL;
		p.best_label = label = xasprintf("c%d, %s", b->index, str(b->candidate, "strategy") ? str(b->candidate, "strategy") : "?");
		p.best_speedup = b->speedup;
		p.best_us = b->cand_ns / 1e3;
		p.best_base_us = b->base_ns / 1e3;
	}
	char **lines = xcalloc(req->ntraj + 1, sizeof *lines);
	for (size_t i = 0; i < req->ntraj; i++)
		lines[i] = attempt_line(&req->traj[req->ntraj - 1 - i]);
	p.attempts = (const char *const *)lines;
	p.nattempts = req->ntraj;
	char *notes = notes_of(req);
	p.notes = notes;
	p.strategy = strategy;
	if (fix) {
		p.candidate = str(fix->candidate, "source");
		p.gate = fix->gate;
		p.gate_reason = fix->reason;
	}
	strbuf_addstr(user, context);
	llm_prompt_round(&p, strlen(context), user);
	for (size_t i = 0; i < req->ntraj; i++)
		free(lines[i]);
	free(lines);
	free(notes);
	free(label);
	free(bcfg);
}

/* ---- replies ---- */

/* whether x is a power of two */
static bool pow2(long long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

/*
 * A reply's launch config, checked against the kernel's: the keys of its
 * config (or, for a kernel without one, the block sizes Inductor uses)
 * with num_warps and num_stages, powers of two for the blocks and the
 * warps (at most 65536 and 32), 1 to 8 stages; the keys it leaves out
 * keep the kernel's values. NULL with why when it is not a config.
 */
static json_t *checked_config(const json_t *got, const json_t *kernel_cfg, struct strbuf *why)
{
	static const char *const blocks[] = { "XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK" };
	json_t *c = json_is_object(kernel_cfg) ? json_deep_copy(kernel_cfg) : json_object();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)got, key, v) {
		bool block = false, known = json_object_get(kernel_cfg, key) != NULL;
		for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
			block |= strcmp(key, blocks[i]) == 0;
		bool warps = strcmp(key, "num_warps") == 0, stages = strcmp(key, "num_stages") == 0;
		if (!warps && !stages && !(block && (known || !json_is_object(kernel_cfg)))) {
			strbuf_addf(why, "the launch config's key %s is not one of the kernel's", key);
			break;
		}
		if (!json_is_integer(v)) {
			strbuf_addf(why, "the launch config's %s is not a whole number", key);
			break;
		}
		long long x = json_integer_value(v);
		if ((stages && (x < 1 || x > 8)) || (warps && (!pow2(x) || x > 32)) || (block && (!pow2(x) || x > 65536))) {
			strbuf_addf(why, "the launch config's %s = %lld is out of range", key, x);
			break;
		}
		json_object_set(c, key, v);
	}
	if (why->len) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* a reply as a sample: {"source", "config", "notes", "error", "config_error"} */
static json_t *sample_of(const struct agent_request *req, const char *text, const char *err)
{
	json_t *s = json_object();
	if (!text) {
		json_object_set_new(s, "error", json_string(err && *err ? err : "llm: no reply"));
		return s;
	}
	struct strbuf src = STRBUF_INIT, e = STRBUF_INIT, ce = STRBUF_INIT, why = STRBUF_INIT;
	if (llm_extract_kernel(text, req->kernel->name, &src, &e) == 0)
		json_object_set_new(s, "source", json_string(src.buf));
	json_t *cfg = NULL;
	if (llm_extract_config(text, &cfg, &ce) < 0) {
		json_object_set_new(s, "config_error", json_string(ce.buf));
	} else if (cfg) {
		json_t *ok = checked_config(cfg, req->kernel->config, &why);
		if (ok)
			json_object_set_new(s, "config", ok);
		else
			json_object_set_new(s, "config_error", json_string(why.buf));
	}
	json_decref(cfg);
	if (!json_object_get(s, "source") && !json_object_get(s, "config"))
		json_object_set_new(s, "error", json_string(e.len ? e.buf : ce.len ? ce.buf : "llm: the reply held nothing usable"));
	struct strbuf a = STRBUF_INIT, z = STRBUF_INIT;
	llm_extract_notes(text, &a, &z);
	if (a.len || z.len) {
		json_t *n = json_object();
		if (a.len)
			json_object_set_new(n, "avoid", json_string(a.buf));
		if (z.len)
			json_object_set_new(n, "prioritize", json_string(z.buf));
		json_object_set_new(s, "notes", n);
	}
	strbuf_release(&a);
	strbuf_release(&z);
	strbuf_release(&src);
	strbuf_release(&e);
	strbuf_release(&ce);
	strbuf_release(&why);
	return s;
}

/* the built-in search's candidate for this slot, saying why the model made none */
static int builtin_slot(const struct agent_request *req, const char *field, const char *why,
			struct agent_reply *reply)
{
	int rc = agent_builtin_propose(req, req->memory, reply);
	if (rc == 0 && reply->candidate)
		json_object_set_new(reply->candidate, field, json_string(why));
	else if (rc == 0 && reply->reason) {
		char *r = xasprintf("%s; %s", why, reply->reason);
		free(reply->reason);
		reply->reason = r;
	}
	return rc;
}

/* ---- the roles ---- */

/* c, candidate 0 of an LLM coder, keeps what later rounds read from it */
static void keep_for_later(const struct agent_request *req, json_t *c, const char *diagnosis, const char *context)
{
	if (!c || req->index != 0)
		return;
	json_object_set_new(c, "analysis", json_string(diagnosis));
	json_object_set_new(c, "context", json_string(context));
	if (!json_object_get(c, "plan")) {
		char *ranked = NULL;
		json_object_set_new(c, "plan", agent_builtin_plan(req->kernel, req->memory, req->scope, &ranked));
		json_object_set_new(c, "planning", json_string(ranked));
		free(ranked);
	}
}

/* the planner's text for a round: an LLM's reply (one call) or the built-in plan */
static char *strategy_of(struct llm_run *run, const char *diagnosis)
{
	const struct agent_request *req = run->req;
	if (!is_llm(req->cfg, KOPT_ROLE_PLANNER))
		return builtin_strategy(req);
	struct strbuf u = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addf(&u, "Diagnosis: %s\nTried so far:\n", diagnosis);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *l = attempt_line(&req->traj[i]);
		strbuf_addf(&u, "%s\n", l);
		free(l);
	}
	if (!req->ntraj)
		strbuf_addstr(&u, "nothing yet\n");
	strbuf_addf(&u, "Name the one rewrite strategy to try next for kernel %s, in one sentence.", req->kernel->name);
	if (ask(run, KOPT_ROLE_PLANNER, "You plan GPU kernel optimizations.", u.buf, 0, &text, &err) < 0) {
		strbuf_reset(&text);
		strbuf_addstr(&text, "the fastest correct rewrite you can write");
	}
	strbuf_release(&u);
	strbuf_release(&err);
	return strbuf_detach(&text);
}

/* the round's candidate: the first of its replies that is new (it keeps
 * them all), else the built-in search's, with the first reply's error */
static int take_reply(const struct agent_request *req, const struct llm_state *st, json_t *beam,
		      struct agent_reply *reply)
{
	int rc = 0, take = -1;
	for (size_t j = 0; j < json_array_size(beam) && take < 0; j++)
		if (fresh(req, json_array_get(beam, j)))
			take = (int)j;
	if (take >= 0) {
		reply->candidate = from_sample(json_array_get(beam, (size_t)take), st->rounds, take,
					       (int)json_array_size(beam), "coder");
	} else {
		const char *e = NULL;
		for (size_t j = 0; j < json_array_size(beam) && !e; j++)
			e = str(json_array_get(beam, j), "error");
		rc = builtin_slot(req, "error", e ? e : "llm: every reply repeats an earlier candidate or the kernel", reply);
		if (reply->candidate)
			json_object_set_new(reply->candidate, "round", json_integer(st->rounds));
	}
	if (reply->candidate)
		json_object_set(reply->candidate, "beam", beam);
	return rc;
}

/* a new round: the model's replies to one request, the first usable one
 * the candidate, all of them kept in it */
static int new_round(const struct agent_request *req, const struct llm_state *st, struct agent_reply *reply)
{
	struct llm_run run;
	run_init(&run, req);
	struct strbuf err = STRBUF_INIT;
	const struct kopt_llm *cfg = coder_llm(req);
	if (!req->kernel->source)
		strbuf_addstr(&err, "coder: the kernel's source is not at hand");
	else
		llm_budget_check(&run.b, 0, &err);
	if (err.len) {
		int rc = builtin_slot(req, "llm_off", err.buf, reply);
		strbuf_release(&err);
		run_release(&run);
		return rc;
	}
	int n = cfg->beam > 0 ? cfg->beam : 1;
	if (req->cfg && req->cfg->budget > req->index && req->cfg->budget - req->index < n)
		n = req->cfg->budget - req->index;
	char *diag = diagnosis_of(&run, true);
	char *context = context_of(&run, diag);
	char *strategy = strategy_of(&run, diag);
	struct strbuf user = STRBUF_INIT;
	round_prompt(req, context, strategy, NULL, cfg->prompt_tokens, &user);
	struct llm_request q = { 0 };
	q.system = llm_prompt_system();
	q.user = user.buf;
	q.user_stable = strlen(context);
	struct llm_reply *out = xcalloc((size_t)n, sizeof *out);
	struct strbuf *errs = xcalloc((size_t)n, sizeof *errs);
	int *rcs = xcalloc((size_t)n, sizeof *rcs);
	for (int i = 0; i < n; i++) {
		llm_reply_init(&out[i]);
		strbuf_init(&errs[i]);
	}
	int k = llm_complete_many(cfg, &q, n, &run.b, out, errs, rcs);
	int rc;
	if (k < 0) {
		/* not even one call fits what the budget has left: no round */
		rc = builtin_slot(req, "llm_off", errs[0].buf, reply);
	} else {
		json_t *beam = json_array();
		for (int i = 0; i < k; i++) {
			run_note(&run, cfg, &out[i]);
			json_array_append_new(beam, sample_of(req, rcs[i] == 0 ? out[i].text.buf : NULL, errs[i].buf));
		}
		rc = take_reply(req, st, beam, reply);
		json_decref(beam);
	}
	keep_for_later(req, reply->candidate, diag, context);
	run_stamp(&run, reply->candidate);
	for (int i = 0; i < n; i++) {
		llm_reply_release(&out[i]);
		strbuf_release(&errs[i]);
	}
	free(out);
	free(errs);
	free(rcs);
	strbuf_release(&user);
	free(strategy);
	free(context);
	free(diag);
	run_release(&run);
	return rc;
}

/* the round's next reply, or NULL when the round is over */
static json_t *next_sample(const struct agent_request *req, const struct llm_state *st)
{
	if (st->head < 0 || !st->open)
		return NULL;
	json_t *beam = json_object_get(req->traj[st->head].candidate, "beam");
	for (size_t j = (size_t)(st->last_sample + 1); j < json_array_size(beam); j++)
		if (fresh(req, json_array_get(beam, j)))
			return from_sample(json_array_get(beam, j), st->round, (int)j, (int)json_array_size(beam), "coder");
	return NULL;
}

/* at the end of a round none of whose candidates passed: the first of its
 * replies that failed gate 1, 2 or 3 (once per round); NULL otherwise */
static const struct agent_try *round_fix(const struct agent_request *req, const struct llm_state *st)
{
	if (st->head < 0 || !st->open || !is_llm(req->cfg, KOPT_ROLE_DEBUGGER))
		return NULL;
	const struct agent_try *fix = NULL;
	for (size_t i = (size_t)st->head; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		if (t->verdict && strcmp(t->verdict, "pass") == 0)
			return NULL;
		if (!fix && made_by_llm(t->candidate) && str(t->candidate, "source") && t->gate &&
		    (!strcmp(t->gate, "static") || !strcmp(t->gate, "correctness") || !strcmp(t->gate, "fp64")))
			fix = t;
	}
	return fix;
}

/* after a round that made the best, and after a tuner step that improved it */
static bool tune_due(const struct agent_request *req, const struct llm_state *st)
{
	if (st->best < 0 || !req->ntraj)
		return false;
	const json_t *last = req->traj[req->ntraj - 1].candidate, *b = req->traj[st->best].candidate;
	if (st->head >= 0 && st->best >= st->head && json_object_get(last, "round") && made_by_llm(b))
		return true;
	const char *r = str(last, "role");
	return r && strcmp(r, "tuner") == 0 && st->best == (int)req->ntraj - 1;
}

/* the LLM debugger's repair of fix; round: the round it belongs to, or -1 */
static int repair(const struct agent_request *req, const struct agent_try *fix, int round, struct agent_reply *reply)
{
	struct llm_run run;
	run_init(&run, req);
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, user = STRBUF_INIT;
	if (llm_budget_check(&run.b, 0, &err) < 0) {
		int rc = builtin_slot(req, "llm_off", err.buf, reply);
		strbuf_release(&err);
		run_release(&run);
		return rc;
	}
	const struct kopt_llm *cfg = &role_of(req->cfg, KOPT_ROLE_DEBUGGER)->llm;
	char *diag = diagnosis_of(&run, false);
	char *context = context_of(&run, diag);
	round_prompt(req, context, NULL, fix, cfg->prompt_tokens, &user);
	int r = ask(&run, KOPT_ROLE_DEBUGGER, llm_prompt_system(), user.buf, strlen(context), &text, &err);
	json_t *sample = sample_of(req, r == 0 ? text.buf : NULL, err.buf);
	int rc = 0;
	if (fresh(req, sample)) {
		char *what = xasprintf("llm repair of c%d", fix->index);
		const json_t *cfgj = json_object_get(sample, "config");
		struct agent_candidate ac = { .source = str(sample, "source"), .config = json_is_object(cfgj) ? cfgj : NULL,
					      .role = "debugger", .name = "llm", .strategy = what };
		reply->candidate = agent_candidate_new(&ac);
		free(what);
		json_object_set_new(reply->candidate, "repair_of", json_integer(fix->index));
		if (round >= 0)
			json_object_set_new(reply->candidate, "round", json_integer(round));
		if (json_object_get(sample, "notes"))
			json_object_set(reply->candidate, "notes", json_object_get(sample, "notes"));
	} else {
		const char *e = str(sample, "error");
		rc = builtin_slot(req, "error", e ? e : "llm: the repair repeats an earlier candidate", reply);
	}
	run_stamp(&run, reply->candidate);
	json_decref(sample);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&user);
	free(context);
	free(diag);
	run_release(&run);
	return rc;
}

int agent_llm_repair(const struct agent_request *req, const struct agent_try *fix, struct agent_reply *reply)
{
	return repair(req, fix, -1, reply);
}

int agent_llm_tune(const struct agent_request *req, struct agent_reply *reply)
{
	struct llm_run run;
	run_init(&run, req);
	struct strbuf err = STRBUF_INIT, u = STRBUF_INIT, text = STRBUF_INIT;
	struct llm_state st;
	state_of(req, &st);
	const char *src = st.best >= 0 ? str(req->traj[st.best].candidate, "source") : NULL;
	char *cur = req->kernel->config ? json_dumps(req->kernel->config, JSON_COMPACT | JSON_SORT_KEYS) : xstrdup("{}");
	strbuf_addf(&u, "Triton kernel %s (%s). Current launch config: %s\nTried:\n", req->kernel->name,
		    req->kernel->heuristic ? req->kernel->heuristic : "?", cur);
	free(cur);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(json_object_get(req->traj[i].candidate, "config"), JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&u, "- %s: %s, speedup %.3f\n", c ? c : "null", req->traj[i].verdict, req->traj[i].speedup);
		free(c);
	}
	strbuf_addstr(&u, "Answer with one JSON object with the same keys as the current config, nothing else.");
	json_t *cfg = NULL;
	if (ask(&run, KOPT_ROLE_TUNER, "You tune Triton launch configs.", u.buf, 0, &text, &err) == 0) {
		const char *open = strchr(text.buf, '{'), *close = strrchr(text.buf, '}');
		if (open && close && close > open)
			cfg = json_loadb(open, (size_t)(close - open + 1), 0, NULL);
		if (!json_is_object(cfg)) {
			json_decref(cfg);
			cfg = NULL;
			strbuf_addstr(&err, "tuner: the reply held no JSON config");
		}
	}
	if (cfg) {
		struct agent_candidate ac = { .source = src, .config = cfg, .role = "tuner", .name = "llm",
					      .strategy = src ? "llm launch config of the best so far" : "llm launch config" };
		reply->candidate = agent_candidate_new(&ac);
		json_decref(cfg);
		run_stamp(&run, reply->candidate);
	} else {
		reply->reason = xasprintf("tuner: %s", err.buf);
	}
	strbuf_release(&err);
	strbuf_release(&u);
	strbuf_release(&text);
	run_release(&run);
	return 0;
}

int agent_llm_propose(const struct agent_request *req, struct agent_reply *reply)
{
	struct llm_state st;
	state_of(req, &st);
	if ((reply->candidate = next_sample(req, &st)))
		return 0;
	const struct agent_try *fix = round_fix(req, &st);
	if (fix)
		return repair(req, fix, st.round, reply);
	if (tune_due(req, &st)) {
		if (is_llm(req->cfg, KOPT_ROLE_TUNER))
			return agent_llm_tune(req, reply);
		if ((reply->candidate = agent_builtin_descent(req)))
			return 0;
	}
	if (st.failed >= 2)
		return builtin_slot(req, "llm_off", "llm: the model's last 2 rounds gave nothing that built", reply);
	return new_round(req, &st, reply);
}

char *agent_llm_digest(const struct agent_request *req)
{
	struct strbuf s = STRBUF_INIT;
	strbuf_addstr(&s, AGENT_LLM_VERSION ";");
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		char *c = json_dumps(t->candidate, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&s, "%d:%s:%s:%.3f:%.2f:%.2f:%s:%s;", t->index, t->verdict ? t->verdict : "-",
			    t->gate ? t->gate : "-", t->speedup, t->base_ns / 1e3, t->cand_ns / 1e3,
			    t->reason ? t->reason : "", c ? c : "");
		free(c);
	}
	return strbuf_detach(&s);
}

size_t agent_llm_prompt(const struct agent_request *req, struct strbuf *out)
{
	struct llm_run run;
	run_init(&run, req);
	char *diag = diagnosis_of(&run, false);
	char *context = context_of(&run, diag);
	char *strategy = builtin_strategy(req);
	round_prompt(req, context, strategy, NULL, coder_llm(req)->prompt_tokens, out);
	size_t n = strlen(context);
	free(strategy);
	free(context);
	free(diag);
	run_release(&run);
	return n;
}

/* ---- what the models cost ---- */

void agent_usage_add(struct agent_usage *u, const json_t *candidate)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(candidate, "llm"), "usage"), i, e) {
		const char *model = str(e, "model");
		if (!model)
			continue;
		struct agent_usage_row *row = NULL;
		for (size_t j = 0; j < u->n && !row; j++)
			if (strcmp(u->rows[j].model, model) == 0)
				row = &u->rows[j];
		if (!row) {
			u->rows = xgrow(u->rows, &u->cap, u->n + 1, sizeof *u->rows);
			row = &u->rows[u->n++];
			memset(row, 0, sizeof *row);
			row->model = xstrdup(model);
		}
		row->calls += (int)json_integer_value(json_object_get(e, "calls"));
		row->in += (long)json_integer_value(json_object_get(e, "in"));
		row->cached += (long)json_integer_value(json_object_get(e, "cached"));
		row->out += (long)json_integer_value(json_object_get(e, "out"));
	}
}

/* the llm() of cfg's roles that names model and gives a price, or NULL */
static const struct kopt_llm *priced(const struct kopt_agents *cfg, const char *model)
{
	for (int r = 0; cfg && r < KOPT_ROLE_COUNT; r++) {
		const struct kopt_llm *l = &cfg->roles[r].llm;
		if (cfg->roles[r].backend == KOPT_BACKEND_LLM && l->model && strcmp(l->model, model) == 0 &&
		    (l->price_in > 0 || l->price_out > 0))
			return l;
	}
	return NULL;
}

void agent_usage_line(const struct agent_usage *u, const struct kopt_agents *cfg, struct strbuf *md)
{
	if (!u->n)
		return;
	strbuf_addstr(md, "LLM use: ");
	double total = 0;
	bool all_priced = true;
	for (size_t i = 0; i < u->n; i++) {
		const struct agent_usage_row *r = &u->rows[i];
		strbuf_addf(md, "%s%s, %d call%s, %ld tokens in (%ld of them from the provider's cache), %ld out",
			    i ? "; " : "", r->model, r->calls, r->calls == 1 ? "" : "s", r->in, r->cached, r->out);
		const struct kopt_llm *l = priced(cfg, r->model);
		if (l) {
			double cached = l->price_cached > 0 ? l->price_cached : l->price_in;
			double usd = ((double)(r->in - r->cached) * l->price_in + (double)r->cached * cached +
				      (double)r->out * l->price_out) / 1e6;
			strbuf_addf(md, ", $%.2f", usd);
			total += usd;
		} else {
			all_priced = false;
		}
	}
	if (u->n > 1 && all_priced)
		strbuf_addf(md, "; $%.2f in all", total);
	strbuf_addstr(md, all_priced ? " (at the spec's prices).\n" : ".\n");
}

void agent_usage_release(struct agent_usage *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->rows[i].model);
	free(u->rows);
	memset(u, 0, sizeof *u);
}
