/*
 * tests/llm/agents_llm_test.c: the LLM roles of agents/agent.c against
 * tests/llm/replay_server.py (a test double on 127.0.0.1 replaying recorded
 * chat-completions replies): the coder's candidate is the kernel of the
 * reply, its prompt carries the analyst's diagnosis and the planner's plan;
 * the debugger repairs with the failing gate's reason; the per-kernel budget
 * stops the search with the limit's name; a reply without a kernel is a
 * failed candidate, never a crash; the API key is in no candidate.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/llm.h"
#include "../../common/http.h"
#include "../tap.h"

#ifndef KOPT_TEST_PYTHON
#define KOPT_TEST_PYTHON ""
#endif

#include "replay.h"

#define SECRET "sk-test-SECRET-1234"
#define KERNEL "triton_per_fused__softmax_exp_prepare_softmax_online_sub_4"

static struct kopt_agents cfg;
static char *source;
static struct agent_kernel kernel;

static void use_llm(const struct server *s)
{
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 8;
	cfg.llm_calls = 8;
	cfg.tokens = 200000;
	cfg.wall_s = 60;
	struct kopt_llm llm = { .provider = (char *)"openai", .model = (char *)"qwen2.5-coder",
				.url = xasprintf("%s/v1", s->url), .key_env = (char *)"KOPT_TEST_KEY", .temperature = 0.2,
				.max_tokens = 4096 };
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_CODER].llm = llm;
	cfg.roles[KOPT_ROLE_DEBUGGER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_DEBUGGER].llm = llm;
}

static void unuse_llm(void)
{
	free(cfg.roles[KOPT_ROLE_CODER].llm.url);
}

/* the last user message of request i (the log keeps the body as text); caller frees */
static char *user_prompt(json_t *reqs, size_t i)
{
	const char *text = json_string_value(json_object_get(json_array_get(reqs, i), "body"));
	json_t *body = text ? json_loads(text, 0, NULL) : NULL;
	json_t *msgs = json_object_get(body, "messages");
	const char *u = json_string_value(json_object_get(json_array_get(msgs, json_array_size(msgs) - 1), "content"));
	char *r = u ? xstrdup(u) : NULL;
	json_decref(body);
	return r;
}

static int mentions_secret(const json_t *c)
{
	char *t = json_dumps(c, 0);
	int r = t && strstr(t, SECRET) != NULL;
	free(t);
	return r;
}

