/* engine/stub.c: placeholder until the engine lands. */
#include "engine.h"

const char *const engine_tools[] = { NULL };

int engine_build(const kopt_spec *spec, char *const *targets, int ntargets, const struct engine_opts *opts)
{
	(void)spec; (void)targets; (void)ntargets; (void)opts;
	kopt_error("the engine is not built yet");
	return 2;
}

int engine_tool(const kopt_spec *spec, const char *tool, char *const *args, int nargs, const struct engine_opts *opts)
{
	(void)spec; (void)tool; (void)args; (void)nargs; (void)opts;
	return -1;
}
