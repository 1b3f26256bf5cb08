/*
 * rules/groups.h: a network's kernels as a population (rules/groups.c).
 */
#ifndef KOPT_RULES_GROUPS_H
#define KOPT_RULES_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "summary.h"

/* rules/groups.c: a Triton kernel's class (its source less its name and
 * numbers, its size hints to a factor of four), 0 without a source */
uint64_t rule_kernel_class(const char *src, const char *name);
/* the summary's kernels in groups of one class: rep[i], the index of the
 * representative of kernel i's group (its kernel of the most time; i
 * itself where alone), and share[r], a representative's group's share of
 * device time (0 for the others); both of s->nkernels */
void rule_kernel_groups(const struct rule_summary *s, size_t *rep, double *share);

#endif
