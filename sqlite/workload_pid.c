/*
 * workload_pid() - scalar: the pid of the workload started with `-- CMD`, NULL without one.
 *
 *   perf-sql "SELECT count(*) FROM sys_enter_write WHERE _pid = workload_pid()" -- ./app
 *
 * (1) Known from planning on: the workload is forked (held before exec) before any window runs.
 */
#include "core/session.h"
#include "sqlite/functions.h"

void workload_pid_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct session *s = sqlite3_user_data(ctx);
	pid_t pid = s ? session__workload_pid(s) : 0;

	if (pid > 0)
		sqlite3_result_int64(ctx, pid);
	else
		sqlite3_result_null(ctx);
}
