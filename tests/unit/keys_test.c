/*
 * tests/unit/keys_test.c: the agents' part of a proposal's key
 * (agent_fingerprint, agents/agent.h), parameter by parameter: each role's
 * backend and each LLM setting (provider, model, URL, temperature to the
 * last bit, max_tokens) and the seed change it; the budgets (candidates,
 * LLM calls, tokens, wall time), hot, max_kernels and auto_variants do
 * not. tests/e2e/keys.sh does the same through builds for everything a
 * build without an LLM can reach. And keys are equal only when both
 * halves of their 128 bits are (hash_eq, engine/hash.h). Each rule's key
 * begins with its kind and version, pinned here: a cache written by one
 * build of koptmake is read by the next, unless a rule says its results
 * changed form (a new version, and a new line below with it).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/agent.h"
#include "../../engine/hash.h"
#include "../../engine/rule.h"
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

extern const struct rule rule_capture, rule_profile, rule_propose, rule_verify, rule_stitch,
	rule_report, rule_screen, rule_deploy;

/* every rule's first ingredients (kind, version), as a key's hex digits */
static void pinned_versions(void)
{
	static const struct {
		const struct rule *r;
		const char *name;
		int version;
		const char *hex;
	} pin[] = {
		{ &rule_capture, "capture", 3, "52b80992904fad46d5eebda2b359f394" },
		{ &rule_profile, "profile", 13, "910da14e0690b6800c61c12c09567eee" },
		{ &rule_propose, "propose", 3, "7ce023f95faf9d56fe0864e7cb5c3e62" },
		{ &rule_verify, "verify", 2, "4cfb9765c22daf971740f62fd629a05b" },
		{ &rule_stitch, "stitch", 12, "2f0c1fb3568979ac27e7046265c2505b" },
		{ &rule_report, "report", 12, "e025912be505c22a06626dc92a160d7a" },
		{ &rule_screen, "screen", 6, "e5d0fb1368a042bb38161d5e5d656e4e" },
		{ &rule_deploy, "deploy", 1, "474e07573e12819ef21db7d52ae46d5f" },
	};
	for (size_t i = 0; i < sizeof pin / sizeof pin[0]; i++) {
		const struct rule *r = pin[i].r;
		struct hash_key k;
		hash_key_init(&k, r->name, r->version);
		char hex[HASH_HEX];
		hash_hex(hash_key_final(&k), hex);
		hash_key_release(&k);
		TAP_OK(strcmp(r->name, pin[i].name) == 0 && r->version == pin[i].version && strcmp(hex, pin[i].hex) == 0,
		       "the %s rule's key begins as a cache of before expects (%s %d: %s)", pin[i].name, r->name,
		       r->version, hex);
	}
}

int main(void)
{
	pinned_versions();
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
