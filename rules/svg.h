/*
 * rules/svg.h: the report's plots as standalone SVG files.
 *
 * svg_bars: per model, its name in full on a line of its own and two
 * horizontal bars: the speedup over torch.compile and, lighter, over
 * max-autotune-no-cudagraphs (green from the gates' default gamma up, red
 * below 1), a line at 1.0 and both geomeans. Each bar carries its class
 * ("bar compile" or "bar autotune"), data-model and data-value, each name
 * the class "label". svg_roofline: a
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
	double value;       /* speedup over torch.compile; <= 0 or NAN = no result */
	double value2;      /* speedup over max-autotune-no-cudagraphs; <= 0 or NAN = none */
	const char *note;   /* e.g. "baseline kept"; may be NULL */
};

/* the width a character of a label is given (DejaVu Sans at 12 px is at
 * most this on average over a model's name): the plot is as wide as its
 * longest label needs */
#define SVG_CHAR_W 7.5

/* geomean2: over max-autotune (NAN: none) */
void svg_bars(FILE *out, const char *title, const struct svg_bar *bars, size_t n, double geomean, double geomean2);

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
