/*
 * agents/memory.h: the agents' long-term memory: strategy outcomes keyed by
 * kernel features, kept in the cache folder across runs and shared by every
 * spec that uses the same cache.
 *
 * File format (memory.jsonl in the cache folder): a first line
 *   {"kopt-memory":1}
 * then one JSON object a line, appended and flushed one by one:
 *   {"p":"/src/app/Koptfile","f":"reduction/looped/r14/b30","s":"warps-up","v":"pass","x":1.07,
 *    "c":"XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1","k":"3f2a...e1"}
 *   {"p":"/src/app/Koptfile","f":"reduction/looped/r12/b26","s":"screen:onepass","v":"pass","x":1.31,
 *    "c":"XBLOCK=1 R0_BLOCK=1/8 num_warps=16 num_stages=1","e":"onepass=welford","h":"9c0e...41","k":"..."}
 * p = the scope that learned it (the spec file), f = the kernel's feature
 * class, s = the strategy, v = pass|fail, x = kernel speedup (0 when not
 * measured), c = the candidate's launch config in the problem's terms (the
 * reduction block as a fraction of the reduction's length), present for
 * config-only candidates and for those with an edit, k = what the verdict was (its verify step's key),
 * so that each verdict is learned once (lessons written before k existed
 * lack it), e = the candidate's edit of the kernel's source, by name (the
 * source knobs and kernel transforms of runtime/python/kopt/knobs.py and
 * transforms.py), present where it has one, h = the kernel's class
 * (rules/groups.c: its source less its name and numbers), in hex. A torn
 * last line is ignored, and a lesson whose k came before is counted once.
 * `koptmake -t gc` compacts the file (memory_compact).
 *
 * Skills, the long-term memory's other half: a lesson with an edit says
 * what a transform and its parameters (the edit, the config in the
 * problem's terms) did on a kernel of a class and a feature class. A
 * build asks memory_skills for a kernel's: those of its class (any edit:
 * the same source, the same loads) and of its feature class (the edit's
 * kernel-wide knobs alone: a load's index means nothing on another
 * kernel), each edit with its passes and tries and mean gain. The screen
 * tries them first (rules/screen.c), from every spec that shares the
 * cache, the asking spec too, as the memory stood when the build began
 * (DESIGN-NOTES.md, "A win is a skill, tried first"). A shape row ("=" +
 * shape) counts config-only lessons alone.
 *
 * A build reads the file once into an index (memory.c) and then only the
 * lines appended since; every question of a planner reads its feature
 * class's lessons from there.
 *
 * Loaded stats are kept per strategy name and, for lessons with a shape,
 * per "=" + shape too: a relative move (r-down) means different configs on
 * kernels that start from different ones, a shape means the same.
 *
 * A planner reads what other scopes learned, not its own: a spec's plans
 * then do not depend on the order its own steps ran in (a build on 1 or 8
 * GPUs, or one resumed after a kill, proposes the same candidates), while a
 * second spec over similar kernels starts from what the first found.
 * Writers take the cache's lock (the engine holds it for the whole build).
 */
#ifndef KOPT_MEMORY_H
#define KOPT_MEMORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mem_stat {
	char *strategy;   /* owned */
	int tries, wins;  /* candidates with this strategy; of them, passed */
	double gain;      /* sum over wins of log(speedup) */
};

struct memory {
	struct mem_stat *stats; /* for one feature class */
	size_t n, cap;
};

/* loads the stats of feature class f from path, leaving out what scope
 * exclude learned (NULL: nothing left out); a missing file is empty */
int memory_load(struct memory *m, const char *path, const char *features, const char *exclude);
void memory_release(struct memory *m);
/* m's stats most passes first, then most tries, then by name */
void memory_sort(struct memory *m);
/* how many candidates m's lessons count (shape rows, "=...", are not lessons) */
int memory_lessons(const struct memory *m);
/* order[0..n) = 0..n-1 ranked by score, highest first; ties keep their
 * order (a stable insertion sort) */
void memory_rank(size_t *order, const double *score, size_t n);
const struct mem_stat *memory_get(const struct memory *m, const char *strategy);
/* appends one outcome (shape, key: NULL for none); 0 or -1 */
int memory_append(const char *path, const char *scope, const char *features, const char *strategy,
		  const char *shape, const char *key, int pass, double speedup);

/* one lesson, every field (NULL: none) */
struct mem_lesson {
	const char *scope, *features, *strategy, *shape, *key;
	const char *edit;   /* the candidate's edit of the source (e), or NULL */
	const char *cls;    /* the kernel's class (h), hex, or NULL */
	int pass;
	double speedup;
};
int memory_append_lesson(const char *path, const struct mem_lesson *l);

/* The skills for a kernel of class cls (hex; NULL: none known) and feature
 * class features, from every scope: at most max, as
 * [{"edit", "shape" (or absent), "wins", "tries", "x" (the mean speedup of
 * the wins), "match": "class" | "features", "kernels" (how many lessons'
 * features or class matched)}], the class's first, then by wins over
 * tries and mean gain. A feature-class match keeps only the kernel-wide
 * knobs of an edit (agent_skill_edit decides which). Edits with no win
 * are left out. Only the lessons that start before byte upto of the file
 * count (upto < 0: all): a build reads the skills the memory held when it
 * began (memory_length then), whatever it learns meanwhile, so that what
 * it tries does not hang on the order its steps run in. New reference (an
 * empty array for none). */
json_t *memory_skills(const char *path, const char *features, const char *cls, size_t max, long long upto);
/* the file's length in bytes; 0 where there is none */
long long memory_length(const char *path);

/* the keys (k) of the lessons a file holds: a set, to learn each verdict once */
struct memory_seen {
	uint64_t *slot;   /* open addressing on the keys' hashes; 0 = empty */
	size_t cap, n;
};
/* the keys of the lessons in path (a missing file has none); 0 */
int memory_seen_load(struct memory_seen *s, const char *path);
bool memory_seen_has(const struct memory_seen *s, const char *key);
void memory_seen_add(struct memory_seen *s, const char *key);
void memory_seen_release(struct memory_seen *s);
/* -t gc: rewrites path with its version line and each lesson once, in
 * order: a verdict's lesson after its first, torn and unreadable lines
 * are dropped (a temp file, fsync, rename, fsync of the folder). *kept and
 * *dropped count lines. 0; 1 when there is no file; -1 after an error
 * (said), the file as it was. */
int memory_compact(const char *path, size_t *kept, size_t *dropped);
/* prints, per feature class (only: that one class, or NULL for all), the
 * lessons' count and specs, each strategy's and each launch config's tries,
 * passes and mean speedup of the passes, most passes first; 0 or -1 */
int memory_summary(const char *path, const char *only, FILE *out);
/* a strategy's (or "=" + shape's) score for ranking: prior plus what memory says */
double memory_score(const struct memory *m, const char *strategy, double prior);

#endif
