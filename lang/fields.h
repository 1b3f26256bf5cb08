/*
 * lang/fields.h: the fields of every spec block, each written once.
 *
 * One X-macro list per block (as jq's src/opcode_list.h lists its opcodes).
 * A row is
 *
 *     X(NAME, MEMBER, TYPE, DEFAULT, LO, HI, FLAGS, UNIT, DOC)
 *
 *   NAME     the field's name in a spec
 *   MEMBER   the member of the block's struct (spec.h) that holds it
 *   TYPE     a LANG_F_ type without the prefix: how the checker reads it,
 *            its C type, and its form in the key, the JSON and the dump
 *   DEFAULT  its value when the spec does not set it
 *   LO, HI   the range of a number, inclusive (LANG_LO_OPEN: LO excluded)
 *   FLAGS    LANG_KEY: it enters the block's key; LANG_LO_OPEN
 *   UNIT     what a number is in ("s" for durations; "" for none)
 *   DOC      one line, as kopt(5) says it
 *
 * From each list come the struct's members (spec.h), the defaults (one
 * initializer, KOPT_<BLOCK>_INIT), the checker's field table (lang/),
 * the dump (`koptmake -t dump`), and for the blocks that have them the key
 * ingredients and the JSON sent to the worker (rules/common.c) and the
 * agents' fingerprint (agents/agent.c). A new field is a row here and an
 * entry in kopt(5); tests/unit/lists_test.c, which walks these lists, checks
 * that it is dumped, keyed (or not) as its flags say, sent to the worker,
 * and that its default is the one kopt(5) gives.
 */
#ifndef KOPT_FIELDS_H
#define KOPT_FIELDS_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#define LANG_KEY 1u     /* enters the block's key */
#define LANG_LO_OPEN 2u /* the range excludes LO */

/* a string: NULL when absent (an empty string in a spec means absent) */
#define KOPT_DEVICE_FIELDS(X) \
	X("gpu", gpu, STR, NULL, 0, 0, 0, "", "the GPU model expected, e.g. \"H200\", in the worker's GPU name; none = any") \
	X("gpus", gpus, INT, 1, 1, 65536, 0, "GPUs", "GPUs per host to use") \
	X("timeout", timeout_s, DURATION, 600, 0, INFINITY, LANG_LO_OPEN, "s", "per-step timeout") \
	X("launcher", launcher, STR, NULL, 0, 0, 0, "", "a command prefix for workers, e.g. an srun line; none = direct exec")

/* The roles of agents: X(NAME, ID, DOC); each is a field of an agents set
 * of type ROLE, KOPT_ROLE_<ID> its index in roles[] */
#define KOPT_ROLES(X) \
	X("analyst", ANALYST, "reads the kernel's profile: left alone, or what bounds it") \
	X("planner", PLANNER, "orders the strategies, from the long-term memory") \
	X("coder", CODER, "writes a candidate: a source edit or a launch config") \
	X("debugger", DEBUGGER, "repairs a candidate that failed a gate, or gives it up") \
	X("tuner", TUNER, "tunes the best candidate's launch config")

/* an agents set's budgets; the roles (KOPT_ROLES) follow in the dump */
#define KOPT_AGENTS_FIELDS(X) \
	X("budget", budget, INT, 16, 0, INT_MAX, 0, "candidates", "candidates per hot kernel") \
	X("screen", screen_s, DURATION, 20, 0, INFINITY, 0, "s", "time per hot kernel to screen launch configs alone before the gates; 0 = off") \
	X("screen_configs", screen_configs, INT, 48, 1, INT_MAX, 0, "configs", "at most this many launch configs screened per kernel") \
	X("hot", hot, FRACTION, 0.05, 0, 1, LANG_LO_OPEN, "", "share of model time that makes a kernel hot") \
	X("seed", seed, U64, 0, 0, 9007199254740992.0, LANG_KEY, "", "the seed of the inputs and of the tuner's random jumps") \
	X("max_kernels", max_kernels, INT, 10, 0, INT_MAX, 0, "kernels", "at most this many hot kernels per model") \
	X("llm_calls", llm_calls, INT, 32, 0, INT_MAX, 0, "calls", "LLM calls per kernel") \
	X("tokens", tokens, LONG, 200000, 0, 1e15, 0, "tokens", "LLM tokens per kernel") \
	X("wall", wall_s, DURATION, 1800, 0, INFINITY, LANG_LO_OPEN, "s", "wall time per kernel") \
	X("auto_variants", auto_variants, BOOL, true, 0, 0, 0, "", "the agents may add a compile variant of their own (aten-auto, cudnn-auto)") \
	X("space_variants", space_variants, INT, -1, -1, 21, 0, "variants", "at most this many variants searching Inductor's options on top of max-autotune-no-cudagraphs, chosen from the profile; 0 = off; -1 = those the profile's facts single out that can pay, within space_time") \
	X("space_time", space_time_s, DURATION, 600, 0, INFINITY, 0, "s", "GPU time the variants of space_variants = -1 may take per model, each counted as a declared variant's capture") \
	X("helion_full", helion_full, BOOL, false, 0, 0, 0, "", "Helion kernels: Helion's full-effort autotune is a baseline too (minutes to hours a kernel: give the device a timeout that allows it)")

