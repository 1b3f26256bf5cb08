/* tests/unit/shapes_test.c: a model's shapes (rules/shapes.c): a kernel's
 * class across shapes, on kernels Inductor emitted on the H200
 * (tests/fixtures/kernels/) and copies of them at the sizes other batch
 * sizes give (size hints 64 times apart, which rules/groups.c's class
 * keeps apart); and the key ingredient of a shape, its names and values
 * alone. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../rules/groups.h"
#include "../../rules/shapes.h"
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

/* a shape's key ingredients, as a hash of their serialization; *named:
 * whether they hold "param:shape"; *empty: whether there are none */
static kopt_hash key_of(const struct kopt_shape *sh, bool *named, bool *empty)
{
	struct hash_key k;
	hash_key_init_bare(&k);
	rule_key_shape(&k, sh);
	*named = k.ser.len > 11 && memcmp(k.ser.buf, "param:shape", 12) == 0;
	*empty = k.ser.len == 0;
	kopt_hash h = hash_bytes(k.ser.buf ? k.ser.buf : "", k.ser.len);
	hash_key_release(&k);
	return h;
}

int main(void)
{
	char *poi = load("poi_conv_relu"), *ln = load("layernorm");
	TAP_OK(poi && ln, "the recorded kernels load");
	if (!poi || !ln)
		return tap_done();
	const char *pn = "triton_poi_fused_convolution_relu_2";
	/* the kernel at a batch 64 times smaller: its size hints and numels */
	char *a = replaced(poi, "'y': 2048", "'y': 32");
	char *small = replaced(a, "ynumel = 2048", "ynumel = 32");
	uint64_t c = rule_shape_class(poi, pn);
	TAP_OK(c != 0 && strcmp(small, poi) != 0, "a kernel has a class across shapes");
	TAP_OK(rule_kernel_class(small, pn) != rule_kernel_class(poi, pn),
	       "sizes 64 times apart: two classes for a network's groups (rules/groups.c)");
	TAP_OK(rule_shape_class(small, pn) == c, "... and one class across shapes");
	char *bigger = replaced(poi, "'x': 256", "'x': 65536");
	TAP_OK(rule_shape_class(bigger, pn) == c, "a size hint with more digits: the same class");
	char *other = replaced(poi, "triton_helpers.maximum(", "triton_helpers.minimum(");
	TAP_OK(strcmp(other, poi) != 0 && rule_shape_class(other, pn) != c, "another op: another class");
	TAP_OK(rule_shape_class(ln, "triton_red_fused_native_layer_norm_0") != c, "a layer norm is not a ReLU");
	/* past the size hints, the body's names keep their digits: a kernel
	 * that adds its input to itself is not the one that adds the bias */
	char *twice = replaced(poi, "tmp2 = tmp0 + tmp1", "tmp2 = tmp0 + tmp0");
	TAP_OK(strcmp(twice, poi) != 0 && rule_shape_class(twice, pn) != c,
	       "another operand (tmp0 + tmp0 for tmp0 + tmp1): another class");
	free(twice);
	char *renamed = replaced(small, pn, "triton_poi_fused_convolution_relu_7");
	TAP_OK(rule_shape_class(renamed, "triton_poi_fused_convolution_relu_7") == c, "another name too: the same class");
	TAP_OK(rule_shape_class(NULL, pn) == 0 && rule_shape_class("", pn) == 0, "no source, no class");
	/* the class across shapes is the kernel's class with each number of
	 * its size hints one, the braces kept */
	char *ones = replaced(poi, "size_hints={'y': 2048, 'x': 256}", "size_hints={'y': 1, 'x': 1}");
	TAP_OK(strcmp(ones, poi) != 0 && rule_shape_class(poi, pn) == rule_kernel_class(ones, pn),
	       "the class across shapes: the kernel's class with its size hints' numbers one");
	free(ones);


	/* a shape's key: its names and values, in the names' order */
	struct kopt_option s1[] = { { "batch_size", "8" }, { "seq_len", "128" } };
	struct kopt_option s2[] = { { "seq_len", "128" }, { "batch_size", "8" } };
	struct kopt_option s3[] = { { "batch_size", "64" }, { "seq_len", "128" } };
	struct kopt_shape a1 = { "b8", s1, NULL, 2, { 0 } }, a2 = { "eight", s2, NULL, 2, { 0 } },
			  a3 = { "b8", s3, NULL, 2, { 0 } };
	bool n1, n0, e1, e0;
	kopt_hash k1 = key_of(&a1, &n1, &e1), k2 = key_of(&a2, &n0, &e0), k3 = key_of(&a3, &n0, &e0);
	TAP_OK(hash_eq(k1, k2), "a shape's key: its names and values, not its name nor their order");
	TAP_OK(!hash_eq(k1, k3) && n1 && !e1, "another value, another key");
	/* three names and four, in every order written: one key */
	static const struct kopt_option names4[] = { { "a_dim", "1" }, { "b_dim", "2" }, { "c_dim", "3" }, { "d_dim", "4" } };
	static const int perm[][4] = { { 0, 1, 2, 3 }, { 0, 2, 1, 3 }, { 1, 0, 2, 3 }, { 1, 2, 0, 3 }, { 2, 0, 1, 3 },
				       { 2, 1, 0, 3 }, { 3, 2, 1, 0 }, { 1, 3, 0, 2 }, { 2, 3, 1, 0 } };
	kopt_hash first3 = { 0 }, first4 = { 0 };
	int alike = 0;
	for (size_t i = 0; i < sizeof perm / sizeof *perm; i++) {
		size_t nset = i < 6 ? 3 : 4;
		struct kopt_option set[4];
		for (size_t j = 0; j < nset; j++)
			set[j] = names4[perm[i][j]];
		struct kopt_shape sh = { "s", set, NULL, nset, { 0 } };
		kopt_hash h = key_of(&sh, &n0, &e0);
		if (i == 0)
			first3 = h;
		if (i == 6)
			first4 = h;
		alike += hash_eq(h, nset == 3 ? first3 : first4);
	}
	TAP_OK(alike == (int)(sizeof perm / sizeof *perm) && !hash_eq(first3, first4),
	       "three names in each of their six orders, four in three: one key each (%d of %zu)", alike,
	       sizeof perm / sizeof *perm);
	key_of(NULL, &n0, &e0);
	TAP_OK(e0, "no shape: no ingredient (a model without shapes keys as before)");
	free(renamed);
	free(other);
	free(bigger);
	free(small);
	free(a);
	free(poi);
	free(ln);
	return tap_done();
}
