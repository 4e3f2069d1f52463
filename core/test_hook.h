/*
 * core/test_hook.h - hooks for tests only: TEST_HOOK("NAME") is getenv("PERF_SQL_TEST_NAME") in
 * the test build (`make test` links build/perf-sql-test from objects made with
 * -DPERF_SQL_TEST_HOOKS) and NULL in the release build, which holds neither the variable's
 * name nor the code it enables (the Makefile's link checks `strings` of perf-sql and
 * perf_sql.so for PERF_SQL_TEST_).
 *
 *   const char *max = TEST_HOOK("TREE_MAX");    tests/live/bpf_tree.sh: a small map
 */
#ifndef PERF_SQL_TEST_HOOK_H
#define PERF_SQL_TEST_HOOK_H
#include <stdlib.h>

#ifdef PERF_SQL_TEST_HOOKS
#define TEST_HOOK(name) getenv("PERF_SQL_TEST_" name)
#else
#define TEST_HOOK(name) ((const char *)NULL)
#endif
#endif
