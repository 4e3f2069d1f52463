/*
 * tests/unit/test_syscall_name.c - syscall_name() through SQL against the x86_64 numbers
 * (numbers refer to sqlite/syscall_name.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_names(void)
{
	Q("SELECT syscall_name(0)", "read");
	Q("SELECT syscall_name(1)", "write");
	Q("SELECT syscall_name(59)", "execve");
	Q("SELECT syscall_name(202)", "futex");
	Q("SELECT syscall_name(231)", "exit_group");
	Q("SELECT syscall_name(435)", "clone3");
	Q("SELECT syscall_name('257')", "openat");
	/* (2) */
	Q("SELECT syscall_name(NULL)", "NULL");
	Q("SELECT syscall_name(-1)", "NULL");
	Q("SELECT syscall_name(400)", "NULL"); /* the gap 335..423 */
	Q("SELECT syscall_name(100000)", "NULL");
	/* (3) */
	Q("SELECT syscall_name(1.5)", "ERROR: syscall_name: '1.5' is not an integer");
	Q("SELECT syscall_name('read')", "ERROR: syscall_name: 'read' is not an integer");
	T(syscall_name_of(60) && !strcmp(syscall_name_of(60), "exit"), "syscall_name_of(60)");
}

int main(void)
{
	open_db();
	RUN(test_names);
	sqlite3_close(db);
	return t_done("syscall_name");
}
