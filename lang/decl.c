/*
 * lang/decl.c: the declarations, one statement at a time: variables,
 * devices, agents and gates sets, the defaults block, models (one file) and
 * models groups (globs, lang/glob.c), targets and the default target. Names
 * are recorded here and resolved once every file is read (lang/resolve.c).
 */
#include "load.h"

#include <stdlib.h>
#include <string.h>

struct pagents {
	struct kopt_agents a; /* first: the agents' rows apply to a pagents as they are */
	struct kopt_role_cfg backend;
};

#define AGENTS_ROW(...) LANG_ROW(struct kopt_agents, __VA_ARGS__)
/* the list, the roles, and `backend`: the backend of every role not set */
static const struct lang_field agents_fields[] = {
	KOPT_AGENTS_FIELDS(AGENTS_ROW) KOPT_ROLES(LANG_ROLE_ROW)
	{ "backend", LANG_F_ROLE, offsetof(struct pagents, backend), 0, 0, 0, 0, "", "the backend of every role not set" },
};
#define NAGENTS (sizeof agents_fields / sizeof agents_fields[0])
#define FIRST_ROLE KOPT_AGENTS_NFIELDS

/* model, kernel, helion: source first; a models group and the defaults
 * block take the last three */
#define MODEL_ROW(...) LANG_ROW(struct pdecl, __VA_ARGS__)
static const struct lang_field model_fields[] = { KOPT_MODEL_FIELDS(MODEL_ROW) };
#define NMODEL KOPT_MODEL_NFIELDS

void lang_ref_release(struct ref *r)
{
	free(r->name);
	r->name = NULL;
}

void lang_pdecl_release(struct pdecl *pd)
{
	lang_ref_release(&pd->device);
	lang_ref_release(&pd->agents);
	lang_ref_release(&pd->gates);
	free(pd->source);
	free(pd->path);
	free(pd->remote_cache);
	for (size_t i = 0; i < pd->npublic_env; i++)
		free(pd->public_env[i]);
	free(pd->public_env);
	for (size_t i = 0; i < pd->nallow_roots; i++)
		free(pd->allow_roots[i]);
	free(pd->allow_roots);
}

static void ref_copy(struct ref *dst, const struct ref *src)
{
	dst->name = src->name ? xstrdup(src->name) : NULL;
	dst->loc = src->loc;
}

static const struct ast_field *block_items(const struct ast_block *b, size_t *n)
{
	*n = b ? b->n : 0;
	return b ? b->items : NULL;
}

static bool check_dup(struct loader *L, const char *kind, const struct ast_stmt *s, const struct kopt_loc *first)
{
	if (!first)
		return false;
	lang_err(&L->D, &s->name_loc, "duplicate %s '%s'", kind, s->name);
	lang_note(&L->D, first, "'%s' was first defined here", s->name);
	return true;
}

static const struct kopt_loc *name_loc(const struct loader *L, size_t code)
{
	size_t i = code >> 2;
	switch (code & 3) {
	case N_MODEL: return &L->models[i].loc;
	case N_GROUP: return &L->grouplocs[i];
	default: return &L->targets[i].loc;
	}
}

static bool dup_name(struct loader *L, const struct ast_stmt *s)
{
	size_t *code = lang_smap_get(&L->names, s->name);
	return code ? check_dup(L, "name", s, name_loc(L, *code)) : false;
}

static void do_device(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[KOPT_DEVICE_NFIELDS] = { NULL };
	struct kopt_device d = KOPT_DEVICE_INIT;
	size_t n, *first = lang_smap_get(&L->devmap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "device", s, &L->devices[*first].loc);
	d.loc = s->loc;
	lang_apply(L, "a device", lang_device_fields.f, lang_device_fields.n, &d, items, n, seen, NULL, dir);
	if (dup) {
		lang_device_release(&d);
		return;
	}
	d.name = xstrdup(s->name);
	L->devices = xgrow(L->devices, &L->devcap, L->ndevices + 1, sizeof *L->devices);
	L->devices[L->ndevices] = d;
	lang_smap_put(&L->devmap, d.name, L->ndevices++);
}

