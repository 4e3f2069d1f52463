/*
 * tests/unit/test_func_extremes.c - every SQL function, aggregate and table-valued function on
 * the engine's connection, called with the extremes of each SQL type (docs/functions.md,
 * "Extremes"; docs/security.md, "SQL functions").
 *
 * (1) What is called is read from the connection itself: PRAGMA function_list and module_list,
 *     less what a bare SQLite connection has. So a function added to sqlite/functions.c, or
 *     registered by any other layer, is called without a change here; every row of the
 *     registry (sql_functions__table()) must have been called.
 * (2) Values: INT64_MIN, INT64_MAX, 0, NULL, 1e308, -1e308, a text, a blob. A function of N
 *     arguments (N = 0..6 for a variadic one, 0..its hidden columns + 1 for a table) gets every
 *     combination of them up to 4 arguments; past 4, each value in each position with every
 *     value in the others. Extra well-formed blobs (histograms, heatmaps, stacks, bucket
 *     counts at their limits) go through one position at a time.
 * (3) Aggregates also run over groups of rows: every ordered pair of values in one position
 *     (the others fixed, or the same pair), and all eight values in one group, in order and
 *     reversed, with percentile()'s exact cap at its default and at 0 (the sketch).
 * (4) A call passes when it returns rows, or fails with SQLITE_ERROR and one printable line
 *     that names the function. A BLOB result is rendered as the output formats do and read by
 *     hist_rows() and heatmap_rows(). A crash, or a sanitizer's report under `make asan`,
 *     fails the test.
 * (5) Connections: the engine's over a capture (vtabs__register + sql_functions__register, as
 *     engine/query.c opens it), one without a session (tests, fuzz_sql), one whose session
 *     follows a task tree (is_target() past its NULL), and perf_sql.so loaded into a plain
 *     connection (its own functions too) when the extension is built.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sqlite3.h>

#include "core/record.h"
#include "core/session.h"
#include "sqlite/functions.h"
#include "sqlite/heatmap.h"
#include "sqlite/hist.h"
#include "symbols/stack.h"
#include "tests/fuzz/funcs.h"
#include "tests/unit/t.h"
#include "vtab/blob_rows.h"
#include "vtab/tp_table.h"

/* under `make asan` a UBSan report (a signed overflow, a shift) fails the test, not only says
 * so: its recoverable checks halt here */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

#define NR_BASE 8      /* the values of (2) */
#define MAX_VALS 24    /* with the well-formed blobs */
#define FULL_ARITY 4   /* every combination up to this many arguments */
#define MAX_VARIADIC 6 /* arities tried for a variadic function: 0..6 */
#define MAX_CALLEES 512

struct val {
	const char *name;
	int type;
	sqlite3_int64 i;
	double d;
	const void *p;
	int len;
};

static struct val vals[MAX_VALS];
static int nr_vals;
static void *blobs[MAX_VALS];
static struct funcs_callee callees[MAX_CALLEES];
static int nr_callees;
static long nr_calls;

static void add_val(const char *name, int type, sqlite3_int64 i, double d, const void *p, int len)
{
	vals[nr_vals++] = (struct val){ name, type, i, d, p, len };
}

/* a well-formed blob of the value kinds the functions read, at its limits */
static void add_blob(const char *name, void *b, int len)
{
	blobs[nr_vals] = b;
	add_val(name, SQLITE_BLOB, 0, 0, b, len);
}

