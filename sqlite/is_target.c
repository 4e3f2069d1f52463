/*
 * is_target() - scalar: whether a task is one the session follows: the workload's process tree
 * under `-- CMD`, the -p/-t/--cgroup targets and every task they create (core/tree.c).
 *
 *   perf-sql "SELECT key, count(*) FROM pairs('sched_switch', 'prev_pid', 'sched_switch',
 *             'next_pid') WHERE is_target(key, start_time) GROUP BY key" -- ./app
 *
 * (1) is_target(TID, TIME): 1 if TID was a member at TIME (perf clock ns, as _time: a task
 *     joins at its fork, the workload at its exec), else 0; is_target(TID): at any time.
 * (2) NULL when the session follows no tree: system-wide (no -- CMD, -p, -t or --cgroup), with
 *     -a, over a capture, or when no table that names tasks (sched_switch, sched_wakeup, ...)
 *     is read. Then the rows are not picked by task: coalesce(is_target(...), 1) keeps them all.
 */
#include "core/session.h"
#include "sqlite/functions.h"

void is_target_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct session *s = sqlite3_user_data(ctx);
	sqlite3_int64 tid = sqlite3_value_int64(argv[0]);
	uint64_t time = argc > 1 ? (uint64_t)sqlite3_value_int64(argv[1]) : UINT64_MAX;

	if (!s || !s->tree.active || s->replay) {
		sqlite3_result_null(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    (argc > 1 && sqlite3_value_type(argv[1]) == SQLITE_NULL)) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_int(ctx, tid > 0 && tid <= UINT32_MAX &&
					tree__has(&s->tree, (uint32_t)tid, time));
}