static const char *sv(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

/* a beam of 2: the round's head takes reply 1 and keeps both; the next
 * candidate takes reply 2 without a call; a reply that repeats an earlier
 * candidate is left out and the next round starts */
static void t_beam(void)
{
	struct server s;
	int st = server_start(&s, "openai_beam");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_CODER].llm.beam = 2;
	struct agent_request r0 = { .kernel = &kernel, .cfg = &cfg, .index = 0, .traj = NULL, .ntraj = 0 };
	struct agent_reply a0, a1, a2;
	TAP_OK(st == 0 && agent_propose(&r0, &a0) == 0 && a0.candidate &&
	       json_array_size(json_object_get(a0.candidate, "beam")) == 2 &&
	       strcmp(sv(a0.candidate, "source"), sv(json_array_get(json_object_get(a0.candidate, "beam"), 0), "source")) == 0 &&
	       strcmp(sv(a0.candidate, "strategy"), "llm rewrite (round 1, reply 1 of 2)") == 0,
	       "beam: the round's first candidate takes reply 1 and keeps both replies");
	json_t *q = server_requests(&s);
	TAP_IS_INT(json_array_size(q), 2, "beam: one round, two calls");
	json_decref(q);
	TAP_OK(json_integer_value(json_object_get(json_object_get(a0.candidate, "llm"), "calls")) == 2,
	       "beam: the round's candidate is charged both calls");
	struct agent_try t0 = { 0, a0.candidate, "fail", "perf", "perf: kernel speedup 0.98x", 0.98, 46000, 46900 };
	struct agent_request r1 = { .kernel = &kernel, .cfg = &cfg, .index = 1, .traj = &t0, .ntraj = 1 };
	/* the replies come back in no set order: each one is one of the two */
	const char *s0 = sv(a0.candidate, "source");
	TAP_OK(agent_propose(&r1, &a1) == 0 && a1.candidate &&
	       ((strstr(s0, "reuse the exponentials computed") && strstr(sv(a1.candidate, "source"), "divide as the original does")) ||
		(strstr(s0, "divide as the original does") && strstr(sv(a1.candidate, "source"), "reuse the exponentials computed"))) &&
	       strcmp(sv(a1.candidate, "strategy"), "llm rewrite (round 1, reply 2 of 2)") == 0 &&
	       !json_object_get(a1.candidate, "llm") && !json_object_get(a1.candidate, "beam"),
	       "beam: the next candidate is reply 2, at no cost");
	q = server_requests(&s);
	TAP_IS_INT(json_array_size(q), 2, "beam: taking reply 2 sends nothing");
	json_decref(q);
	const json_t *rep = strstr(s0, "divide as the original does") ? a0.candidate : a1.candidate;
	const json_t *other = rep == a0.candidate ? a1.candidate : a0.candidate;
	TAP_OK(strstr(sv(json_object_get(rep, "notes"), "avoid"), "replacing a division") && !json_object_get(other, "notes"),
	       "a reply's notes (Avoid:, Prioritize:) go with its candidate");
	/* the round's first reply failed correctness, its second passed: the
	 * round made a candidate that passed, so none of its replies is
	 * repaired (the next step tunes the best, built in: no call) */
	struct agent_try tb[2] = { { 0, a0.candidate, "fail", "correctness", "correctness: max abs error 1e-01", 0, 0, 0 },
				   { 1, a1.candidate, "pass", NULL, "kernel: 1.200x", 1.2, 46000, 38333 } };
	struct agent_request r2 = { .kernel = &kernel, .cfg = &cfg, .index = 2, .traj = tb, .ntraj = 2 };
	struct agent_reply a3;
	agent_propose(&r2, &a3);
	q = server_requests(&s);
	TAP_OK(json_array_size(q) == 2 && !(a3.candidate && !strcmp(sv(a3.candidate, "role"), "debugger")),
	       "beam: a round with a reply that passed repairs none of its others (%zu requests, role %s)",
	       json_array_size(q), a3.candidate ? sv(a3.candidate, "role") : "none");
	json_decref(q);
	agent_reply_release(&a3);
	server_stop(&s);
	unuse_llm();

	/* the same reply twice: the second repeats the first and is no candidate */
	st = server_start(&s, "openai_same_x3");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_CODER].llm.beam = 2;
	cfg.budget = 2;
	agent_reply_release(&a0);
	TAP_OK(st == 0 && agent_propose(&r0, &a0) == 0 && a0.candidate, "beam: a round of two equal replies");
	t0.candidate = a0.candidate;
	TAP_OK(agent_propose(&r1, &a2) == 0 && a2.candidate && json_array_size(json_object_get(a2.candidate, "beam")) == 1 &&
	       json_integer_value(json_object_get(a2.candidate, "round")) == 1,
	       "beam: a reply that repeats a candidate is left out, and the next round starts");
	q = server_requests(&s);
	TAP_IS_INT(json_array_size(q), 3, "beam: the next round is one call: one candidate is left of the budget of 2");
	json_decref(q);
	server_stop(&s);
	unuse_llm();
	agent_reply_release(&a0);
	agent_reply_release(&a1);
	agent_reply_release(&a2);
}

/* the planner as an LLM: one call names the strategy, from the analyst's
 * diagnosis and what was tried, and the coder's prompt carries it; a
 * planner whose call fails leaves the coder a generic strategy */
