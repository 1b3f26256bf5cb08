/*
 * rules/summary.c: a profile's summary (struct rule_summary, rules.h) as
 * text, written and read in one place.
 *
 * The summary is what planning reads without parsing the whole profile;
 * rules/profile.c writes it into the manifest. As text, one line per
 * kernel, fields separated by tabs:
 *   KIND SHARE IDENT NAME[ FRAC[ CLASS]]
 * (IDENT: the hash of the kernel's inventory entry, what proposals key on;
 * SHARE: of device time, for the hot selection; FRAC: its bound over its
 * time (rule_row_frac: over 1 where its argument bytes overstate its
 * traffic), where the profile knows it, else "-" before a CLASS; CLASS: a
 * Triton kernel's class, 16 hex digits (rules/groups.c)), then
 *   time MODEL DEVICE -    a call's time and its kernels', ns
 *   cudnn SHARE 1X1 LEFT   the share of device time in torch's cuDNN calls;
 *                          1X1, that of those that are 1x1 convolutions of
 *                          stride 1 and one group, or "-"; LEFT, the most
 *                          torch's time over the vendor probe's best
 *                          algorithm's in one of them, or "-"
 *   gemm32 SHARE - -       the share of device time in torch's cuBLAS
 *                          calls that are float32 products of m and n 128
 *                          or more (rule_gemm32_share, what tf32x3 takes);
 *                          left out where none is (0) or it is unknown
 *   facts - - conv=N,gemm=N,reduction=N,params=N,tconv=N,dconv=N,pool=N,c3d=N,lred=N,sred=N,attn=N,slice=N
 *                          (RULE_GRAPH_FACTS, rules.h, in its order:)
 *                          the model's ATen convolutions, GEMMs and
 *                          reductions per eager call and its parameters'
 *                          elements, then of those the transposed,
 *                          depthwise and forward 3-D convolutions, the
 *                          poolings, the sums over a linear layer's
 *                          features and the reductions over a strided
 *                          axis (the implementation-space search)
 *   eager RATIO - OPS      compiled over eager, "-" without a side-by-side
 *                          run; the hot kernels' distinctive ATen ops,
 *                          comma-separated, or "-"
 *   baseline STATUS - WHY  the compiled code checked against eager (and the
 *                          float64 reference where they differ) on the
 *                          gates' seeds: agrees, accurate, wrong,
 *                          ill-conditioned or unchecked (gates/baseline.c)
 * Profiles cached before the eager and baseline lines existed lack them,
 * and before the facts line and LEFT, those, and before the time line and
 * FRAC, those; before the gemm32 line, it (its share read as unknown, NAN).
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

char *rule_summary_write(const struct rule_summary *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < s->nkernels; i++) {
		const struct rule_summary_kernel *k = &s->kernels[i];
		char hex[HASH_HEX];
		if (strpbrk(k->name, "\t\n") || isnan(k->share))
			continue;
		hash_hex(k->ident, hex);
		strbuf_addf(&sb, "%s\t%.9g\t%s\t%s", k->kind ? k->kind : "-", k->share, hex, k->name);
		if (!isnan(k->frac))
			strbuf_addf(&sb, "\t%.6g", k->frac);
		else if (k->cls)
			strbuf_addstr(&sb, "\t-");
		if (k->cls)
			strbuf_addf(&sb, "\t%016llx", (unsigned long long)k->cls);
		strbuf_addch(&sb, '\n');
	}
	if (s->model_ns > 0 && s->device_ns > 0 && s->cost_s > 0)
		strbuf_addf(&sb, "time\t%.9g\t%.9g\t%.6g\n", s->model_ns, s->device_ns, s->cost_s);
	else if (s->model_ns > 0 && s->device_ns > 0)
		strbuf_addf(&sb, "time\t%.9g\t%.9g\t-\n", s->model_ns, s->device_ns);
	strbuf_addf(&sb, "cudnn\t%.6g\t", s->cudnn_share);
	if (isnan(s->conv1x1_share))
		strbuf_addch(&sb, '-');
	else
		strbuf_addf(&sb, "%.6g", s->conv1x1_share);
	if (isnan(s->cudnn_left))
		strbuf_addstr(&sb, "\t-\n");
	else
		strbuf_addf(&sb, "\t%.6g\n", s->cudnn_left);
	if (s->gemm32_share > 0) /* NAN or 0: no line */
		strbuf_addf(&sb, "gemm32\t%.6g\t-\t-\n", s->gemm32_share);
	if (s->facts_known) {
		const char *sep = "facts\t-\t-\t";
#define WRITE_(field, json, key, absent) strbuf_addf(&sb, "%s" key "=%ld", sep, s->field), sep = ",";
		RULE_GRAPH_FACTS(WRITE_)
#undef WRITE_
		strbuf_addch(&sb, '\n');
	}
	if (isnan(s->eager_ratio))
		strbuf_addstr(&sb, "eager\t-\t-\t-\n"); /* known: no side-by-side run */
	else
		strbuf_addf(&sb, "eager\t%.9g\t-\t%s\n", s->eager_ratio, s->eager_ops ? s->eager_ops : "-");
	strbuf_addf(&sb, "baseline\t%s\t-\t", gate_baseline_name(s->baseline));
	for (const char *c = s->baseline_why ? s->baseline_why : "-"; *c; c++)
		strbuf_addch(&sb, *c == '\t' || *c == '\n' ? ' ' : *c);
	strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb);
}