static void do_agents(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[NAGENTS] = { NULL };
	struct pagents pa = { KOPT_AGENTS_INIT, { KOPT_BACKEND_BUILTIN, KOPT_LLM_INIT } };
	size_t n, *first = lang_smap_get(&L->agmap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "agents set", s, &L->agents[*first].loc);
	pa.a.loc = s->loc;
	lang_apply(L, "an agents set", agents_fields, NAGENTS, &pa, items, n, seen, NULL, dir);
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		if (!seen[FIRST_ROLE + r]) {
			pa.a.roles[r].backend = pa.backend.backend;
			if (pa.backend.backend == KOPT_BACKEND_LLM)
				lang_llm_copy(&pa.a.roles[r].llm, &pa.backend.llm);
		}
	lang_llm_release(&pa.backend.llm);
	if (dup) {
		lang_agents_release(&pa.a);
		return;
	}
	pa.a.name = xstrdup(s->name);
	L->agents = xgrow(L->agents, &L->agcap, L->nagents + 1, sizeof *L->agents);
	L->agents[L->nagents] = pa.a;
	lang_smap_put(&L->agmap, pa.a.name, L->nagents++);
}

static void do_gates(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[KOPT_GATES_NFIELDS] = { NULL };
	struct kopt_gates g = KOPT_GATES_INIT;
	size_t n, *first = lang_smap_get(&L->gatemap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "gates set", s, &L->gates[*first].loc);
	g.loc = s->loc;
	lang_apply(L, "a gates set", lang_gates_fields.f, lang_gates_fields.n, &g, items, n, seen, NULL, dir);
	if (dup)
		return;
	g.name = xstrdup(s->name);
	L->gates = xgrow(L->gates, &L->gatecap, L->ngates + 1, sizeof *L->gates);
	L->gates[L->ngates] = g;
	lang_smap_put(&L->gatemap, g.name, L->ngates++);
}

#define PDECL_ROW(...) LANG_ROW(struct pdecl, __VA_ARGS__)
/* the defaults block: what a model names, the shared cache's URL
 * (engine/remote.c), and the variables env() may read although they look
 * like secrets (lang_check_env) */
static const struct lang_field defaults_fields[] = {
	KOPT_MODEL_REFS(PDECL_ROW)
	PDECL_ROW("allow_roots", allow_roots, ROOTS, NULL, 0, 0, 0, "", "folders outside the spec's that its paths may name (from here on)")
	PDECL_ROW("remote_cache", remote_cache, STR, NULL, 0, 0, 0, "", "the shared cache's URL; none = no remote")
	PDECL_ROW("public_env", public_env, ENVNAMES, NULL, 0, 0, 0, "", "variables env() may read though their names look like secrets")
};
#define NDEFAULTS (sizeof defaults_fields / sizeof defaults_fields[0])
#define REMOTE_CACHE (NDEFAULTS - 2)

static void do_defaults(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[NDEFAULTS] = { NULL };
	struct pdecl pd;
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	if (L->have_defaults) {
		lang_err(&L->D, &s->loc, "duplicate defaults block");
		lang_note(&L->D, &L->defaults_loc, "the first defaults block is here");
	}
	lang_apply(L, "the defaults block", defaults_fields, NDEFAULTS, &pd, items, n, seen, NULL, dir);
	const char *bad = pd.remote_cache ? kopt_url_problem(pd.remote_cache) : NULL;
	if (bad)
		lang_err(&L->D, &seen[REMOTE_CACHE]->value->loc, "remote_cache: %s", bad);
	if (L->have_defaults) {
		lang_pdecl_release(&pd);
		return;
	}
	L->have_defaults = true;
	L->defaults_loc = s->loc;
	L->defaults.device = pd.device;
	L->defaults.agents = pd.agents;
	L->defaults.gates = pd.gates;
	L->remote_cache = pd.remote_cache;
	L->public_env = pd.public_env;
	L->npublic_env = pd.npublic_env;
	for (size_t i = 0; i < pd.nallow_roots; i++) /* in the loader already (lang/paths.c) */
		free(pd.allow_roots[i]);
	free(pd.allow_roots);
}