static void t_planner(void)
{
	struct server s;
	int st = server_start(&s, "openai_plan_then_ok");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_PLANNER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_PLANNER].llm = cfg.roles[KOPT_ROLE_CODER].llm;
	struct agent_request r0 = { .kernel = &kernel, .cfg = &cfg, .index = 0, .traj = NULL, .ntraj = 0 };
	struct agent_reply a;
	TAP_OK(st == 0 && agent_propose(&r0, &a) == 0 && a.candidate, "llm planner and coder: a candidate");
	json_t *q = server_requests(&s);
	char *plan = user_prompt(q, 0), *code = user_prompt(q, 1);
	TAP_OK(json_array_size(q) == 2 && plan && strstr(plan, "Diagnosis: ") && strstr(plan, "43% of the copy bandwidth") &&
	       strstr(plan, "\nTried so far:\nnothing yet\nName the one rewrite strategy to try next for kernel " KERNEL
			    ", in one sentence."),
	       "the planner's call: the diagnosis, nothing tried yet, one sentence asked for");
	TAP_OK(code && strstr(code, "Keep the exponentials of the first pass and multiply by the reciprocal of the row sum."),
	       "the coder's prompt carries the planner's reply as its strategy");
	free(plan);
	free(code);
	json_decref(q);
	agent_reply_release(&a);
	server_stop(&s);

	st = server_start(&s, "openai_400");
	free(cfg.roles[KOPT_ROLE_CODER].llm.url);
	cfg.roles[KOPT_ROLE_CODER].llm.url = xasprintf("%s/v1", s.url);
	cfg.roles[KOPT_ROLE_PLANNER].llm = cfg.roles[KOPT_ROLE_CODER].llm;
	TAP_OK(st == 0 && agent_propose(&r0, &a) == 0 && a.candidate, "a planner whose call is refused: still a candidate");
	q = server_requests(&s);
	code = user_prompt(q, 1);
	TAP_OK(json_array_size(q) == 2 && code && strstr(code, "the fastest correct rewrite you can write"),
	       "... the coder's strategy is the generic one");
	free(code);
	json_decref(q);
	agent_reply_release(&a);
	server_stop(&s);
	/* from anthropic: the planner's prompt has no stable prefix to cache,
	 * so its user turn is one plain text, not blocks with a cache mark */
	struct server sa;
	st = server_start(&s, "openai_ok");
	int sta = server_start(&sa, "anthropic_ok");
	free(cfg.roles[KOPT_ROLE_CODER].llm.url);
	cfg.roles[KOPT_ROLE_CODER].llm.url = xasprintf("%s/v1", s.url);
	char *aurl = xstrdup(sa.url);
	cfg.roles[KOPT_ROLE_PLANNER].llm = cfg.roles[KOPT_ROLE_CODER].llm;
	cfg.roles[KOPT_ROLE_PLANNER].llm.url = aurl;
	cfg.roles[KOPT_ROLE_PLANNER].llm.provider = (char *)"anthropic";
	TAP_OK(st == 0 && sta == 0 && agent_propose(&r0, &a) == 0 && a.candidate, "a planner through Anthropic: a candidate");
	q = server_requests(&sa);
	plan = user_prompt(q, 0);
	TAP_OK(json_array_size(q) == 1 && plan && strstr(plan, "Name the one rewrite strategy to try next"),
	       "... its user turn is one plain text, not cache blocks");
	free(plan);
	json_decref(q);
	agent_reply_release(&a);
	server_stop(&sa);
	server_stop(&s);
	free(aurl);
	cfg.roles[KOPT_ROLE_PLANNER].backend = KOPT_BACKEND_BUILTIN;
	memset(&cfg.roles[KOPT_ROLE_PLANNER].llm, 0, sizeof cfg.roles[KOPT_ROLE_PLANNER].llm);
	unuse_llm();
}

/* a reply with a kernel and a launch config; a config with other keys */
static void t_config(void)
{
	struct server s;
	int st = server_start(&s, "openai_config");
	use_llm(&s);
	struct agent_request r0 = { .kernel = &kernel, .cfg = &cfg, .index = 0, .traj = NULL, .ntraj = 0 };
	struct agent_reply a;
	TAP_OK(st == 0 && agent_propose(&r0, &a) == 0 && a.candidate &&
	       json_integer_value(json_object_get(json_object_get(a.candidate, "config"), "num_warps")) == 8 &&
	       json_integer_value(json_object_get(json_object_get(a.candidate, "config"), "XBLOCK")) == 1 &&
	       strcmp(sv(a.candidate, "strategy"), "llm rewrite and launch config (round 1, reply 1 of 1)") == 0,
	       "a reply's json config rides with its kernel, the kernel's other keys kept");
	TAP_OK(strcmp(sv(json_object_get(a.candidate, "notes"), "prioritize"),
		      "fewer warps per row once the row is in registers.") == 0, "notes written as bold list items");
	agent_reply_release(&a);
	TAP_OK(agent_propose(&r0, &a) == 0 && a.candidate && json_is_null(json_object_get(a.candidate, "config")) &&
	       strstr(sv(a.candidate, "config_error"), "FOO_BLOCK is not one of the kernel's"),
	       "a config with a key the kernel lacks is left out, and the candidate says why");
	agent_reply_release(&a);
	server_stop(&s);
	unuse_llm();
}

/* tokens left for no call: the built-in search takes the slot, no round begins */
static void t_tokens(void)
{
	struct server s = { 0 };
	snprintf(s.url, sizeof s.url, "http://127.0.0.1:9");
	use_llm(&s);
	cfg.tokens = 100;
	struct agent_request r0 = { .kernel = &kernel, .cfg = &cfg, .index = 0, .traj = NULL, .ntraj = 0 };
	struct agent_reply a;
	TAP_OK(agent_propose(&r0, &a) == 0 && a.candidate && !json_object_get(a.candidate, "round") &&
	       !json_object_get(a.candidate, "llm") &&
	       strstr(sv(a.candidate, "llm_off"), "llm budget: 0 tokens used of 100, this call needs about "),
	       "tokens for no call: no round, the built-in search's candidate names the limit");
	agent_reply_release(&a);
	unuse_llm();
}

