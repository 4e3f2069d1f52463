/*
 * tests/unit/test_lockdown.c - the locked-down connection (engine/lockdown.c): temp objects may
 * be written, nothing else; ATTACH only with allow_attach; no load_extension, no VACUUM INTO,
 * no writing pragmas; lowered limits; a runaway recursive CTE stops at the time budget and the
 * connection works again after lockdown__arm(); with no time budget, a signal (session_stop
 * moving) after the arm ends a runaway statement, one before the arm does not.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "core/session.h"
#include "engine/lockdown.h"
#include "t.h"

static sqlite3 *open_locked(struct lockdown *l)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	T(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ==
		  SQLITE_OK,
	  "open :memory:");
	T(lockdown__apply(db, l, &msg) == SQLITE_OK, "lockdown__apply: %s", msg ? msg : "");
	sqlite3_free(msg);
	lockdown__arm(l);
	return db;
}

/* runs sql; returns the SQLite code, the message in msg */
static int run(sqlite3 *db, const char *sql, char *msg, size_t len)
{
	char *e = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &e);

	snprintf(msg, len, "%s", e ? e : "");
	sqlite3_free(e);
	return rc;
}

#define OK(db, sql)                                                                                \
	do {                                                                                       \
		char m_[256];                                                                      \
		T(run(db, sql, m_, sizeof(m_)) == SQLITE_OK, "allowed: %s (%s)", sql, m_);         \
	} while (0)
#define NO(db, sql, want)                                                                          \
	do {                                                                                       \
		char m_[256];                                                                      \
		T(run(db, sql, m_, sizeof(m_)) != SQLITE_OK && strstr(m_, want),                   \
		  "refused: %s (got '%s', want '%s')", sql, m_, want);                             \
	} while (0)

static void test_temp_writes(void)
{
	struct lockdown l = { 0 };
	sqlite3 *db = open_locked(&l);

	OK(db, "create temp table t(a, b)");
	OK(db, "insert into t values (1, 2), (3, 4)");
	OK(db, "update t set b = b + 1 where a = 1");
	OK(db, "delete from t where a = 3");
	OK(db, "create index temp.ti on t(a)");
	OK(db, "create temp view v as select a from t");
	OK(db, "select * from v");
	OK(db, "alter table temp.t add column c");
	OK(db, "begin; insert into temp.t values (5, 6, 7); commit");
	OK(db, "drop view v");
	OK(db, "drop table t");
	OK(db, "with recursive r(x) as (select 1 union all select x + 1 from r where x < 10) "
	       "select sum(x) from r");
	sqlite3_close(db);
}

static void test_refused(void)
{
	struct lockdown l = { 0 };
	sqlite3 *db = open_locked(&l);

	NO(db, "create table m(a)", "not authorized");
	NO(db, "create table main.m(a)", "not authorized");
	NO(db, "create view mv as select 1", "not authorized");
	NO(db, "attach ':memory:' as x", "not authorized");
	NO(db, "attach '/tmp/perf-sql-lockdown-test.db' as x", "not authorized");
	T(access("/tmp/perf-sql-lockdown-test.db", F_OK) != 0, "attach created no file");
	NO(db, "select load_extension('/lib/x86_64-linux-gnu/libm.so.6')", "not authorized");
	NO(db, "pragma writable_schema = 1", "not authorized");
	NO(db, "pragma journal_mode = off", "not authorized");
	NO(db, "pragma temp_store_directory = '/tmp'", "not authorized");
	NO(db, "pragma user_version = 7", "not authorized");
	NO(db, "vacuum", "");
	NO(db, "vacuum into '/tmp/perf-sql-lockdown-vacuum.db'", "");
	T(access("/tmp/perf-sql-lockdown-vacuum.db", F_OK) != 0, "vacuum into wrote no file");
	NO(db, "analyze", "not authorized");
	NO(db, "create virtual table temp.s using series", "");
	OK(db, "create temp table t(a)");
	OK(db, "select * from pragma_table_xinfo('t')");
	OK(db, "pragma table_info(t)");
	OK(db, "pragma function_list");
	sqlite3_close(db);
}

static void test_messages(void)
{
	struct lockdown l = { 0 };
	sqlite3 *db = open_locked(&l);
	char m[256];

	T(run(db, "create table m(a)", m, sizeof(m)) == SQLITE_AUTH, "create table refused");
	T(!strcmp(lockdown__error(&l, m),
		  "not authorized: CREATE TABLE main.m; the SQL may "
		  "write only its own TEMP objects (CREATE TEMP TABLE IF NOT EXISTS ..., "
		  "docs/security.md)"),
	  "create table message: %s", lockdown__error(&l, m));
	run(db, "attach 'f.db' as f", m, sizeof(m));
	T(strstr(lockdown__error(&l, m), "ATTACH 'f.db'; database files are attached only "
					 "with --allow-attach") != NULL,
	  "attach message: %s", lockdown__error(&l, m));
	run(db, "pragma writable_schema = 1", m, sizeof(m));
	T(strstr(lockdown__error(&l, m), "PRAGMA writable_schema = 1; only pragmas that read"),
	  "pragma message: %s", lockdown__error(&l, m));
	run(db, "select load_extension('x')", m, sizeof(m));
	T(strstr(lockdown__error(&l, m), "load_extension(); extensions cannot be loaded") != NULL,
	  "load_extension message: %s", lockdown__error(&l, m));
	T(!strcmp(lockdown__error(&l, "no such table: x"), "no such table: x"),
	  "other messages pass through");
	sqlite3_close(db);
}