size_t lang_add_model(struct loader *L, struct kopt_model *m, const struct pdecl *pd, bool report)
{
	L->models = xgrow(L->models, &L->modelcap, L->nmodels + 1, sizeof *L->models);
	L->pm = xgrow(L->pm, &L->pmcap, L->nmodels + 1, sizeof *L->pm);
	L->models[L->nmodels] = *m;
	struct pmodel *p = &L->pm[L->nmodels];
	ref_copy(&p->device, &pd->device);
	ref_copy(&p->agents, &pd->agents);
	ref_copy(&p->gates, &pd->gates);
	p->report = report;
	lang_smap_put(&L->names, L->models[L->nmodels].name, L->nmodels << 2 | N_MODEL);
	return L->nmodels++;
}

void lang_default_variant(struct kopt_model *m, const struct kopt_loc *loc)
{
	m->variants = xcalloc(1, sizeof *m->variants);
	m->variants[0].name = xstrdup("default");
	m->variants[0].loc = *loc;
	m->nvariants = 1;
}

static void do_model(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[NMODEL] = { NULL };
	static const char *const kinds[] = { "a model", "a kernel", "a helion kernel" };
#define KEYWORD(kw, id, name) kw,
	static const char *const kw[] = { KOPT_MODEL_KINDS(KEYWORD) };
	enum kopt_model_kind kind = s->kind == STMT_MODEL ? KOPT_MODEL_TORCH :
				    s->kind == STMT_KERNEL ? KOPT_MODEL_TRITON : KOPT_MODEL_HELION;
	struct pdecl pd;
	struct vlist vl = { 0 };
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	bool dup = dup_name(L, s);
	lang_apply(L, kinds[kind], model_fields, NMODEL, &pd, items, n, seen, kind == KOPT_MODEL_TORCH ? &vl : NULL, dir);
	if (!seen[0])
		lang_err(&L->D, &s->name_loc, "%s '%s' has no source (add source = \"FILE\")", kw[kind], s->name);
	if (dup || !pd.has_source) {
		lang_vlist_release(&vl);
		lang_pdecl_release(&pd);
		return;
	}
	struct kopt_model m;
	memset(&m, 0, sizeof m);
	m.name = xstrdup(s->name);
	m.kind = kind;
	m.source = pd.source;
	m.path = pd.path;
	pd.source = pd.path = NULL;
	m.loc = s->loc;
	if (vl.n) {
		m.variants = vl.v;
		m.nvariants = vl.n;
	} else {
		free(vl.v);
		lang_default_variant(&m, &s->loc);
	}
	m.shapes = vl.s;
	m.nshapes = vl.ns;
	lang_add_model(L, &m, &pd, true);
	lang_pdecl_release(&pd);
}

static void do_models(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[NMODEL] = { NULL };
	struct pdecl pd;
	struct vlist vl = { 0 };
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	bool dup = dup_name(L, s);
	lang_apply(L, "a models group", model_fields + 1, NMODEL - 1, &pd, items, n, seen, &vl, dir);
	struct ast_value *v = lang_eval(L, s->value);
	if (v && !dup) {
		L->groups = xgrow(L->groups, &L->groupcap, L->ngroups + 1, sizeof *L->groups);
		L->groupnames = xgrow(L->groupnames, &L->gnamecap, L->ngroups + 1, sizeof *L->groupnames);
		L->grouplocs = xgrow(L->grouplocs, &L->gloccap, L->ngroups + 1, sizeof *L->grouplocs);
		size_t gi = L->ngroups++;
		L->groupnames[gi] = xstrdup(s->name);
		L->grouplocs[gi] = s->loc;
		L->groups[gi].first = L->nmodels;
		L->groups[gi].n = 0;
		lang_smap_put(&L->names, L->groupnames[gi], gi << 2 | N_GROUP);
		lang_add_pattern(L, s, gi, v, &pd, &vl, dir);
	}
	ast_value_free(v);
	lang_vlist_release(&vl);
	lang_pdecl_release(&pd);
}

