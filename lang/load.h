/*
 * lang/load.h: the loader, shared by the files of lang/ that check a spec
 * (not part of lang's interface, lang.h).
 *
 * lang_load() reads the top file and every file it includes, parses each
 * (parser.y), and walks the statements in order: variables and field values
 * are evaluated as they are met (so a variable must be defined above its
 * first use), includes are read in place, declarations are type- and
 * range-checked into the spec's arrays. Then, once every file is read,
 * names are resolved (a declaration may refer to one further down or in
 * another file), groups and targets are expanded and the checked kopt_spec
 * (spec.h) is handed over.
 *
 * Every error is reported and checking goes on, so one run shows all of a
 * spec's mistakes. After a syntax error the names are not resolved: the
 * declaration that failed to parse would make every reference to it look
 * wrong. Names are looked up in hash tables, so loading is linear in the
 * size of the spec (and the number of files its globs match).
 *
 * Only reads: stat(), glob() and reading files; nothing is written.
 *
 * Where each part lives:
 *   lang.c     the entry points (lang_load, lang_load_buffer, lang_dump),
 *              reading a file's statements, the loader's lifetime
 *   smap.c     the hash table
 *   eval.c     values: strings with ${VAR}, env(), variables
 *   fields.c   the field tables (lang/fields.h) and setting a block's fields
 *   shape.c    shape blocks, and their names against the model file's
 *   decl.c     the declarations, statement by statement
 *   glob.c     a models group's files
 *   include.c  include
 *   paths.c    the folders a spec may read; its diagnostics held, secrets
 *              taken out of them
 *   resolve.c  references to devices, agents and gates sets; the default target
 *   targets.c  targets expanded; cycles
 */
#ifndef KOPT_LOAD_H
#define KOPT_LOAD_H

#include "ast.h"
#include "lang.h"

#include <sys/stat.h>

struct smap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
};

/* the loader's state */

struct ref {
	char *name;          /* NULL when not given */
	struct kopt_loc loc;
};

/* the fields of a model, kernel, helion or models declaration */
struct pdecl {
	struct ref device, agents, gates;
	char *source, *path;
	char *remote_cache;  /* defaults only */
	char **public_env;   /* defaults only: env() may read these though they look secret */
	size_t npublic_env;
	char **allow_roots;  /* defaults only: folders outside the spec's that it may read */
	size_t nallow_roots;
	bool has_source;
};

/* what a model still has to resolve, parallel to loader.models */
struct pmodel {
	struct ref device, agents, gates;
	bool report;         /* the first model of its declaration reports for all of it */
};

struct pgroup {
	size_t first, n;     /* its members: models[first .. first + n) */
};

struct ptarget {
	struct ref *items;   /* the names listed */
	size_t n;
	int state;           /* 0 new, 1 being expanded, 2 done */
};

struct var {
	char *name;
	struct kopt_loc loc;
	struct ast_value *value; /* evaluated */
	bool bad;                /* its definition had an error: uses fail quietly */
	char *unset_env;         /* NAME = env("X") with X not set: "X" (a glob says so); owned */
};

/* the blocks inside a declaration: its variants and its shapes */
struct vlist {
	struct kopt_variant *v;
	size_t n, cap;
	struct kopt_shape *s;
	size_t ns, scap;
};

enum { N_MODEL, N_GROUP, N_TARGET };

struct loader {
	struct lang_diag D;
	char **files;            /* every file read; kopt_loc.file points here */
	size_t nfiles, filescap;
	char **keys;             /* file identities, owned (smap keys borrow them) */
	size_t nkeys, keyscap;
	struct smap seen;        /* identities of files already read */
	const char **stack;      /* identities of the files being read, outermost first */
	const char **stackpath;
	size_t depth, stackcap;

	struct var *vars;
	size_t nvars, varscap;
	struct smap varmap;

	struct kopt_device *devices;
	size_t ndevices, devcap;
	struct smap devmap;
	struct kopt_agents *agents;
	size_t nagents, agcap;
	struct smap agmap;
	struct kopt_gates *gates;
	size_t ngates, gatecap;
	struct smap gatemap;

	struct kopt_model *models;
	struct pmodel *pm;
	size_t nmodels, modelcap, pmcap;
	char **groupnames;
	struct kopt_loc *grouplocs;
	struct pgroup *groups;
	size_t ngroups, groupcap, gnamecap, gloccap;
	struct kopt_target *targets;
	struct ptarget *pt;
	size_t ntargets, targetcap, ptcap;
	struct smap names;       /* models, groups, targets: index << 2 | N_* */

