/*
 * coverage_files.c - the coverage curve (distinct partial orders and
 * distinct race pairs against the run number) as CSV and as a
 * self-contained SVG line plot, drawn by hand: two polylines, axes with
 * a few ticks, labels and a legend.
 */
#include <inttypes.h>

#include "analysis.h"

int sc_coverage_write_csv(const struct sc_analysis_result *r, FILE *out)
{
	fputs("run,distinct_partial_orders,distinct_race_pairs\n", out);
	for (size_t i = 0; i < r->ncoverage; i++)
		fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 "\n",
			r->coverage[i].run,
			r->coverage[i].distinct_partial_orders,
			r->coverage[i].distinct_race_pairs);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Plot geometry (pixels). */
#define W 640
#define H 400
#define LEFT 70
#define RIGHT 20
#define TOP 40
#define BOTTOM 60

/* A "nice" axis maximum (1, 2, 5 x 10^k) at least v. */
static uint64_t nice_max(uint64_t v)
{
	uint64_t m = 1;
	for (;;) {
		if (m >= v)
			return m;
		if (2 * m >= v)
			return 2 * m;
		if (5 * m >= v)
			return 5 * m;
		if (m > UINT64_MAX / 10)
			return v;
		m *= 10;
	}
}

static double px(uint64_t v, uint64_t max)
{
	return LEFT + (double)(W - LEFT - RIGHT) * (double)v / (double)max;
}

static double py(uint64_t v, uint64_t max)
{
	return (double)(H - BOTTOM) - (double)(H - TOP - BOTTOM) *
	       (double)v / (double)max;
}

static void polyline(const struct sc_analysis_result *r, bool races,
		     uint64_t xmax, uint64_t ymax, const char *colour,
		     FILE *out)
{
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\""
		" points=\"%.1f,%.1f", colour, px(0, xmax), py(0, ymax));
	for (size_t i = 0; i < r->ncoverage; i++) {
		const struct sc_coverage_point *c = &r->coverage[i];
		fprintf(out, " %.1f,%.1f", px(c->run, xmax),
			py(races ? c->distinct_race_pairs
				 : c->distinct_partial_orders, ymax));
	}
	fputs("\"/>\n", out);
}

int sc_coverage_write_svg(const struct sc_analysis_result *r, FILE *out)
{
	uint64_t xmax = nice_max(r->ncoverage ? r->ncoverage : 1), ymax = 1;
	for (size_t i = 0; i < r->ncoverage; i++) {
		if (r->coverage[i].distinct_partial_orders > ymax)
			ymax = r->coverage[i].distinct_partial_orders;
		if (r->coverage[i].distinct_race_pairs > ymax)
			ymax = r->coverage[i].distinct_race_pairs;
	}
	ymax = nice_max(ymax);

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"white\"/>\n<text x=\"%d\" y=\"24\" text-anchor=\"middle\" "
		"font-size=\"15\">schedctl coverage</text>\n", W, H, W, H, W / 2);
	/* Axes and ticks: 0, 1/4, ..., max. */
	fprintf(out, "<path d=\"M%d,%d V%d H%d\" stroke=\"black\" fill=\"none\"/>\n",
		LEFT, TOP, H - BOTTOM, W - RIGHT);
	for (int k = 0; k <= 4; k++) {
		uint64_t xv = xmax * (uint64_t)k / 4, yv = ymax * (uint64_t)k / 4;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"black\"/><text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%" PRIu64 "</text>\n",
			px(xv, xmax), H - BOTTOM, px(xv, xmax), H - BOTTOM + 5,
			px(xv, xmax), H - BOTTOM + 19, xv);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%" PRIu64 "</text>\n",
			LEFT, py(yv, ymax), W - RIGHT, py(yv, ymax), LEFT - 6,
			py(yv, ymax) + 4, yv);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">run</text>\n"
		"<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 16 %d)\">distinct</text>\n",
		(LEFT + W - RIGHT) / 2, H - BOTTOM + 38, (TOP + H - BOTTOM) / 2,
		(TOP + H - BOTTOM) / 2);
	polyline(r, false, xmax, ymax, "#1f77b4", out);
	polyline(r, true, xmax, ymax, "#d62728", out);
	/* Legend. */
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#1f77b4\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">"
		"distinct partial orders</text>\n", LEFT + 10, TOP + 8,
		LEFT + 30, TOP + 8, LEFT + 36, TOP + 12);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">"
		"distinct race pairs</text>\n</svg>\n", LEFT + 10, TOP + 24,
		LEFT + 30, TOP + 24, LEFT + 36, TOP + 28);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
