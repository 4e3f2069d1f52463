/*
 * task_state(PREV_STATE) - scalar: the letters Linux 6.x prints for sched:sched_switch's
 * prev_state.
 *
 *   SELECT task_state(prev_state) AS state, count(*) FROM sched_sched_switch GROUP BY 1;
 *   -- 0 'R', 1 'S', 2 'D', 4 'T', 8 't', 16 'X', 32 'Z', 64 'P', 128 'I', 256 'R+'
 *
 * (1) Bits 0..7 are the TASK_REPORT states S D T t X Z P I (TASK_REPORT_IDLE is I); none set
 *     is R. Several bits join with '|', as the kernel's __print_flags() does ("S|D").
 * (2) 256 (TASK_REPORT_MAX) marks a preempted task: '+' is appended, so 256 is "R+".
 * (3) NULL gives NULL; a value outside [0, 511] or not an integer is an error quoting it
 *     (kernels before 4.14 encode prev_state differently).
 */
#include <sqlite3.h>

#include "sqlite/functions.h"

#define TASK_REPORT_MAX 256

static const char task_letters[] = "SDTtXZPI";

void task_state_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 v;
	char buf[24];
	size_t n = 0;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	v = sqlite3_value_int64(argv[0]);
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER || v < 0 ||
	    v >= 2 * TASK_REPORT_MAX) {
		sql_result_value_error(ctx, "task_state: ", argv[0],
				       " is not a prev_state in [0, 511]");
		return;
	}
	for (int bit = 0; bit < 8; bit++) {
		if (!(v & (1 << bit)))
			continue;
		if (n)
			buf[n++] = '|';
		buf[n++] = task_letters[bit];
	}
	if (!n)
		buf[n++] = 'R';
	if (v & TASK_REPORT_MAX)
		buf[n++] = '+';
	sqlite3_result_text(ctx, buf, (int)n, SQLITE_TRANSIENT);
}
