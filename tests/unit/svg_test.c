/* tests/unit/svg_test.c: the report's plots are well-formed SVG with the
 * expected marks (bars, geomean, points, the copy-bandwidth line), and names
 * are escaped. xmllint checks well-formedness when it is installed. Each
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

int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct svg_bar bars[] = {
		{ "softmax", 1.21, NULL }, { "avg<pool>&2d", 2.6, NULL }, { "mlp", 1.0, "baseline kept" }, { "bad", NAN, NULL },
	};
	svg_bars(f, "speedup \"all\"", bars, 4, 1.4);
	fclose(f);
	TAP_OK(strncmp(buf, "<?xml", 5) == 0 && strstr(buf, "</svg>\n"), "bars: a complete SVG document");
	TAP_IS_INT(tap_count(buf, "<rect x="), 3, "bars: one bar per model with a result");
	TAP_OK(strstr(buf, "avg&lt;pool&gt;&amp;2d") && !strstr(buf, "avg<pool>"), "bars: labels are escaped");
	TAP_OK(strstr(buf, "speedup &quot;all&quot;"), "bars: title is escaped");
	TAP_OK(strstr(buf, "geomean 1.400x"), "bars: the geomean line is labelled");
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
	struct svg_point pts[] = {
		{ "triton_red_fused_avg_pool2d_0", 667.3, 1620, 0 }, { "triton_red_fused_avg_pool2d_0", 260.0, 4100, 1 },
		{ "triton_per_fused_sum", 5.2, 800, 0 }, { "vendor", 10000, 0, 0 },
	};
	svg_roofline(f, "kernels", pts, 4, 4159);
	fclose(f);
	TAP_IS_INT(tap_count(buf, "<circle cx="), 3 + 2, "roofline: one point per kernel with a bandwidth, plus the legend");
	TAP_OK(strstr(buf, "copy bandwidth 4159 GB/s"), "roofline: the peak line is labelled");
	TAP_OK(strstr(buf, "(optimized)"), "roofline: optimized points are marked");
	golden("roofline.svg", buf);
	x = fopen("svg_test_roofline.svg", "w");
	if (x) {
		fputs(buf, x);
		fclose(x);
	}
	free(buf);
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		TAP_OK(system("xmllint --noout svg_test_bars.svg svg_test_roofline.svg") == 0, "both plots are well-formed XML");
	}
	return tap_done();
}
