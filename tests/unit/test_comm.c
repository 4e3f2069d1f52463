/*
 * tests/unit/test_comm.c - task names over time (numbers refer to core/comm.c).
 *
 * Tids here are above the kernel's pid_max (4194304), so no /proc lookup can find them: a name
 * comes from the records given, as it does for a task already gone when the query reads it.
 */
#include <stdio.h>
#include <string.h>

#include "core/comm.h"
#include "tests/unit/t.h"

enum { SH = 5000001, FORKER = 5000002, CHILD = 5000003, GRANDCHILD = 5000004, GONE = 5000005 };

static int is(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

struct seen {
	int n, child_named;
};

static void count(void *ctx, uint32_t tid, uint64_t since, const char *comm)
{
	struct seen *s = ctx;

	(void)since;
	s->n++;
	s->child_named += tid == CHILD && !strcmp(comm, "forker");
}

/* (3) records read in the order rings drain, not the order they happened */
static void test_fork_before_parent(void)
{
	struct comm_map *m = comm_map__new();
	struct seen seen = { 0 };

	/* the child's FORK record (t=300) is read before the parent's own FORK (t=100) and exec (t=200) */
	T(comm_map__fork(m, FORKER, CHILD, 300) == 0, "fork recorded");
	T(comm_map__fork(m, CHILD, GRANDCHILD, 400) == 0, "fork of a fork recorded");
	T(comm_map__set(m, SH, 0, "sh") == 0, "sh named");
	T(comm_map__fork(m, SH, FORKER, 100) == 0, "forker forked from sh");
	T(comm_map__set(m, FORKER, 200, "forker") == 0, "forker execs");
	T(is(comm_map__get(m, CHILD, 350), "forker"), "child is named as forker was at its fork");
	T(is(comm_map__get(m, GRANDCHILD, 450), "forker"), "a grandchild too");
	T(is(comm_map__get(m, FORKER, 150), "sh"), "forker before its exec is sh");
	T(is(comm_map__get(m, FORKER, 250), "forker"), "and forker after it");
	T(is(comm_map__get(m, GONE, 1), NULL), "an unknown task that is gone has no name");
	comm_map__for_each(m, count, &seen);
	T(seen.n == 5 && seen.child_named == 1, "saved resolved: %d entries, child named %d",
	  seen.n, seen.child_named);
	comm_map__free(m);
}

/* a child renamed after its fork keeps the new name; before it, the parent's */
static void test_rename_after_fork(void)
{
	struct comm_map *m = comm_map__new();

	comm_map__set(m, FORKER, 0, "forker");
	comm_map__set(m, CHILD, 500, "worker");
	comm_map__fork(m, FORKER, CHILD, 300);
	T(is(comm_map__get(m, CHILD, 400), "forker"), "child between fork and rename");
	T(is(comm_map__get(m, CHILD, 600), "worker"), "child after rename");
	comm_map__free(m);
}

/* a loop of links (reused tids) ends, with no name */
static void test_loop(void)
{
	struct comm_map *m = comm_map__new();

	comm_map__set_offline(m);
	comm_map__fork(m, CHILD, FORKER, 100);
	comm_map__fork(m, FORKER, CHILD, 100);
	T(is(comm_map__get(m, CHILD, 200), NULL), "a loop has no name");
	comm_map__free(m);
}

int main(void)
{
	RUN(test_fork_before_parent);
	RUN(test_rename_after_fork);
	RUN(test_loop);
	return t_done("comm");
}