static void do_target(struct loader *L, const struct ast_stmt *s)
{
	char buf[64];
	bool dup = dup_name(L, s);
	struct ast_value *v = lang_eval(L, s->value);
	if (!v)
		return;
	struct ptarget pt = { NULL, 0, 0 };
	const struct ast_field one = { FIELD_SET, NULL, s->value->loc, v, NULL };
	const struct ast_field *elems = v->kind == AST_LIST ? v->elems : &one;
	size_t n = v->kind == AST_LIST ? v->nelems : 1;
	pt.items = xcalloc(n, sizeof *pt.items);
	for (size_t i = 0; i < n; i++) {
		const struct ast_value *e = elems[i].value;
		if (e->kind != AST_NAME && e->kind != AST_STR) {
			lang_err(&L->D, &e->loc, "a target lists models, groups and targets by name, not %s", lang_what(e, buf));
			continue;
		}
		pt.items[pt.n].name = xstrdup(e->str);
		pt.items[pt.n++].loc = e->loc;
	}
	ast_value_free(v);
	if (dup) {
		for (size_t i = 0; i < pt.n; i++)
			lang_ref_release(&pt.items[i]);
		free(pt.items);
		return;
	}
	L->targets = xgrow(L->targets, &L->targetcap, L->ntargets + 1, sizeof *L->targets);
	L->pt = xgrow(L->pt, &L->ptcap, L->ntargets + 1, sizeof *L->pt);
	struct kopt_target *t = &L->targets[L->ntargets];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(s->name);
	t->loc = s->loc;
	L->pt[L->ntargets] = pt;
	lang_smap_put(&L->names, t->name, L->ntargets << 2 | N_TARGET);
	L->ntargets++;
}

static void do_var(struct loader *L, const struct ast_stmt *s)
{
	char buf[64];
	struct ast_value *v = s->had_error ? NULL : lang_eval(L, s->value);
	if (v && v->kind == AST_NAME) {
		const struct ast_value *x = lang_deref(L, v);
		ast_value_free(v);
		v = x ? ast_value_copy(x) : NULL;
	}
	if (v && v->kind == AST_CALL) {
		lang_err(&L->D, &v->loc, "a variable cannot hold %s", lang_what(v, buf));
		ast_value_free(v);
		v = NULL;
	}
	const struct var *first = lang_find_var(L, s->name);
	if (first) {
		lang_err(&L->D, &s->name_loc, "duplicate variable '%s'", s->name);
		lang_note(&L->D, &first->loc, "'%s' was first defined here", s->name);
		ast_value_free(v);
		return;
	}
	/* one whose value had an error is defined all the same, so that its
	 * uses do not look undefined; they fail quietly */
	L->vars = xgrow(L->vars, &L->varscap, L->nvars + 1, sizeof *L->vars);
	L->vars[L->nvars].name = xstrdup(s->name);
	L->vars[L->nvars].loc = s->name_loc;
	L->vars[L->nvars].value = v;
	L->vars[L->nvars].bad = v == NULL;
	L->vars[L->nvars].unset_env = lang_unset_env(s->value);
	lang_smap_put(&L->varmap, L->vars[L->nvars].name, L->nvars);
	L->nvars++;
}

static void do_default(struct loader *L, const struct ast_stmt *s)
{
	if (L->default_target.name) {
		lang_err(&L->D, &s->loc, "duplicate default target");
		lang_note(&L->D, &L->default_target.loc, "the first default is here");
		return;
	}
	L->default_target.name = xstrdup(s->name);
	L->default_target.loc = s->name_loc;
}

void lang_do_stmt(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	/* a declaration that did not parse cleanly would only give more
	 * errors about the same mistake; a variable is still defined (see
	 * do_var), so that its uses do not look undefined */
	if (s->had_error && s->kind != STMT_VAR)
		return;
	switch (s->kind) {
	case STMT_VAR: do_var(L, s); break;
	case STMT_INCLUDE: lang_do_include(L, s, dir); break;
	case STMT_DEVICE: do_device(L, s, dir); break;
	case STMT_AGENTS: do_agents(L, s, dir); break;
	case STMT_GATES: do_gates(L, s, dir); break;
	case STMT_DEFAULTS: do_defaults(L, s, dir); break;
	case STMT_MODEL: case STMT_KERNEL: case STMT_HELION: do_model(L, s, dir); break;
	case STMT_MODELS: do_models(L, s, dir); break;
	case STMT_TARGET: do_target(L, s); break;
	case STMT_DEFAULT: do_default(L, s); break;
	}
}
