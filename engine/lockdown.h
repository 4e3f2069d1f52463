/*
 * engine/lockdown.h - the locked-down SQL connection: what a query may do besides reading events
 * (docs/security.md), and the per-window time budget (--query-timeout).
 *
 *   struct lockdown lock = { .opts = { .timeout_ms = 0, .allow_attach = false } };
 *   lockdown__apply(db, &lock, &msg);       once, after the modules and functions are registered
 *   lockdown__arm(&lock);                   before each window's statements (and the dry run)
 *   say("%s", lockdown__error(&lock, sqlite3_errmsg(db)));   on any statement error
 *   lockdown__expired(&lock)               the error was the budget: go on with the next window
 *   lockdown__stopped(&lock)               the error was a signal (SIGINT/SIGTERM/SIGHUP): end
 */
#ifndef PERF_SQL_ENGINE_LOCKDOWN_H
#define PERF_SQL_ENGINE_LOCKDOWN_H
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#define LOCKDOWN_TIMEOUT_MS 10000                  /* --query-timeout default */
#define LOCKDOWN_HEAP_DEFAULT ((int64_t)256 << 20) /* --max-memory default */
#define LOCKDOWN_HEAP_MIN ((int64_t)16 << 20)      /* the least the statements get */

struct lockdown_opts {
	long timeout_ms;    /* per-window budget: 0 = LOCKDOWN_TIMEOUT_MS, < 0 = none */
	bool allow_attach;  /* --allow-attach: ATTACH files, read and write them */
	int64_t heap_limit; /* --max-memory: sqlite3_hard_heap_limit64 (process-wide!); 0 none */
};

struct lockdown {
	struct lockdown_opts opts;
	/* while running */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0 = disarmed */
	bool expired;         /* the progress handler stopped a statement since the last arm */
	bool stopped;         /* ... because a signal came (session_stop moved) */
	int stop_seen;        /* session_stop when armed: another value stops the statement */
	char why[256];        /* what the authorizer refused last, and why */
	char msg[400];
};

/*
 * Locks db down: load_extension off, defensive mode, the authorizer, lower SQLITE_LIMIT_*,
 * the progress handler (l must outlive db). 0, or an SQLite error code with *err_out set to a
 * sqlite3_malloc'd message (free with sqlite3_free; err_out may be NULL).
 */
int lockdown__apply(sqlite3 *db, struct lockdown *l, char **err_out);
/*
 * Starts the time budget of one window (or of the planning dry run); a signal from now on
 * (session_stop changing) stops the running statement. The planning dry run sets stop_seen
 * to 0 after it: any stop of the run so far ends it too.
 */
void lockdown__arm(struct lockdown *l);
/* Did the budget stop a statement since lockdown__arm()? */
bool lockdown__expired(const struct lockdown *l);
/* Did a signal stop a statement since lockdown__arm()? */
bool lockdown__stopped(const struct lockdown *l);
/*
 * The message to print for a statement's error: "statement interrupted by a signal ..." after a
 * stop, "query took longer than --query-timeout 10s;
 * ..." after the budget stopped it, "not authorized: WHAT; what is allowed" after a refusal,
 * else sqlite_msg itself. Points into l (or is sqlite_msg): print it before the next call.
 */
const char *lockdown__error(struct lockdown *l, const char *sqlite_msg);
#endif
