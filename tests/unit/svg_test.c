/* tests/unit/svg_test.c: the report's plots are well-formed SVG with the
 * expected marks (bars, geomean; the roofline's ticks, roofs and points,
 * taken apart and read back through its log axes), and names are escaped. xmllint checks well-formedness when it is installed. Each
 * plot is also compared byte for byte with its reviewed copy in
 * tests/golden/svg/ (KOPT_GOLDEN_UPDATE=1 rewrites them: look at the plots
 * before committing). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/svg.h"
#include "../tap.h"

/* compares an SVG with tests/golden/svg/NAME, or rewrites it */
static void golden(const char *name, const char *buf)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/golden/svg/%s", top ? top : ".", name);
	const char *up = getenv("KOPT_GOLDEN_UPDATE");
	if (up && strcmp(up, "1") == 0) {
		FILE *w = fopen(path, "w");
		if (w) {
			fputs(buf, w);
			fclose(w);
		}
	}
	FILE *r = fopen(path, "r");
	char *want = NULL;
	size_t wl = 0;
	if (r) {
		FILE *m = open_memstream(&want, &wl);
		int c;
		while ((c = fgetc(r)) != EOF)
			fputc(c, m);
		fclose(m);
		fclose(r);
	}
	if (!TAP_OK(want && strcmp(want, buf) == 0, "%s: the same bytes as tests/golden/svg/%s", name, name) && want) {
		size_t i = 0;
		while (want[i] && want[i] == buf[i])
			i++;
		tap_diag("first difference at byte %zu: want '%.40s', got '%.40s'", i, want + i, buf + i);
	}
	free(want);
}

/* one axis from its decade ticks: two of them fix log10(value) = a + b * position */
struct axis {
	double a, b, lo, hi;
};

static double attr(const char *el, const char *name)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *end = strchr(el, '>');
	const char *p = strstr(el, key);
	return p && (!end || p < end) ? strtod(p + strlen(key), NULL) : NAN;
}

/* the fill of the bar of model in buf (its first element), "" if none */
static const char *fill_of(const char *buf, const char *model)
{
	static char fill[16];
	char key[128];
	snprintf(key, sizeof key, "data-model=\"%s\"", model);
	const char *el = strstr(buf, key), *end = el ? strchr(el, '>') : NULL, *f = el ? strstr(el, " fill=\"") : NULL;
	fill[0] = '\0';
	if (f && (!end || f < end))
		sscanf(f + 7, "%15[^\"]", fill);
	return fill;
}

static int axis_read(const char *buf, const char *cls, const char *coord, struct axis *ax)
{
	char key[64];
	snprintf(key, sizeof key, "class=\"%s\"", cls);
	double v[64], pos[64];
	int n = 0;
	for (const char *p = buf; n < 64 && (p = strstr(p, key)); p++) {
		v[n] = attr(p - 6, "data-value");
		pos[n] = attr(p - 6, coord);
		n++;
	}
	ax->lo = ax->hi = NAN;
	if (n < 2)
		return -1;
	ax->b = (log10(v[n - 1]) - log10(v[0])) / (pos[n - 1] - pos[0]);
	ax->a = log10(v[0]) - ax->b * pos[0];
	ax->lo = v[0];
	ax->hi = v[n - 1];
	for (int i = 1; i < n; i++) /* decades, evenly spaced */
		if (fabs(log10(v[i]) - log10(v[i - 1]) - 1) > 1e-9 || fabs(ax->a + ax->b * pos[i] - log10(v[i])) > 1e-3)
			return -1;
	return 0;
}

static double back(const struct axis *ax, double pos)
{
	return pow(10, ax->a + ax->b * pos);
}

static double rel(double a, double b)
{
	return fabs(a - b) / fabs(b);
}

/* a roofline of pts as text; caller frees */
static char *roof(const struct svg_point *pts, size_t n, double gbps, double gflops)
{
	char *b = NULL;
	size_t l = 0;
	FILE *f = open_memstream(&b, &l);
	svg_roofline(f, "r", pts, n, gbps, gflops);
	fclose(f);
	return b;
}

