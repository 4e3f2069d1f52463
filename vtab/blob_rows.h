/*
 * vtab/blob_rows.h - hist_rows(H) and heatmap_rows(H): the buckets of a log2_hist()/lin_hist()
 * value and the non-empty cells of a heatmap() value as rows.
 */
#ifndef PERF_SQL_BLOB_ROWS_H
#define PERF_SQL_BLOB_ROWS_H
#include <sqlite3.h>

/* Registers the eponymous table-valued functions hist_rows and heatmap_rows; an SQLite
 * result code. */
int blob_rows__register(sqlite3 *db);
#endif
