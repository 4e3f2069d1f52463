/*
 * tests/ext/host.c - a SQLite host program that loads perf_sql.so the way any host does, to
 * test what a host may do to it (built with the tree's sanitizers: `make asan` runs it under
 * ASan and UBSan, which python3 cannot easily be).
 *
 *   build/ext/host SO CAPTURE OTHER_CAPTURE [BAD_FILE...]
 *
 * Prints one line per check, "what: result"; tests/live/extension.sh compares them with what
 * perf-sql -r says of the same files. Exit: 0 when every call returned what SQLite promises
 * (the values are checked by the script), 1 otherwise.
 * (1) load twice into one connection (the C API, then SQL's load_extension() inside a
 *     statement): both succeed, one registration.
 * (2) two connections at once, one capture each, their statements stepped in turn.
 * (3) sqlite3_close_v2() with cursors open on a capture table, pairs() and perf_sql_events:
 *     the statements still finish, the connection is freed after the last one.
 * (4) each BAD_FILE refused with one line; the connection then opens CAPTURE all the same.
 * (5) a second perf_sql_open() on one connection: refused, the first capture still there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

static const char *so;
static int failures;

static void check(int ok, const char *what, const char *msg)
{
	if (!ok) {
		printf("FAIL %s: %s\n", what, msg ? msg : "");
		failures++;
	}
}

static sqlite3 *open_db(void)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		check(0, "open", sqlite3_errmsg(db));
	sqlite3_enable_load_extension(db, 1);
	if (sqlite3_load_extension(db, so, NULL, &msg) != SQLITE_OK)
		check(0, "load", msg);
	sqlite3_free(msg);
	return db;
}

/* the first column of the first row as text (malloc'd), or the error message */
static char *one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *out;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return strdup(sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		out = strdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0)
							: "NULL");
	else
		out = strdup(sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return out;
}

static void say(const char *what, sqlite3 *db, const char *sql)
{
	char *v = one(db, sql);

	printf("%s: %s\n", what, v);
	free(v);
}

static char *open_sql(const char *path)
{
	return sqlite3_mprintf("SELECT perf_sql_open(%Q)", path);
}

static void load_twice(void)
{
	sqlite3 *db = open_db();
	char *msg = NULL, *sql = sqlite3_mprintf("SELECT load_extension(%Q)", so);
	int rc = sqlite3_load_extension(db, so, NULL, &msg);

	check(rc == SQLITE_OK, "load twice (C API)", msg);
	sqlite3_free(msg);
	say("load twice (SQL)", db, sql);
	say("load twice: version", db, "SELECT perf_sql_version() LIKE 'perf_sql %'");
	sqlite3_free(sql);
	check(sqlite3_close(db) == SQLITE_OK, "close after load twice", sqlite3_errmsg(db));
}

static int step_count(sqlite3_stmt *st)
{
	int n = 0;

	while (sqlite3_step(st) == SQLITE_ROW)
		n++;
	return n;
}

static void two_connections(const char *cap, const char *other)
{
	sqlite3 *a = open_db(), *b = open_db();
	sqlite3_stmt *sa = NULL, *sb = NULL;
	char *oa = open_sql(cap), *ob = open_sql(other);
	int na = 0, nb = 0, ra = SQLITE_ROW, rb = SQLITE_ROW;

	say("two connections: A opens", a, oa);
	say("two connections: B opens", b, ob);
	sqlite3_prepare_v2(a, "SELECT * FROM perf_sql_events", -1, &sa, NULL);
	sqlite3_prepare_v2(b, "SELECT * FROM perf_sql_events", -1, &sb, NULL);
	while (ra == SQLITE_ROW || rb == SQLITE_ROW) { /* in turn */
		if (ra == SQLITE_ROW && (ra = sqlite3_step(sa)) == SQLITE_ROW)
			na++;
		if (rb == SQLITE_ROW && (rb = sqlite3_step(sb)) == SQLITE_ROW)
			nb++;
	}
	printf("two connections: perf_sql_events A %d rows, B %d rows\n", na, nb);
	sqlite3_finalize(sa);
	sqlite3_finalize(sb);
	say("two connections: A", a, "SELECT group_concat(name, ' ') FROM perf_sql_events");
	say("two connections: B", b, "SELECT group_concat(name, ' ') FROM perf_sql_events");
	check(sqlite3_close(a) == SQLITE_OK && sqlite3_close(b) == SQLITE_OK, "close A, B", NULL);
	sqlite3_free(oa);
	sqlite3_free(ob);
}

static void close_with_cursors(const char *cap)
{
	static const char *const sqls[] = {
		"SELECT _time FROM sys_enter_write",
		"SELECT latency FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid')",
		"SELECT name FROM perf_sql_events",
	};
	sqlite3 *db = open_db();
	sqlite3_stmt *st[3] = { NULL };
	char *o = open_sql(cap);
	int rc, n[3];

	say("close with cursors: opens", db, o);
	for (int i = 0; i < 3; i++) {
		sqlite3_prepare_v2(db, sqls[i], -1, &st[i], NULL);
		check(sqlite3_step(st[i]) == SQLITE_ROW, "first row", sqlite3_errmsg(db));
	}
	rc = sqlite3_close(db); /* the legacy close refuses: statements are open */
	printf("close with cursors: sqlite3_close %s\n", rc == SQLITE_BUSY ? "SQLITE_BUSY" : "?");
	rc = sqlite3_close_v2(db); /* a zombie until the last statement is finalized */
	printf("close with cursors: sqlite3_close_v2 %s\n", rc == SQLITE_OK ? "SQLITE_OK" : "?");
	for (int i = 0; i < 3; i++) {
		n[i] = 1 + step_count(st[i]);
		sqlite3_finalize(st[i]);
	}
	printf("close with cursors: rows %d, %d, %d\n", n[0], n[1], n[2]);
	sqlite3_free(o);
}

static void bad_files(char **paths, int nr, const char *cap)
{
	for (int i = 0; i < nr; i++) {
		sqlite3 *db = open_db();
		char *o = open_sql(paths[i]), *good = open_sql(cap);

		say("bad file", db, o);
		say("bad file, then the capture", db, good);
		sqlite3_close(db);
		sqlite3_free(o);
		sqlite3_free(good);
	}
}

static void open_twice(const char *cap, const char *other)
{
	sqlite3 *db = open_db();
	char *o = open_sql(cap), *o2 = open_sql(other);

	say("open twice: first", db, o);
	say("open twice: second", db, o2);
	say("open twice: still", db, "SELECT group_concat(name, ' ') FROM perf_sql_events");
	sqlite3_close(db);
	sqlite3_free(o);
	sqlite3_free(o2);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: host SO CAPTURE OTHER_CAPTURE [BAD_FILE...]\n");
		return 2;
	}
	so = argv[1];
	load_twice();
	two_connections(argv[2], argv[3]);
	close_with_cursors(argv[2]);
	bad_files(argv + 4, argc - 4, argv[2]);
	open_twice(argv[2], argv[3]);
	return failures ? 1 : 0;
}