/* the digest holds what the prompt shows of the trajectory, as it rounds it */
static void t_digest(void)
{
	memset(&cfg, 0, sizeof cfg);
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	json_t *c = json_pack("{s:n, s:o, s:s, s:s, s:s}", "source", "config", json_pack("{s:i}", "XBLOCK", 2), "role",
			      "coder", "name", "llm", "strategy", "llm launch config");
	struct agent_try a = { 0, c, "pass", NULL, "kernel: 1.123x", 1.12341, 46000, 40940 };
	struct agent_try b = a;
	struct agent_request ra = { .kernel = &kernel, .cfg = &cfg, .index = 1, .traj = &a, .ntraj = 1 }, rb = { .kernel = &kernel, .cfg = &cfg, .index = 1, .traj = &b, .ntraj = 1 };
	char *da = agent_context_digest(&ra);
	b.speedup = 1.12344;
	char *db = agent_context_digest(&rb);
	TAP_OK(strcmp(da, db) == 0, "digest: a speedup that rounds the same in the prompt keys the same");
	free(db);
	b.speedup = 1.1246;
	db = agent_context_digest(&rb);
	TAP_OK(strcmp(da, db) != 0, "digest: a speedup the prompt shows otherwise keys otherwise");
	free(db);
	b = a;
	b.cand_ns = 40960;
	db = agent_context_digest(&rb);
	TAP_OK(strcmp(da, db) != 0, "digest: so does a time (40.96 us against 40.94 us)");
	free(db);
	b = a;
	b.reason = "kernel: 1.124x";
	db = agent_context_digest(&rb);
	TAP_OK(strcmp(da, db) != 0, "digest: and a reason");
	free(db);
	free(da);
	json_decref(c);
}

/*
 * The LLM tuner: its prompt gives the kernel's current launch config and
 * every config tried with its verdict and speedup; the JSON object of its
 * reply is the candidate's config, on the best passing candidate's source
 * when there is one (on the kernel's own when none passed); a reply with no
 * JSON object in it is no candidate, and the reason says so once.
 */
