/*
 * engine/lockdown.c - the locked-down SQL connection (see engine/lockdown.h, docs/security.md).
 *
 * perf-sql runs as root; the SQL it runs may come from a saved profiler or a shared shell
 * history. Whatever it says, it may only read events, compute, and keep scratch state in temp
 * tables of its own session.
 *
 * (1) load_extension() is off (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION 0, for the C API and
 *     the SQL function both), and the authorizer refuses the function as well.
 * (2) SQLITE_DBCONFIG_DEFENSIVE is on: no writable_schema, no writes to sqlite_dbpage or shadow
 *     tables; SQLITE_DBCONFIG_TRUSTED_SCHEMA off, fts3_tokenizer() off.
 * (3) The authorizer allows reads, functions, recursion, transactions and savepoints; it
 *     allows CREATE/DROP TEMP TABLE/VIEW/INDEX/TRIGGER and INSERT/UPDATE/DELETE/ALTER/REINDEX on
 *     objects of the "temp" schema. Everything else that writes is refused with
 *     "not authorized: WHAT; ..." saying what is allowed: main-schema objects, virtual tables,
 *     ANALYZE, REINDEX, pragmas other than a short read-only list (the table_info family with
 *     a name, listing pragmas without a value), and ATTACH unless --allow-attach. With
 *     --allow-attach, attached databases may be read and written too (that is their use: keep
 *     results in a file); the main schema stays read-only.
 * (4) VACUUM (and VACUUM INTO 'file', which writes a file) needs an attach slot:
 *     SQLITE_LIMIT_ATTACHED is 0 unless --allow-attach, so it fails to prepare... and the
 *     nested ATTACH it runs is refused by the authorizer as well.
 * (5) SQLITE_LIMIT_* are lowered to what an event query needs (table `limits` below): a
 *     string or blob of 64 MiB, 1 MiB of SQL, 500 columns, expressions 200 deep, ...
 * (6) A progress handler checks the clock every PROGRESS_OPS virtual machine instructions:
 *     past the deadline set by lockdown__arm() the statement stops with SQLITE_INTERRUPT,
 *     lockdown__expired() turns true, and lockdown__error() gives the message to print. The
 *     caller reports it and goes on with the next window, which re-arms.
 * (6b) The same handler, installed whatever --query-timeout is, ends the statement when a
 *     signal came since lockdown__arm() (session_stop moved from the value armed): a stop
 *     ends a running statement within PROGRESS_OPS instructions, lockdown__stopped() turns
 *     true, and the caller ends the run. A signal before the arm (one that ended collection)
 *     does not stop the window's statements: they answer over what was collected.
 * (6c) Memory: TEMP tables, indexes and the sorter's runs stay in memory (temp_store MEMORY,
 *     set before the authorizer, which refuses the pragma to the SQL), so nothing is written
 *     to disk; with opts.heap_limit (the front end's --max-memory) all of SQLite's memory is
 *     under sqlite3_hard_heap_limit64: what the connection holds when locked down (modules,
 *     functions) plus --max-memory (at least LOCKDOWN_HEAP_MIN, so a small window budget
 *     still leaves room to prepare). A statement past it fails with SQLITE_NOMEM, which
 *     lockdown__error() turns into a line naming --max-memory. The limit is process-wide:
 *     the extension (ext/) sets none, its host's SQLite is not ours to bound.
 * (7) SQLite's refusal is the bare "not authorized"; the authorizer remembers what it refused
 *     and why, and lockdown__error() turns the bare message into "not authorized: CREATE
 *     TABLE main.t; the SQL may write only its own TEMP objects ...".
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core/session.h"
#include "engine/lockdown.h"

#define PROGRESS_OPS 1000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	int id;
	int value;
} limits[] = {
	{ SQLITE_LIMIT_LENGTH, 64 << 20 },      { SQLITE_LIMIT_SQL_LENGTH, 1 << 20 },
	{ SQLITE_LIMIT_COLUMN, 500 },           { SQLITE_LIMIT_EXPR_DEPTH, 200 },
	{ SQLITE_LIMIT_COMPOUND_SELECT, 100 },  { SQLITE_LIMIT_VDBE_OP, 250000 },
	{ SQLITE_LIMIT_FUNCTION_ARG, 64 },      { SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000 },
	{ SQLITE_LIMIT_VARIABLE_NUMBER, 1000 }, { SQLITE_LIMIT_TRIGGER_DEPTH, 10 },
	{ SQLITE_LIMIT_WORKER_THREADS, 0 },
};

/* pragmas that only read; with a value only where the value names a table or index */
static const struct {
	const char *name;
	bool takes_name;
} read_pragmas[] = {
	{ "table_info", true },       { "table_xinfo", true },     { "index_list", true },
	{ "index_info", true },       { "index_xinfo", true },     { "foreign_key_list", true },
	{ "table_list", true },       { "function_list", false },  { "module_list", false },
	{ "pragma_list", false },     { "collation_list", false }, { "database_list", false },
	{ "compile_options", false }, { "data_version", false },   { "schema_version", false },
	{ "user_version", false },    { "encoding", false },       { "page_size", false },
	{ "page_count", false },      { "freelist_count", false },
};

