/* rules/svg.c: see svg.h */
#include "svg.h"

#include <math.h>
#include <stdbool.h>
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

/* a bar of speedup v from x0 (x: its end), its fill by the gates'
 * default gamma: green from gamma up, gray from 1, red below; light for
 * the speedup over max-autotune */
static void bar(FILE *out, const char *cls, const char *label, double v, double x0, double x, int y, bool light)
{
	const char *fill = v >= lang_gates_default.gamma ? "#2e7d32" : v >= 1.0 ? "#9e9e9e" : "#c62828";
	fprintf(out, "<rect class=\"bar %s\" data-model=\"", cls);
	esc(out, label);
	fprintf(out, "\" data-value=\"%.4f\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\"%s/>\n", v, x0, y,
		x - x0, fill, light ? " fill-opacity=\"0.4\" stroke-width=\"1\" stroke=\"#555\"" : "");
}

void svg_bars(FILE *out, const char *title, const struct svg_bar *bars, size_t n, double geomean, double geomean2)
{
	/* each model's name on a line of its own above its two bars, in full
	 * (KernelBench's run to 100 characters): the plot widens for the
	 * longest */
	size_t longest = 0;
	for (size_t i = 0; i < n; i++)
		if (bars[i].label && strlen(bars[i].label) > longest)
			longest = strlen(bars[i].label);
	const int left = 16, right = 190, top = 62, row = 50, bottom = 54;
	int w = 760;
	if (left * 2 + (int)(longest * SVG_CHAR_W) > w)
		w = left * 2 + (int)(longest * SVG_CHAR_W);
	const int h = top + (int)n * row + bottom;
	double vmax = 1.5;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(bars[i].value) && bars[i].value > vmax)
			vmax = bars[i].value;
		if (isfinite(bars[i].value2) && bars[i].value2 > vmax)
			vmax = bars[i].value2;
	}
	vmax = ceil(vmax * 4) / 4;
	double plot = w - left - right;
#define X(v) (left + (v) / vmax * plot)
	head(out, w, h, title);
	/* the legend */
	fprintf(out, "<rect x=\"%d\" y=\"34\" width=\"14\" height=\"10\" fill=\"#2e7d32\"/>\n"
		     "<text x=\"%d\" y=\"43\">over torch.compile</text>\n"
		     "<rect x=\"%d\" y=\"34\" width=\"14\" height=\"10\" fill=\"#2e7d32\" fill-opacity=\"0.4\" "
		     "stroke-width=\"1\" stroke=\"#555\"/>\n"
		     "<text x=\"%d\" y=\"43\">over max-autotune-no-cudagraphs</text>\n"
		     "<text x=\"%d\" y=\"43\" fill=\"#555\">(green: gamma or more, red: slower)</text>\n",
		left, left + 20, left + 160, left + 180, left + 420);
	for (double t = 0; t <= vmax + 1e-9; t += vmax > 4 ? 1.0 : 0.25) {
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n",
			X(t), top - 4, X(t), top + (int)n * row);
		/* %g: the quarter ticks in full (1.25, not 1.2) */
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
			X(t), top + (int)n * row + 16, t);
	}
	for (size_t i = 0; i < n; i++) {
		int y = top + (int)i * row;
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\">", left, y + 12);
		esc(out, bars[i].label);
		fputs("</text>\n", out);
		double v = bars[i].value, v2 = bars[i].value2;
		if (!isfinite(v) || v <= 0) {
			fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#999\">no result", left + 4, y + 28);
		} else {
			bar(out, "compile", bars[i].label, v, left, X(v), y + 18, false);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\">%.2fx", X(v) + 4, y + 28, v);
		}
		if (bars[i].note) {
			fputs(" ", out);
			esc(out, bars[i].note);
		}
		fputs("</text>\n", out);
		if (isfinite(v2) && v2 > 0) {
			bar(out, "autotune", bars[i].label, v2, left, X(v2), y + 32, true);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%.2fx over max-autotune</text>\n", X(v2) + 4,
				y + 42, v2);
		} else if (isfinite(v) && v > 0) {
			fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#999\">no max-autotune variant</text>\n", left + 4, y + 42);
		}
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" stroke-width=\"1.5\"/>\n",
		X(1.0), top - 6, X(1.0), top + (int)n * row);
	const double geo[2] = { geomean, geomean2 };
	const char *const color[2] = { "#1565c0", "#6a1b9a" }, *const over[2] = { "torch.compile", "max-autotune" };
	for (int k = 0; k < 2; k++) {
		if (!isfinite(geo[k]) || geo[k] <= 0)
			continue;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"5,3\"/>\n",
			X(geo[k]), top - 6, X(geo[k]), top + (int)n * row, color[k]);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">geomean %.3fx over %s</text>\n", X(geo[k]) + 4,
			top + (int)n * row + 32 + 14 * k, color[k], geo[k], over[k]);
	}
	fputs("</svg>\n", out);
