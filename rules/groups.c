/*
 * rules/groups.c: a network's Triton kernels as a population.
 *
 * A network repeats one block: Inductor emits the same fused kernel once
 * per distinct shape (it shares a kernel between calls only where the text
 * is the same), so a ResNet's batch-norm-and-ReLU kernel is a dozen kernels
 * that differ in their sizes and names alone, none hot by itself. Such
 * kernels are one class: the source with the kernel's own name and every
 * number taken out, and the size hints of Inductor's decorator kept to a
 * factor of four (a launch config or source knob found for one carries to
 * kernels of about its size, not to one a hundred times smaller). A
 * class's kernels form a group whose share is their sum: the hot threshold
 * applies to the group, its largest kernel is searched for all of them
 * (rules/chains.c), and the stitch puts the representative's winning
 * config and source knobs on every other member, each of them then checked
 * in the stitched model with the rest (rules/stitch.c).
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "summary.h"
#include "groups.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* the end of a number token that starts at p (digits, a point, an
 * exponent, hex digits after 0x) */
static const char *number_end(const char *p)
{
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		for (p += 2; isxdigit((unsigned char)*p); p++)
			;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++)
		if ((p[1] == 'e' || p[1] == 'E') && (isdigit((unsigned char)p[2]) || p[2] == '-' || p[2] == '+'))
			p += 2;
	return p;
}

uint64_t rule_kernel_class(const char *src, const char *name)
{
	if (!src || !*src)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	size_t nlen = name ? strlen(name) : 0;
	int hints = 0; /* inside size_hints={...}: its depth of braces, else 0 */
	for (const char *p = src; *p;) {
		if (ident_char(*p) && !isdigit((unsigned char)*p)) {
			const char *e = p;
			while (ident_char(*e))
				e++;
			if (nlen && (size_t)(e - p) == nlen && memcmp(p, name, nlen) == 0)
				strbuf_addstr(&sb, "@K");
			else
				strbuf_add(&sb, p, (size_t)(e - p));
			if ((size_t)(e - p) == 10 && memcmp(p, "size_hints", 10) == 0 && e[0] == '=' && e[1] == '{') {
				strbuf_addstr(&sb, "={");
				e += 2;
				hints = 1;
			}
			p = e;
		} else if (isdigit((unsigned char)*p)) {
			const char *e = number_end(p);
			if (hints) { /* a size hint: its power of four */
				double v = strtod(p, NULL);
				strbuf_addf(&sb, "#%d", v >= 1 ? (int)floor(log2(v) / 2) : 0);
			} else {
				strbuf_addch(&sb, '#');
			}
			p = e;
		} else {
			if (hints)
				hints += *p == '{' ? 1 : *p == '}' ? -1 : 0;
			strbuf_addch(&sb, *p++);
		}
	}
	uint64_t h = XXH3_64bits(sb.buf, sb.len);
	strbuf_release(&sb);
	return h ? h : 1;
}

void rule_kernel_groups(const struct rule_summary *s, size_t *rep, double *share)
{
	for (size_t i = 0; i < s->nkernels; i++) {
		const struct rule_summary_kernel *k = &s->kernels[i];
		rep[i] = i;
		share[i] = isnan(k->share) ? 0 : k->share;
		if (!k->cls || strcmp(k->kind, "triton") != 0)
			continue;
		/* the first kernel of its class so far: the group's (its
		 * representative is settled below, once the group is whole) */
		for (size_t j = 0; j < i; j++)
			if (rep[j] == j && s->kernels[j].cls == k->cls && strcmp(s->kernels[j].kind, "triton") == 0) {
				rep[i] = j;
				share[j] += share[i];
				share[i] = 0;
				break;
			}
	}
	/* each group's representative: its kernel of the most time (the
	 * first in the summary's order among equals), holding the group's share */
	for (size_t g = 0; g < s->nkernels; g++) {
		if (rep[g] != g)
			continue;
		size_t best = g;
		double own = isnan(s->kernels[g].share) ? 0 : s->kernels[g].share;
		for (size_t i = g + 1; i < s->nkernels; i++)
			if (rep[i] == g && s->kernels[i].share > own) {
				best = i;
				own = s->kernels[i].share;
			}
		if (best == g)
			continue;
		share[best] = share[g];
		share[g] = 0;
		for (size_t i = g; i < s->nkernels; i++)
			if (rep[i] == g)
				rep[i] = best;
	}
}
