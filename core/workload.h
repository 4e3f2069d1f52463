/*
 * core/workload.h - the workload of `perf-sql "SQL" -- CMD ARGS`: forked and held before exec
 * until the events are open, then released; its exit ends collection.
 */
#ifndef PERF_SQL_WORKLOAD_H
#define PERF_SQL_WORKLOAD_H
#include <stdbool.h>
#include <sys/types.h>
#include "core/err.h"

struct workload {
	pid_t pid;         /* 0: none */
	int go_fd, err_fd; /* write end releases the child; read end reports an exec errno */
	bool exited;
	int status; /* waitpid status once exited */
	char *const *argv;
};

/* Forks the child, stopped before exec. */
int workload__prepare(struct workload *w, char *const *argv, struct err *e);
/* Releases the child; -errno (with e) if exec failed. */
int workload__start(struct workload *w, struct err *e);
/* Reaps the child if it exited; true once it has. */
bool workload__poll(struct workload *w);
/* Kills and reaps a child not yet done (error paths). */
void workload__kill(struct workload *w);
#endif
