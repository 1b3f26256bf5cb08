/*
 * tests/unit/lists_test.c: the lists of lang/fields.h, field by field.
 *
 * Generated from the lists themselves, so a new field is covered without a
 * line here. For each field of each block (device, agents and its roles,
 * llm(), gates, variant, model):
 *   - the checker takes it: a spec that sets it to another value loads;
 *   - the dump shows it, and shows the change;
 *   - the block's key (the gates' and variants' ingredients, the agents'
 *     fingerprint) changes with it if and only if it has LANG_KEY;
 *   - where the block is sent to the worker (gates, variant), the JSON has
 *     it and follows the change;
 *   - kopt(5) has an entry for it, and the default in brackets there, read
 *     through the spec language, is the list's (where kopt(5) gives none,
 *     the list has none either).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/util.h"
#include "lang/lang.h"
#include "rules/rules.h"
#include "rules/proto.h"
#include "rules/keys.h"
#include "tests/tap.h"

static char *dir; /* a temp folder with the model files m.py and m2.py */
static char *last_error;

static void collect(void *ctx, const struct kopt_diag *d)
{
	(void)ctx;
	if (d->severity == KOPT_ERROR && !last_error)
		last_error = xstrdup(d->message);
}

static kopt_spec *load(const char *text)
{
	kopt_spec *spec;
	free(last_error);
	last_error = NULL;
	if (lang_load_buffer("lists.kopt", dir, text, strlen(text), collect, NULL, &spec) < 0)
		return NULL;
	return spec;
}

static char *dump(const kopt_spec *spec)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	lang_dump(spec, f);
	fclose(f);
	return buf;
}

/* ---- the blocks ---- */

/* the spec text of a block with field f set to value (f NULL: nothing set) */
typedef void spec_fn(struct strbuf *sb, const struct lang_field *f, const char *value);
/* the block's key as text, or its JSON for the worker, in a loaded spec */
typedef char *key_fn(const kopt_spec *spec);
typedef json_t *json_fn(const kopt_spec *spec);

struct block {
	const struct lang_fields *fs;
	const void *defaults;    /* the list's defaults; NULL: every field's is absent */
	const char *section;     /* kopt(5)'s subsection under FIELDS */
	const char *prefix;      /* what precedes "NAME = " in the dump */
	spec_fn *spec;
	key_fn *key;             /* NULL: the block enters no key */
	bool all_keyed;          /* every field must enter the key: it changes what the worker measures */
	json_fn *json;           /* NULL: the block is not sent to the worker */
	const char *extra;       /* what the JSON holds beside the fields, or NULL */
};

static void set(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	if (f)
		strbuf_addf(sb, " %s = %s", f->name, value);
}

static void device_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	strbuf_addstr(sb, "device d {");
	set(sb, f, value);
	strbuf_addstr(sb, " }\n");
}

static void agents_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	strbuf_addstr(sb, "agents a {");
	set(sb, f, value);
	strbuf_addstr(sb, " }\n");
}

/* the coder's llm(): provider and model are set (model is required) */
static void llm_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	const char *provider = "\"openai\"", *model = "\"m\"";
	if (f && strcmp(f->name, "provider") == 0)
		provider = value;
	else if (f && strcmp(f->name, "model") == 0)
		model = value;
	strbuf_addf(sb, "agents a { coder = llm(provider = %s, model = %s", provider, model);
	if (f && strcmp(f->name, "provider") && strcmp(f->name, "model"))
		strbuf_addf(sb, ", %s = %s", f->name, value);
	strbuf_addstr(sb, ") }\n");
}

static void gates_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	strbuf_addstr(sb, "gates g {");
	set(sb, f, value);
	strbuf_addstr(sb, " }\n");
}

static void variant_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	strbuf_addstr(sb, "model m { source = \"m.py\" variant v {");
	set(sb, f, value);
	strbuf_addstr(sb, " } }\n");
}