static void t_tune(void)
{
	/* the built-in roles the LLM roles stand on, as agent.c gives them */
	static const struct llm_builtin bi = { .analyze = agent_builtin_analyze, .plan = agent_builtin_plan,
					       .propose = agent_builtin_propose, .descent = agent_builtin_descent };
	struct server s;
	int st = server_start(&s, "openai_tune");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_TUNER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_TUNER].llm = cfg.roles[KOPT_ROLE_CODER].llm;
	json_t *c0 = json_pack("{s:s, s:{s:i}, s:s, s:s}", "source", "# the faster rewrite\n", "config", "XBLOCK", 2, "role",
			       "coder", "name", "llm");
	json_t *c1 = json_pack("{s:s, s:{s:i}, s:s, s:s}", "source", "# a slower one\n", "config", "XBLOCK", 8, "role",
			       "coder", "name", "llm");
	struct agent_try tr[2] = { { 0, c0, "pass", NULL, "kernel: 1.200x", 1.2, 46000, 38333 },
				   { 1, c1, "fail", "perf", "perf: kernel speedup 0.900x", 0.9, 46000, 51111 } };
	struct agent_request rq = { .kernel = &kernel, .cfg = &cfg, .index = 2, .traj = tr, .ntraj = 2 };
	struct agent_reply a = { 0 };
	TAP_OK(st == 0 && agent_llm_tune(&rq, &bi, &a) == 0 && a.candidate &&
	       json_integer_value(json_object_get(json_object_get(a.candidate, "config"), "XBLOCK")) == 4 &&
	       json_integer_value(json_object_get(json_object_get(a.candidate, "config"), "num_warps")) == 8 &&
	       !strcmp(sv(a.candidate, "role"), "tuner") && !strcmp(sv(a.candidate, "source"), "# the faster rewrite\n") &&
	       !strcmp(sv(a.candidate, "strategy"), "llm launch config of the best so far"),
	       "llm tuner: the reply's JSON object is the config, on the best passing candidate's source");
	json_t *q = server_requests(&s);
	char *up = user_prompt(q, 0);
	TAP_OK(up && strstr(up, "Current launch config: {\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":4}") &&
	       strstr(up, "- {\"XBLOCK\":2}: pass, speedup 1.200\n- {\"XBLOCK\":8}: fail, speedup 0.900\n"),
	       "llm tuner: the prompt gives the current config and each config tried, its verdict and speedup");
	free(up);
	json_decref(q);
	agent_reply_release(&a);

	tr[0].verdict = "fail";
	a = (struct agent_reply){ 0 };
	TAP_OK(agent_llm_tune(&rq, &bi, &a) == 0 && a.candidate && !json_is_string(json_object_get(a.candidate, "source")) &&
	       !strcmp(sv(a.candidate, "strategy"), "llm launch config"),
	       "llm tuner: with no passing candidate, the config goes on the kernel's own source");
	agent_reply_release(&a);
	a = (struct agent_reply){ 0 };
	TAP_OK(agent_llm_tune(&rq, &bi, &a) == 0 && !a.candidate && a.reason &&
	       !strcmp(a.reason, "tuner: the reply held no JSON config"),
	       "llm tuner: a reply without a JSON object is no candidate, and says why");
	agent_reply_release(&a);
	a = (struct agent_reply){ 0 };
	TAP_OK(agent_llm_tune(&rq, &bi, &a) == 0 && !a.candidate && a.reason &&
	       !strcmp(a.reason, "tuner: the reply held no JSON config"),
	       "llm tuner: nor is one whose braces hold no JSON object");
	agent_reply_release(&a);
	server_stop(&s);
	/* from anthropic: the tuner's prompt has no stable prefix to cache, so
	 * its user turn is one plain text, not blocks with a cache mark */
	st = server_start(&s, "anthropic_tune");
	char *url = xstrdup(s.url); /* anthropic's base has no /v1 */
	cfg.roles[KOPT_ROLE_TUNER].llm.url = url; /* the coder's stays the coder's to free */
	cfg.roles[KOPT_ROLE_TUNER].llm.provider = (char *)"anthropic";
	tr[0].verdict = "pass";
	a = (struct agent_reply){ 0 };
	int tuned = agent_llm_tune(&rq, &bi, &a) == 0 && a.candidate &&
		    json_integer_value(json_object_get(json_object_get(a.candidate, "config"), "num_warps")) == 8;
	q = server_requests(&s);
	up = user_prompt(q, 0);
	TAP_OK(st == 0 && tuned && up && strstr(up, "Current launch config: "),
	       "llm tuner with anthropic: the user turn is one plain text (no cache blocks), the config taken (%s)",
	       a.reason ? a.reason : "");
	free(up);
	json_decref(q);
	agent_reply_release(&a);
	server_stop(&s);
	cfg.roles[KOPT_ROLE_TUNER].llm.url = NULL;
	free(url);
	json_decref(c0);
	json_decref(c1);
	memset(&cfg.roles[KOPT_ROLE_TUNER], 0, sizeof cfg.roles[KOPT_ROLE_TUNER]);
	unuse_llm();
}

/*
 * The dispatcher (agent_propose) with an LLM tuner and the built-in coder
 * and debugger: the LLM tuner takes exactly the turns where the built-in
 * agents would give a launch config of their own (role "tuner"), not a
 * screened config's (that one was measured) and not the coder's; every
 * other turn is the built-in agents' answer, unchanged, with no request.
 */
