/*
 * rules/vendor.h: a profile's vendor calls as Markdown rows (rules/vendor.c).
 */
#ifndef KOPT_RULES_VENDOR_H
#define KOPT_RULES_VENDOR_H

#include <jansson.h>

#include "../common/util.h"

/* Markdown rows for a profile's vendor calls (runtime/python/kopt/vendor.py):
 * torch's time against the vendor heuristic's first pick and its best, and
 * whether torch's pick leaves more than gamma on the table */
extern const char rule_vendor_header[];
void rule_vendor_rows(struct strbuf *md, const char *label, const json_t *calls, double gamma);

#endif
