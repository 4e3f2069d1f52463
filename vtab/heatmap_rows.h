/*
 * vtab/heatmap_rows.h - heatmap_rows(H): the non-empty cells of a heatmap() value as rows.
 */
#ifndef PERF_SQL_HEATMAP_ROWS_H
#define PERF_SQL_HEATMAP_ROWS_H
#include <sqlite3.h>

/* Registers the eponymous table-valued function heatmap_rows; an SQLite result code. */
int heatmap_rows__register(sqlite3 *db);
#endif
