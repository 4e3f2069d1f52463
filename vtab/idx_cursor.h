/*
 * vtab/idx_cursor.h - the shared parts of the small tables whose rows are an index 0..n-1
 * (perf_sql_events, perf_sql_stats, counters): their cursor and their vtab allocation.
 */
#ifndef PERF_SQL_IDX_CURSOR_H
#define PERF_SQL_IDX_CURSOR_H
#include <stddef.h>
#include <sqlite3.h>

struct idx_cursor {
	sqlite3_vtab_cursor base;
	int idx;
};

static inline int idx_of(sqlite3_vtab_cursor *c) { return ((struct idx_cursor *)c)->idx; }

/* Declares schema and returns a zeroed vtab of size bytes (NULL with *rc set on failure). */
void *vtab__new(sqlite3 *db, const char *schema, size_t size, int *rc);
int vtab__free(sqlite3_vtab *vt);
int idx_cursor__open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out);
int idx_cursor__close(sqlite3_vtab_cursor *c);
int idx_cursor__filter(sqlite3_vtab_cursor *c, int idx_num, const char *idx_str, int argc,
		       sqlite3_value **argv);
int idx_cursor__next(sqlite3_vtab_cursor *c);
int idx_cursor__rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid);
#endif