/* two of each, so that a reference can name the other one */
static void model_spec(struct strbuf *sb, const struct lang_field *f, const char *value)
{
	strbuf_addstr(sb, "device d { }\ndevice d2 { }\nagents a { }\nagents a2 { }\ngates g { }\ngates g2 { }\n"
			  "defaults { device = d  agents = a  gates = g }\nmodel m {");
	if (!f || strcmp(f->name, "source"))
		strbuf_addstr(sb, " source = \"m.py\"");
	set(sb, f, value);
	strbuf_addstr(sb, " }\n");
}

static char *hex(void (*keyer)(struct hash_key *, const void *), const void *blk)
{
	struct hash_key k;
	char h[HASH_HEX];
	hash_key_init_bare(&k);
	keyer(&k, blk);
	hash_hex(hash_key_final(&k), h);
	hash_key_release(&k);
	return xstrdup(h);
}

static void key_gates(struct hash_key *k, const void *g)
{
	rule_key_gates(k, g);
}

static void key_variant(struct hash_key *k, const void *v)
{
	rule_key_variant(k, v);
}

static char *gates_key(const kopt_spec *spec)
{
	return hex(key_gates, &spec->gates[0]);
}

static char *variant_key(const kopt_spec *spec)
{
	return hex(key_variant, &spec->models[0].variants[0]);
}

static char *agents_key(const kopt_spec *spec)
{
	return agent_fingerprint(&spec->agents[0]);
}

static json_t *gates_json(const kopt_spec *spec)
{
	return rule_gates_json(&spec->gates[0]);
}

static json_t *variant_json(const kopt_spec *spec)
{
	return rule_variant_json(&spec->models[0].variants[0]);
}