#undef X
}

/* "4.3 T", "250 G": a GFLOP/s figure for a tick */
static void flops_label(FILE *out, double gflops)
{
	if (gflops >= 1000)
		fprintf(out, "%g T", gflops / 1000);
	else if (gflops >= 1)
		fprintf(out, "%g G", gflops);
	else
		fprintf(out, "%g M", gflops * 1000);
}

static bool drawn(const struct svg_point *p)
{
	return p->intensity > 0 && p->gflops > 0 && isfinite(p->intensity) && isfinite(p->gflops);
}

void svg_roofline(FILE *out, const char *title, const struct svg_point *pts, size_t n, double copy_gbps,
		  double peak_gflops)
{
	const int w = 760, h = 480, left = 80, right = 30, top = 40, bottom = 70;
	bool mem = copy_gbps > 0 && isfinite(copy_gbps), comp = peak_gflops > 0 && isfinite(peak_gflops);
	/* the axes' ranges in decades: every point, and the ridge (where the
	 * roofs meet) with two decades of intensity either side of it */
	double ilo = INFINITY, ihi = -INFINITY, glo = INFINITY, ghi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!drawn(&pts[i]))
			continue;
		ilo = fmin(ilo, pts[i].intensity);
		ihi = fmax(ihi, pts[i].intensity);
		glo = fmin(glo, pts[i].gflops);
		ghi = fmax(ghi, pts[i].gflops);
	}
	if (mem && comp) {
		double ridge = peak_gflops / copy_gbps;
		ilo = fmin(ilo, ridge / 100);
		ihi = fmax(ihi, ridge * 10);
	}
	if (!isfinite(ilo)) {
		ilo = 0.01;
		ihi = 100;
	}
	if (mem)
		glo = fmin(glo, copy_gbps * ilo);
	if (comp)
		ghi = fmax(ghi, peak_gflops);
	if (!isfinite(glo)) {
		glo = 1;
		ghi = 1e5;
	}
	double xlo = floor(log10(ilo)), xhi = ceil(log10(ihi));
	double ylo = floor(log10(glo)), yhi = ceil(log10(ghi * 1.2));
	if (xhi <= xlo)
		xhi = xlo + 1;
	if (yhi <= ylo)
		yhi = ylo + 1;
	double pw = w - left - right, ph = h - top - bottom;