/* the arguments of llm(...), a role's backend; the first is positional.
 * key_env absent means OPENAI_API_KEY or ANTHROPIC_API_KEY by provider. */
#define KOPT_LLM_FIELDS(X) \
	X("provider", provider, PROVIDER, NULL, 0, 0, LANG_KEY, "", "openai or anthropic") \
	X("model", model, STR, NULL, 0, 0, LANG_KEY, "", "the model name sent to the API (required)") \
	X("url", url, STR, NULL, 0, 0, LANG_KEY, "", "the endpoint's base URL; none = the provider's") \
	X("key_env", key_env, STR, NULL, 0, 0, 0, "", "the environment variable that holds the API key, never the key") \
	X("temperature", temperature, REAL, 0.2, 0, 2, LANG_KEY, "", "sampling temperature") \
	X("max_tokens", max_tokens, LONG, 8192, 1, 1e15, LANG_KEY, "tokens", "tokens per reply") \
	X("insecure_http", insecure_http, BOOL, false, 0, 0, 0, "", "the key may go over plain http to a host that is not a loopback address") \
	X("beam", beam, INT, 2, 1, 16, LANG_KEY, "samples", "replies asked for at once in a round, each a candidate") \
	X("prompt_tokens", prompt_tokens, LONG, 12000, 1000, 1e9, LANG_KEY, "tokens", "a prompt's size at most, estimated from its bytes") \
	X("price_in", price_in, REAL, 0, 0, INFINITY, 0, "USD", "per million input tokens, for the report; 0 = unknown") \
	X("price_cached", price_cached, REAL, 0, 0, INFINITY, 0, "USD", "per million input tokens read from the provider's cache; 0 = price_in") \
	X("price_out", price_out, REAL, 0, 0, INFINITY, 0, "USD", "per million output tokens")

/* precision policies: X(NAME, ID) */
#define KOPT_PRECISIONS(X) \
	X("strict", STRICT) \
	X("tf32", TF32) \
	X("loose", LOOSE)

#define KOPT_GATES_FIELDS(X) \
	X("seeds", seeds, INT, 5, 1, 1000000, LANG_KEY, "seeds", "input seeds per correctness check") \
	X("atol", atol, REAL, 1e-4, 0, INFINITY, LANG_KEY, "", "fp32 absolute tolerance") \
	X("rtol", rtol, REAL, 1e-4, 0, INFINITY, LANG_KEY, "", "fp32 relative tolerance") \
	X("atol_half", atol_half, REAL, 1e-2, 0, INFINITY, LANG_KEY, "", "fp16 and bf16 absolute tolerance") \
	X("rtol_half", rtol_half, REAL, 1e-2, 0, INFINITY, LANG_KEY, "", "fp16 and bf16 relative tolerance") \
	X("fp64_fallback", fp64_fallback, BOOL, true, 0, 0, LANG_KEY, "", "outputs beyond tolerance are judged against a float64 reference") \
	X("gamma", gamma, REAL, 1.03, 1, INFINITY, LANG_KEY, "x", "a candidate must be this many times faster") \
	X("repeats", repeats, INT, 10, 1, 1000000, LANG_KEY, "runs", "timed runs per side") \
	X("precision", precision, PRECISION, KOPT_PRECISION_STRICT, 0, 0, LANG_KEY, "", "strict, tf32 or loose")