/* the model list's rows: its members are the checker's, so no offsets */
#define MODEL_ROW(name, m, type, def, lo, hi, fl, unit, doc) \
	{ name, LANG_F_##type, 0, 0, lo, hi, fl, unit, doc },
static const struct lang_field model_rows[] = { KOPT_MODEL_FIELDS(MODEL_ROW) };
static const struct lang_fields model_fields = { "model", model_rows, sizeof model_rows / sizeof model_rows[0] };

static const struct kopt_llm llm_default = KOPT_LLM_INIT;
static const struct kopt_variant variant_default = KOPT_VARIANT_INIT;

static const struct block blocks[] = {
	{ &lang_device_fields, &lang_device_default, "device", "\t", device_spec, NULL, false, NULL, NULL },
	{ &lang_agents_fields, &lang_agents_default, "agents", "\t", agents_spec, agents_key, false, NULL, NULL },
	{ &lang_llm_fields, &llm_default, "agents", ", ", llm_spec, agents_key, false, NULL, NULL },
	/* min_pairs is derived from repeats (gate_min_pairs), not a field */
	{ &lang_gates_fields, &lang_gates_default, "gates", "\t", gates_spec, gates_key, true, gates_json, "min_pairs" },
	{ &lang_variant_fields, &variant_default, "variant", "\t\t", variant_spec, variant_key, true, variant_json, "name" },
	{ &model_fields, NULL, "model, kernel, helion", "\t", model_spec, NULL, false, NULL, NULL },
};

/* ---- another value than the default, as spec text ---- */

static char *other_value(const struct lang_field *f, const void *defaults)
{
	const char *p = defaults ? (const char *)defaults + f->off : NULL;
	switch (f->type) {
	case LANG_F_INT: {
		int d = *(const int *)p;
		return xasprintf("%d", d + 1 <= f->hi ? d + 1 : d - 1);
	}
	case LANG_F_LONG: {
		long d = *(const long *)p;
		return xasprintf("%ld", d + 1 <= f->hi ? d + 1 : d - 1);
	}
	case LANG_F_U64:
		return xasprintf("%llu", (unsigned long long)*(const uint64_t *)p + 1);
	case LANG_F_REAL:
	case LANG_F_DURATION: {
		double d = *(const double *)p, v = d != 0 ? 2 * d : 1;
		return xasprintf("%.17g", v <= f->hi ? v : d / 2);
	}
	case LANG_F_FRACTION:
		return xasprintf("%.17g", *(const double *)p / 2);
	case LANG_F_BOOL:
		return xstrdup(*(const bool *)p ? "false" : "true");
	case LANG_F_PRECISION:
		return xstrdup(lang_precision_names[(*(const enum kopt_precision *)p + 1) % KOPT_PRECISION_COUNT]);
	case LANG_F_PROVIDER:
		return xstrdup("\"anthropic\""); /* llm_spec's is openai */
	case LANG_F_MODE:
		return xstrdup("\"max-autotune\"");
	case LANG_F_OPTIONS:
		return xstrdup("{ \"triton.max_tiles\" = 2 }");
	case LANG_F_STRLIST:
		return xstrdup("[\"aten.avg_pool2d\"]");
	case LANG_F_ROLE:
		return xstrdup("llm(\"openai\", model = \"m\")");
	case LANG_F_SOURCE:
		return xstrdup("\"m2.py\"");
	case LANG_F_REF_DEVICE:
		return xstrdup("d2");
	case LANG_F_REF_AGENTS:
		return xstrdup("a2");
	case LANG_F_REF_GATES:
		return xstrdup("g2");
	case LANG_F_STR:
	case LANG_F_ENVNAMES:
	case LANG_F_ROOTS:
		break; /* a string of another value: "other" */
	}
	return xstrdup("\"other\"");
}

/* ---- kopt(5) ---- */

static char *man;

/* the lines of FIELDS' subsection `name`, from its .SS line to the next */
static char *man_section(const char *name)
{
	const char *fields = strstr(man, "\n.SH FIELDS\n");
	if (!fields)
		return NULL;
	const char *end = strstr(fields + 1, "\n.SH ");
	char *ss = xasprintf("\n.SS %s\n", name);
	const char *s = strstr(fields, ss);
	free(ss);
	if (!s || (end && s > end))
		return NULL;
	const char *next = strstr(s + 1, "\n.SS ");
	if (!next || (end && next > end))
		next = end ? end : s + strlen(s);
	return xstrndup(s + 1, (size_t)(next - s));
}

/* whether a .B or .BR line names the field: one of its words outside quotes */
static bool names_field(const char *line, size_t len, const char *name)
{
	const char *p = line, *e = line + len;
	if (len > 4 && strncmp(p, ".BR ", 4) == 0)
		p += 4;
	else if (len > 3 && strncmp(p, ".B ", 3) == 0)
		p += 3;
	else
		return false;
	size_t nl = strlen(name);
	while (p < e) {
		if (*p == ' ') {
			p++;
		} else if (*p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
			p = q ? q + 1 : e;
		} else {
			const char *w = p;
			while (p < e && *p != ' ' && *p != '"')
				p++;
			if ((size_t)(p - w) >= nl && strncmp(w, name, nl) == 0 &&
			    ((size_t)(p - w) == nl || strchr(",)", w[nl])))
				return true;
		}
	}
	return false;
}

/* a line that ends an entry's text */
static bool ends_entry(const char *line)
{
	static const char *const marks[] = { ".TP", ".SS", ".SH", ".PP", ".B ", ".BR " };
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		if (strncmp(line, marks[i], strlen(marks[i])) == 0)
			return true;
	return false;
}

/* roff's escapes undone: \- \(dq \e */
static char *unroff(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '-') {
			strbuf_addch(&sb, '-');
			i++;
		} else if (s[i] == '\\' && i + 3 < n && strncmp(s + i + 1, "(dq", 3) == 0) {
			strbuf_addch(&sb, '"');
			i += 3;
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'e') {
			strbuf_addch(&sb, '\\');
			i++;
		} else {
			strbuf_addch(&sb, s[i]);
		}
	}
	return strbuf_detach(&sb);
}

/*
 * The field's entry in a section: 1 with *def the text in its first
 * brackets (brackets nest: "[[]]" gives "[]"), or NULL when the entry gives
 * no default; 0 when the section has no entry for it.
 */
static int man_entry(const char *section, const char *name, char **def)
{
	*def = NULL;
	for (const char *l = section; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (!names_field(l, len, name)) {
			l = nl ? nl + 1 : NULL;
			continue;
		}
		/* the entry line, then its text up to the next entry or macro */
		for (const char *t = l; t && *t; ) {
			const char *tn = strchr(t, '\n');
			size_t tl = tn ? (size_t)(tn - t) : strlen(t);
			if (t != l && ends_entry(t))
				break;
			const char *b = memchr(t, '[', tl);
			if (b) {
				int depth = 0;
				for (const char *c = b; c < t + tl; c++) {
					depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
					if (depth == 0) {
						*def = unroff(b + 1, (size_t)(c - b - 1));
						return 1;
					}
				}
			}
			t = tn ? tn + 1 : NULL;
		}
		return 1;
	}
	return 0;
}

