/*
 * engine/engine.h: the build engine's entry points, called by src/main.c.
 *
 * The engine expands a checked spec into the DAG of steps (capture, profile,
 * propose, verify, stitch, report), decides what is stale against the cache
 * in .kopt/ beside the spec, and runs stale steps in worker processes.
 */
#ifndef KOPT_ENGINE_H
#define KOPT_ENGINE_H

#include <stdbool.h>

#include "../lang/spec.h"

struct engine_opts {
	int jobs;              /* -j; 0 = the device's GPU count */
	bool keep_going;       /* -k */
	bool dry_run;          /* -n */
	bool explain;          /* -d explain */
	bool force;            /* -B: every step is stale */
	int verbose;           /* -v count */
	const char *cache_dir; /* NULL = <spec dir>/.kopt */
	const char *out_dir;   /* NULL = <spec dir>/kopt-out */
	const char *worker;    /* worker program; NULL = $KOPT_WORKER, else the installed kopt-worker */
	const char *remote_cache; /* --remote-cache: URL, "" for none; NULL = the spec's */
};

/*
 * Builds the named targets (NULL/0 = the spec's default target). Returns the
 * exit status: 0 success, 1 some step failed, 2 usage or spec error.
 */
int engine_build(const kopt_spec *spec, char *const *targets, int ntargets,
		 const struct engine_opts *opts);

/*
 * Runs a tool (`-t NAME`): clean, gc, why, query, ... ; args are what follows
 * the tool on the command line. Returns an exit status as engine_build.
 * Returns -1 if the engine has no such tool (main then reports it).
 */
int engine_tool(const kopt_spec *spec, const char *tool, char *const *args, int nargs,
		const struct engine_opts *opts);

/* names of the engine's tools, NULL-terminated, for --help and did-you-mean */
extern const char *const engine_tools[];
extern const char *const engine_tool_help[]; /* a line for each of engine_tools */

#endif