/* the labels of the ticks of class cls, comma-separated, into out */
static void labels_of(const char *buf, const char *cls, char *out, size_t cap)
{
	size_t o = 0;
	char key[64];
	snprintf(key, sizeof key, "class=\"%s\"", cls);
	out[0] = 0;
	for (const char *p = buf; (p = strstr(p, key)); p++) {
		const char *a = strchr(p, '>'), *e = a ? strchr(a, '<') : NULL;
		if (!e)
			break;
		o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%s%.*s", o ? "," : "", (int)(e - a - 1), a + 1);
	}
}

/* which points are drawn, which roofs, and the FLOP/s ticks' units */
static void roof_edges(void)
{
	struct svg_point small[] = { { "small", 0.001, 0.5, 0 } };
	char *b = roof(small, 1, 4000, 50000), labels[512];
	labels_of(b, "tick-y", labels, sizeof labels);
	TAP_IS_STR(labels, "100 M,1 G,10 G,100 G,1 T,10 T,100 T",
		   "roofline: FLOP/s ticks from 0.1 G up, in M under 1 G, in G from 1 G, in T from 1000 G");
	labels_of(b, "tick-x", labels, sizeof labels);
	TAP_IS_STR(labels, "0.001,0.01,0.1,1,10,100,1000",
		   "roofline: intensity ticks from the point's decade to ten times the ridge's (12.5), both ends drawn");
	TAP_IS_INT(tap_count(b, "<circle class=\"point "), 1, "roofline: a point of 0.5 GFLOP/s at 0.001 FLOP per byte is drawn");
	free(b);
	b = roof(small, 1, 4000, 90000);
	labels_of(b, "tick-y", labels, sizeof labels);
	TAP_IS_STR(labels, "100 M,1 G,10 G,100 G,1 T,10 T,100 T,1000 T",
		   "roofline: room above the peak: 90 TFLOP/s and a fifth more reach the next decade");
	free(b);
	b = roof(NULL, 0, 0, 0);
	labels_of(b, "tick-y", labels, sizeof labels);
	char xl[256];
	labels_of(b, "tick-x", xl, sizeof xl);
	TAP_OK(strcmp(labels, "1 G,10 G,100 G,1 T,10 T,100 T,1000 T") == 0 && strcmp(xl, "0.01,0.1,1,10,100") == 0,
	       "roofline: no point and no roof: 0.01 to 100 FLOP per byte, 1 G to 100 T and room [%s] [%s]", labels, xl);
	free(b);
	struct svg_point one[] = { { "one", 1, 1000, 0 } };
	b = roof(one, 1, 0, 0);
	labels_of(b, "tick-x", xl, sizeof xl);
	TAP_OK(strcmp(xl, "1,10") == 0 && !strstr(b, "\"nan\"") && !strstr(b, "\"-nan\"") &&
		       tap_count(b, "<circle class=\"point ") == 1,
	       "roofline: points all at 1 FLOP per byte, no roof: one decade wide, 1 to 10 [%s]", xl);
	free(b);
	struct svg_point odd[] = {
		{ "zero-intensity", 0, 100, 0 }, { "negative", -1, 100, 0 }, { "zero-flops", 1, 0, 0 },
		{ "endless", INFINITY, 100, 0 }, { "endless-flops", 1, INFINITY, 0 }, { "nan-flops", 1, NAN, 0 },
		{ "nan-intensity", NAN, 100, 0 }, { "kept", 0.5, 0.5, 1 },
	};
	b = roof(odd, 8, 4000, 50000);
	TAP_OK(tap_count(b, "<circle class=\"point ") == 1 && strstr(b, "<title>kept: ") && !strstr(b, "\"inf\"") &&
		       !strstr(b, "\"-inf\"") && !strstr(b, "\"nan\"") && !strstr(b, "\"-nan\""),
	       "roofline: a point without a positive, finite intensity and FLOP/s is not drawn, nor counts in the axes");
	free(b);
	double roofs[][2] = { { 0.5, 0.5 }, { 0, 50000 }, { -4000, 50000 }, { NAN, 50000 }, { INFINITY, 50000 },
			      { 4000, 0 }, { 4000, -1 }, { 4000, NAN }, { 4000, INFINITY } };
	const char *want[] = { "11", "01", "01", "01", "01", "10", "10", "10", "10" };
	for (size_t i = 0; i < sizeof roofs / sizeof roofs[0]; i++) {
		b = roof(small, 1, roofs[i][0], roofs[i][1]);
		char got[3] = { tap_count(b, "class=\"roof-memory\"") == 1 && tap_count(b, "copy bandwidth") == 1 ? '1'
			      : tap_count(b, "copy bandwidth") == 0 && !strstr(b, "roof-memory")			? '0'
																: '?',
				tap_count(b, "class=\"roof-compute\"") == 1 && tap_count(b, "FP32 peak") == 1 ? '1'
				: tap_count(b, "FP32 peak") == 0 && !strstr(b, "roof-compute")			? '0'
														: '?',
				0 };
		TAP_IS_STR(got, want[i], "roofline: the roofs drawn (memory, compute) for a positive, finite bandwidth and peak");
		free(b);
	}
}

