/*
 * tests/fuzz/fuzz_lang.c: libFuzzer target for the spec language: lexer,
 * parser and checker through lang_load_buffer(), then lang_dump() of what
 * loads. Diagnostics are counted and dropped. Build with tests/fuzz/build.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *ctx, const struct kopt_diag *d)
{
	(void)d;
	++*(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	size_t ndiag = 0;
	kopt_spec *spec = NULL;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	/* paths in the input resolve against the corpus folder of this tree */
	if (lang_load_buffer("fuzz.kopt", FUZZ_DIR, (const char *)data, size, discard, &ndiag, &spec) == 0) {
		if (devnull)
			lang_dump(spec, devnull);
		kopt_spec_free(spec);
	}
	return 0;
}
