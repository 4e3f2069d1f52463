/*
 * vtab/hist_rows.h - hist_rows(H): the buckets of a log2_hist()/lin_hist() value as rows.
 */
#ifndef PERF_SQL_HIST_ROWS_H
#define PERF_SQL_HIST_ROWS_H
#include <sqlite3.h>

/* Registers the eponymous table-valued function hist_rows; an SQLite result code. */
int hist_rows__register(sqlite3 *db);
#endif
