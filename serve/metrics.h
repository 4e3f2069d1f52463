/*
 * serve/metrics.h - query results as Prometheus metrics (docs/prometheus.md), for perf-sql
 * serve (serve/serve.c). Nothing here knows HTTP: the server asks for a rendering after each
 * window and serves it as is.
 *
 *   struct metrics *m = metrics__new(10000);
 *   int f = metrics__family(m, "syscalls", "system call latency per call");
 *   metrics__statement(m, f, stmt);               // each statement of that NAME|"SQL"
 *   per window: metrics__window_begin(m);
 *               metrics__step(m, k, stmt) for each statement k;
 *               metrics__render(m, &health, METRICS_TEXT, &buf);
 *
 * The mapping (the numbers are the requirements the tests cite):
 * (1) Names: perf_sql_<family>_<column>, each part sanitized to [a-zA-Z0-9_] (other characters
 *     become '_', runs of '_' one, no '_' at the end of a part); a name used twice in one
 *     exposition gets _2, _3, ... in the order the columns come.
 * (2) A column's kind is fixed by its first non-NULL value: TEXT -> a label (the column's name
 *     sanitized as in (1); `le` and `quantile` become `le_`, `quantile_`; a name an earlier
 *     column of the statement has gets _2, _3, ...); INTEGER or REAL ->
 *     a gauge of the window; a log2_hist()/lin_hist() BLOB -> a histogram; any other BLOB is
 *     left out. A NULL label is the empty value.
 * (3) A numeric column whose whole expression is count(...), sum(...) or total(...) (read
 *     from the statement's select list) is a counter: <name>_total is the sum of its values
 *     over every window (a negative window value is not added), and <name>_window the gauge
 *     of the last window.
 * (4) A histogram is cumulative over windows: _bucket{le="H.0"} for each bucket's inclusive
 *     upper bound H (as log2_hist prints it: bucket "512 -> 1023" is le="1023.0"; a
 *     lin_hist's "< MIN" bucket is le="MIN-1"; its ">= MAX" bucket only counts in +Inf),
 *     le="+Inf", _count, and _sum when the statement has a numeric column named
 *     <column>_sum (that column is then not a metric of its own).
 * (5) A series is a family's metric with one set of label values. Gauges show the series of
 *     the last window only; counters and histograms keep every series they ever had. At most
 *     max_series series are held (a row of a statement = one series); the rows of new series
 *     past that are dropped and counted in perf_sql_dropped_series_total. Their size is
 *     bounded too (metrics__limit_bytes()): a label value longer than max_label_bytes is cut
 *     (at a UTF-8 character's start) and the bytes cut counted in
 *     perf_sql_dropped_label_bytes_total; a new series whose samples would take the held
 *     series' exposition past max_bytes (each metric line counted: its name, labels and value)
 *     is dropped and counted in perf_sql_dropped_series_over_bytes_total.
 * (6) A statement whose window fails (SQL error, --query-timeout) changes nothing: its rows
 *     are staged and applied only when it completes; perf_sql_query_errors_total{family}
 *     counts the failures.
 */
#ifndef PERF_SQL_METRICS_H
#define PERF_SQL_METRICS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

struct metrics;

enum metrics_format { METRICS_TEXT, METRICS_OPENMETRICS };

#define METRICS_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* perf-sql's own health, exported with every rendering */
struct metrics_table {
	const char *name;        /* "syscalls:sys_enter_write" */
	uint64_t received, lost; /* since the start */
};

struct metrics_health {
	uint64_t windows;      /* windows completed */
	double window_seconds; /* the last window's length */
	double window_end;     /* its end, Unix seconds (0: no window yet) */
	const struct metrics_table *tables;
	int nr_tables;
	uint64_t rss_bytes;
	double cpu_seconds; /* user + system */
	int open_fds;
	double start_time; /* Unix seconds */
};

/* a growable text buffer */
struct mbuf {
	char *p;
	size_t len, cap;
	int oom; /* an append failed: the text is incomplete */
};

void mbuf__printf(struct mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mbuf__put(struct mbuf *b, const char *s, size_t n);
void mbuf__free(struct mbuf *b);

struct metrics *metrics__new(long max_series);
/* (5): 0 leaves a bound off (the default: none) */
void metrics__limit_bytes(struct metrics *m, size_t max_label_bytes, size_t max_bytes);
void metrics__free(struct metrics *m);
/* A family: the metric names' <family> part (sanitized here) and the HELP text. Its index. */
int metrics__family(struct metrics *m, const char *name, const char *help);
/*
 * A statement of family f: its columns, and which are counters (3), read from text, the
 * statement as given (the engine may have rewritten st's own SQL, e.g. to run in the kernel);
 * NULL: st's. 0 or -ENOMEM.
 */
int metrics__statement(struct metrics *m, int family, sqlite3_stmt *st, const char *text);
int metrics__nr_statements(const struct metrics *m);
void metrics__window_begin(struct metrics *m);
/*
 * Steps statement k (st, reset first) to its end and applies its rows (6). Returns
 * SQLITE_DONE, or SQLite's error code (the message is in sqlite3_errmsg) with nothing applied;
 * SQLITE_NOMEM when staging the rows ran out of memory (sqlite3_errmsg does not say so then).
 */
int metrics__step(struct metrics *m, int k, sqlite3_stmt *st);
/* The whole exposition (families in order, then health); b is appended to. */
void metrics__render(const struct metrics *m, const struct metrics_health *h,
		     enum metrics_format fmt, struct mbuf *b);
/* Series held now (5). */
long metrics__nr_series(const struct metrics *m);

/* internal to serve/metrics*.c: names, escaping, numbers, the select list */
void metrics__sanitize(char *out, size_t len, const char *in);
/* s (n bytes) as UTF-8 with \ and newline escaped, and " too when quote */
void metrics__escape(struct mbuf *b, const char *s, size_t n, bool quote);
void metrics__format_value(double v, char *buf, size_t len);
/* Which of the nr result columns of sql's first statement are count()/sum()/total() (3);
 * false for all when the select list cannot be read (a `*`, a count mismatch). */
void metrics__counted_columns(const char *sql, int nr, unsigned char *counts_out);
/* Where each statement of sql starts (at most max kept); how many there are (3). */
int metrics__split(const char *sql, const char **starts, int max);
#endif
