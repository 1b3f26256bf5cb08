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
		const char *br = strstr(ed, "    if R0_BLOCK >= 16384:\n"), *el = br ? strstr(br, "\n    else:\n") : NULL;
		TAP_OK(br && el, "a compile-time branch on the block: the edit under \"if\", Inductor's loops under \"else\"");
		char *top = br && el ? xstrndup(br, (size_t)(el - br)) : xstrdup("");
		TAP_OK(count(top, "for r0_offset") == 0 && count(top, "        r0_offset = 0\n") == 2,
		       "first branch: both row loops run once at r0_offset = 0");
		TAP_OK(count(top, "tl.load(") == 1 && strstr(top, "\n        tmp4 = tmp0\n"),
		       "first branch: the second loop's load of the row is the first's value: one load left");
		TAP_OK(strstr(top, "\n        tl.store(out_ptr2 + (r0_1 + 16384*x0), tmp7, r0_mask)") != NULL,
		       "first branch: the store, out of its loop, unchanged");
		TAP_OK(el && count(el, "        for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n") == 2 && count(el, "tl.load(") == 2,
		       "second branch: Inductor's two loops and two loads, one level in");
		TAP_OK(strstr(ed, "def triton_red_fused__softmax_exp_prepare_softmax_online_sub_0(in_ptr0, out_ptr2, xnumel, r0_numel, "
				  "XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):") != NULL &&
		       strstr(ed, "@triton_heuristics.reduction(") != NULL,
		       "name, signature and decorator unchanged");
		free(top);
		save("softmax", ed);
	}
	TAP_OK(persist_edit(src, 8192, &rb) == NULL, "a row longer than the cap: no edit");
	/* Inductor writes range( where tl.range( has no keywords to carry */
	struct strbuf plain = STRBUF_INIT;
	for (const char *p = src, *q; (q = strstr(p, "tl.range(")); p = q + 3) {
		strbuf_add(&plain, p, (size_t)(q - p));
		if (!strstr(q + 3, "tl.range("))
			strbuf_addstr(&plain, q + 3);
	}
	char *pe = persist_edit(plain.buf, 16384, &rb);
	TAP_OK(count(plain.buf, "    for r0_offset in range(0, r0_numel, R0_BLOCK):\n") == 2 && pe && rb == 16384 &&
	       count(pe, "        r0_offset = 0\n") == 2 && count(pe, "        for r0_offset in range(0, r0_numel, R0_BLOCK):\n") == 2,
	       "row loops over range( rather than tl.range(: edited the same way");
	free(pe);
	strbuf_release(&plain);
	/* the row loop's header in other forms: tl.range's own keywords are
	 * carried; any other start, stop, step, iterator or ending is no row
	 * loop of Inductor's, and nothing is edited */
	static const struct {
		const char *header;
		int edited;
	} forms[] = {
		{ "for r0_offset in tl.range(0, r0_numel, R0_BLOCK, num_stages=2):", 1 },
		{ "for r0_offset in tl.range(0, r0_numel, R0_BLOCK, loop_unroll_factor=2, num_stages=3):", 1 },
		{ "for r0_offset in tl.range(1, r0_numel, R0_BLOCK):", 0 },
		{ "for r0_offset in tl.range(0, r0_numel, 2 * R0_BLOCK):", 0 },
		{ "for r0_offset in tl.range(0, x0_numel, R0_BLOCK):", 0 },
		{ "for r0_offset in tl.static_range(0, r0_numel, R0_BLOCK):", 0 },
		{ "for r0_offset in np.range(0, r0_numel, R0_BLOCK):", 0 },
		{ "for r1_offset in tl.range(0, r0_numel, R0_BLOCK):", 0 },
		{ "for r0_offset in tl.range(0, r0_numel, R0_BLOCK) :", 0 },
		{ "for r0_offset in tl.range(0, r0_numel, R0_BLOCK):  # rows", 0 },
		{ "for r0_offset in tl.range(0, r0_numel, R0_BLOCK, num_stages=(2)):", 0 },
	};
	int right = 0;
	for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
		struct strbuf v = STRBUF_INIT;
		const char *was = "for r0_offset in tl.range(0, r0_numel, R0_BLOCK):";
		for (const char *p = src, *q; p; p = q ? q + strlen(was) : NULL) {
			q = strstr(p, was);
			strbuf_add(&v, p, q ? (size_t)(q - p) : strlen(p));
			if (q)
				strbuf_addstr(&v, forms[f].header);
		}
		char *fe = persist_edit(v.buf, 16384, &rb);
		int ok = count(v.buf, forms[f].header) == 2 && (fe != NULL) == forms[f].edited &&
			 (!fe || count(fe, forms[f].header) == 2);
		right += ok;
		if (!ok)
			tap_diag("'%s': %s", forms[f].header, fe ? "edited" : "not edited");
		free(fe);
		strbuf_release(&v);
	}
	TAP_IS_INT(right, (int)(sizeof forms / sizeof *forms),
		   "row loop headers: tl.range's keywords carried; another start, stop, step, iterator, variable or ending: no edit");
	free(ed);
	free(src);

	src = fixture("rmsnorm");
	ed = persist_edit(src, 16384, &rb);
	TAP_OK(ed && rb == 4096, "rmsnorm (bf16 rows of 4096): edited, R0_BLOCK 4096");
	if (ed) {
		TAP_OK(strstr(ed, "\n        tmp6 = tmp0\n") && count(ed, "tl.load(in_ptr0") == 3,
		       "x is read once in the first branch (its cast to float32 included), twice in Inductor's");
		TAP_OK(count(ed, "tl.load(in_ptr1") == 2, "the weight, read once anyway, stays a load in both");
		save("rmsnorm", ed);
	}
	free(ed);
	free(src);

	src = fixture("layernorm");
	ed = persist_edit(src, 16384, &rb);
	TAP_OK(ed && rb == 4096 && strstr(ed, "\n        tmp8 = tmp0\n") && count(ed, "tl.load(in_ptr0") == 3,
	       "layernorm: edited, x read once in the first branch");
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
	/* no row loop (already persistent), a loop inside a block, a load read
	 * twice: an edit would be two empty branches, not Python */
	const char *noloop = "@triton.jit\ndef k(in_ptr0, out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n    r0_numel = 64\n"
			     "    a = tl.load(in_ptr0 + (x0), xmask)\n    b = tl.load(in_ptr0 + (x0), xmask)\n"
			     "    if a > 0:\n        for j in range(4):\n            tl.store(out_ptr0 + (j), a + b)\n";
	TAP_OK(persist_edit(noloop, 16384, &rb) == NULL, "no row loop, a loop inside an if: no edit");
	/* a loop of the function's own (four spaces in) is no nested loop:
	 * the row loops after it are edited */
	const char *outer = "@triton.jit\ndef k(in_ptr0, out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n    r0_numel = 64\n"
			    "    for j in range(4):\n        tl.store(out_ptr0 + (j), 0.0)\n"
			    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        a = tl.load(in_ptr0 + r0_offset)\n"
			    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0 + r0_offset)\n";
	char *oe = persist_edit(outer, 16384, &rb);
	TAP_OK(oe && rb == 64 && strstr(oe, "    if R0_BLOCK >= 64:\n") && strstr(oe, "    for j in range(4):\n"),
	       "a loop four spaces in, beside the row loops: edited, R0_BLOCK 64, that loop kept (%d)", rb);
	free(oe);
	return tap_done();
}
