/*
 * lang/spec.h: the checked spec, what lang_load() hands to the engine.
 *
 * Everything here is owned by the kopt_spec and freed by kopt_spec_free().
 * Pointers between entries (a model's device, a target's models) point into
 * the spec's own arrays. Names are unique per kind after checking. Every
 * entry keeps the location of its declaration for later diagnostics.
 */
#ifndef KOPT_SPEC_H
#define KOPT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/util.h"

enum kopt_role {
	KOPT_ROLE_ANALYST,
	KOPT_ROLE_PLANNER,
	KOPT_ROLE_CODER,
	KOPT_ROLE_DEBUGGER,
	KOPT_ROLE_TUNER,
	KOPT_ROLE_COUNT
};

enum kopt_backend { KOPT_BACKEND_BUILTIN, KOPT_BACKEND_LLM };

struct kopt_llm {
	char *provider; /* "openai" or "anthropic" */
	char *model;    /* model name sent to the API */
	char *url;      /* endpoint base URL; NULL = the provider's default */
	char *key_env;  /* name of the environment variable holding the key; never the key */
	double temperature;
	long max_tokens; /* per reply */
};

struct kopt_role_cfg {
	enum kopt_backend backend;
	struct kopt_llm llm; /* meaningful when backend == KOPT_BACKEND_LLM */
};

struct kopt_device {
	char *name;
	char *gpu;        /* GPU model the user expects, e.g. "H200"; NULL = any */
	int gpus;         /* GPUs per host to use; default 1 */
	char *launcher;   /* command prefix for workers (e.g. an srun line); NULL = direct exec */
	double timeout_s; /* per-step timeout; default 600 */
	struct kopt_loc loc;
};

struct kopt_agents {
	char *name;
	int budget;        /* candidates per hot kernel; default 16 */
	double hot;        /* share of model time that makes a kernel hot; default 0.05 */
	uint64_t seed;     /* default 0 */
	int llm_calls;     /* LLM calls per kernel; default 32 */
	long tokens;       /* LLM tokens per kernel; default 200000 */
	double wall_s;     /* wall time per kernel in seconds; default 1800 */
	int max_kernels;   /* at most this many hot kernels per model; default 10 */
	bool auto_variants; /* may add a compile variant of their own (ATen fallbacks
			       where eager beats every declared variant); default true */
	struct kopt_role_cfg roles[KOPT_ROLE_COUNT];
	struct kopt_loc loc;
};

enum kopt_precision { KOPT_PRECISION_STRICT, KOPT_PRECISION_TF32, KOPT_PRECISION_LOOSE };

struct kopt_gates {
	char *name;
	int seeds;            /* default 5 */
	double atol, rtol;    /* fp32; default 1e-4 each */
	double atol_half, rtol_half; /* fp16/bf16; default 1e-2 each */
	bool fp64_fallback;   /* default true */
	double gamma;         /* default 1.03 */
	int repeats;          /* timed runs per side; default 10 */
	enum kopt_precision precision; /* default strict */
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
	char *mode;             /* torch.compile mode, NULL = default */
	struct kopt_option *options; /* Inductor options */
	size_t noptions;
	char **aten_fallback;   /* ATen ops to keep out of Inductor (e.g. "aten.avg_pool2d") */
	size_t naten_fallback;
	bool cudnn_benchmark;
	struct kopt_loc loc;
};

enum kopt_model_kind {
	KOPT_MODEL_TORCH,   /* KernelBench format: Model, get_inputs, get_init_inputs */
	KOPT_MODEL_TRITON,  /* standalone Triton kernel file */
	KOPT_MODEL_HELION   /* Helion kernel file */
};

struct kopt_model {
	char *name;        /* unique; for a glob, "<group>/<file stem>" */
	enum kopt_model_kind kind;
	char *source;      /* as written (after interpolation) */
	char *path;        /* resolved: absolute, or relative to the process cwd */
	char *group;       /* the `models` declaration it came from, or NULL */
	struct kopt_device *device;
	struct kopt_agents *agents;
	struct kopt_gates *gates;
	struct kopt_variant *variants; /* at least one */
	size_t nvariants;
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
} kopt_spec;

void kopt_spec_free(kopt_spec *spec);

/* lookups by name; NULL when absent */
struct kopt_model *kopt_spec_model(const kopt_spec *spec, const char *name);
struct kopt_target *kopt_spec_target(const kopt_spec *spec, const char *name);

#endif
