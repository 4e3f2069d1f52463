/*
 * core/record.h - record and replay: a session's windows to a capture file and back
 * (core/record.c writes, core/replay.c reads).
 */
#ifndef PERF_SQL_RECORD_H
#define PERF_SQL_RECORD_H
#include <stdio.h>
#include "core/capture.h"
#include "core/session.h"

int record__begin(struct session *s, struct capture_writer *w, const char *command);
int record__window(struct session *s, struct capture_writer *w);
int record__end(struct session *s, struct capture_writer *w);

/* A session whose tables and rows come from a capture: no tracefs, no perf events. */
struct session *session__new_replay(const struct session_opts *opts, const char *path,
				    struct err *e);
/*
 * A session with no capture yet and no tables (the loadable extension's, ext/): rows come from
 * session__load_replay(), once. NULL with e set on error.
 */
struct session *session__new_offline(const struct session_opts *opts, struct err *e);
/* A session over the tracepoint formats in dir (DIR/SYSTEM/EVENT/format, as tracefs's events/)
 * and nr_cpu_ids CPUs of another kernel: it plans, nothing else (core/formats.c). */
struct session *session__new_formats(const struct session_opts *opts, const char *dir,
				     int nr_cpu_ids, struct err *e);
/* Gives s (from session__new_offline(), nothing loaded) this machine's catalog, which a capture
 * loaded later replaces. 0, or -errno with e set (tracefs not readable): s is unchanged. */
int session__machine_catalog(struct session *s, struct err *e);
/* Reads the capture at path into s (from session__new_offline(), no source yet): all or
 * nothing, s is unchanged on error. 0 or -errno with e set (-EBUSY: s holds one already). */
int session__load_replay(struct session *s, const char *path, struct err *e);
/* The kernel facts a capture recorded (CAP_FACTS: bpf/facts.h's text), or NULL. */
const char *replay__facts(const struct session *s);
/* What the first pass does with one block of a capture: META (the CPUs), TABLE (a catalog
 * entry, its format checked), COMMS, FACTS; others are left. For s from session__new_offline();
 * call catalog__resort() after. 0 or -errno with e set. Takes (buf, len): fuzzed. */
int replay__block(struct session *s, uint32_t type, const void *data, size_t len, struct err *e);
/* A capture cut short: one line saying so and where its whole blocks end (the front ends
 * print it as a warning); NULL for a whole capture, or a session of no capture. */
const char *replay__note(const struct session *s);
/* Prints what a capture holds (perf-sql info FILE); 0 or -errno with e set. */
int replay__info(const char *path, FILE *out, struct err *e);
#endif
