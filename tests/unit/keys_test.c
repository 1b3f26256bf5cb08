/*
 * tests/unit/keys_test.c: the agents' part of a proposal's key
 * (agent_fingerprint, agents/agent.h), parameter by parameter: each role's
 * backend and each LLM setting (provider, model, URL, temperature to the
 * last bit, max_tokens) and the seed change it; the budgets (candidates,
 * LLM calls, tokens, wall time), hot, max_kernels and auto_variants do
 * not. tests/e2e/keys.sh does the same through builds for everything a
 * build without an LLM can reach. And keys are equal only when both
 * halves of their 128 bits are (hash_eq, engine/hash.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/agent.h"
#include "../../engine/hash.h"
#include "../tap.h"

static void base(struct kopt_agents *a)
{
	memset(a, 0, sizeof *a);
	a->name = "default";
	a->budget = 16;
	a->hot = 0.05;
	a->seed = 1;
	a->llm_calls = 32;
	a->tokens = 200000;
	a->wall_s = 1800;
	a->max_kernels = 10;
	a->auto_variants = true;
}

static void llm(struct kopt_role_cfg *r)
{
	r->backend = KOPT_BACKEND_LLM;
	r->llm.provider = "openai";
	r->llm.model = "m1";
	r->llm.url = "http://127.0.0.1:1/v1";
	r->llm.key_env = "KEY";
	r->llm.temperature = 0.7;
	r->llm.max_tokens = 4096;
}

/* whether the fingerprint of b differs from a's */
static int differs(const struct kopt_agents *a, const struct kopt_agents *b)
{
	char *x = agent_fingerprint(a), *y = agent_fingerprint(b);
	int d = strcmp(x, y) != 0;
	free(x);
	free(y);
	return d;
}

int main(void)
{
	struct kopt_agents a, b;
	static const char *const roles[KOPT_ROLE_COUNT] = { "analyst", "planner", "coder", "debugger", "tuner" };

	base(&a);
	base(&b);
	TAP_OK(!differs(&a, &b), "the same settings: the same fingerprint");
	char *seen[KOPT_ROLE_COUNT];
	for (int r = 0; r < KOPT_ROLE_COUNT; r++) {
		base(&b);
		llm(&b.roles[r]);
		TAP_OK(differs(&a, &b), "the %s on an LLM: another fingerprint", roles[r]);
		seen[r] = agent_fingerprint(&b);
	}
	int distinct = 1;
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		for (int q = 0; q < r; q++)
			distinct &= strcmp(seen[r], seen[q]) != 0;
	TAP_OK(distinct, "which role is on the LLM changes it too");
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		free(seen[r]);

	/* each LLM setting of the coder, against the coder on m1 */
	base(&a);
	llm(&a.roles[KOPT_ROLE_CODER]);
	struct kopt_llm *l = &b.roles[KOPT_ROLE_CODER].llm;
#define CHANGE(what, stmt)                              \
	do {                                            \
		base(&b);                               \
		llm(&b.roles[KOPT_ROLE_CODER]);         \
		stmt;                                   \
		TAP_OK(differs(&a, &b), "%s", what);    \
	} while (0)
	CHANGE("the provider", l->provider = "anthropic");
	CHANGE("the model", l->model = "m2");
	CHANGE("the URL", l->url = "http://127.0.0.1:2/v1");
	CHANGE("no URL (the provider's default)", l->url = NULL);
	CHANGE("the temperature", l->temperature = 0.8);
	CHANGE("the temperature by one ulp (0.7 and the next double)", l->temperature = nextafter(0.7, 1.0));
	CHANGE("max_tokens", l->max_tokens = 4097);
	CHANGE("the seed", b.seed = 2);
#undef CHANGE

	/* not in the key: what bounds the work, not what a candidate is */
#define SAME(what, stmt)                                \
	do {                                            \
		base(&b);                               \
		llm(&b.roles[KOPT_ROLE_CODER]);         \
		stmt;                                   \
		TAP_OK(!differs(&a, &b), "%s", what);   \
	} while (0)
	SAME("the budget is not in it", b.budget = 4);
	SAME("hot is not in it", b.hot = 0.5);
	SAME("max_kernels is not in it", b.max_kernels = 1);
	SAME("llm_calls, tokens and wall time are not in it", (b.llm_calls = 1, b.tokens = 5, b.wall_s = 9));
	SAME("auto_variants is not in it", b.auto_variants = false);
	SAME("the key's variable name is not in it (never a secret)", l->key_env = "OTHER_KEY");
#undef SAME

	kopt_hash h1 = { 1, 2 }, h2 = { 1, 3 }, h3 = { 4, 2 }, h4 = { 1, 2 };
	TAP_OK(hash_eq(h1, h4) && !hash_eq(h1, h2) && !hash_eq(h1, h3),
	       "hash_eq: equal when both halves are, not when one half is");

	char *fp = agent_fingerprint(&a);
	TAP_OK(strstr(fp, AGENT_BUILTIN_VERSION) != NULL, "the built-in agents' version is in it (%s)", fp);
	free(fp);
	return tap_done();
}
