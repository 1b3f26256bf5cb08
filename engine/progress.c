/* engine/progress.c: see progress.h */
#include <config.h>

#include "progress.h"

#include <string.h>

void progress_announce(struct progress *p, struct dag *d, struct dag_node *n)
{
	if (!n->rule->reveals || (n->flags & DAG_SETTLED))
		return;
	double g = n->rule->reveals(d, n);
	if (!(g > 0))
		return;
	size_t was = p->guesscap;
	p->guess = xgrow(p->guess, &p->guesscap, (size_t)n->seq + 1, sizeof *p->guess);
	memset(p->guess + was, 0, (p->guesscap - was) * sizeof *p->guess);
	p->guess[n->seq] = g;
	p->left += g;
	if (p->prior == 0)
		p->prior = 2 * g;
}

double progress_settle(struct progress *p, const struct dag_node *n)
{
	p->nsettled++;
	if (n->seq >= p->guesscap || p->guess[n->seq] == 0)
		return 0;
	double g = p->guess[n->seq];
	p->guess[n->seq] = 0;
	p->left = p->left > g ? p->left - g : 0;
	return g;
}

void progress_expanded(struct progress *p, double g, size_t added)
{
	p->guessed += g;
	p->added += (double)added;
}

size_t progress_total(const struct progress *p, const struct dag *d, size_t ndone, bool *guessing)
{
	size_t open = d->nnodes > p->nsettled ? d->nnodes - p->nsettled : 0;
	double g = 0;
	if (p->left > 0) /* scaled from 1 toward what the expansions so far added */
		g = p->left * (p->added + p->prior) / (p->guessed + p->prior);
	*guessing = p->left > 0;
	return ndone + (open ? open - 1 : 0) + (size_t)(g + 0.5);
}

void progress_release(struct progress *p)
{
	free(p->guess);
	memset(p, 0, sizeof *p);
}

void progress_clock(struct strbuf *sb, double secs)
{
	long t = secs > 0 ? (long)(secs + 0.5) : 0;
	if (t >= 3600)
		strbuf_addf(sb, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		strbuf_addf(sb, "%ld:%02ld", t / 60, t % 60);
}
