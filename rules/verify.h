/*
 * rules/verify.h: a verify's verdict as the other rules read it
 * (rules/verify.c).
 */
#ifndef KOPT_RULES_VERIFY_H
#define KOPT_RULES_VERIFY_H

#include <stdbool.h>

#include "plan.h"

/* A verify's verdict, as the verify rule writes it and the others read it
 * (rules/verify.c). */
struct rule_verdict {
	const char *verdict;        /* "pass" or "fail"; NULL when there is none (no candidate,
				     * the verify failed, or it is not done) */
	bool pass;
	bool error;                 /* the verify step failed: no verdict */
	const char *failure;        /* error: why the step whose own failure it was failed */
	const char *failed_kind;    /* error: that step's kind when it is not the verify
				     * ("propose"), else NULL */
	const char *gate;           /* the gate that failed it, or NULL */
	const char *reason;         /* the verdict's: one line, or NULL */
	double speedup;             /* kernel speedup; NAN when not measured */
	double base_ns, cand_ns;    /* the kernel's median times, the original's and the candidate's;
				     * NAN when not measured */
};
void rule_verdict_read(struct dag *d, const struct rule_cand *c, struct rule_verdict *v);

#endif