static void make_vals(void)
{
	static const uint8_t raw[] = { 0x00, 0xff, 0x10, 0x80, 0xc3 };
	static const uint64_t c2[4] = { UINT64_MAX, 1, 1, 1 };
	static const uint64_t c3[4] = { INT64_MAX, 1, 1, INT64_MAX };
	static const uint64_t pairs[4] = { 3775, UINT64_MAX, UINT64_MAX, 1 };
	uint64_t counts[HIST_LOG2_NR];
	uint64_t frames[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0, UINT64_MAX / 2,
			      (uint64_t)PERF_CONTEXT_USER,   0, 1 };
	size_t slen;
	void *b;
	int len;

	add_val("INT64_MIN", SQLITE_INTEGER, INT64_MIN, 0, NULL, 0);
	add_val("INT64_MAX", SQLITE_INTEGER, INT64_MAX, 0, NULL, 0);
	add_val("0", SQLITE_INTEGER, 0, 0, NULL, 0);
	add_val("NULL", SQLITE_NULL, 0, 0, NULL, 0);
	add_val("1e308", SQLITE_FLOAT, 0, 1e308, NULL, 0);
	add_val("-1e308", SQLITE_FLOAT, 0, -1e308, NULL, 0);
	add_val("'text'", SQLITE_TEXT, 0, 0, "srcline \xff\x01", 10);
	add_val("x'00ff1080c3'", SQLITE_BLOB, 0, 0, raw, sizeof(raw));
	for (int i = 0; i < HIST_LOG2_NR; i++)
		counts[i] = INT64_MAX;
	/* each blob made before its length is read: argument order is unspecified */
	b = hist_blob__encode(HIST_LOG2, "ns", 0, 0, 0, counts, HIST_LOG2_NR, &len);
	add_blob("log2 hist of INT64_MAX counts", b, len);
	b = hist_blob__encode(HIST_LIN, "", INT64_MIN + 1, INT64_MIN + 3, 1, c3, 4, &len);
	add_blob("lin hist near INT64_MIN", b, len);
	b = hist_blob__encode(HIST_LIN, "", -1, INT64_MAX, INT64_MAX, c3, 4, &len);
	add_blob("lin hist of step INT64_MAX", b, len);
	b = heatmap_blob__encode(counts, 1, INT64_MAX, INT64_MAX - 1, &len);
	add_blob("heatmap ending at INT64_MAX", b, len);
	b = stack_blob__new(1, 1, "\xff\xfe", frames, 6, &slen);
	add_blob("stack", b, (int)slen);
	for (int i = NR_BASE; i < NR_BASE + 4; i++)
		T(i < NR_BASE + 3 ? hist_is(vals[i].p, vals[i].len)
				  : heatmap_is(vals[i].p, vals[i].len),
		  "%s: well-formed", vals[i].name);
	add_val("u64 counts of UINT64_MAX", SQLITE_BLOB, 0, 0, c2, sizeof(c2));
	add_val("loglin buckets", SQLITE_BLOB, 0, 0, pairs, sizeof(pairs));
	add_val("numeric text past INT64_MAX", SQLITE_TEXT, 0, 0, "9223372036854775808", -1);
	add_val("empty text", SQLITE_TEXT, 0, 0, "", 0);
	add_val("empty blob", SQLITE_BLOB, 0, 0, "", 0);
}

static void bind_val(sqlite3_stmt *st, int col, const struct val *v)
{
	switch (v->type) {
	case SQLITE_INTEGER: sqlite3_bind_int64(st, col, v->i); break;
	case SQLITE_FLOAT: sqlite3_bind_double(st, col, v->d); break;
	case SQLITE_TEXT: sqlite3_bind_text(st, col, v->p, v->len, SQLITE_STATIC); break;
	case SQLITE_BLOB: sqlite3_bind_blob(st, col, v->p, v->len, SQLITE_STATIC); break;
	default: sqlite3_bind_null(st, col); break;
	}
}

/* (1) what db has beyond a bare connection */
static void enumerate(sqlite3 *db)
{
	nr_callees = funcs_list(db, callees, MAX_CALLEES);
	T(nr_callees > 0 && nr_callees < MAX_CALLEES, "%d functions listed", nr_callees);
}

static void describe(char *buf, size_t size, const struct funcs_callee *c, const int *args,
		     int narg, int rows)
{
	int n = snprintf(buf, size, "%s(", c->name);

	for (int r = 0; r < rows; r++)
		for (int a = 0; a < narg && n < (int)size; a++)
			n += snprintf(buf + n, size - (size_t)n, "%s%s",
				      a   ? ", "
				      : r ? "; "
					  : "",
				      vals[args[r * narg + a]].name);
	if (n < (int)size)
		snprintf(buf + n, size - (size_t)n, ")%s", rows > 1 ? " over rows" : "");
}