static void t_tune_dispatch(void)
{
	struct server s;
	int st = server_start(&s, "openai_tune_many");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_BUILTIN;
	cfg.roles[KOPT_ROLE_DEBUGGER].backend = KOPT_BACKEND_BUILTIN;
	cfg.roles[KOPT_ROLE_TUNER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_TUNER].llm = cfg.roles[KOPT_ROLE_CODER].llm;
	struct agent_try tr[8];
	int tuner = 0, tuner_llm = 0, other = 0, other_same = 0, asked = 0;
	for (int i = 0; i < 8; i++) {
		struct agent_request rq = { .kernel = &kernel, .cfg = &cfg, .index = i, .traj = tr, .ntraj = (size_t)i };
		struct agent_reply b = { 0 }, a = { 0 };
		agent_builtin_propose(&rq, NULL, &b);
		json_t *q = server_requests(&s);
		size_t before = json_array_size(q);
		json_decref(q);
		agent_propose(&rq, &a);
		q = server_requests(&s);
		int sent = (int)(json_array_size(q) - before);
		json_decref(q);
		asked += sent;
		const char *role = b.candidate ? sv(b.candidate, "role") : NULL;
		if (role && !strcmp(role, "tuner") && !agent_screened(b.candidate)) {
			tuner++;
			tuner_llm += sent == 1 && a.candidate && !strncmp(sv(a.candidate, "strategy"), "llm launch config", 17);
		} else {
			other++;
			other_same += sent == 0 && ((!a.candidate && !b.candidate) ||
						    (a.candidate && b.candidate && json_equal(a.candidate, b.candidate)));
		}
		if (!a.candidate)
			a.candidate = json_pack("{s:s}", "source", "# none\n");
		tr[i] = (struct agent_try){ i, a.candidate, "pass", NULL, "kernel: 1.000x", 1.0, 46000, 46000 };
		a.candidate = NULL;
		agent_reply_release(&a);
		agent_reply_release(&b);
	}
	TAP_OK(st == 0 && tuner > 0 && tuner_llm == tuner && other > 0 && other_same == other && asked == tuner,
	       "dispatch: the LLM tuner takes the built-in tuner's %d turns of 8 (%d taken), the other %d stay "
	       "built-in and unchanged (%d), %d requests", tuner, tuner_llm, other, other_same, asked);
	for (int i = 0; i < 8; i++)
		json_decref((json_t *)tr[i].candidate);
	server_stop(&s);
	memset(&cfg.roles[KOPT_ROLE_TUNER], 0, sizeof cfg.roles[KOPT_ROLE_TUNER]);
	unuse_llm();
}

/* the LLM roles' context digest to the byte: each try's index, verdict,
 * gate, speedup to the thousandth, both times in microseconds to the
 * hundredth, its reason and its candidate (keys sorted), a try without a
 * gate or a verdict as "-" */
static void t_digest_bytes(void)
{
	json_t *c0 = json_pack("{s:s, s:{s:i}}", "name", "x", "config", "XBLOCK", 64);
	struct agent_try t[2] = { { 0, c0, "fail", "perf", "slower", 0.9, 12345.0, 13716.0 },
				  { 1, NULL, NULL, NULL, NULL, 0, 0, 0 } };
	struct agent_request rq = { 0 };
	rq.traj = t;
	rq.ntraj = 2;
	char *d = agent_llm_digest(&rq);
	TAP_IS_STR(d, "0:fail:perf:0.900:12.35:13.72:slower:{\"config\":{\"XBLOCK\":64},\"name\":\"x\"};1:-:-:0.000:0.00:0.00::;",
		   "digest: each try's fields, its times in microseconds, a try without them as -");
	free(d);
	json_decref(c0);
}

/* the built-in coder with an LLM debugger: a candidate of the built-in
 * search that carries a source and failed a gate a repair can address
 * (static, correctness, fp64) goes to the LLM; one that failed any other
 * gate, one without a source and a repair that failed again go to the
 * built-in search, which asks no server */
static void t_builtin_coder_llm_debugger(void)
{
	struct server s;
	int st = server_start(&s, "openai_repair_x3");
	use_llm(&s);
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_BUILTIN;
	json_t *built = json_pack("{s:s, s:s, s:s}", "name", "persist", "role", "coder", "source", source);
	json_t *bare = json_pack("{s:s, s:s}", "name", "launch", "role", "coder");
	json_t *again = json_pack("{s:s, s:s, s:s, s:i}", "name", "llm", "role", "debugger", "source", source, "repair_of", 0);
	const struct {
		json_t *cand;
		const char *gate;
		bool asks;
	} c[] = {
		{ built, "static", true },	   { built, "correctness", true }, { built, "fp64", true },
		{ built, "perf", false },	   { built, "build", false },	   { built, "timeout", false },
		{ bare, "correctness", false }, { again, "correctness", false },
	};
	size_t asked = 0;
	int right = 0;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		struct agent_try t = { 0, c[i].cand, "fail", c[i].gate, "a gate's reason", 0, 0, 0 };
		struct agent_request r = { .kernel = &kernel, .cfg = &cfg, .index = 1, .traj = &t, .ntraj = 1 };
		struct agent_reply a;
		int rc = agent_propose(&r, &a);
		json_t *q = server_requests(&s);
		size_t n = json_array_size(q);
		json_decref(q);
		bool debugger = a.candidate && !strcmp(sv(a.candidate, "role"), "debugger");
		bool ok = rc == 0 && a.candidate && (n > asked) == c[i].asks && debugger == c[i].asks &&
			  (!c[i].asks || json_integer_value(json_object_get(a.candidate, "repair_of")) == 0);
		if (!ok)
			tap_diag("%s after %s: rc %d, %zu requests after %zu, role %s", sv(c[i].cand, "name"), c[i].gate, rc, n,
				 asked, a.candidate ? sv(a.candidate, "role") : "none");
		right += ok;
		asked = n;
		agent_reply_release(&a);
	}
	TAP_IS_INT(right, (int)(sizeof c / sizeof *c),
		   "built-in coder, LLM debugger: static, correctness and fp64 failures of a source are repaired by the "
		   "LLM; other gates, no source, or a repair that failed again: the built-in search, no call");
	TAP_OK(st == 0 && asked == 3, "built-in coder, LLM debugger: three calls in all (%zu)", asked);
	json_decref(built);
	json_decref(bare);
	json_decref(again);
	server_stop(&s);
	unuse_llm();
}

