/*
 * rules/svg.h: the report's plots as standalone SVG files.
 *
 * svg_bars: one horizontal bar per model (speedup; green from the gates'
 * default gamma up), a line at 1.0 and the geomean. svg_roofline: each
 * kernel's achieved bandwidth against the GPU's measured copy bandwidth,
 * before and after optimization, on a log time axis.
 * Both write a complete SVG document to out; strings are escaped.
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
	double time_us;     /* time per call */
	double gbps;        /* achieved bandwidth */
	int after;          /* 0 = baseline, 1 = optimized */
};

void svg_roofline(FILE *out, const char *title, const struct svg_point *pts, size_t n, double peak_gbps);

#endif
