/* lang/stub.c: placeholder until the parser lands; refuses every spec. */
#include <stdlib.h>
#include "lang.h"

int lang_load(const char *path, kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	struct kopt_diag d = { KOPT_ERROR, { path, 0, 0, 0, 0 }, "the spec language is not built yet" };
	report(ctx, &d);
	*out = NULL;
	return -1;
}

int lang_load_buffer(const char *name, const char *dir, const char *src, size_t len,
		     kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	(void)dir; (void)src; (void)len;
	return lang_load(name, report, ctx, out);
}

void lang_dump(const kopt_spec *spec, FILE *out) { (void)spec; (void)out; }
void kopt_spec_free(kopt_spec *spec) { free(spec); }
