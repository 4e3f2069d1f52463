/*
 * tests/unit/test_is_target.c - is_target() through SQL (numbers refer to sqlite/is_target.c):
 * a fake session whose tree holds a target from the start, a task it forked at time 100 and a
 * workload root that execs at time 50; no event is opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "core/session.h"
#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static struct session s;

static void test_no_tree(void)
{
	/* (2) no session, or a session that picks no tasks by tree */
	Q("SELECT is_target(1)", "NULL");
	sqlite3_close(db);
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open :memory:");
	T(sql_functions__register(db, &s) == SQLITE_OK, "register functions with a session");
	Q("SELECT is_target(1, 5)", "NULL");
	Q("SELECT coalesce(is_target(1, 5), 1)", "1");
}

static void test_tree(void)
{
	s.tree.active = true;
	tree__add(&s.tree, 42);
	tree__fork(&s.tree, 43, 100);
	s.tree.root = 7;
	tree__exec(&s.tree, 7, 50);
	/* (1) */
	Q("SELECT is_target(42, 0) || is_target(42)", "11");
	Q("SELECT is_target(43, 99) || is_target(43, 100) || is_target(43)", "011");
	Q("SELECT is_target(7, 49) || is_target(7, 50)", "01");
	Q("SELECT is_target(44, 1000) || is_target(0) || is_target(-1)", "000");
	Q("SELECT is_target(NULL, 1)", "NULL");
	Q("SELECT is_target(42, NULL)", "NULL");
}

int main(void)
{
	open_db();
	RUN(test_no_tree);
	RUN(test_tree);
	sqlite3_close(db);
	tree__free(&s.tree);
	return t_done("is_target");
}