int main(void)
{
	srcdir = getenv("top_srcdir");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	python = KOPT_TEST_PYTHON[0] ? KOPT_TEST_PYTHON : "python3";
	if (!mkdtemp(tmpdir))
		kopt_die("mkdtemp: %s", strerror(errno));
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("KOPT_TEST_KEY", SECRET, 1);
	setenv("KOPT_LLM_BACKOFF_MS", "1", 1);
	signal(SIGPIPE, SIG_IGN);
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/tests/llm/replies/softmax_kernel.py", srcdir);
	if (strbuf_read_file(&sb, path) < 0)
		kopt_die("%s: %s", path, strerror(errno));
	free(path);
	source = strbuf_detach(&sb);
	json_t *row = json_pack("{s:f, s:f, s:f, s:f, s:f}", "ns_per_call", 6100.0, "share", 0.12, "bytes", 262144.0,
				"achieved_gbps", 1800.0, "frac_peak", 0.43);
	json_t *config = json_pack("{s:i, s:i, s:i}", "XBLOCK", 1, "num_warps", 4, "num_stages", 1);
	kernel = (struct agent_kernel){ .model = "softmax", .name = KERNEL, .heuristic = "persistent_reduction",
					.source = source, .config = config, .profile_row = row };
	http_global_init();

	struct server s;
	int st = server_start(&s, "openai_ok_then_repair");
	if (st == 1) {
		printf("1..0 # SKIP %s not found: the replay server cannot run\n", python);
		return 0;
	}
	TAP_OK(st == 0, "replay server started");
	use_llm(&s);
	struct agent_request rq = { .kernel = &kernel, .cfg = &cfg, .index = 0, .traj = NULL, .ntraj = 0 };
	struct agent_reply rp;
	TAP_OK(agent_propose(&rq, &rp) == 0 && rp.candidate, "llm coder: a candidate");
	const char *cs = json_string_value(json_object_get(rp.candidate, "source"));
	TAP_OK(cs && strstr(cs, "def " KERNEL "(") && strstr(cs, "reuse the exponentials"), "llm coder: the kernel of the reply");
	TAP_IS_STR(json_string_value(json_object_get(rp.candidate, "role")), "coder", "llm coder: role");
	json_t *u = json_object_get(rp.candidate, "llm");
	TAP_OK(json_integer_value(json_object_get(u, "calls")) == 1 && json_integer_value(json_object_get(u, "tokens")) > 0,
	       "llm coder: usage recorded in the candidate (1 call, tokens)");
	TAP_OK(json_is_array(json_object_get(rp.candidate, "plan")), "candidate 0 carries the planner's plan");
	json_t *reqs = server_requests(&s);
	char *up = user_prompt(reqs, 0);
	TAP_OK(up && strstr(up, "43% of the copy bandwidth") && strstr(up, "ranked by what paid"),
	       "the coder's prompt carries the analyst's diagnosis and the planner's strategy");
	TAP_OK(up && strstr(up, "def " KERNEL "("), "the coder's prompt carries the kernel");
	TAP_OK(!mentions_secret(rp.candidate), "no key in the candidate");

	/* debugger: candidate 0 failed correctness; candidate 1 repairs it. Its
	 * reason also holds what an escaped candidate could make a worker say:
	 * a secret of koptmake's environment, paths outside the spec's folder,
	 * and more text than a prompt takes */
	setenv("MY_REMOTE_PASS", "canary-6c1f0e", 1);
	struct strbuf why = STRBUF_INIT;
	strbuf_addstr(&why, "correctness: max abs error 3.1e-02 > atol 1e-04 + rtol 1e-04 * |ref| at seed 2\n"
			    "OSError: machine x password canary-6c1f0e; open('/root/.netrc') in /tmp/kopt-worker-Ab12/c.py ");
	for (int i = 0; i < 200; i++)
		strbuf_addstr(&why, "zzzzz");
	struct agent_try t0 = { 0, rp.candidate, "fail", "correctness", why.buf, 0, 0, 0 };
	struct agent_request rd = { .kernel = &kernel, .cfg = &cfg, .index = 1, .traj = &t0, .ntraj = 1 };
	struct agent_reply rr;
	TAP_OK(agent_propose(&rd, &rr) == 0 && rr.candidate &&
	       strcmp(json_string_value(json_object_get(rr.candidate, "role")), "debugger") == 0 &&
	       json_integer_value(json_object_get(rr.candidate, "repair_of")) == 0,
	       "llm debugger: repairs the failed candidate");
	TAP_OK(rr.candidate && json_is_integer(json_object_get(rr.candidate, "round")) &&
	       json_integer_value(json_object_get(rr.candidate, "round")) == 0,
	       "llm debugger: the repair carries the round it belongs to, the first (%lld)",
	       rr.candidate ? (long long)json_integer_value(json_object_get(rr.candidate, "round")) : -2LL);
	json_decref(reqs);
	reqs = server_requests(&s);
	free(up);
	up = user_prompt(reqs, 1);
	TAP_OK(up && strstr(up, "max abs error 3.1e-02"), "the debugger's prompt carries the gate's reason");
	const char *said = up ? strstr(up, "gate: correctness: ") : NULL;
	size_t said_len = said ? strcspn(said, "\n") : 0;
	TAP_OK(said && !strstr(up, "canary-6c1f0e") && strstr(said, "password [redacted]") && !strstr(up, "/root") &&
	       !strstr(up, "kopt-worker-Ab12") && strstr(said, "open('<path>') in <path> zzz") &&
	       said_len > 600 && said_len <= strlen("gate: ") + 600 + 3 && strncmp(said + said_len - 3, "...", 3) == 0,
	       "... scrubbed of secrets and paths outside the spec's folder, on one line, cut at 600 bytes (%zu)",
	       said_len);
	free(up);
	unsetenv("MY_REMOTE_PASS");

	/* the budget holds across proposals: two calls used of two */
	cfg.llm_calls = 2;
	struct agent_try t2[2] = { t0, { 1, rr.candidate, "fail", "perf", "perf: kernel speedup 0.9x", 0.9, 0, 0 } };
	struct agent_request rb = { .kernel = &kernel, .cfg = &cfg, .index = 2, .traj = t2, .ntraj = 2 };
	struct agent_reply rbp;
	TAP_OK(agent_propose(&rb, &rbp) == 0 && rbp.candidate && !json_object_get(rbp.candidate, "llm") &&
	       strcmp(json_string_value(json_object_get(rbp.candidate, "name")), "llm") != 0 &&
	       strstr(json_string_value(json_object_get(rbp.candidate, "llm_off")), "llm budget: 2 calls used of 2"),
	       "the budget stops the LLM and names the limit; the built-in search fills the slot");
	json_decref(reqs);
	reqs = server_requests(&s);
	TAP_IS_INT(json_array_size(reqs), 2, "a refused call reaches no server");
	json_decref(reqs);
	agent_reply_release(&rbp);
	agent_reply_release(&rr);
	agent_reply_release(&rp);
	server_stop(&s);
	unuse_llm();

	/* a reply without a kernel: a failed candidate, never a crash */
	st = server_start(&s, "openai_no_fence");
	use_llm(&s);
	rq.index = 0;
	TAP_OK(st == 0 && agent_propose(&rq, &rp) == 0 && rp.candidate &&
	       json_is_string(json_object_get(rp.candidate, "error")),
	       "a reply with no kernel is a candidate that fails, with the reason");
	agent_reply_release(&rp);
	server_stop(&s);
	unuse_llm();

	/* a server that echoes the key back: the key stays out */
	st = server_start(&s, "secret_openai_401");
	use_llm(&s);
	TAP_OK(st == 0 && agent_propose(&rq, &rp) == 0, "401: the proposal goes on");
	TAP_OK(!mentions_secret(rp.candidate) && !(rp.reason && strstr(rp.reason, SECRET)), "401 echoing the key: no key in what the agent returns");
	agent_reply_release(&rp);
	server_stop(&s);
	unuse_llm();

	t_beam();
	t_planner();
	t_digest_bytes();
	t_config();
	t_tune();
	t_tune_dispatch();
	t_tokens();
	t_digest();
	t_builtin_coder_llm_debugger();

	json_decref(row);
	json_decref(config);
	free(source);
	strbuf_release(&why);
	http_global_cleanup();
	return tap_done();
}
