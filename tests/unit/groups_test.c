/* tests/unit/groups_test.c: a network's kernels as a population
 * (rules/groups.c): a kernel's class, on kernels Inductor emitted on the
 * H200 (tests/fixtures/kernels/) and copies of them at other sizes and
 * names, as a network's later blocks get them; and the groups a profile
 * summary's kernels form, each with its representative and share. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../rules/summary.h"
#include "../../rules/groups.h"
#include "../tap.h"

static char *load(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/fixtures/kernels/%s.py", top ? top : ".", name);
	struct strbuf sb = STRBUF_INIT;
	bool ok = strbuf_read_file(&sb, path) == 0;
	free(path);
	return ok ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

/* src with every `from` replaced by `to` (callers free) */
static char *replaced(const char *src, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(from);
	for (const char *p = src; *p;) {
		if (strncmp(p, from, n) == 0) {
			strbuf_addstr(&sb, to);
			p += n;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	return strbuf_detach(&sb);
}

int main(void)
{
	char *poi = load("poi_conv_relu"), *ln = load("layernorm");
	TAP_OK(poi && ln, "the recorded kernels load");
	if (!poi || !ln)
		return tap_done();
	const char *pn = "triton_poi_fused_convolution_relu_2";
	uint64_t c = rule_kernel_class(poi, pn);
	TAP_OK(c != 0, "a kernel has a class");
	TAP_OK(rule_kernel_class(NULL, pn) == 0 && rule_kernel_class("", pn) == 0, "no source, no class");

	/* the same kernel in a later block: another name, another size (the
	 * numel 2048 x 256 halved: size hints of the same power of four) */
	char *a = replaced(poi, pn, "triton_poi_fused_convolution_relu_9");
	char *b = replaced(a, "'y': 2048", "'y': 1024");
	char *later = replaced(b, "ynumel = 2048", "ynumel = 1024");
	TAP_OK(strcmp(later, b) != 0 && strcmp(b, a) != 0 && rule_kernel_class(later, "triton_poi_fused_convolution_relu_9") == c,
	       "its name and sizes changed (size hints within a factor of four): the same class");
	TAP_OK(rule_kernel_class(a, pn) != c, "named by the other kernel's name: the name is not its own, not taken out");
	/* sixteen times smaller: not the same class */
	char *small = replaced(a, "'y': 2048", "'y': 128");
	TAP_OK(strcmp(small, a) != 0 && rule_kernel_class(small, "triton_poi_fused_convolution_relu_9") != c,
	       "size hints sixteen times smaller: another class");
	/* another computation: a maximum taken out */
	char *other = replaced(poi, "triton_helpers.maximum(", "triton_helpers.minimum(");
	TAP_OK(strcmp(other, poi) != 0 && rule_kernel_class(other, pn) != c, "another op: another class");
	TAP_OK(rule_kernel_class(ln, "triton_red_fused_native_layer_norm_0") != c, "a layer norm is not a ReLU");
	/* a constant of the math changed: numbers are taken out, so the same
	 * class (one search serves both; each is checked in the stitch) */
	char *k2 = replaced(poi, "tl.full([1, 1], 0, tl.int32)", "tl.full([1, 1], 1, tl.int32)");
	TAP_OK(strcmp(k2, poi) != 0 && rule_kernel_class(k2, pn) == c, "a constant alone: the same class");
	/* a stride 64 times smaller in the body, after tl.program_id(...):
	 * only the size hints keep their magnitude, so the same class */
	char *k3 = replaced(poi, "8192*y1", "128*y1");
	TAP_OK(strcmp(k3, poi) != 0 && rule_kernel_class(k3, pn) == c,
	       "a stride of the body 64 times smaller: the same class (only size hints keep a magnitude)");
	free(k3);
	/* a hex constant (Inductor writes masks and bit patterns as 0x...)
	 * is a number like any other: one of another value, the same class;
	 * a float's exponent too */
	char *h1 = replaced(poi, "tl.full([1, 1], 0, tl.int32)", "tl.full([1, 1], 0x7f800000, tl.int32)");
	char *h2 = replaced(poi, "tl.full([1, 1], 0, tl.int32)", "tl.full([1, 1], 0xFF, tl.int32)");
	char *e1 = replaced(poi, "tl.full([1, 1], 0, tl.int32)", "tl.full([1, 1], 1.5e-05, tl.int32)");
	TAP_OK(strcmp(h1, poi) != 0 && rule_kernel_class(h1, pn) == c && rule_kernel_class(h2, pn) == c &&
	       rule_kernel_class(e1, pn) == c,
	       "a hex constant (0x7f800000, 0xFF) or one with an exponent (1.5e-05): the same class");
	free(h1);
	free(h2);
	free(e1);
	/* every way Python and Inductor write one number is one token: an
	 * exponent in either case, with or without its sign, a hex prefix in
	 * either case, a trailing point; letters after a number that are not
	 * an exponent are a name of their own (another class) */
	static const char *const one[] = { "1.5E-05", "2e+3", "2E+3", "3e7", "4E7", "0XFF", "0xff", "0.25", "7.",
					   "1e-5", "6.02E23" };
	static const char *const two[] = { "2e", "2E", "2ex", "2em" };
	for (size_t i = 0; i < sizeof one / sizeof *one + sizeof two / sizeof *two; i++) {
		bool same = i < sizeof one / sizeof *one;
		const char *num = same ? one[i] : two[i - sizeof one / sizeof *one];
		char *to = xasprintf("tl.full([1, 1], %s, tl.int32)", num);
		char *k = replaced(poi, "tl.full([1, 1], 0, tl.int32)", to);
		TAP_OK(strcmp(k, poi) != 0 && (rule_kernel_class(k, pn) == c) == same, "the constant %s: %s", num,
		       same ? "one number, the same class" : "a number and a name, another class");
		free(k);
		free(to);
	}
	/* the size hints end at their own closing brace, braces nested inside
	 * them or not: a number after them is a plain number (5 and 100, the
	 * same class), one inside them keeps its magnitude (16 and 1024 not) */
	static const char *const nest = "@triton.jit\ndef k(x): pass\nsize_hints={'x': {'y': 16}, 'r0_': 64}, o=5\n";
	char *after = replaced(nest, "o=5", "o=100"), *inside = replaced(nest, "'y': 16", "'y': 1024");
	TAP_OK(rule_kernel_class(after, "k") == rule_kernel_class(nest, "k") &&
	       rule_kernel_class(inside, "k") != rule_kernel_class(nest, "k"),
	       "size hints with braces nested in them: they end at their own closing brace");
	free(after);
	free(inside);
	/* a size hint counts by its power of four, floor(log2(v) / 2): 1 to 3
	 * are one bucket, 4 to 15 the next; 0 is the first */
	static const struct { const char *a, *b; bool same; } hints[] = {
		{ "'x': 1}", "'x': 3}", true }, { "'x': 3}", "'x': 4}", false }, { "'x': 4}", "'x': 15}", true },
		{ "'x': 15}", "'x': 16}", false }, { "'x': 0}", "'x': 1}", true }, { "'x': 256}", "'x': 1023}", true },
		{ "'x': 256}", "'x': 1024}", false },
	};
	for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
		char *ka = replaced(poi, "'x': 256}", hints[i].a), *kb = replaced(poi, "'x': 256}", hints[i].b);
		TAP_OK((rule_kernel_class(ka, pn) == rule_kernel_class(kb, pn)) == hints[i].same, "size hints %.*s and %.*s: %s",
		       (int)strlen(hints[i].a) - 1, hints[i].a, (int)strlen(hints[i].b) - 1, hints[i].b,
		       hints[i].same ? "one bucket, the same class" : "two buckets, two classes");
		free(ka);
		free(kb);
	}

	/* a summary's groups: three kernels of one class (shares 0.03, 0.04,
	 * 0.02), one of another (0.2), a vendor kernel of a class-like hash */
	const char *text =
		"triton\t0.03\t00000000000000000000000000000001\tk_a\t0.5\t00000000000000aa\n"
		"triton\t0.2\t00000000000000000000000000000002\tk_b\t-\t00000000000000bb\n"
		"vendor\t0.5\t00000000000000000000000000000003\tgemm\n"
		"triton\t0.04\t00000000000000000000000000000004\tk_c\t0.25\t00000000000000aa\n"
		"triton\t0.02\t00000000000000000000000000000005\tk_d\n"
		"triton\t0.02\t00000000000000000000000000000006\tk_e\t0.9\t00000000000000aa\n";
	struct rule_summary s;
	rule_summary_read(text, &s);
	TAP_IS_INT((int)s.nkernels, 6, "the summary's kernels read");
	TAP_OK(s.kernels[0].cls == 0xaa && s.kernels[1].cls == 0xbb && s.kernels[4].cls == 0,
	       "each class read; a line without one has none");
	TAP_OK(isnan(s.kernels[1].frac) && s.kernels[3].frac == 0.25, "a FRAC of '-' before a class is unknown");
	size_t rep[6];
	double share[6];
	rule_kernel_groups(&s, rep, share);
	TAP_OK(rep[0] == 3 && rep[3] == 3 && rep[5] == 3, "k_a, k_c and k_e are one group, k_c (the most time) its representative");
	TAP_OK(fabs(share[3] - 0.09) < 1e-12 && share[0] == 0 && share[5] == 0, "the group's share is their sum, on the representative");
	TAP_OK(rep[1] == 1 && share[1] == 0.2, "a kernel of a class of its own stands alone");
	TAP_OK(rep[4] == 4 && share[4] == 0.02, "a kernel without a class stands alone");
	TAP_OK(rep[2] == 2, "a vendor kernel is never grouped");
	/* the summary written back keeps the classes */
	char *back = rule_summary_write(&s);
	struct rule_summary s2;
	rule_summary_read(back, &s2);
	TAP_OK(s2.nkernels == 6 && s2.kernels[5].cls == 0xaa && s2.kernels[4].cls == 0 && isnan(s2.kernels[1].frac),
	       "written and read again: the same classes and bounds");
	rule_summary_release(&s2);
	rule_summary_release(&s);
	free(back);
	free(poi);
	free(ln);
	free(a);
	free(b);
	free(later);
	free(small);
	free(other);
	free(k2);
	return tap_done();
}
