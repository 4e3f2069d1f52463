/*
 * tests/unit/test_task_state.c - task_state() through SQL against the Linux 6.x letters
 * (numbers refer to sqlite/task_state.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_states(void)
{
	/* (1) */
	Q("SELECT group_concat(task_state(column1), ' ') FROM (VALUES (0), (1), (2), (4), (8), "
	  "(16), (32), (64), (128))",
	  "R S D T t X Z P I");
	Q("SELECT task_state(3)", "S|D");
	Q("SELECT task_state(130)", "D|I");
	/* (2) preempted */
	Q("SELECT task_state(256)", "R+");
	Q("SELECT task_state(257)", "S+");
	Q("SELECT task_state(511)", "S|D|T|t|X|Z|P|I+");
	/* (3) */
	Q("SELECT task_state(NULL)", "NULL");
	Q("SELECT task_state(512)", "ERROR: task_state: '512' is not a prev_state in [0, 511]");
	Q("SELECT task_state(-1)", "ERROR: task_state: '-1' is not a prev_state in [0, 511]");
	Q("SELECT task_state('S')", "ERROR: task_state: 'S' is not a prev_state in [0, 511]");
}

int main(void)
{
	open_db();
	RUN(test_states);
	sqlite3_close(db);
	return t_done("task_state");
}