	struct {
		struct ref device, agents, gates;
	} defaults;
	bool have_defaults;
	struct kopt_loc defaults_loc;
	char *remote_cache;      /* the defaults' remote_cache */
	char **public_env;       /* the defaults' public_env, owned */
	size_t npublic_env;
	struct envuse {
		char *name;          /* the variable an env() read, owned */
		char *value;         /* what it read (NULL: unset), owned: taken out of messages if a secret */
		struct kopt_loc loc; /* the call */
	} *envs;                 /* every env() evaluated, in order */
	size_t nenvs, envcap;
	struct ref default_target;

	bool syntax_errors;
	const char *topfile;

	/* paths.c */
	char *root;              /* the top spec's folder, resolved */
	char **roots;            /* the folders outside it that it may read, resolved, owned */
	size_t nroots, rootcap;
	struct held *held;       /* the diagnostics so far, handed on at the end */
	size_t nheld, heldcap;
	kopt_diag_fn *out_report; /* where they go then */
	void *out_ctx;
	bool mask_top;           /* the top file does not look like a spec: its diagnostics say nothing of it */
};

/* smap.c */
size_t *lang_smap_get(const struct smap *m, const char *k); /* NULL when absent */
void lang_smap_put(struct smap *m, const char *k, size_t v);
void lang_smap_release(struct smap *m);

/* eval.c: lang_eval returns a new value, NULL after reporting an error */
const char *lang_what(const struct ast_value *x, char buf[64]); /* "a string", "a list", ... */
const struct var *lang_find_var(const struct loader *L, const char *name);
const struct ast_value *lang_deref(struct loader *L, const struct ast_value *x); /* a name's variable */
struct ast_value *lang_eval(struct loader *L, const struct ast_value *v);
/* once every file is read: an env() of a secret is an error unless the
 * defaults' public_env names it */
void lang_check_env(struct loader *L);

/* fields.c */
void lang_apply(struct loader *L, const char *in, const struct lang_field *tab, size_t ntab, void *base,
		const struct ast_field *items, size_t n, const struct ast_field **seen, struct vlist *variants,
		const char *dir);
void lang_llm_copy(struct kopt_llm *dst, const struct kopt_llm *src);
void lang_vlist_release(struct vlist *vl);

/* shape.c: a `shape NAME { ... }` block into vl; once the spec is read,
 * each shape's names checked against its model file's module-level names
 * (read by Python's ast module, in a child process) */
void lang_do_shape(struct loader *L, const struct ast_field *it, struct vlist *vl);
void lang_check_shapes(struct loader *L);

/* decl.c */
void lang_do_stmt(struct loader *L, const struct ast_stmt *s, const char *dir);
size_t lang_add_model(struct loader *L, struct kopt_model *m, const struct pdecl *pd, bool report);
void lang_default_variant(struct kopt_model *m, const struct kopt_loc *loc);
void lang_ref_release(struct ref *r);
void lang_pdecl_release(struct pdecl *pd);

/* glob.c: the model files x names (a file, glob("PATTERN") or a list) into group gi */
/* the variable name X of an env("X") call that is not set (a default
 * given or not), else NULL; new string */
char *lang_unset_env(const struct ast_value *v);
void lang_add_pattern(struct loader *L, const struct ast_stmt *s, size_t gi, const struct ast_value *x,
		      const struct pdecl *pd, const struct vlist *vl, const char *dir);

/* include.c */
char *lang_file_key(const char *path, const struct stat *st); /* a file's identity */
void lang_do_include(struct loader *L, const struct ast_stmt *s, const char *dir);

/* paths.c */
bool lang_spec_name(const char *path); /* *.kopt or Koptfile */
void lang_roots_init(struct loader *L, const char *dir, const struct lang_opts *o);
/* allow_roots in the defaults block: one more folder, relative to dir */
void lang_allow_root(struct loader *L, const struct kopt_loc *loc, const char *dir, const char *root);
/* 0 when path (if it exists) resolves inside the spec's folder or an
 * allowed one; else -1 after an error at loc naming what it is */
int lang_path_inside(struct loader *L, const struct kopt_loc *loc, const char *what, const char *path);
/* diagnostics held from now on; flushed (secrets taken out) at the end */
void lang_hold_diags(struct loader *L, kopt_diag_fn *report, void *ctx);
void lang_flush_diags(struct loader *L);
void lang_roots_release(struct loader *L);

/* resolve.c, targets.c */
void lang_resolve_models(struct loader *L);
void lang_resolve_targets(struct loader *L);
struct kopt_target *lang_resolve_default(struct loader *L);
void lang_name_hint(struct loader *L, const struct ref *r, const char *kind);

/* lang.c */
char *lang_dir_of(const char *path);
char *lang_join(const char *dir, const char *rel);
void lang_load_text(struct loader *L, const char *path, const char *dir, const char *src, size_t len,
		    const char *key);

#endif