/*
 * The facts line's KEY=N pairs, in RULE_GRAPH_FACTS' order, into s: true
 * when its first four are there (the facts that came later are 0 where a
 * summary written before them has none). A pair out of order or not a
 * whole number ends the line, as it ended sscanf's reading before.
 */
static bool read_facts(const char *p, struct rule_summary *s)
{
	int got = 0, required = 0;
	bool on = true;
#define READ_(field, json, key, absent)                                                     \
	s->field = 0;                                                                       \
	required += (absent) < 0;                                                           \
	if (on && strncmp(p, key "=", sizeof key) == 0) {                                   \
		char *end;                                                                  \
		s->field = strtol(p + sizeof key, &end, 10);                                \
		on = end > p + sizeof key && (*end == ',' || *end == '\0');                \
		got += end > p + sizeof key;                                                \
		p = *end == ',' ? end + 1 : end;                                            \
	} else {                                                                            \
		on = false;                                                                 \
	}
	RULE_GRAPH_FACTS(READ_)
#undef READ_
	return got >= required;
}

void rule_summary_read(const char *text, struct rule_summary *s)
{
	memset(s, 0, sizeof *s);
	s->eager_ratio = NAN;
	s->cudnn_left = s->conv1x1_share = s->gemm32_share = NAN;
	s->model_ns = s->device_ns = s->cost_s = NAN;
	s->text = xstrdup(text);
	size_t nlines = 0;
	for (const char *c = s->text; *c; c++)
		nlines += *c == '\n';
	s->kernels = xcalloc(nlines + 1, sizeof *s->kernels);
	for (char *line = s->text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *f[4];
		int nf = 0;
		for (char *p = line; nf < 4; nf++) {
			f[nf] = p;
			char *t = nf < 3 ? strchr(p, '\t') : NULL;
			if (nf < 3 && !t)
				break;
			if (t) {
				*t = '\0';
				p = t + 1;
			}
		}
		if (nf < 4)
			continue;
		if (strcmp(f[0], "cudnn") == 0) {
			s->cudnn_share = strtod(f[1], NULL);
			s->conv1x1_share = strcmp(f[2], "-") == 0 ? NAN : strtod(f[2], NULL);
			s->cudnn_left = strcmp(f[3], "-") == 0 ? NAN : strtod(f[3], NULL);
		} else if (strcmp(f[0], "gemm32") == 0) {
			s->gemm32_share = strcmp(f[1], "-") == 0 ? NAN : strtod(f[1], NULL);
		} else if (strcmp(f[0], "facts") == 0) {
			s->facts_known = read_facts(f[3], s);
		} else if (strcmp(f[0], "time") == 0) {
			s->model_ns = strtod(f[1], NULL);
			s->device_ns = strtod(f[2], NULL);
			s->cost_s = strcmp(f[3], "-") == 0 ? NAN : strtod(f[3], NULL);
		} else if (strcmp(f[0], "baseline") == 0) {
			for (int st = GATE_BASE_UNCHECKED; st <= GATE_BASE_WRONG; st++)
				if (strcmp(f[1], gate_baseline_name((enum gate_baseline_status)st)) == 0)
					s->baseline = (enum gate_baseline_status)st;
			free(s->baseline_why);
			s->baseline_why = xstrdup(f[3]);
		} else if (strcmp(f[0], "eager") == 0) {
			s->eager_known = true;
			s->eager_ratio = strcmp(f[1], "-") == 0 ? NAN : strtod(f[1], NULL);
			free(s->eager_ops);
			s->eager_ops = strcmp(f[3], "-") == 0 ? NULL : xstrdup(f[3]);
		} else {
			struct rule_summary_kernel *k = &s->kernels[s->nkernels];
			if (hash_parse(f[2], &k->ident) < 0)
				continue;
			k->kind = f[0];
			k->share = strtod(f[1], NULL);
			k->name = f[3];
			char *t = strchr(f[3], '\t'); /* FRAC, where the profile knew it */
			k->frac = NAN;
			if (t) {
				*t++ = '\0';
				char *c = strchr(t, '\t'); /* CLASS */
				if (c) {
					*c++ = '\0';
					k->cls = strtoull(c, NULL, 16);
				}
				k->frac = strcmp(t, "-") == 0 ? NAN : strtod(t, NULL);
			}
			s->nkernels++;
		}
	}
}

void rule_summary_release(struct rule_summary *s)
{
	free(s->kernels);
	free(s->eager_ops);
	free(s->baseline_why);
	free(s->text);
	memset(s, 0, sizeof *s);
}
