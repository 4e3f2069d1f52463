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

/* Formats msg (err_quote()d), clears hint; returns code so callers can `return err_set(e, -EINVAL, ...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * src into dst (len bytes, NUL-terminated, cut before a character that does not fit) with
 * every byte that is not part of a printable UTF-8 character as \xNN: control bytes (tab and
 * newline too: a message is one line), DEL, C1 controls, bytes of no valid sequence. err_set()
 * and err_hint() quote what they format; so does the front end's printer. Returns dst.
 */
const char *err_quote(char *dst, size_t len, const char *src);
/* Marks the error already set as the caller's fault; returns e->code. */
int err_usage(struct err *e);
/* Sets the hint of the error already set; returns e->code. */
int err_hint(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