#define PX(v) (left + (log10(v) - xlo) / (xhi - xlo) * pw)
#define PY(v) (top + ph - (log10(v) - ylo) / (yhi - ylo) * ph)
	head(out, w, h, title);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n",
		left, top, pw, ph);
	for (double d = xlo; d <= xhi + 1e-9; d += 1) {
		double x = PX(pow(10, d));
		fprintf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#eee\"/>\n", x, top, x, top + ph);
		fprintf(out, "<text class=\"tick-x\" data-value=\"%g\" x=\"%.2f\" y=\"%.0f\" text-anchor=\"middle\" "
			     "fill=\"#555\">%g</text>\n", pow(10, d), x, top + ph + 16, pow(10, d));
	}
	for (double d = ylo; d <= yhi + 1e-9; d += 1) {
		double y = PY(pow(10, d));
		fprintf(out, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" stroke=\"#eee\"/>\n", left, y, left + pw, y);
		fprintf(out, "<text class=\"tick-y\" data-value=\"%g\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\" "
			     "dominant-baseline=\"middle\" fill=\"#555\">", pow(10, d), left - 6, y);
		flops_label(out, pow(10, d));
		fputs("</text>\n", out);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\">arithmetic intensity "
		     "(FLOP per byte, log scale)</text>\n", left + pw / 2, top + ph + 36);
	fprintf(out, "<text transform=\"translate(18 %.0f) rotate(-90)\" text-anchor=\"middle\" fill=\"#555\">"
		     "achieved FLOP/s (log scale)</text>\n", top + ph / 2);
	double x0 = pow(10, xlo), x1 = pow(10, xhi), ymax = pow(10, yhi);
	if (mem) {
		/* FLOP/s = intensity x bandwidth, up to the peak (or the plot's top) */
		double cap = comp ? peak_gflops : ymax;
		double xa = fmax(x0, pow(10, ylo) / copy_gbps), xb = fmin(x1, cap / copy_gbps);
		fprintf(out, "<line class=\"roof-memory\" data-gbps=\"%.6g\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			     "stroke=\"#c62828\" stroke-width=\"2\"/>\n", copy_gbps, PX(xa), PY(xa * copy_gbps), PX(xb),
			PY(xb * copy_gbps));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c62828\" transform=\"rotate(%.1f %.1f %.1f)\">copy bandwidth "
			     "%.0f GB/s (measured)</text>\n",
			PX(xa) + 8, PY(xa * copy_gbps) - 6,
			-atan2(PY(xa * copy_gbps) - PY(xb * copy_gbps), PX(xb) - PX(xa)) * 45 / atan(1.0), PX(xa) + 8,
			PY(xa * copy_gbps) - 6, copy_gbps);
	}
	if (comp) {
		double xa = mem ? fmax(x0, peak_gflops / copy_gbps) : x0;
		fprintf(out, "<line class=\"roof-compute\" data-gflops=\"%.6g\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			     "stroke=\"#c62828\" stroke-width=\"2\"/>\n", peak_gflops, PX(xa), PY(peak_gflops), PX(x1),
			PY(peak_gflops));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#c62828\">FP32 peak %.1f TFLOP/s "
			     "(measured)</text>\n", PX(x1) - 6, PY(peak_gflops) - 6, peak_gflops / 1000);
	}
	for (size_t i = 0; i < n; i++) {
		if (!drawn(&pts[i]))
			continue;
		const char *c = pts[i].after ? "#2e7d32" : "#1565c0";
		fprintf(out, "<circle class=\"point %s\" data-intensity=\"%.9g\" data-gflops=\"%.9g\" cx=\"%.2f\" cy=\"%.2f\" "
			     "r=\"4\" fill=\"%s\" fill-opacity=\"0.8\"><title>",
			pts[i].after ? "after" : "before", pts[i].intensity, pts[i].gflops, PX(pts[i].intensity),
			PY(pts[i].gflops), c);
		esc(out, pts[i].label);
		fprintf(out, ": %.3g FLOP per byte, %.0f GFLOP/s%s</title></circle>\n", pts[i].intensity, pts[i].gflops,
			pts[i].after ? " (optimized)" : "");
	}
	fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#1565c0\"/><text x=\"%d\" y=\"%d\">before koptmake</text>\n",
		left + 10, h - 12, left + 18, h - 8);
	fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#2e7d32\"/><text x=\"%d\" y=\"%d\">after</text>\n",
		left + 150, h - 12, left + 158, h - 8);
	fputs("</svg>\n", out);
#undef PX
#undef PY
}
