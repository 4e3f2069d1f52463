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
 * (3) A NULL argument gives NULL; TID or TIME not an integer, or a negative TIME, is an error
 *     quoting it (a TIME of -1 would read as "any time"). A TID outside [1, 2^32) is no task: 0.
 */
#include "core/session.h"
#include "sqlite/functions.h"

void is_target_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct session *s = sqlite3_user_data(ctx);
	sqlite3_int64 tid = 0, time = 0;
	int has_tid, has_time = 1;

	if ((has_tid = sql_int_arg(ctx, argv[0], "is_target: TID ", &tid)) < 0 ||
	    (argc > 1 && (has_time = sql_int_arg(ctx, argv[1], "is_target: TIME ", &time)) < 0))
		return;
	if (argc > 1 && has_time && time < 0) {
		sql_result_errorf(ctx, "is_target: TIME %lld is before the clock's start",
				  (long long)time);
		return;
	}
	if (!s || !s->tree.active || s->replay || !has_tid || !has_time) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_int(ctx, tid > 0 && tid <= UINT32_MAX &&
					tree__has(&s->tree, (uint32_t)tid,
						  argc > 1 ? (uint64_t)time : UINT64_MAX));
}