static const char *const refused_functions[] = { "load_extension", "fts3_tokenizer" };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long timeout_ms(const struct lockdown *l)
{
	return l->opts.timeout_ms ? l->opts.timeout_ms : LOCKDOWN_TIMEOUT_MS;
}

/* what the statements may allocate: --max-memory, at least LOCKDOWN_HEAP_MIN (6c) */
static int64_t heap_for_sql(const struct lockdown *l)
{
	return l->opts.heap_limit > LOCKDOWN_HEAP_MIN ? l->opts.heap_limit : LOCKDOWN_HEAP_MIN;
}

static int on_progress(void *ctx)
{
	struct lockdown *l = ctx;

	if (session_stop != l->stop_seen) { /* (6b) */
		l->stopped = true;
		return 1;
	}
	if (!l->deadline_ns || mono_ns() < l->deadline_ns)
		return 0;
	l->expired = true;
	return 1;
}

static bool pragma_ok(const char *name, const char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(read_pragmas); i++)
		if (!sqlite3_stricmp(name, read_pragmas[i].name))
			return !value || read_pragmas[i].takes_name;
	return false;
}

/* a write to an object of schema db: the session's temp objects, or an attached file */
static bool write_ok(const struct lockdown *l, const char *db)
{
	if (!db)
		return false;
	if (!sqlite3_stricmp(db, "temp"))
		return true;
	return l->opts.allow_attach && sqlite3_stricmp(db, "main");
}

static const char *const action_names[] = {
	[SQLITE_CREATE_INDEX] = "CREATE INDEX",
	[SQLITE_CREATE_TABLE] = "CREATE TABLE",
	[SQLITE_CREATE_TRIGGER] = "CREATE TRIGGER",
	[SQLITE_CREATE_VIEW] = "CREATE VIEW",
	[SQLITE_DELETE] = "DELETE FROM",
	[SQLITE_DROP_INDEX] = "DROP INDEX",
	[SQLITE_DROP_TABLE] = "DROP TABLE",
	[SQLITE_DROP_TRIGGER] = "DROP TRIGGER",
	[SQLITE_DROP_VIEW] = "DROP VIEW",
	[SQLITE_INSERT] = "INSERT INTO",
	[SQLITE_PRAGMA] = "PRAGMA",
	[SQLITE_UPDATE] = "UPDATE",
	[SQLITE_ATTACH] = "ATTACH",
	[SQLITE_ALTER_TABLE] = "ALTER TABLE",
	[SQLITE_REINDEX] = "REINDEX",
	[SQLITE_ANALYZE] = "ANALYZE",
	[SQLITE_CREATE_VTABLE] = "CREATE VIRTUAL TABLE",
	[SQLITE_DROP_VTABLE] = "DROP VIRTUAL TABLE",
	[SQLITE_FUNCTION] = "function",
};

