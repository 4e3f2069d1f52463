/*
 * tests/fuzz/funcs.h - what tests/fuzz/fuzz_funcs.c and tests/unit/test_func_extremes.c share:
 * the functions, aggregates and table-valued functions a connection has beyond a bare SQLite
 * connection, read from the connection itself, the statement that calls one, and the one rule
 * by which a call's outcome is judged.
 *
 * (1) funcs_list(): PRAGMA function_list and module_list, less the names a bare connection
 *     lists; a module counts as a function when it has hidden columns (its arguments). A
 *     function registered by any layer is in the list without a change to the tests.
 * (2) funcs_sql(): "SELECT f(?1, ...)" for one row; over rows, f(column2, ...) of a VALUES
 *     table of (group, arguments...) rows, GROUP BY the group; "SELECT * FROM m(?1, ...)"
 *     for a table.
 * (3) funcs_outcome_ok(): the statement ran to its end, or stopped with SQLITE_ERROR (or was
 *     interrupted, out of memory, too big) and an error that is one line of valid UTF-8
 *     naming the function.
 * (4) funcs_read_blob(): a BLOB result read as the output formats and hist_rows() and
 *     heatmap_rows() read it.
 */
#ifndef PERF_SQL_FUZZ_FUNCS_H
#define PERF_SQL_FUZZ_FUNCS_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "sqlite/heatmap.h"
#include "sqlite/hist.h"

struct funcs_callee {
	char name[128];
	int narg; /* -1: variadic; a table: its hidden columns */
	bool agg, table;
	long calls;
};

/* name is one of what a bare connection lists in pragma_KIND */
static bool funcs_in_bare(const char *kind, const char *name)
{
	static sqlite3 *bare;
	char *sql = sqlite3_mprintf("SELECT 1 FROM pragma_%s WHERE name = ?1", kind);
	sqlite3_stmt *st = NULL;
	bool found = false;

	if (!bare && sqlite3_open(":memory:", &bare) != SQLITE_OK)
		abort();
	if (sql && sqlite3_prepare_v2(bare, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return found;
}

static int funcs_hidden_columns(sqlite3 *db, const char *m)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_xinfo(?1) WHERE hidden", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, m, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* (1) into out[max]; the number found (more than max: max, and the rest left out) */
static int funcs_list(sqlite3 *db, struct funcs_callee *out, int max)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT name, narg, type FROM pragma_function_list", -1,
			       &st, NULL) != SQLITE_OK)
		return 0;
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (funcs_in_bare("function_list", name))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		out[n].narg = sqlite3_column_int(st, 1);
		out[n].agg = !strcmp((const char *)sqlite3_column_text(st, 2), "a");
		n++;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_module_list", -1, &st, NULL) !=
	    SQLITE_OK)
		return n;
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int hidden;

		if (funcs_in_bare("module_list", name) ||
		    (hidden = funcs_hidden_columns(db, name)) <= 0)
			continue; /* a table without arguments is no function */
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		out[n].narg = hidden;
		out[n].table = true;
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* (2) sqlite3_malloc'd; parameters ?1.. in row order, the group first in each row */
static char *funcs_sql(const struct funcs_callee *c, int narg, int rows)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	int p = 1;

	sqlite3_str_appendf(s, c->table ? "SELECT * FROM \"%w\"(" : "SELECT \"%w\"(", c->name);
	for (int a = 0; a < narg; a++)
		sqlite3_str_appendf(s, a ? ", %s%d" : "%s%d", rows > 1 ? "column" : "?",
				    rows > 1 ? a + 2 : a + 1);
	sqlite3_str_appendall(s, ")");
	if (rows > 1) {
		sqlite3_str_appendall(s, " FROM (VALUES ");
		for (int r = 0; r < rows; r++) {
			sqlite3_str_appendall(s, r ? ", (" : "(");
			for (int a = 0; a < narg + 1; a++)
				sqlite3_str_appendf(s, a ? ", ?%d" : "?%d", p++);
			sqlite3_str_appendall(s, ")");
		}
		sqlite3_str_appendall(s, ") GROUP BY column1");
	}
	return sqlite3_str_finish(s);
}

/* one line of valid UTF-8 (RFC 3629), no control byte */
static bool funcs_printable_line(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		int len = *s < 0x80                  ? 1
			  : *s >= 0xc2 && *s <= 0xdf ? 2
			  : *s >= 0xe0 && *s <= 0xef ? 3
			  : *s >= 0xf0 && *s <= 0xf4 ? 4
						     : 0;

		if (!len || (len == 1 && (*s < 0x20 || *s == 0x7f)))
			return false;
		for (int i = 1; i < len; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		if ((*s == 0xe0 && s[1] < 0xa0) || (*s == 0xed && s[1] > 0x9f) ||
		    (*s == 0xf0 && s[1] < 0x90) || (*s == 0xf4 && s[1] > 0x8f))
			return false;
		s += len;
	}
	return true;
}

/* (3) rc: what the statement's last step returned */
static bool funcs_outcome_ok(sqlite3 *db, int rc, const char *name)
{
	const char *msg = sqlite3_errmsg(db);

	if (rc == SQLITE_DONE)
		return true;
	if (rc == SQLITE_INTERRUPT || rc == SQLITE_NOMEM || rc == SQLITE_TOOBIG)
		return true;
	return rc == SQLITE_ERROR && strcasestr(msg, name) && funcs_printable_line(msg);
}

/* (4) */
static void funcs_read_blob(sqlite3 *db, const void *b, int len)
{
	static const char *const readers[] = { "SELECT * FROM hist_rows(?1)",
					       "SELECT * FROM heatmap_rows(?1)" };

	free(hist_to_text(b, len));
	free(hist_to_json(b, len));
	free(heatmap_to_text(b, len));
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(db, readers[i], -1, &st, NULL) != SQLITE_OK)
			continue; /* a connection without them */
		sqlite3_bind_blob(st, 1, b, len, SQLITE_TRANSIENT);
		while (sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < sqlite3_column_count(st); c++)
				(void)sqlite3_column_int64(st, c);
		sqlite3_finalize(st);
	}
}

/* steps st to its end, reading each row as the output formats do; the last step's code */
static int funcs_step_all(sqlite3 *db, sqlite3_stmt *st)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			if (sqlite3_column_type(st, c) == SQLITE_BLOB)
				funcs_read_blob(db, sqlite3_column_blob(st, c),
						sqlite3_column_bytes(st, c));
			else
				(void)sqlite3_column_text(st, c);
		}
	return rc;
}
#endif