int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	/* KernelBench's names run to 100 characters (issue 44: they were cut
	 * at the left edge) */
	const char *longest = "kb2/83_Conv3d_GroupNorm_Min_Clamp_Dropout_Softmax_Multiply_Add_Subtract_Mean_Tanh_Sigmoid_HardSwish";
	struct svg_bar bars[] = {
		{ "softmax", 1.21, 1.04, NULL }, { "avg<pool>&2d", 2.6, NAN, NULL }, { "mlp", 1.0, 0.93, "baseline kept" },
		{ "bad", NAN, NAN, NULL }, { longest, 1.5, 1.3, NULL },
		{ "kb1/95_CrossEntropyLoss_over_a_batch_of_4096_rows_of_32768_classes", 1.1, 1.02, NULL },
	};
	const size_t nb = sizeof bars / sizeof bars[0];
	svg_bars(f, "speedup \"all\"", bars, nb, 1.4, 1.05);
	fclose(f);
	TAP_OK(strncmp(buf, "<?xml", 5) == 0 && strstr(buf, "</svg>\n"), "bars: a complete SVG document");
	TAP_IS_INT(tap_count(buf, "class=\"bar compile\""), 5, "bars: a bar over torch.compile per model with a result");
	TAP_IS_INT(tap_count(buf, "class=\"bar autotune\""), 4,
		   "bars: and one over max-autotune per model with that variant (issue 44: only the first was drawn)");
	TAP_OK(strstr(buf, "no max-autotune variant"), "bars: a model without it says so");
	{
		/* the fill at the edges: from gamma up green, from 1 gray, below red */
		char *eb = NULL;
		size_t el = 0;
		FILE *ef = open_memstream(&eb, &el);
		struct svg_bar edge[] = { { "at_gamma", 1.03, NAN, NULL }, { "at_one", 1.0, NAN, NULL },
					  { "below", 0.999, NAN, NULL }, { "above", 1.031, NAN, NULL } };
		svg_bars(ef, "edges", edge, 4, 1.1, 1.0);
		fclose(ef);
		TAP_OK(!strcmp(fill_of(eb, "at_gamma"), "#2e7d32") && !strcmp(fill_of(eb, "at_one"), "#9e9e9e") &&
			       !strcmp(fill_of(eb, "below"), "#c62828") && !strcmp(fill_of(eb, "above"), "#2e7d32"),
		       "bars: a speedup of exactly gamma (1.03) is green, exactly 1 gray, 0.999 red");
		free(eb);
	}
	/* one scale for both: each bar's width over its value is the same */
	double scale = NAN, worst = 0;
	for (const char *p = buf; (p = strstr(p, "<rect class=\"bar ")); p++) {
		double r = attr(p, "width") / attr(p, "data-value");
		if (isnan(scale))
			scale = r;
		if (rel(r, scale) > worst)
			worst = rel(r, scale);
	}
	TAP_OK(scale > 0 && worst < 1e-3, "bars: both speedups on one axis (width over value varies by %.2g)", worst);
	/* every name whole, inside the plot: from its x, at SVG_CHAR_W a character */
	double w = attr(strstr(buf, "<svg "), "width");
	int whole = 0, inside = 0;
	for (size_t i = 0; i < nb; i++) {
		const char *p = strstr(buf, "<text class=\"label\"");
		for (size_t k = 0; k < i && p; k++)
			p = strstr(p + 1, "<text class=\"label\"");
		const char *t = p ? strchr(p, '>') + 1 : NULL;
		size_t tl = t ? (size_t)(strstr(t, "</text>") - t) : 0;
		whole += t && strlen(bars[i].label) <= tl && (strncmp(t, bars[i].label, strlen(bars[i].label)) == 0 ||
							       strchr(bars[i].label, '<'));
		inside += t && attr(p, "x") >= 0 && attr(p, "x") + SVG_CHAR_W * (double)tl <= w;
	}
	TAP_IS_INT(whole, (int)nb, "bars: every model's name is written whole");
	TAP_OK(inside == (int)nb, "bars: and fits inside the plot, the %zu-character one too (width %g)", strlen(longest), w);
	TAP_OK(w == 16 * 2 + (int)(SVG_CHAR_W * (double)strlen(longest)),
	       "bars: the plot widens to the %zu-character name and its margins (%g)", strlen(longest), w);
	/* a name of 96 characters fits the plot's own 760 with its margins: no
	 * wider, and never narrower */
	char *b96 = NULL;
	size_t l96 = 0;
	FILE *f96 = open_memstream(&b96, &l96);
	char n96[97];
	memset(n96, 'x', 96);
	n96[96] = '\0';
	struct svg_bar one[] = { { n96, 1.2, 1.1, NULL } };
	svg_bars(f96, "t", one, 1, 1.2, 1.1);
	fclose(f96);
	TAP_OK(strlen(one[0].label) == 96 && attr(strstr(b96, "<svg "), "width") == 760,
	       "bars: a 96-character name keeps the plot at its 760 (%g)", attr(strstr(b96, "<svg "), "width"));
	free(b96);
	{
		/* past 4x the ticks are whole numbers: 0 to 9 for an 8.9x bar */
		char *bw = NULL;
		size_t lw = 0;
		FILE *fw = open_memstream(&bw, &lw);
		struct svg_bar wide[] = { { "conv_transposed_3D", 8.9, 1.2, NULL } };
		svg_bars(fw, "wide", wide, 1, 8.9, 1.2);
		fclose(fw);
		int whole_ticks = 0;
		char t[32];
		for (int k = 0; k <= 9; k++) {
			snprintf(t, sizeof t, ">%d</text>", k);
			whole_ticks += strstr(bw, t) != NULL;
		}
		TAP_OK(whole_ticks == 10 && !strstr(bw, ">0.25</text>") && !strstr(bw, ">10</text>") &&
			       tap_count(bw, "stroke=\"#e5e5e5\"") == 10,
		       "bars: past 4x, ten ticks a whole number apart, 0 to 9 for an 8.9x bar (%d found)", whole_ticks);
		free(bw);
	}
	TAP_OK(strstr(buf, "avg&lt;pool&gt;&amp;2d") && !strstr(buf, "avg<pool>"), "bars: labels are escaped");
	TAP_OK(strstr(buf, "speedup &quot;all&quot;"), "bars: title is escaped");
	TAP_OK(strstr(buf, "geomean 1.400x over torch.compile") && strstr(buf, "geomean 1.050x over max-autotune"),
	       "bars: both geomean lines are labelled");
	TAP_OK(strstr(buf, "no result"), "bars: a model without result says so");
	TAP_OK(strstr(buf, "baseline kept"), "bars: notes are shown");
	TAP_OK(strstr(buf, ">1.25</text>") && strstr(buf, ">1.75</text>") && strstr(buf, ">0.25</text>") &&
	       !strstr(buf, ">1.2</text>") && !strstr(buf, ">1.8</text>"),
	       "bars: the quarter ticks are labelled in full (1.25, not 1.2)");
	golden("bars.svg", buf);
	FILE *x = fopen("svg_test_bars.svg", "w");
	if (x) {
		fputs(buf, x);
		fclose(x);
	}
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	/* a pointwise kernel (0.25 FLOP per byte) at 3 TB/s, the same after
	 * 1.3x; a compute-bound one (20 FLOP per byte) at 30 TFLOP/s; one
	 * without FLOPs is not drawn */
	struct svg_point pts[] = {
		{ "triton_poi_fused<add>", 0.25, 750, 0 }, { "triton_poi_fused<add>", 0.25, 975, 1 },
		{ "triton_tem_fused_mm", 20, 30000, 0 }, { "triton_red_no_flops", NAN, 0, 0 },
	};
	svg_roofline(f, "kernels", pts, 4, 4000, 50000);
	fclose(f);
	TAP_OK(strncmp(buf, "<?xml", 5) == 0 && strstr(buf, "</svg>\n"), "roofline: a complete SVG document");
	TAP_IS_INT(tap_count(buf, "<circle class=\"point "), 3, "roofline: one point per kernel with FLOPs and bytes");
	TAP_IS_INT(tap_count(buf, "<circle class=\"point after\""), 1, "roofline: the optimized point is marked after");
	TAP_OK(strstr(buf, "triton_poi_fused&lt;add&gt;") != NULL, "roofline: kernel names are escaped");
	TAP_OK(strstr(buf, "copy bandwidth 4000 GB/s (measured)") && strstr(buf, "FP32 peak 50.0 TFLOP/s (measured)"),
	       "roofline: both roofs are labelled as measured");
	TAP_OK(strstr(buf, "arithmetic intensity (FLOP per byte, log scale)") && strstr(buf, "achieved FLOP/s (log scale)"),
	       "roofline: the axes say what they are, both on log scales");
	/* the plot taken apart: the ticks give each axis' log scale, and every
	 * mark read back through them lands where its values say */
	struct axis ax = { NAN, NAN, NAN, NAN }, ay = ax;
	TAP_OK(axis_read(buf, "tick-x", "x", &ax) == 0 && axis_read(buf, "tick-y", "y", &ay) == 0,
	       "roofline: decade ticks on both axes (x %g..%g, y %g..%g)", ax.lo, ax.hi, ay.lo, ay.hi);
	TAP_OK(ax.lo <= 0.25 && ax.hi >= 20 && ax.lo <= 12.5 / 100 && ax.hi >= 125,
	       "roofline: the intensity axis holds the points and the ridge (12.5 FLOP per byte) with room either side");
	const char *mem = strstr(buf, "class=\"roof-memory\""), *comp = strstr(buf, "class=\"roof-compute\"");
	TAP_OK(mem && comp && attr(mem, "data-gbps") == 4000 && attr(comp, "data-gflops") == 50000,
	       "roofline: the roofs carry the measured copy bandwidth and FP32 peak");
	double mx1 = back(&ax, attr(mem, "x1")), my1 = back(&ay, attr(mem, "y1"));
	double mx2 = back(&ax, attr(mem, "x2")), my2 = back(&ay, attr(mem, "y2"));
	TAP_OK(rel(my1, 4000 * mx1) < 1e-3 && rel(my2, 4000 * mx2) < 1e-3,
	       "roofline: the memory roof read back is FLOP/s = 4000 GB/s x intensity (%.4g at %.4g, %.4g at %.4g)", my1, mx1,
	       my2, mx2);
	double cx1 = back(&ax, attr(comp, "x1")), cy1 = back(&ay, attr(comp, "y1")), cy2 = back(&ay, attr(comp, "y2"));
	TAP_OK(rel(mx2, 12.5) < 1e-3 && rel(cx1, 12.5) < 1e-3 && rel(cy1, 50000) < 1e-3 && rel(cy2, 50000) < 1e-3,
	       "roofline: the roofs meet at the ridge, 12.5 FLOP per byte, and the compute roof is flat at 50 TFLOP/s");
	int good = 0;
	for (const char *c = buf; (c = strstr(c, "<circle class=\"point ")); c++) {
		double i = back(&ax, attr(c, "cx")), g = back(&ay, attr(c, "cy"));
		if (rel(i, attr(c, "data-intensity")) < 1e-3 && rel(g, attr(c, "data-gflops")) < 1e-3)
			good++;
	}
	TAP_IS_INT(good, 3, "roofline: every point read back through the axes lands at its intensity and FLOP/s");
	golden("roofline.svg", buf);
	x = fopen("svg_test_roofline.svg", "w");
	if (x) {
		fputs(buf, x);
		fclose(x);
	}
	free(buf);
	roof_edges();
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		TAP_OK(system("xmllint --noout svg_test_bars.svg svg_test_roofline.svg") == 0, "both plots are well-formed XML");
	}
	return tap_done();
}
