/*
 * rules/vendor.c: a profile's vendor calls (runtime/python/kopt/vendor.py)
 * as Markdown rows: torch's time against the vendor heuristic's first
 * pick and its best, and what the analyst makes of it.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "vendor.h"

#include <math.h>
#include <string.h>

#include "common.h"

const char rule_vendor_header[] =
	"| model | call | shape | calls | torch (us) | vendor's first pick (us) | vendor's best (us) | analyst |\n"
	"| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";

void rule_vendor_rows(struct strbuf *md, const char *label, const json_t *calls, double gamma)
{
	size_t i;
	json_t *c;
	json_array_foreach(calls, i, c) {
		const char *op = json_string_value(json_object_get(c, "op"));
		const char *lib = json_string_value(json_object_get(c, "lib"));
		const char *shape = json_string_value(json_object_get(c, "shape"));
		const char *skipped = json_string_value(json_object_get(c, "skipped"));
		strbuf_addf(md, "| %s | %s %s | %s | %lld | ", label, lib ? lib : "-", op ? op : "-", shape ? shape : "-",
			    (long long)json_integer_value(json_object_get(c, "count")));
		double tn = rule_num(c, "torch_ns"), hn = rule_num(c, "heuristic_ns"), bn = rule_num(c, "best_ns");
		if (skipped || isnan(tn) || isnan(bn)) {
			strbuf_addf(md, "- | - | - | not posed: %s |\n", skipped ? skipped : "no algorithm ran");
			continue;
		}
		strbuf_addf(md, "%.2f | ", tn / 1000.0);
		if (isnan(hn))
			strbuf_addstr(md, "- | ");
		else
			strbuf_addf(md, "%.2f | ", hn / 1000.0);
		strbuf_addf(md, "%.2f (rank %lld) | ", bn / 1000.0,
			    (long long)json_integer_value(json_object_get(c, "best_rank")));
		if (bn > 0 && tn / bn >= gamma)
			strbuf_addf(md, "leaves %.0f%% on the table: %s |\n", 100.0 * (tn - bn) / tn,
				    lib && strcmp(lib, "cuDNN") == 0
					    ? "a variant with cudnn_benchmark = true may find it"
					    : "torch picks its own cuBLAS algorithm; a max-autotune variant tries Triton GEMMs");
		else if (tn > 0 && bn / tn >= gamma)
			strbuf_addf(md, "torch's pick beats every algorithm the heuristic ranked (%zu run) |\n",
				    json_array_size(json_object_get(c, "algos")));
		else
			strbuf_addstr(md, "at the vendor's best (within gamma) |\n");
	}
}
