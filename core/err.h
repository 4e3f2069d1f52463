/*
 * core/err.h - one error path: library code returns 0 or -errno and fills a struct err with
 * what failed and, where there is one, how to fix it. Only the front end prints it, once.
 */
#ifndef PERF_SQL_ERR_H
#define PERF_SQL_ERR_H
#include <stdbool.h>

struct err {
	int code;       /* 0 or -errno */
	char msg[512];  /* "sched:sched_switch: open on cpu 3: Permission denied" */
	char hint[256]; /* "run as root, or set kernel.perf_event_paranoid=-1" ("" if none) */
	bool usage; /* the caller's input is at fault (options, no statement, too many): exit 2 */
};

/* Formats msg, clears hint; returns code so callers can `return err_set(e, -EINVAL, ...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Marks the error already set as the caller's fault; returns e->code. */
int err_usage(struct err *e);
/* Sets the hint of the error already set; returns e->code. */
int err_hint(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