static void test_attach_allowed(void)
{
	struct lockdown l = { .opts = { .allow_attach = true } };
	sqlite3 *db = open_locked(&l);

	OK(db, "attach ':memory:' as x");
	OK(db, "create table x.k(a); insert into x.k values (1)");
	NO(db, "create table main.m(a)", "not authorized");
	OK(db, "detach x");
	sqlite3_close(db);
}

static void test_limits(void)
{
	struct lockdown l = { 0 };
	sqlite3 *db = open_locked(&l);
	char sql[8192], *p = sql;

	NO(db, "select length(zeroblob(100 * 1024 * 1024))", "too big");
	OK(db, "select length(zeroblob(1024 * 1024))");
	p += sprintf(p, "select ");
	for (int i = 0; i < 300; i++)
		p += sprintf(p, "1 + ");
	p += sprintf(p, "1");
	NO(db, sql, "depth");
	NO(db, "update sqlite_master set sql = 'x'", "may not be modified");
	NO(db, "update main.sqlite_schema set name = 'x'", "may not be modified");
	NO(db, "insert into sqlite_master values ('table', 'x', 'x', 0, 'create table x(a)')",
	   "may not be modified");
	NO(db, "delete from sqlite_master", "may not be modified");
	NO(db, "drop table main.m", "");
	T(sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1) == 0, "no attach slots");
	T(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1) == 64 << 20, "64 MiB strings");
	sqlite3_close(db);
}

static void test_timeout(void)
{
	struct lockdown l = { .opts = { .timeout_ms = 200 } };
	sqlite3 *db = open_locked(&l);
	char m[256];
	int rc;

	rc = run(db,
		 "with recursive r(x) as (select 1 union all select x + 1 from r) "
		 "select count(*) from r",
		 m, sizeof(m));
	T(rc == SQLITE_INTERRUPT, "runaway CTE interrupted (rc %d, %s)", rc, m);
	T(lockdown__expired(&l), "expired is set");
	T(strstr(lockdown__error(&l, m), "query took longer than --query-timeout 200ms;") != NULL,
	  "message: %s", lockdown__error(&l, m));
	lockdown__arm(&l);
	T(!lockdown__expired(&l), "arm clears expired");
	OK(db, "select count(*) from (with recursive r(x) as (select 1 union all select x + 1 "
	       "from r where x < 1000) select x from r)");
	l.opts.timeout_ms = 10000;
	l.expired = true;
	T(strstr(lockdown__error(&l, "interrupted"), "--query-timeout 10s;"), "10s message");
	sqlite3_close(db);
}

static void test_stop(void)
{
	struct lockdown l = { .opts = { .timeout_ms = -1 } }; /* --query-timeout 0 */
	sqlite3 *db = open_locked(&l);
	const char *endless = "with recursive r(x) as (select 1 union all select x + 1 from r) "
			      "select count(*) from r";
	char m[256];
	int rc;

	session__signal(SIGTERM); /* as if it came while the statement ran */
	rc = run(db, endless, m, sizeof(m));
	T(rc == SQLITE_INTERRUPT, "endless CTE stopped by the signal (rc %d, %s)", rc, m);
	T(lockdown__stopped(&l) && !lockdown__expired(&l), "stopped, not expired");
	T(strstr(lockdown__error(&l, m), "statement interrupted by a signal") != NULL,
	  "message: %s", lockdown__error(&l, m));
	lockdown__arm(&l); /* a window armed after the signal: its statements run */
	T(!lockdown__stopped(&l), "arm clears stopped");
	OK(db, "select count(*) from (with recursive r(x) as (select 1 union all select x + 1 "
	       "from r where x < 100000) select x from r)");
	session__signal(SIGINT); /* a second signal: any statement now stops */
	T(run(db, endless, m, sizeof(m)) == SQLITE_INTERRUPT && lockdown__stopped(&l),
	  "second signal stops the statement");
	session_stop = 0;
	sqlite3_close(db);
}

int main(void)
{
	RUN(test_temp_writes);
	RUN(test_refused);
	RUN(test_messages);
	RUN(test_attach_allowed);
	RUN(test_limits);
	RUN(test_timeout);
	RUN(test_stop);
	return t_done("lockdown");
}
