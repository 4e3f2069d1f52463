/*
 * render/output.h - result formats: aligned table, CSV (RFC 4180 quoting; lines end in LF, as
 * psql --csv and DuckDB write them, or CRLF with --csv-crlf) and JSON Lines.
 */
#ifndef PERF_SQL_OUTPUT_H
#define PERF_SQL_OUTPUT_H
#include <stdbool.h>
#include <stdio.h>
#include <sqlite3.h>
#include "core/err.h"

enum out_mode { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_PPROF /* render/pprof.h */ };

struct output {
	enum out_mode mode;
	FILE *f;
	bool windowed;       /* -i: a window_start column (csv/json) or a window line (table) */
	bool crlf;           /* --csv-crlf: CSV lines end in CRLF (RFC 4180), not LF */
	int headers_done;    /* CSV: statements whose header was printed (bit per statement) */
	bool broken_pipe;    /* the reader went away: stop quietly */
	int write_error;     /* errno of a statement's rows not written to a file (disk full) */
	struct flame *flame; /* --flame-graph: folded_stack() columns are collected here */
	void *heatmap;       /* --heatmap: a copy of the last heatmap() value printed */
	int heatmap_len;
	bool want_heatmap;
	struct pprof *pprof; /* -f pprof: every statement's rows are collected here */
	/* output__statement() to a regular file: the chunk in memory, the file it goes to */
	FILE *real;
	char *mbuf;
	size_t mlen;
};

/* "table", "csv", "json", "pprof" -> mode; -1 if unknown */
int output__mode(const char *name);
/*
 * Steps stmt to the end and prints its rows. nth is the statement's index (CSV prints one
 * header per statement for the whole run). Returns SQLITE_OK/SQLITE_DONE, or the error code
 * (the message is in sqlite3_errmsg).
 */
int output__statement(struct output *o, sqlite3_stmt *stmt, int nth, const char *window_start);
/*
 * -o FILE and .output FILE: a new file renamed over path at once, rows streaming into it; a
 * FIFO, a character device or /dev/stdout as it is; a symbolic link, a hard-linked file, a
 * directory refused (core/outfile.h). NULL with e set.
 */
FILE *output__open(const char *path, struct err *e);
#endif