/* a compile variant of a model; mode absent = torch.compile's default */
#define KOPT_VARIANT_FIELDS(X) \
	X("mode", mode, MODE, NULL, 0, 0, LANG_KEY, "", "torch.compile's mode") \
	X("options", options, OPTIONS, NULL, 0, 0, LANG_KEY, "", "Inductor options, passed on as JSON") \
	X("aten_fallback", aten_fallback, STRLIST, NULL, 0, 0, LANG_KEY, "", "ATen operators kept out of Inductor") \
	X("cudnn_benchmark", cudnn_benchmark, BOOL, false, 0, 0, LANG_KEY, "", "cuDNN benchmarks its algorithms at each shape")

/* model, kernel, helion; a models group and the defaults block take the
 * last three. Its members are the checker's (lang/decl.c), not spec.h's. */
#define KOPT_MODEL_FIELDS(X) \
	X("source", source, SOURCE, NULL, 0, 0, 0, "", "the file, relative to the folder of the spec that declares it (required)") \
	KOPT_MODEL_REFS(X)
/* what a model names: the defaults block sets them too */
#define KOPT_MODEL_REFS(X) \
	X("device", device, REF_DEVICE, NULL, 0, 0, 0, "", "the device; none = from defaults") \
	X("agents", agents, REF_AGENTS, NULL, 0, 0, 0, "", "the agents set; none = from defaults") \
	X("gates", gates, REF_GATES, NULL, 0, 0, 0, "", "the gates set; none = from defaults")

/* the kinds of model declarations: X(KEYWORD, ID, NAME) */
#define KOPT_MODEL_KINDS(X) \
	X("model", TORCH, "torch") \
	X("kernel", TRITON, "triton") \
	X("helion", HELION, "helion")

/* The lists' lengths, KOPT_<BLOCK>_NFIELDS */
#define LANG_COUNT(...) +1
enum {
	KOPT_DEVICE_NFIELDS = 0 KOPT_DEVICE_FIELDS(LANG_COUNT),
	KOPT_AGENTS_NFIELDS = 0 KOPT_AGENTS_FIELDS(LANG_COUNT), /* without the roles */
	KOPT_ROLES_N = 0 KOPT_ROLES(LANG_COUNT),
	KOPT_LLM_NFIELDS = 0 KOPT_LLM_FIELDS(LANG_COUNT),
	KOPT_GATES_NFIELDS = 0 KOPT_GATES_FIELDS(LANG_COUNT),
	KOPT_VARIANT_NFIELDS = 0 KOPT_VARIANT_FIELDS(LANG_COUNT),
	KOPT_MODEL_NFIELDS = 0 KOPT_MODEL_FIELDS(LANG_COUNT)
};

/* What a TYPE is. The checker's types (SOURCE, REF_*) are its own. */
enum lang_ftype {
	LANG_F_INT,       /* int, a whole number */
	LANG_F_LONG,      /* long, a whole number */
	LANG_F_U64,       /* uint64_t, a whole number */
	LANG_F_REAL,      /* double */
	LANG_F_FRACTION,  /* double; 5% is 0.05 */
	LANG_F_DURATION,  /* double, seconds; 10m is 600 */
	LANG_F_BOOL,      /* bool */
	LANG_F_STR,       /* char *, NULL when absent */
	LANG_F_PRECISION, /* enum kopt_precision, a word */
	LANG_F_PROVIDER,  /* char *, openai or anthropic */
	LANG_F_MODE,      /* char *, a torch.compile mode; NULL = default */
	LANG_F_OPTIONS,   /* struct kopt_option *MEMBER, size_t nMEMBER */
	LANG_F_STRLIST,   /* char **MEMBER, size_t nMEMBER */
	LANG_F_ROLE,      /* struct kopt_role_cfg */
	LANG_F_SOURCE,    /* the checker's: a file that must exist */
	LANG_F_ENVNAMES,  /* the checker's: char **MEMBER, size_t nMEMBER, names of environment variables */
	LANG_F_ROOTS,     /* the checker's: char **MEMBER, size_t nMEMBER, folders the spec may read (lang/paths.c) */
	LANG_F_REF_DEVICE, LANG_F_REF_AGENTS, LANG_F_REF_GATES /* the checker's: a name */
};

/* One row of a list, for the code that walks them. */
struct lang_field {
	const char *name;
	enum lang_ftype type;
	size_t off;       /* of the member in the block's struct */
	size_t noff;      /* OPTIONS, STRLIST: of the count; else 0 */
	double lo, hi;    /* the range of a number */
	unsigned flags;   /* LANG_KEY, LANG_LO_OPEN */
	const char *unit;
	const char *doc;
};

