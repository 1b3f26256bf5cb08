/*
 * rules/stitch.h: a stitch's state, shared by the rule (rules/stitch.c)
 * and the outputs it writes (rules/stitch_out.c); internal to them, but
 * for stitch_seal, which the deploy step's folder is sealed with too
 * (rules/deploy.c).
 */
#ifndef KOPT_RULES_STITCH_H
#define KOPT_RULES_STITCH_H

#include "../gates/gates.h"
#include "plan.h"
#include "outputs.h"

#include <stdbool.h>

struct winner;

struct vres {
	bool passed;
	double base_ns, opt_ns;            /* in the first variant's terms (finish) */
	double stitch_base_ns, stitch_opt_ns; /* as the variant's own stitch measured them */
	json_t *output_code; /* string, when passed */
	json_t *winners;     /* what was kept: [{kernel, candidate, speedup, source_hash}] */
	char *reason;
	int attempts;
	bool unusable;       /* its compiled code failed its check against eager: no request */
	bool failed;         /* an agents' variant whose capture or profile failed: not raced */
	json_t *helion_race; /* a Helion file's stitch: own, koptmake's and the autotuner's configs side by side */
};

struct stitch_priv {
	bool racing;        /* the race request (variants side by side) is out */
	double *race_ns;    /* its medians, per variant */
	json_t *race_rounds; /* its calls, per variant in order (null for one not raced); NULL: none */
	char *race_error;   /* why there are none */
	size_t vi;
	struct winner *w;
	size_t nw;
	json_t *derived;    /* the proposals of winners put on a group's members (owned) */
	struct vres *vr;
	json_t *counts;
	json_t *alone;      /* kernels the agents made no candidate for: [{kernel, variant, reason}] */
	kopt_hash pending;  /* the memo key of the request out */
	double t_sent;      /* when it went out */
	int sent, replayed; /* requests sent to the worker, answered from the memo */
	double replayed_s;  /* the worker seconds the remembered requests took when measured */
	double measured_at; /* the newest stamp of the replies (rules/measured.c) */
};

/* the choice across the variants */
struct choice {
	size_t best;        /* the variant chosen */
	bool optimized;     /* winners, or another variant than the first */
	double base, opt;   /* the first variant's baseline, the chosen time (first variant's terms) */
	double speedup;
	enum gate_baseline_status withheld; /* the first variant's check failed: no claim (else 0) */
};

/* substitutions.json, output_code.py and, for a Helion kernel file,
 * helion.json, of the variant ch chose. 0 or -1 */
int stitch_write_code(struct rule_run *run, struct stitch_priv *p, const struct choice *ch);
/* the model's report.md, appended to md */
/* the done hook: kopt-out/<model>/seal.json, the seals of the files there
 * that kopt.backend loads (engine/seal.h), made from the recorded bytes
 * on every build that finds the stitch done (run now or in the cache), so
 * that a new key or a deleted seal file is sealed anew; written only where
 * it changed */
void stitch_seal(struct dag *d, struct dag_node *n);
void stitch_model_md(struct rule_run *run, struct stitch_priv *p, const struct choice *ch, struct strbuf *md);

#endif
