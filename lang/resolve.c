/*
 * lang/resolve.c: once every file is read, each model's device, agents and
 * gates by name (its own, the defaults block's, the only one declared, or an
 * implicit "default"), and the default target.
 */
#include "load.h"

#include <stdlib.h>
#include <string.h>

enum rkind { R_DEVICE, R_AGENTS, R_GATES };

static const char *ref_cand(const struct loader *L, enum rkind k, size_t i)
{
	return k == R_DEVICE ? L->devices[i].name : k == R_AGENTS ? L->agents[i].name : L->gates[i].name;
}

static size_t ref_count(const struct loader *L, enum rkind k)
{
	return k == R_DEVICE ? L->ndevices : k == R_AGENTS ? L->nagents : L->ngates;
}

static const struct smap *ref_map(const struct loader *L, enum rkind k)
{
	return k == R_DEVICE ? &L->devmap : k == R_AGENTS ? &L->agmap : &L->gatemap;
}

static const char *const rk_names[] = { "device", "agents set", "gates set" };
static const char *const rk_fields[] = { "device", "agents", "gates" };

/* the index named by r, or (size_t)-1 after reporting (when report is set) */
static size_t resolve(struct loader *L, enum rkind k, const struct ref *r, bool report)
{
	size_t *i = lang_smap_get(ref_map(L, k), r->name);
	if (i)
		return *i;
	if (report) {
		size_t n = ref_count(L, k);
		const char **cands = xcalloc(n, sizeof *cands);
		for (size_t j = 0; j < n; j++)
			cands[j] = ref_cand(L, k, j);
		char *hint = lang_hint(r->name, cands, n);
		lang_err(&L->D, &r->loc, "unknown %s '%s'%s", rk_names[k], r->name, hint);
		free(hint);
		free(cands);
	}
	return (size_t)-1;
}

static const struct kopt_loc implicit_loc = { NULL, 0, 0, 0, 0 };

/* adds an entity named "default" of kind k when models need one and none is declared */
static void add_implicit(struct loader *L, enum rkind k)
{
	struct kopt_loc loc = implicit_loc;
	loc.file = L->topfile;
	if (k == R_DEVICE) {
		L->devices = xgrow(L->devices, &L->devcap, 1, sizeof *L->devices);
		L->devices[0] = lang_device_default;
		L->devices[0].name = xstrdup("default");
		L->devices[0].loc = loc;
		L->ndevices = 1;
		lang_smap_put(&L->devmap, L->devices[0].name, 0);
	} else if (k == R_AGENTS) {
		L->agents = xgrow(L->agents, &L->agcap, 1, sizeof *L->agents);
		L->agents[0] = lang_agents_default;
		L->agents[0].name = xstrdup("default");
		L->agents[0].loc = loc;
		L->nagents = 1;
		lang_smap_put(&L->agmap, L->agents[0].name, 0);
	} else {
		L->gates = xgrow(L->gates, &L->gatecap, 1, sizeof *L->gates);
		L->gates[0] = lang_gates_default;
		L->gates[0].name = xstrdup("default");
		L->gates[0].loc = loc;
		L->ngates = 1;
		lang_smap_put(&L->gatemap, L->gates[0].name, 0);
	}
}

void lang_resolve_models(struct loader *L)
{
	struct ref *defs[3] = { &L->defaults.device, &L->defaults.agents, &L->defaults.gates };
	bool def_ok[3];
	for (int k = 0; k < 3; k++) {
		bool need = false;
		for (size_t i = 0; i < L->nmodels && !need; i++) {
			struct pmodel *p = &L->pm[i];
			const struct ref *own = k == 0 ? &p->device : k == 1 ? &p->agents : &p->gates;
			need = !own->name && !defs[k]->name;
		}
		if (need && ref_count(L, (enum rkind)k) == 0)
			add_implicit(L, (enum rkind)k);
		def_ok[k] = defs[k]->name && resolve(L, (enum rkind)k, defs[k], true) != (size_t)-1;
	}
	for (size_t i = 0; i < L->nmodels; i++) {
		struct kopt_model *m = &L->models[i];
		struct pmodel *p = &L->pm[i];
		const struct ref *own[3] = { &p->device, &p->agents, &p->gates };
		size_t idx[3];
		for (int k = 0; k < 3; k++) {
			idx[k] = (size_t)-1;
			if (own[k]->name)
				idx[k] = resolve(L, (enum rkind)k, own[k], p->report);
			else if (defs[k]->name)
				idx[k] = def_ok[k] ? resolve(L, (enum rkind)k, defs[k], false) : (size_t)-1;
			else if (ref_count(L, (enum rkind)k) == 1)
				idx[k] = 0;
			else if (p->report)
				lang_err(&L->D, &m->loc, "'%s' does not say which %s to use: %zu are declared (set %s = NAME, or add a defaults block)",
					 m->group ? m->group : m->name, rk_names[k], ref_count(L, (enum rkind)k), rk_fields[k]);
		}
		m->device = idx[0] != (size_t)-1 ? &L->devices[idx[0]] : NULL;
		m->agents = idx[1] != (size_t)-1 ? &L->agents[idx[1]] : NULL;
		m->gates = idx[2] != (size_t)-1 ? &L->gates[idx[2]] : NULL;
	}
}

void lang_name_hint(struct loader *L, const struct ref *r, const char *kind)
{
	size_t n = L->nmodels + L->ngroups + L->ntargets, k = 0;
	const char **cands = xcalloc(n, sizeof *cands);
	for (size_t i = 0; i < L->nmodels; i++)
		cands[k++] = L->models[i].name;
	for (size_t i = 0; i < L->ngroups; i++)
		cands[k++] = L->groupnames[i];
	for (size_t i = 0; i < L->ntargets; i++)
		cands[k++] = L->targets[i].name;
	char *hint = lang_hint(r->name, cands, n);
	lang_err(&L->D, &r->loc, "unknown %s '%s'%s", kind, r->name, hint);
	free(hint);
	free(cands);
}

struct kopt_target *lang_resolve_default(struct loader *L)
{
	struct ref *r = &L->default_target;
	if (!r->name) {
		size_t *code = lang_smap_get(&L->names, "all");
		return code && (*code & 3) == N_TARGET ? &L->targets[*code >> 2] : NULL;
	}
	size_t *code = lang_smap_get(&L->names, r->name);
	if (!code) {
		lang_name_hint(L, r, "target");
		return NULL;
	}
	if ((*code & 3) != N_TARGET) {
		lang_err(&L->D, &r->loc, "'%s' is a %s, not a target (default names a target)", r->name,
			 (*code & 3) == N_MODEL ? "model" : "models group");
		return NULL;
	}
	return &L->targets[*code >> 2];
}
