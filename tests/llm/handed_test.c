/*
 * tests/llm/handed_test.c: the LLM roles reach the built-in roles only
 * through the table the dispatcher hands them (struct llm_builtin,
 * agents/llm.h): handed a test double whose analyst, planner and search
 * say who they are, the LLM coder fills a slot it cannot use with the
 * double's candidate, and its prompt carries the double's diagnosis and
 * plan. No model is called: the kernel has no source, or only the prompt
 * is rendered.
 */
#include <stdlib.h>
#include <string.h>

#include "../../agents/llm.h"
#include "../tap.h"

static int analyzed, planned, proposed, descended;

static int double_analyze(const struct agent_kernel *k, char **why)
{
	(void)k;
	analyzed++;
	*why = xstrdup("double-analyst: bound by the double");
	return 0;
}

static json_t *double_plan(const struct agent_kernel *k, const char *memory, const char *scope, char **why)
{
	(void)k, (void)memory, (void)scope;
	planned++;
	if (why)
		*why = xstrdup("double-planner");
	return json_pack("[s]", "double-move");
}

static int double_propose(const struct agent_request *req, const char *memory, struct agent_reply *reply)
{
	(void)req, (void)memory;
	proposed++;
	struct agent_candidate c = { .source = NULL, .config = NULL, .role = "coder", .name = "double",
				     .strategy = "coder: double" };
	reply->candidate = agent_candidate_new(&c);
	reply->reason = NULL;
	return 0;
}

static json_t *double_descent(const struct agent_request *req)
{
	(void)req;
	descended++;
	return NULL;
}

static const struct llm_builtin fake = { double_analyze, double_plan, double_propose, double_descent };

int main(void)
{
	struct kopt_agents cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 4;
	cfg.llm_calls = 4;
	cfg.tokens = 100000;
	cfg.wall_s = 60;
	cfg.roles[KOPT_ROLE_CODER].backend = KOPT_BACKEND_LLM;
	cfg.roles[KOPT_ROLE_CODER].llm = (struct kopt_llm){ .provider = (char *)"openai", .model = (char *)"m",
							    .url = (char *)"http://127.0.0.1:9/v1", .max_tokens = 512 };
	json_t *row = json_pack("{s:f, s:f, s:f}", "ns_per_call", 6100.0, "share", 0.5, "bytes", 262144.0);
	json_t *config = json_pack("{s:i, s:i}", "XBLOCK", 1, "num_warps", 4);
	struct agent_kernel k = { .model = "m", .name = "triton_poi_fused_0", .heuristic = "pointwise",
				  .source = NULL, .config = config, .profile_row = row };
	struct agent_request req = { .kernel = &k, .cfg = &cfg, .index = 0 };

	struct agent_reply r = { 0 };
	TAP_OK(agent_llm_propose(&req, &fake, &r) == 0 && r.candidate, "a slot the model cannot take gets a candidate");
	TAP_IS_STR(json_string_value(json_object_get(r.candidate, "name")), "double",
		   "it is the handed search's candidate");
	TAP_IS_STR(json_string_value(json_object_get(r.candidate, "llm_off")), "coder: the kernel's source is not at hand",
		   "it says why the model was not asked");
	TAP_IS_INT(proposed, 1, "the handed search was called once");
	agent_reply_release(&r);

	k.source = "def triton_poi_fused_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n    xnumel = 4096\n";
	struct strbuf p = STRBUF_INIT;
	size_t n = agent_llm_prompt(&req, &fake, &p);
	TAP_OK(n > 0 && n <= p.len, "the prompt renders");
	TAP_OK(strstr(p.buf, "double-analyst: bound by the double") != NULL, "the prompt carries the handed analyst's diagnosis");
	TAP_OK(strstr(p.buf, "double-move") != NULL, "the prompt carries the handed planner's plan");
	TAP_OK(analyzed == 1 && planned == 1 && descended == 0, "each handed role was asked as often as the prompt needs");
	strbuf_release(&p);
	json_decref(row);
	json_decref(config);
	return tap_done();
}