/* remembers why, for lockdown__error(); returns SQLITE_DENY */
static int deny(struct lockdown *l, int action, const char *a1, const char *a2, const char *db)
{
	const char *what = "this statement";

	if (action >= 0 && action < (int)ARRAY_SIZE(action_names) && action_names[action])
		what = action_names[action];

	switch (action) {
	case SQLITE_ATTACH:
		snprintf(l->why, sizeof(l->why),
			 "ATTACH '%s'; database files are attached "
			 "only with --allow-attach (docs/security.md)",
			 a1 ? a1 : "");
		break;
	case SQLITE_PRAGMA:
		snprintf(l->why, sizeof(l->why),
			 "PRAGMA %s%s%s; only pragmas that read may "
			 "run (table_info, table_xinfo, function_list, ...; docs/security.md)",
			 a1 ? a1 : "", a2 ? " = " : "", a2 ? a2 : "");
		break;
	case SQLITE_FUNCTION:
		snprintf(l->why, sizeof(l->why),
			 "%s(); extensions cannot be loaded "
			 "(docs/security.md)",
			 a2 ? a2 : "");
		break;
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
	case SQLITE_CREATE_TABLE:
	case SQLITE_CREATE_VIEW:
	case SQLITE_CREATE_INDEX:
	case SQLITE_CREATE_TRIGGER:
	case SQLITE_DROP_TABLE:
	case SQLITE_DROP_VIEW:
	case SQLITE_DROP_INDEX:
	case SQLITE_DROP_TRIGGER:
	case SQLITE_REINDEX:
	case SQLITE_ALTER_TABLE:
		snprintf(l->why, sizeof(l->why),
			 "%s %s.%s; the SQL may write only its own TEMP "
			 "objects (CREATE TEMP TABLE IF NOT EXISTS ..., docs/security.md)",
			 what,
			 action == SQLITE_ALTER_TABLE ? (a1 ? a1 : "main") : (db ? db : "main"),
			 action == SQLITE_ALTER_TABLE ? (a2 ? a2 : "") : (a1 ? a1 : ""));
		break;
	default:
		snprintf(l->why, sizeof(l->why),
			 "%s%s%s; the SQL may only read events and "
			 "write its own TEMP objects (docs/security.md)",
			 what, a1 ? " " : "", a1 ? a1 : "");
	}
	return SQLITE_DENY;
}

static int authorize(void *ctx, int action, const char *a1, const char *a2, const char *db,
		     const char *trigger)
{
	struct lockdown *l = ctx;

	switch (action) {
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		/* The schema table: SQLite's own nested UPDATE when an eponymous virtual table
		 * (pragma_table_xinfo, every event table) is first used, and the INSERT/DELETE a
		 * CREATE/DROP does before its own check (CREATE TABLE, ... below), which is the
		 * one that refuses, with a better message. A user's write to it is refused by
		 * SQLite itself (no writable_schema: see (2)). */
		if (a1 && !trigger &&
		    (!sqlite3_stricmp(a1, "sqlite_master") ||
		     !sqlite3_stricmp(a1, "sqlite_schema")))
			return SQLITE_OK;
		return write_ok(l, db) ? SQLITE_OK : deny(l, action, a1, a2, db);
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
	case SQLITE_DETACH: return SQLITE_OK;
	case SQLITE_FUNCTION:
		for (size_t i = 0; i < ARRAY_SIZE(refused_functions); i++)
			if (a2 && !sqlite3_stricmp(a2, refused_functions[i]))
				return deny(l, action, a1, a2, db);
		return SQLITE_OK;
	case SQLITE_PRAGMA: return pragma_ok(a1, a2) ? SQLITE_OK : deny(l, action, a1, a2, db);
	case SQLITE_ATTACH: return l->opts.allow_attach ? SQLITE_OK : deny(l, action, a1, a2, db);
	case SQLITE_CREATE_TEMP_TABLE:
	case SQLITE_CREATE_TEMP_VIEW:
	case SQLITE_CREATE_TEMP_INDEX:
	case SQLITE_CREATE_TEMP_TRIGGER:
	case SQLITE_DROP_TEMP_TABLE:
	case SQLITE_DROP_TEMP_VIEW:
	case SQLITE_DROP_TEMP_INDEX:
	case SQLITE_DROP_TEMP_TRIGGER: return SQLITE_OK;
	case SQLITE_CREATE_TABLE:
	case SQLITE_CREATE_VIEW:
	case SQLITE_CREATE_INDEX:
	case SQLITE_CREATE_TRIGGER:
	case SQLITE_DROP_TABLE:
	case SQLITE_DROP_VIEW:
	case SQLITE_DROP_INDEX:
	case SQLITE_DROP_TRIGGER:
	case SQLITE_REINDEX: return write_ok(l, db) ? SQLITE_OK : deny(l, action, a1, a2, db);
	case SQLITE_ALTER_TABLE: return write_ok(l, a1) ? SQLITE_OK : deny(l, action, a1, a2, db);
	default: /* virtual tables, ANALYZE, and codes newer than this file */
		return deny(l, action, a1, a2, db);
	}
}

