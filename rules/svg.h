/*
 * rules/svg.h: the report's plots as standalone SVG files.
 *
 * svg_bars: one horizontal bar per model (speedup; green from the gates'
 * default gamma up), a line at 1.0 and the geomean. svg_roofline: a
 * roofline on log-log axes, arithmetic intensity (FLOP per byte) across and
 * achieved FLOP/s up, under the device's measured roofs: the copy
 * bandwidth's slope and the FP32 peak's flat roof; one point per kernel,
 * before and after optimization.
 * Both write a complete SVG document to out; strings are escaped.
 *
 * The roofline's marks carry classes and their values, so that a reader
 * (and tests/unit/svg_test.c) can take the plot apart: the axes' ticks
 * (class "tick-x" / "tick-y", data-value), the roofs (class "roof-memory",
 * data-gbps; "roof-compute", data-gflops) and each point (class "point
 * before" or "point after", data-intensity, data-gflops).
 */
#ifndef KOPT_SVG_H
#define KOPT_SVG_H

#include <stddef.h>
#include <stdio.h>

struct svg_bar {
	const char *label;  /* model name */
	double value;       /* speedup; <= 0 or NAN = no result */
	const char *note;   /* e.g. "baseline kept"; may be NULL */
};

void svg_bars(FILE *out, const char *title, const struct svg_bar *bars, size_t n, double geomean);

struct svg_point {
	const char *label;  /* kernel name */
	double intensity;   /* FLOP per byte; <= 0 or NAN: not drawn */
	double gflops;      /* achieved GFLOP/s; <= 0 or NAN: not drawn */
	int after;          /* 0 = baseline, 1 = optimized */
};

/* copy_gbps or peak_gflops <= 0: that roof is not drawn (nor said) */
void svg_roofline(FILE *out, const char *title, const struct svg_point *pts, size_t n, double copy_gbps,
		  double peak_gflops);

#endif
