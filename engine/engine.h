/*
 * engine/engine.h: the build engine's entry points, called by src/main.c.
 *
 * The engine has the rule set (engine/rule.h; koptmake's, rules/rules.h,
 * has capture, profile, propose, verify, stitch and report) plan a checked
 * spec into a graph of steps, decides what is stale against the cache in
 * .kopt/ beside the spec, and runs stale steps, in worker processes where
 * their rule says so.
 */
#ifndef KOPT_ENGINE_H
#define KOPT_ENGINE_H

#include <stdbool.h>

#include "../lang/spec.h"

struct rule_set;

struct engine_opts {
	int jobs;              /* -j; 0 = per GPU of the build (the rule set's gpus, engine/rule.h),
				* one worker for every four host cores, 1 to 4 */
	bool keep_going;       /* -k */
	bool dry_run;          /* -n */
	bool explain;          /* -d explain */
	bool force;            /* -B: every step is stale */
	int verbose;           /* -v count */
	const char *cache_dir; /* NULL = <spec dir>/.kopt */
	const char *out_dir;   /* NULL = <spec dir>/kopt-out */
	const char *worker;    /* worker program; NULL = $KOPT_WORKER, else the installed kopt-worker */
	const char *remote_cache; /* --remote-cache: URL, "" for none; NULL = the spec's */
	const struct rule_set *rules; /* the step kinds (engine/rule.h): koptmake's are
				       * rule_pipeline (rules/rules.h) */
};

/*
 * Builds the named targets (NULL/0 = the spec's default target). Returns the
 * exit status: 0 success, 1 some step failed, 2 usage or spec error.
 */
int engine_build(const kopt_spec *spec, char *const *targets, int ntargets,
		 const struct engine_opts *opts);

/*
 * The engine's tools (`-t NAME`; src/main.c's tool table names them): args
 * are what follows the tool on the command line. Each returns an exit status
 * as engine_build.
 *   clean   removes the outputs in kopt-out
 *   distclean  removes those outputs and the whole cache folder
 *   gc      removes cache entries no step of this spec reaches
 *   why     PATH: a step's verdict, gates, numbers and reason
 *   query   [PATH]: every step, fresh or stale; or one step's key and result
 * (The rules add their own: -t memory, rules/rules.h.)
 */
typedef int engine_tool_fn(const kopt_spec *spec, const struct engine_opts *opts, char *const *args, int nargs);
engine_tool_fn engine_tool_clean, engine_tool_distclean, engine_tool_gc, engine_tool_why, engine_tool_query;

/* workers at most without -j, for gpus GPUs (0: one) on a host of cpus
 * cores: per GPU one for every four cores, 1 to 4 (engine.c says why) */
int engine_jobs_for(int gpus, long cpus);

/* the cache folder a build of spec uses (opts->cache_dir, else .kopt beside the spec); caller frees */
char *engine_cache_dir(const kopt_spec *spec, const struct engine_opts *opts);

#endif