/* kopt(5)'s default of a field as spec text, or NULL where it is no value */
static char *man_value(const struct block *b, const struct lang_field *f, const char *text)
{
	switch (f->type) {
	case LANG_F_STR:
		if (strcmp(text, "any") == 0 || strcmp(text, "none") == 0)
			return xstrdup("\"\""); /* an empty string is none */
		return xasprintf("\"%s\"", text);
	case LANG_F_MODE:
		return xasprintf("\"%s\"", text);
	case LANG_F_ROLE: { /* "the backend": the backend field's default */
		if (strcmp(text, "the backend"))
			return xstrdup(text);
		char *sec = man_section(b->section), *bd = NULL;
		man_entry(sec, "backend", &bd);
		free(sec);
		return bd;
	}
	case LANG_F_REF_DEVICE:
	case LANG_F_REF_AGENTS:
	case LANG_F_REF_GATES:
		return NULL; /* "from defaults": the defaults block's, no value */
	default:
		return xstrdup(text);
	}
}

static bool absent(const struct lang_field *f, const void *defaults)
{
	if (!defaults)
		return true;
	const char *p = (const char *)defaults + f->off;
	switch (f->type) {
	case LANG_F_STR:
	case LANG_F_PROVIDER:
	case LANG_F_MODE:
		return *(char *const *)p == NULL;
	default:
		return false;
	}
}

/* ---- the checks ---- */

static char *spec_text(const struct block *b, const struct lang_field *f, const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	b->spec(&sb, f, value);
	return strbuf_detach(&sb);
}

static void check_field(const struct block *b, const struct lang_field *f, const char *base_dump,
			const char *base_key, const char *base_json)
{
	const char *blk = b->fs->block;
	char *val = other_value(f, b->defaults);
	char *text = spec_text(b, f, val);
	kopt_spec *spec = load(text);
	if (!TAP_OK(spec, "%s.%s: the checker takes %s = %s", blk, f->name, f->name, val)) {
		tap_diag("%s", last_error ? last_error : "?");
		free(text);
		free(val);
		return;
	}
	char *d = dump(spec);
	char *want = xasprintf("%s%s = ", b->prefix, f->name);
	bool positional = b->fs == &lang_llm_fields && f == &b->fs->f[0];
	TAP_OK(positional ? strstr(base_dump, "llm(") != NULL : strstr(base_dump, want) != NULL,
	       "%s.%s: the dump shows it", blk, f->name);
	TAP_OK(strcmp(d, base_dump) != 0, "%s.%s: the dump shows the change", blk, f->name);
	if (b->key) {
		char *k = b->key(spec);
		bool keyed = (f->flags & LANG_KEY) != 0;
		TAP_OK((strcmp(k, base_key) != 0) == keyed && (keyed || !b->all_keyed), "%s.%s: the key %s with it",
		       blk, f->name, keyed || b->all_keyed ? "changes" : "does not change");
		free(k);
	} else {
		TAP_OK(!(f->flags & LANG_KEY), "%s.%s: not keyed, as its block enters no key", blk, f->name);
	}
	if (b->json) {
		json_t *j = b->json(spec);
		char *js = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		TAP_OK(json_object_get(j, f->name) && strcmp(js, base_json) != 0,
		       "%s.%s: sent to the worker, and the change with it", blk, f->name);
		free(js);
		json_decref(j);
	}
	free(want);
	free(d);
	kopt_spec_free(spec);
	free(text);
	free(val);
}

