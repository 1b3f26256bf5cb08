/*
 * engine/rule.h: what the engine asks of a rule, and the rule set of a
 * build. The engine knows nodes, keys, edges and this table; what a step
 * does, what it is called and what its result means belong to its rule
 * (rules/ holds koptmake's; tests/unit/dag_test.c has toy ones).
 *
 * A rule names the ingredients of a step's key, runs a stale step and turns
 * its answers into a result: a stable part (hashed, drives the dependents'
 * keys) and measurements (stored, never hashed), plus cache objects and
 * files in the out dir.
 *
 * A run is a small state machine driven by the scheduler: start() and
 * reply() answer RULE_SEND (run->request holds the next worker request),
 * RULE_DONE (run->stable/meas hold the result) or RULE_FAIL (run->error).
 * Local rules (worker false) never answer RULE_SEND.
 *
 * Hooks marked optional may be NULL.
 */
#ifndef KOPT_RULE_H
#define KOPT_RULE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../lang/spec.h"
#include "hash.h"

struct dag;
struct dag_node;

enum rule_status { RULE_SEND, RULE_DONE, RULE_FAIL };

struct rule_run {
	struct dag *dag;
	struct dag_node *node;
	int state;          /* the rule's own */
	json_t *request;    /* RULE_SEND: {"op":..., ...}; the pool adds "id"; owned */
	json_t *stable;     /* RULE_DONE: the stable part; owned */
	json_t *meas;       /* RULE_DONE: measurements; owned */
	json_t *summary;    /* RULE_DONE, optional: the few measurements planning needs; owned */
	json_t *objects;    /* name -> object hex, for gc; owned */
	json_t *outputs;    /* out-dir relative path -> object hex; owned */
	char *error;        /* RULE_FAIL: one line; owned */
	void *priv;         /* the rule's scratch, freed by its release() */
};

struct rule {
	const char *name;   /* the step kind, as -n, the log and -t why name it */
	int version;        /* bump when a rule's output for the same inputs changes */
	bool worker;        /* runs in a worker, on the device device() names */
	bool timing;        /* measures time: needs its GPU alone */
	bool secondary;     /* shares its path with the step that decides: a bare path names
			     * the other one (-t why, -t query) */
	/* worker rules: the device n's worker runs on (NULL: the default) */
	const struct kopt_device *(*device)(const struct dag_node *n);
	/* adds the key's ingredients, reading and hashing only; returns -1 with
	 * *why when it cannot yet (the step is then stale) */
	int (*key)(struct dag *d, struct dag_node *n, struct hash_key *k, char **why);
	/* optional: whether the step has nothing to do given its settled
	 * inputs; it is then done without a result (DAG_NONE), its stable
	 * hash *out, and never runs or keys */
	bool (*skip)(struct dag *d, struct dag_node *n, kopt_hash *out);
	/* optional, builds only: a cache hit's outputs (files in the out dir)
	 * are checked and restored; returns how many it wrote back (0: all
	 * were there), or -1, which treats the entry as corrupt (the step
	 * runs again) */
	int (*restore)(struct dag *d, struct dag_node *n);
	int (*start)(struct rule_run *run);
	int (*reply)(struct rule_run *run, json_t *result);  /* worker rules */
	void (*release)(struct rule_run *run);                /* optional */
	/* optional: n is done (in every mode), or failed: adds the nodes its
	 * result reveals (ninja's dyndep), or that waited for it to settle;
	 * n->flags says which. The engine announces them afterwards. */
	void (*expand)(struct dag *d, struct dag_node *n);
	/* optional, with expand: about how many steps n's expansion will add,
	 * asked once when n is announced; the progress count's guess until n
	 * settles (the engine scales the guesses by what the expansions so far
	 * added against theirs) */
	double (*reveals)(struct dag *d, struct dag_node *n);
	/* optional, builds only (not -n, not the tools): n is done, run now
	 * or found in the cache; called once per node and build */
	void (*done)(struct dag *d, struct dag_node *n);
	/* optional, builds only: n failed, or an input it needs did (n->why
	 * says which); called once per node and build. Where an earlier
	 * result's files no longer stand, the rule says so on them. */
	void (*failed)(struct dag *d, struct dag_node *n);
	/* optional: n is stale and its inputs are settled; returns its
	 * priority (otherwise the one set when it was created stands) */
	double (*priority)(struct dag *d, struct dag_node *n);
	/* optional: prints a done step's result for -t why (default: the
	 * manifest as JSON) */
	void (*why)(struct dag *d, struct dag_node *n, FILE *out);
};

/* the rules of a build */
struct rule_set {
	const struct rule *const *rules; /* by node kind */
	size_t nrules;
	/* adds the first nodes for the named targets (none: the spec's
	 * default); -1 after reporting an unknown name */
	int (*plan)(struct dag *d, char *const *targets, int ntargets);
	/* frees what plan and the rules hung on d->plan (optional) */
	void (*release)(struct dag *d);
	/* whether a file name in the out dir is one the rules write (-t clean) */
	bool (*is_output)(const char *name);
	/* how -d explain names the rules' key ingredients (explain_diff), or NULL */
	const char *const *words;
	/* optional: after a build that ran steps, the rules' closing lines
	 * (koptmake's: each target's verdicts, geomean and report) */
	void (*closing)(struct dag *d, FILE *out);
	/* optional: -t gc of the rules' own files in the cache folder (the
	 * agents' memory), saying what it did on out; 0 or -1 */
	int (*gc)(struct dag *d, FILE *out);
	/* optional: the GPUs a build of spec runs on, which the worker slots
	 * follow when -j gives none (engine.c; koptmake's: the most GPUs a
	 * device of the spec has); NULL or 0: one */
	int (*gpus)(const kopt_spec *spec);
	/* optional: the environment variables no worker of a build of spec
	 * may see, beyond the sandbox's own list (koptmake's: those its llm()
	 * blocks name as key_env); NULL-terminated, the strings spec's, the
	 * array the caller's to free; NULL: none */
	const char **(*secrets)(const kopt_spec *spec);
	/* optional: before a build's (or -n's) first step, checks what the
	 * rules can check without a worker (koptmake's: the model files, with
	 * Python's parser), saying what is wrong; returns 0 to go on, else
	 * the exit status of a build that runs nothing */
	int (*precheck)(struct dag *d);
};

#endif
