/*
 * lang/spec.h: the checked spec, what lang_load() hands to the engine.
 *
 * Everything here is owned by the kopt_spec and freed by kopt_spec_free().
 * Pointers between entries (a model's device, a target's models) point into
 * the spec's own arrays. Names are unique per kind after checking. Every
 * entry keeps the location of its declaration for later diagnostics.
 *
 * The blocks' fields are listed once, in fields.h (type, default, range,
 * unit, what it means); KOPT_<BLOCK>_FIELDS(KOPT_MEMBER) below stands for
 * them.
 */
#ifndef KOPT_SPEC_H
#define KOPT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/util.h"
#include "fields.h"

#define KOPT_ROLE_ENUM(name, id, doc) KOPT_ROLE_##id,
enum kopt_role { KOPT_ROLES(KOPT_ROLE_ENUM) KOPT_ROLE_COUNT };

enum kopt_backend { KOPT_BACKEND_BUILTIN, KOPT_BACKEND_LLM };

struct kopt_llm {
	KOPT_LLM_FIELDS(KOPT_MEMBER)
};

struct kopt_role_cfg {
	enum kopt_backend backend;
	struct kopt_llm llm; /* meaningful when backend == KOPT_BACKEND_LLM */
};

struct kopt_device {
	char *name;
	KOPT_DEVICE_FIELDS(KOPT_MEMBER)
	struct kopt_loc loc;
};

struct kopt_agents {
	char *name;
	KOPT_AGENTS_FIELDS(KOPT_MEMBER)
	struct kopt_role_cfg roles[KOPT_ROLE_COUNT]; /* by enum kopt_role */
	struct kopt_loc loc;
};

#define KOPT_PRECISION_ENUM(name, id) KOPT_PRECISION_##id,
enum kopt_precision { KOPT_PRECISIONS(KOPT_PRECISION_ENUM) KOPT_PRECISION_COUNT };

struct kopt_gates {
	char *name;
	KOPT_GATES_FIELDS(KOPT_MEMBER)
	struct kopt_loc loc;
};

/* One Inductor option, value kept as JSON text (e.g. "true", "64", "\"x\""). */
struct kopt_option {
	char *key;
	char *json;
};

/* A compile variant: one capture each (the implementation-space level). */
struct kopt_variant {
	char *name;             /* "default" when the model declares none */
	KOPT_VARIANT_FIELDS(KOPT_MEMBER)
	struct kopt_loc loc;
};

/* A shape the model is served at (a torch model's `shape NAME { ... }`):
 * values for module-level names of its file, set after the model is made
 * and before get_inputs() makes its inputs. No shape declared: the file's
 * own get_inputs(), and the model has no shapes. */
struct kopt_shape {
	char *name;
	struct kopt_option *set;  /* NAME = value, the value as JSON text, as written */
	struct kopt_loc *set_loc; /* where each NAME is */
	size_t nset;
	struct kopt_loc loc;
};

#define KOPT_MODEL_KIND_ENUM(kw, id, name) KOPT_MODEL_##id,
enum kopt_model_kind {
	KOPT_MODEL_KINDS(KOPT_MODEL_KIND_ENUM) /* torch: KernelBench format (Model, get_inputs,
						  get_init_inputs); triton: a standalone Triton
						  kernel file; helion: a Helion kernel file */
	KOPT_MODEL_KIND_COUNT
};

struct kopt_model {
	char *name;        /* unique; for a glob, "<group>/<file stem>" */
	enum kopt_model_kind kind;
	char *source;      /* as written (after interpolation) */
	char *path;        /* resolved: absolute, or relative to the process cwd */
	char *group;       /* the `models` declaration it came from, or NULL */
	struct kopt_device *device; /* never NULL in a checked spec */
	struct kopt_agents *agents; /* never NULL in a checked spec */
	struct kopt_gates *gates;   /* never NULL in a checked spec */
	struct kopt_variant *variants; /* at least one */
	size_t nvariants;
	struct kopt_shape *shapes; /* the shapes it is served at; none: get_inputs()'s own */
	size_t nshapes;
	struct kopt_loc loc;
};

struct kopt_target {
	char *name;
	struct kopt_model **models; /* groups expanded, in declaration order, no duplicates */
	size_t nmodels;
	struct kopt_loc loc;
};

typedef struct kopt_spec {
	char *file;        /* path of the top spec file as given */
	char *dir;         /* its folder: relative paths in the spec resolve against it */
	struct kopt_device *devices; size_t ndevices;
	struct kopt_agents *agents;  size_t nagents;
	struct kopt_gates *gates;    size_t ngates;
	struct kopt_model *models;   size_t nmodels;
	struct kopt_target *targets; size_t ntargets;
	struct kopt_target *default_target; /* `default NAME`, else a target named "all", else NULL */
	char *remote_cache; /* defaults { remote_cache }: the shared cache's URL; NULL = none */
	char **files;      /* every file read (top file and includes); owns the strings kopt_loc.file points to */
	size_t nfiles;
	char **roots;      /* the folders it may read: its own, then --allow-root's and allow_roots', resolved */
	size_t nroots;
} kopt_spec;

void kopt_spec_free(kopt_spec *spec);

/* The lists of fields.h as tables (lang/fields.c), and the names of its
 * words by enum value. */
extern const struct lang_fields lang_device_fields, lang_agents_fields, lang_llm_fields,
	lang_gates_fields, lang_variant_fields;
extern const char *const lang_role_names[KOPT_ROLE_COUNT];
extern const char *const lang_precision_names[KOPT_PRECISION_COUNT];
extern const char *const lang_model_kind_names[KOPT_MODEL_KIND_COUNT]; /* torch, triton, helion */

/* The defaults, from the lists: what a block that sets nothing holds
 * (name NULL, no location). */
extern const struct kopt_device lang_device_default;
extern const struct kopt_agents lang_agents_default;
extern const struct kopt_gates lang_gates_default;

/* lookups by name; NULL when absent */
struct kopt_model *kopt_spec_model(const kopt_spec *spec, const char *name);
struct kopt_target *kopt_spec_target(const kopt_spec *spec, const char *name);

#endif