static void check_man(const struct block *b, const struct lang_field *f, const char *base_dump)
{
	const char *blk = b->fs->block;
	char *sec = man_section(b->section), *def = NULL;
	int found = sec ? man_entry(sec, f->name, &def) : 0;
	free(sec);
	if (!TAP_OK(found, "%s.%s: kopt(5) has an entry under %s", blk, f->name, b->section))
		return;
	if (!def) {
		TAP_OK(absent(f, b->defaults), "%s.%s: kopt(5) gives no default, and the list has none", blk,
		       f->name);
		return;
	}
	if (b->fs == &lang_llm_fields && strcmp(f->name, "key_env") == 0) {
		/* absent in the list: the checker picks the provider's variable */
		kopt_spec *o = load("agents a { coder = llm(\"openai\", model = \"m\") }\n");
		kopt_spec *a = load("agents a { coder = llm(\"anthropic\", model = \"m\") }\n");
		const struct kopt_llm *lo = o ? &o->agents[0].roles[KOPT_ROLE_CODER].llm : NULL;
		const struct kopt_llm *la = a ? &a->agents[0].roles[KOPT_ROLE_CODER].llm : NULL;
		TAP_OK(strcmp(def, "OPENAI_API_KEY or ANTHROPIC_API_KEY") == 0 && absent(f, b->defaults) && lo &&
		       la && lo->key_env && la->key_env && strcmp(lo->key_env, "OPENAI_API_KEY") == 0 &&
		       strcmp(la->key_env, "ANTHROPIC_API_KEY") == 0,
		       "llm.key_env: kopt(5)'s [%s] is what the checker picks by provider", def);
		kopt_spec_free(o);
		kopt_spec_free(a);
		free(def);
		return;
	}
	char *val = man_value(b, f, def);
	if (!val) {
		TAP_OK(absent(f, b->defaults) || f->type >= LANG_F_REF_DEVICE, "%s.%s: kopt(5) says [%s]: no value of its own",
		       blk, f->name, def);
		free(def);
		return;
	}
	char *text = spec_text(b, f, val);
	kopt_spec *spec = load(text);
	char *d = spec ? dump(spec) : NULL;
	if (!TAP_OK(d && strcmp(d, base_dump) == 0, "%s.%s: the default is kopt(5)'s [%s]", blk, f->name, def))
		tap_diag("%s", spec ? "the dump differs from the default's" : last_error ? last_error : "?");
	free(d);
	kopt_spec_free(spec);
	free(text);
	free(val);
	free(def);
}

static void check_block(const struct block *b)
{
	char *text = spec_text(b, NULL, NULL);
	kopt_spec *spec = load(text);
	if (!TAP_OK(spec, "%s: a block that sets nothing loads", b->fs->block)) {
		tap_diag("%s", last_error ? last_error : "?");
		free(text);
		return;
	}
	char *d = dump(spec);
	char *k = b->key ? b->key(spec) : NULL;
	json_t *j = b->json ? b->json(spec) : NULL;
	char *js = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (j)
		TAP_OK(json_object_size(j) == b->fs->n + (b->extra != NULL) &&
			       (!b->extra || json_object_get(j, b->extra)),
		       "%s: the worker's JSON holds the list's fields%s%s, no more", b->fs->block,
		       b->extra ? " and " : "", b->extra ? b->extra : "");
	for (size_t i = 0; i < b->fs->n; i++) {
		check_field(b, &b->fs->f[i], d, k, js);
		check_man(b, &b->fs->f[i], d);
	}
	free(js);
	json_decref(j);
	free(k);
	free(d);
	kopt_spec_free(spec);
	free(text);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/man/kopt.5", top ? top : ".");
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		TAP_OK(0, "read %s", path);
		return tap_done();
	}
	man = strbuf_detach(&sb);
	free(path);
	const char *tmp = getenv("TMPDIR");
	dir = xasprintf("%s/kopt-lists-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		kopt_die("mkdtemp failed");
	for (int i = 0; i < 2; i++) {
		char *m = xasprintf("%s/%s", dir, i ? "m2.py" : "m.py");
		FILE *f = fopen(m, "w");
		if (f)
			fclose(f);
		free(m);
	}

	for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
		check_block(&blocks[i]);

	for (int i = 0; i < 2; i++) {
		char *m = xasprintf("%s/%s", dir, i ? "m2.py" : "m.py");
		unlink(m);
		free(m);
	}
	rmdir(dir);
	free(dir);
	free(man);
	free(last_error);
	return tap_done();
}
