/*
 * core/tracefs.h - finding (and, as root, mounting) tracefs, reading its small files, and the
 * one directory helper (mkdir -p) of perf-sql's own files.
 */
#ifndef PERF_SQL_TRACEFS_H
#define PERF_SQL_TRACEFS_H
#include <stddef.h>
#include "core/err.h"

/* Fills dir_out ("/sys/kernel/tracing"); mounts tracefs there when it is missing and we are root. */
int tracefs__find(char *dir_out, size_t len, struct err *e);
/* mkdir -p with mode 0700 for what it creates (perf-sql's own directories); 0 or -errno. */
int mkdir_p(const char *dir);
/* Reads a whole file into a malloc'd NUL-terminated buffer; 0 or -errno. */
int read_file(const char *path, char **buf_out, size_t *len_out);
#endif