/* one call: rows of narg values each (rows > 1: an aggregate over a VALUES table, one group) */
static void call(sqlite3 *db, struct funcs_callee *c, const int *args, int narg, int rows)
{
	char what[512], *sql = funcs_sql(c, narg, rows);
	sqlite3_stmt *st = NULL;
	int rc, p = 1;

	describe(what, sizeof(what), c, args, narg, rows);
	rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	for (int r = 0; rc == SQLITE_OK && r < rows; r++) {
		if (rows > 1)
			sqlite3_bind_int(st, p++, 0); /* the group */
		for (int a = 0; a < narg; a++)
			bind_val(st, p++, &vals[args[r * narg + a]]);
	}
	if (rc == SQLITE_OK)
		rc = funcs_step_all(db, st);
	T(funcs_outcome_ok(db, rc, c->name),
	  "%s: rc %d, '%s' (an error must name the function, on one printable line)", what, rc,
	  sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	c->calls++;
	nr_calls++;
}

/* (2) every combination of the first nr values in narg positions */
static void all_combinations(sqlite3 *db, struct funcs_callee *c, int narg, int nr)
{
	int args[FULL_ARITY] = { 0 };

	for (;;) {
		call(db, c, args, narg, 1);
		int a = 0;

		while (a < narg && ++args[a] == nr)
			args[a++] = 0;
		if (a == narg)
			return;
	}
}

/* (2) each of the values in each position, every base value in the others */
static void each_position(sqlite3 *db, struct funcs_callee *c, int narg, int from)
{
	int args[MAX_VARIADIC + 2];

	for (int pos = 0; pos < narg; pos++)
		for (int v = from; v < nr_vals; v++)
			for (int bg = 0; bg < NR_BASE; bg++) {
				for (int a = 0; a < narg; a++)
					args[a] = a == pos ? v : bg;
				call(db, c, args, narg, 1);
			}
}

/* (3) groups of rows: pairs of values in one position, then all of them in one group */
static void over_rows(sqlite3 *db, struct funcs_callee *c, int narg)
{
	int args[NR_BASE * (MAX_VARIADIC + 2)];

	for (int pos = 0; pos < narg; pos++)
		for (int bg = -1; bg < NR_BASE; bg++) {
			for (int v1 = 0; v1 < NR_BASE; v1++)
				for (int v2 = 0; v2 < NR_BASE; v2++) {
					for (int a = 0; a < narg; a++) {
						args[a] = a == pos || bg < 0 ? v1 : bg;
						args[narg + a] = a == pos || bg < 0 ? v2 : bg;
					}
					call(db, c, args, narg, 2);
				}
			for (int cap = 0; cap < 2; cap++)
				for (int rev = 0; rev < 2; rev++) {
					percentile_set_exact_cap(cap ? 0 : -1);
					for (int r = 0; r < NR_BASE; r++)
						for (int a = 0; a < narg; a++)
							args[r * narg + a] =
								a == pos || bg < 0
									? (rev ? NR_BASE - 1 - r
									       : r)
									: bg;
					call(db, c, args, narg, NR_BASE);
				}
			percentile_set_exact_cap(-1);
		}
}

static void call_every_arity(sqlite3 *db, struct funcs_callee *c, bool groups)
{
	int lo = c->narg < 0 ? 0 : c->narg, hi = c->narg < 0 ? MAX_VARIADIC : c->narg;

	if (c->table)
		lo = 0, hi = c->narg + 1;
	for (int n = lo; n <= hi; n++) {
		if (n <= FULL_ARITY)
			all_combinations(db, c, n, NR_BASE);
		else
			each_position(db, c, n, 0);
		if (n <= FULL_ARITY)
			each_position(db, c, n, NR_BASE); /* the well-formed blobs */
		if (groups && c->agg && n > 0)
			over_rows(db, c, n);
	}
}

static void call_all(sqlite3 *db, const char *conn, bool groups)
{
	long before = nr_calls;

	enumerate(db);
	for (int i = 0; i < nr_callees; i++)
		call_every_arity(db, &callees[i], groups);
	printf("%s: %d functions and tables, %ld calls; tables:", conn, nr_callees,
	       nr_calls - before);
	for (int i = 0; i < nr_callees; i++)
		if (callees[i].table)
			printf(" %s/%d", callees[i].name, callees[i].narg);
	printf("\n");
}

/* (1) every registry row was among what the connection listed, and was called */
static void check_registry_called(void)
{
	int nr;
	const struct sql_func *f = sql_functions__table(&nr);

	for (int i = 0; i < nr; i++) {
		bool called = false;

		for (int k = 0; k < nr_callees; k++)
			if (!strcmp(callees[k].name, f[i].name) &&
			    callees[k].narg == f[i].nr_args && callees[k].calls)
				called = true;
		T(called, "registry row %s/%d was not called", f[i].name, f[i].nr_args);
	}
	for (const char *const *m = (const char *const[]){ "hist_rows", "heatmap_rows", NULL }; *m;
	     m++) {
		bool called = false;

		for (int k = 0; k < nr_callees; k++)
			called |= callees[k].table && !strcmp(callees[k].name, *m) &&
				  callees[k].calls;
		T(called, "table-valued function %s was not called", *m);
	}
}

/* (5) the engine's connection over a capture, as engine/query.c opens it */
static void test_engine(void)
{
	struct session_opts so = { 0 };
	struct err e = { 0 };
	struct session *s = session__new_replay(&so, "tests/sql/sleeps.cap", &e);
	sqlite3 *db = NULL;

	T(s != NULL, "replay tests/sql/sleeps.cap: %s", e.msg);
	if (!s)
		return;
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	T(vtabs__register(db, s) == SQLITE_OK, "vtabs__register");
	T(sql_functions__register(db, s) == SQLITE_OK, "sql_functions__register");
	call_all(db, "engine over a capture", true);
	check_registry_called();
	sqlite3_close(db);
	session__close(s);
}

static void test_no_session(void)
{
	sqlite3 *db = NULL;

	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	T(sql_functions__register(db, NULL) == SQLITE_OK, "sql_functions__register");
	T(blob_rows__register(db) == SQLITE_OK, "blob_rows__register");
	call_all(db, "no session", false);
	check_registry_called();
	sqlite3_close(db);
}

/* is_target() past its NULL: a session whose tree holds tasks 1 and 2 (test_is_target.c) */
static void test_tree_session(void)
{
	static struct session s;
	sqlite3 *db = NULL;

	s.tree.active = true;
	tree__add(&s.tree, 1);
	tree__fork(&s.tree, 2, 100);
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	T(sql_functions__register(db, &s) == SQLITE_OK, "sql_functions__register");
	call_all(db, "a session following a tree", false);
	sqlite3_close(db);
	tree__free(&s.tree);
}

/* perf_sql.so where `make` built it: $BUILD/perf_sql.so under SANITIZE, else the tree's */
static void test_extension(void)
{
	const char *build = getenv("BUILD");
	char path[4096];
	sqlite3 *db = NULL;
	char *msg = NULL;

	if (!build)
		build = "build";
	snprintf(path, sizeof(path), "%s/%s", build,
		 strstr(build, "/san") ? "perf_sql.so" : "../perf_sql.so");
	if (access(path, R_OK)) {
		printf("extension: %s not built: its functions are not called\n", path);
		return;
	}
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	sqlite3_enable_load_extension(db, 1);
	T(sqlite3_load_extension(db, path, NULL, &msg) == SQLITE_OK, "load %s: %s", path,
	  msg ? msg : "");
	sqlite3_free(msg);
	call_all(db, "perf_sql.so", false);
	sqlite3_close(db);
}

int main(void)
{
	make_vals();
	RUN(test_engine);
	RUN(test_no_session);
	RUN(test_tree_session);
	RUN(test_extension);
	printf("%ld calls\n", nr_calls);
	for (int i = 0; i < nr_vals; i++)
		free(blobs[i]);
	return t_done("func_extremes");
}
