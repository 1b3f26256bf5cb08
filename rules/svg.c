/* rules/svg.c: see svg.h */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "../lang/spec.h"

static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static void head(FILE *out, int w, int h, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		     "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
		w, h, w, h, w / 2);
	esc(out, title);
	fputs("</text>\n", out);
}

void svg_bars(FILE *out, const char *title, const struct svg_bar *bars, size_t n, double geomean)
{
	const int left = 190, right = 90, top = 40, row = 22, bottom = 46;
	const int w = 760, h = top + (int)n * row + bottom;
	double vmax = 1.5;
	for (size_t i = 0; i < n; i++)
		if (isfinite(bars[i].value) && bars[i].value > vmax)
			vmax = bars[i].value;
	vmax = ceil(vmax * 4) / 4;
	double plot = w - left - right;
#define X(v) (left + (v) / vmax * plot)
	head(out, w, h, title);
	/* grid */
	for (double t = 0; t <= vmax + 1e-9; t += vmax > 4 ? 1.0 : 0.25) {
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n",
			X(t), top - 4, X(t), top + (int)n * row);
		/* %g: the quarter ticks in full (1.25, not 1.2) */
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
			X(t), top + (int)n * row + 16, t);
	}
	for (size_t i = 0; i < n; i++) {
		int y = top + (int)i * row;
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 15);
		esc(out, bars[i].label);
		fputs("</text>\n", out);
		double v = bars[i].value;
		if (!isfinite(v) || v <= 0) {
			fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#999\">no result</text>\n", left + 4, y + 15);
			continue;
		}
		const char *fill = v >= lang_gates_default.gamma ? "#2e7d32" : v >= 1.0 ? "#9e9e9e" : "#c62828";
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
			left, y + 3, X(v) - left, row - 6, fill);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\">%.2fx", X(v) + 4, y + 15, v);
		if (bars[i].note) {
			fputs(" ", out);
			esc(out, bars[i].note);
		}
		fputs("</text>\n", out);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" stroke-width=\"1.5\"/>\n",
		X(1.0), top - 6, X(1.0), top + (int)n * row);
	if (isfinite(geomean) && geomean > 0) {
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1565c0\" stroke-dasharray=\"5,3\"/>\n",
			X(geomean), top - 6, X(geomean), top + (int)n * row);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" fill=\"#1565c0\">geomean %.3fx</text>\n",
			X(geomean) + 4, top + (int)n * row + 32, geomean);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#555\">speedup over the baseline</text>\n", left, h - 4);
	fputs("</svg>\n", out);
#undef X
}

void svg_roofline(FILE *out, const char *title, const struct svg_point *pts, size_t n, double peak_gbps)
{
	const int w = 760, h = 460, left = 70, right = 30, top = 40, bottom = 60;
	double tmin = INFINITY, tmax = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!(pts[i].time_us > 0) || !(pts[i].gbps > 0))
			continue;
		tmin = fmin(tmin, pts[i].time_us);
		tmax = fmax(tmax, pts[i].time_us);
	}
	if (!isfinite(tmin)) {
		tmin = 1;
		tmax = 1000;
	}
	double lo = floor(log10(tmin)), hi = ceil(log10(tmax));
	if (hi <= lo)
		hi = lo + 1;
	double ymax = peak_gbps > 0 ? peak_gbps * 1.15 : 5000;
	for (size_t i = 0; i < n; i++)
		if (pts[i].gbps * 1.05 > ymax)
			ymax = pts[i].gbps * 1.05;
	double pw = w - left - right, ph = h - top - bottom;
#define PX(t) (left + (log10(t) - lo) / (hi - lo) * pw)
#define PY(g) (top + ph - (g) / ymax * ph)
	head(out, w, h, title);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n",
		left, top, pw, ph);
	for (double d = lo; d <= hi + 1e-9; d += 1) {
		double x = left + (d - lo) / (hi - lo) * pw;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/>\n", x, top, x, top + ph);
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\">%g us</text>\n",
			x, top + ph + 16, pow(10, d));
	}
	double step = pow(10, floor(log10(ymax / 2)));
	if (ymax / step > 10)
		step *= 2;
	for (double g = 0; g <= ymax; g += step) {
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
			left, PY(g), left + pw, PY(g));
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%.0f</text>\n",
			left - 6, PY(g) + 4, g);
	}
	fprintf(out, "<text transform=\"translate(16 %.0f) rotate(-90)\" text-anchor=\"middle\" fill=\"#555\">achieved GB/s</text>\n",
		top + ph / 2);
	if (peak_gbps > 0) {
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#c62828\" stroke-dasharray=\"6,3\"/>\n",
			left, PY(peak_gbps), left + pw, PY(peak_gbps));
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#c62828\">copy bandwidth %.0f GB/s</text>\n",
			left + 6, PY(peak_gbps) - 5, peak_gbps);
	}
	for (size_t i = 0; i < n; i++) {
		if (!(pts[i].time_us > 0) || !(pts[i].gbps > 0))
			continue;
		const char *c = pts[i].after ? "#2e7d32" : "#1565c0";
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" fill-opacity=\"0.8\"><title>",
			PX(pts[i].time_us), PY(pts[i].gbps), c);
		esc(out, pts[i].label);
		fprintf(out, ": %.1f us, %.0f GB/s%s</title></circle>\n", pts[i].time_us, pts[i].gbps,
			pts[i].after ? " (optimized)" : "");
	}
	fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#1565c0\"/><text x=\"%d\" y=\"%d\">baseline</text>\n",
		left + 10, h - 16, left + 18, h - 12);
	fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#2e7d32\"/><text x=\"%d\" y=\"%d\">optimized</text>\n",
		left + 100, h - 16, left + 108, h - 12);
	fprintf(out, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">kernel time per call (log scale)</text>\n",
		left + pw / 2, h - 32);
	fputs("</svg>\n", out);
#undef PX
#undef PY
}
