/* tests/unit/persist_test.c: the coder's "persistent" edit
 * (agents/builtin/persist.c) on Inductor's own kernels for the examples,
 * recorded on the H200 (tests/fixtures/kernels/). Each edited kernel is
 * written to $PERSIST_OUT/NAME.py when that is set, for the static gate
 * (tests/persist-static.sh). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/builtin/persist.h"
#include "../../common/util.h"
#include "../tap.h"

static char *fixture(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/fixtures/kernels/%s.py", top ? top : ".", name);
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path);
	free(path);
	if (rc < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void save(const char *name, const char *src)
{
	const char *dir = getenv("PERSIST_OUT");
	if (!dir || !src)
		return;
	char *path = xasprintf("%s/%s.py", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(src, f);
		fclose(f);
	}
	free(path);
}

int main(void)
{
	int rb = 0;
	char *src = fixture("softmax");
	TAP_OK(src != NULL, "the softmax fixture loads");
	char *ed = persist_edit(src, 16384, &rb);
	TAP_OK(ed && rb == 16384, "softmax (two loops over 16384 columns): edited, R0_BLOCK 16384 (%d)", rb);
	if (ed) {
		TAP_OK(count(ed, "for r0_offset") == 0 && count(ed, "    r0_offset = 0\n") == 2, "both row loops run once at r0_offset = 0");
		TAP_OK(count(ed, "tl.load(") == 1 && strstr(ed, "\n    tmp4 = tmp0\n"),
		       "the second loop's load of the row is the first's value: one load left");
		TAP_OK(strstr(ed, "    r0_numel = 16384\n    tl.static_assert(R0_BLOCK >= 16384)\n") != NULL,
		       "a config with a smaller block does not build");
		TAP_OK(strstr(ed, "'dynamic_scale_rblock': False") && !strstr(ed, "'dynamic_scale_rblock': True"),
		       "Inductor may not halve the block behind the edit's back");
		TAP_OK(strstr(ed, "\n    tl.store(out_ptr2 + (r0_1 + 16384*x0), tmp7, r0_mask)") != NULL,
		       "the store moved out of its loop, unchanged");
		TAP_OK(strstr(ed, "def triton_red_fused__softmax_exp_prepare_softmax_online_sub_0(in_ptr0, out_ptr2, xnumel, r0_numel, "
				  "XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):") != NULL,
		       "name and signature unchanged");
		save("softmax", ed);
	}
	TAP_OK(persist_edit(src, 8192, &rb) == NULL, "a row longer than the cap: no edit");
	free(ed);
	free(src);

	src = fixture("rmsnorm");
	ed = persist_edit(src, 16384, &rb);
	TAP_OK(ed && rb == 4096, "rmsnorm (bf16 rows of 4096): edited, R0_BLOCK 4096");
	if (ed) {
		TAP_OK(strstr(ed, "\n    tmp6 = tmp0\n") && count(ed, "tl.load(in_ptr0") == 1,
		       "x is read once (its cast to float32 included)");
		TAP_OK(count(ed, "tl.load(in_ptr1") == 1, "the weight, read once anyway, stays a load");
		save("rmsnorm", ed);
	}
	free(ed);
	free(src);

	src = fixture("layernorm");
	ed = persist_edit(src, 16384, &rb);
	TAP_OK(ed && rb == 4096 && count(ed, "tl.load(in_ptr0") == 1, "layernorm: edited, x read once");
	save("layernorm", ed);
	free(ed);
	free(src);

	src = fixture("cross_entropy");
	TAP_OK(src && persist_edit(src, 16384, &rb) == NULL, "one row loop (online max and sum): nothing read twice, no edit");
	free(src);
	src = fixture("row_sum");
	TAP_OK(src && persist_edit(src, 16384, &rb) == NULL, "row_sum: one loop, no edit");
	free(src);

	/* shapes the edit refuses */
	const char *dyn = "@triton.jit\ndef k(in_ptr0, out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n"
			  "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        a = tl.load(in_ptr0 + r0_offset)\n"
			  "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0 + r0_offset)\n";
	TAP_OK(persist_edit(dyn, 16384, &rb) == NULL, "a dynamic row length: no edit");
	const char *inplace = "@triton.jit\ndef k(in_out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n    r0_numel = 64\n"
			      "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
			      "        a = tl.load(in_out_ptr0 + (r0_1), r0_mask)\n        tl.store(in_out_ptr0 + (r0_1), a * 2, r0_mask)\n"
			      "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n"
			      "        b = tl.load(in_out_ptr0 + (r0_1), r0_mask)\n";
	TAP_OK(persist_edit(inplace, 16384, &rb) == NULL, "a load after a store to the same pointer is not reused (nothing else to gain: no edit)");
	const char *nested = "@triton.jit\ndef k(in_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n    r0_numel = 64\n"
			     "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        for j in range(4):\n            a = tl.load(in_ptr0)\n"
			     "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0)\n";
	TAP_OK(persist_edit(nested, 16384, &rb) == NULL, "a loop inside the row loop: no edit");
	return tap_done();
}