static int fail(sqlite3 *db, int rc, const char *what, char **err_out)
{
	if (err_out)
		*err_out = sqlite3_mprintf("sqlite: cannot lock the connection down (%s): %s", what,
					   rc ? sqlite3_errstr(rc) : "setting not taken");
	return rc ? rc : SQLITE_ERROR;
}

int lockdown__apply(sqlite3 *db, struct lockdown *l, char **err_out)
{
	static const struct {
		int op, on;
		const char *what;
	} configs[] = {
		{ SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "load_extension off" },
		{ SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode" },
		{ SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "untrusted schema" },
		{ SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "fts3_tokenizer off" },
	};
	int rc;

	if (err_out)
		*err_out = NULL;
	l->deadline_ns = 0;
	l->expired = false;
	l->stopped = false;
	l->stop_seen = session_stop;
	l->why[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
		int now = -1;

		rc = sqlite3_db_config(db, configs[i].op, configs[i].on, &now);
		if (rc != SQLITE_OK || now != configs[i].on)
			return fail(db, rc, configs[i].what, err_out);
	}
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		sqlite3_limit(db, limits[i].id, limits[i].value);
	rc = sqlite3_exec(db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL); /* (6c) */
	if (rc != SQLITE_OK)
		return fail(db, rc, "temp_store memory", err_out);
	if (l->opts.heap_limit > 0) /* on top of what the connection holds already (6c) */
		sqlite3_hard_heap_limit64(sqlite3_memory_used() + heap_for_sql(l));
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, l->opts.allow_attach ? 4 : 0);
	rc = sqlite3_set_authorizer(db, authorize, l);
	if (rc != SQLITE_OK)
		return fail(db, rc, "authorizer", err_out);
	sqlite3_progress_handler(db, PROGRESS_OPS, on_progress, l); /* (6), (6b) */
	return SQLITE_OK;
}

void lockdown__arm(struct lockdown *l)
{
	long ms = timeout_ms(l);

	l->expired = false;
	l->stopped = false;
	l->stop_seen = session_stop;
	l->deadline_ns = ms > 0 ? mono_ns() + (uint64_t)ms * 1000000ull : 0;
}

bool lockdown__expired(const struct lockdown *l) { return l->expired; }

bool lockdown__stopped(const struct lockdown *l) { return l->stopped; }

const char *lockdown__error(struct lockdown *l, const char *sqlite_msg)
{
	long ms = timeout_ms(l);
	char d[32];

	if (l->stopped) {
		snprintf(l->msg, sizeof(l->msg),
			 "statement interrupted by a signal (SIGINT, SIGTERM or SIGHUP) before it "
			 "finished: its result is not whole, and the run ends");
		return l->msg;
	}
	if (l->expired) {
		if (ms % 1000)
			snprintf(d, sizeof(d), "%ldms", ms);
		else
			snprintf(d, sizeof(d), "%lds", ms / 1000);
		snprintf(l->msg, sizeof(l->msg),
			 "query took longer than --query-timeout %s; "
			 "stopped for this window (it runs again the next one); raise "
			 "--query-timeout or bound the query (a recursive CTE needs a LIMIT or a "
			 "WHERE that ends it)",
			 d);
		return l->msg;
	}
	if (sqlite_msg && !strcmp(sqlite_msg, "out of memory") && l->opts.heap_limit > 0) {
		snprintf(l->msg, sizeof(l->msg),
			 "out of memory: the statement needed more than --max-memory (%lld MiB) of "
			 "SQLite's memory (sorts, GROUP BY, DISTINCT, temp tables, long strings); "
			 "raise --max-memory, or keep less (a LIMIT, fewer or shorter columns)",
			 (long long)(heap_for_sql(l) >> 20));
		return l->msg;
	}
	if (sqlite_msg && !strncmp(sqlite_msg, "not authorized", 14) && l->why[0]) {
		snprintf(l->msg, sizeof(l->msg), "not authorized: %s", l->why);
		return l->msg;
	}
	return sqlite_msg;
}
