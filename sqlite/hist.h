/*
 * sqlite/hist.h - the histogram value shared by log2_hist(), lin_hist(), hist_rows() and the
 * output formats. A histogram travels through SQL as a BLOB that starts with HIST_MAGIC (layout
 * and hist_is() in vtab/blob_format.h), so the front end can render it as star bars (table) or
 * a JSON array (csv/json).
 */
#ifndef PERF_SQL_HIST_H
#define PERF_SQL_HIST_H
#include "vtab/blob_format.h"

/* malloc'd, NUL-terminated; NULL on a malformed blob or out of memory */
char *hist_to_text(const void *blob, int len); /* bcc-style bars, lines end in '\n', <= 80 cols */
char *hist_to_json(const void *blob, int len); /* [{"low":..,"high":..,"count":..},...] */
#endif
