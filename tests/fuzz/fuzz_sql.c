/*
 * tests/fuzz/fuzz_sql.c - SQL on the locked-down connection (engine/lockdown.c) with every
 * perf-sql function and aggregate (sqlite/functions.c, no session: workload_pid() is NULL,
 * no symbols) and the hist_rows/heatmap_rows table functions; no perf events are opened.
 * The input is the SQL text (several statements run in turn, each for at most 5,000 rows).
 * (1) No crash, leak-free or not, whatever the SQL; the lockdown's limits hold.
 * (2) Nothing is written outside temp objects: after the run the main schema is still empty.
 * (3) The time budget (200 ms here) stops runaway statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include "engine/lockdown.h"
#include "sqlite/functions.h"
#include "vtab/blob_rows.h"
#include "fuzz.h"

static int sql_main_objects(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = -1;

	/* the lockdown's authorizer is still on: sqlite_schema is readable */
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.sqlite_schema", -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct lockdown l = { .opts = { .timeout_ms = 200 } };
	char *sql = malloc(size + 1), *err = NULL;
	const char *tail;
	sqlite3 *db = NULL;

	memcpy(sql, data, size);
	sql[size] = '\0';
	FUZZ_ASSERT(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY,
				    NULL) == SQLITE_OK);
	FUZZ_ASSERT(sql_functions__register(db, NULL) == SQLITE_OK);
	FUZZ_ASSERT(blob_rows__register(db) == SQLITE_OK);
	FUZZ_ASSERT(lockdown__apply(db, &l, &err) == SQLITE_OK);
	lockdown__arm(&l);
	for (const char *s = sql; s && *s; s = tail) {
		sqlite3_stmt *st = NULL;
		int rows = 0;

		if (sqlite3_prepare_v2(db, s, -1, &st, &tail) != SQLITE_OK)
			break;
		while (st && rows++ < 5000 && sqlite3_step(st) == SQLITE_ROW)
			for (int i = 0; i < sqlite3_column_count(st); i++)
				(void)sqlite3_column_text(st, i);
		sqlite3_finalize(st);
	}
	lockdown__arm(&l);
	FUZZ_ASSERT(sql_main_objects(db) == 0);
	sqlite3_close(db);
	free(sql);
	return 0;
}