struct lang_fields {
	const char *block;            /* "device", "agents", ... as in a spec */
	const struct lang_field *f;
	size_t n;
};

/* Struct members: KOPT_<BLOCK>_FIELDS(KOPT_MEMBER) inside the struct. */
#define KOPT_MEMBER(name, m, type, def, lo, hi, fl, unit, doc) KOPT_MEMBER_##type(m)
#define KOPT_MEMBER_INT(m) int m;
#define KOPT_MEMBER_LONG(m) long m;
#define KOPT_MEMBER_U64(m) uint64_t m;
#define KOPT_MEMBER_REAL(m) double m;
#define KOPT_MEMBER_FRACTION(m) double m;
#define KOPT_MEMBER_DURATION(m) double m;
#define KOPT_MEMBER_BOOL(m) bool m;
#define KOPT_MEMBER_STR(m) char *m;
#define KOPT_MEMBER_PRECISION(m) enum kopt_precision m;
#define KOPT_MEMBER_PROVIDER(m) char *m;
#define KOPT_MEMBER_MODE(m) char *m;
#define KOPT_MEMBER_OPTIONS(m) struct kopt_option *m; size_t n##m;
#define KOPT_MEMBER_STRLIST(m) char **m; size_t n##m;

/* The defaults: `struct kopt_gates g = KOPT_GATES_INIT;` (git's *_INIT). */
#define KOPT_INIT_FIELD(name, m, type, def, lo, hi, fl, unit, doc) .m = def,
#define KOPT_DEVICE_INIT { KOPT_DEVICE_FIELDS(KOPT_INIT_FIELD) }
#define KOPT_AGENTS_INIT { KOPT_AGENTS_FIELDS(KOPT_INIT_FIELD) }
#define KOPT_LLM_INIT { KOPT_LLM_FIELDS(KOPT_INIT_FIELD) }
#define KOPT_GATES_INIT { KOPT_GATES_FIELDS(KOPT_INIT_FIELD) }
#define KOPT_VARIANT_INIT { KOPT_VARIANT_FIELDS(KOPT_INIT_FIELD) }

/* Table rows: LANG_ROW(struct kopt_gates) inside KOPT_GATES_FIELDS(...)
 * needs the struct, so each table says it:
 *     #define ROW(...) LANG_ROW(struct kopt_gates, __VA_ARGS__)
 *     const struct lang_field t[] = { KOPT_GATES_FIELDS(ROW) };       */
#define LANG_ROW(S, name, m, type, def, lo, hi, fl, unit, doc) \
	{ name, LANG_F_##type, offsetof(S, m), LANG_NOFF_##type(S, m), lo, hi, fl, unit, doc },
/* a role of KOPT_ROLES as a row of an agents set's table */
#define LANG_ROLE_ROW(name, id, doc) \
	{ name, LANG_F_ROLE, offsetof(struct kopt_agents, roles[KOPT_ROLE_##id]), 0, 0, 0, LANG_KEY, "", doc },
#define LANG_NOFF_OPTIONS(S, m) offsetof(S, n##m)
#define LANG_NOFF_STRLIST(S, m) offsetof(S, n##m)
#define LANG_NOFF_INT(S, m) 0
#define LANG_NOFF_LONG(S, m) 0
#define LANG_NOFF_U64(S, m) 0
#define LANG_NOFF_REAL(S, m) 0
#define LANG_NOFF_FRACTION(S, m) 0
#define LANG_NOFF_DURATION(S, m) 0
#define LANG_NOFF_BOOL(S, m) 0
#define LANG_NOFF_STR(S, m) 0
#define LANG_NOFF_PRECISION(S, m) 0
#define LANG_NOFF_PROVIDER(S, m) 0
#define LANG_NOFF_MODE(S, m) 0
#define LANG_NOFF_ROLE(S, m) 0
#define LANG_NOFF_SOURCE(S, m) 0
#define LANG_NOFF_ENVNAMES(S, m) offsetof(S, n##m)
#define LANG_NOFF_ROOTS(S, m) offsetof(S, n##m)
#define LANG_NOFF_REF_DEVICE(S, m) 0
#define LANG_NOFF_REF_AGENTS(S, m) 0
#define LANG_NOFF_REF_GATES(S, m) 0

#endif
