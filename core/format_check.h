/*
 * core/format_check.h - a tracepoint format's text checked before libtraceevent reads it: a
 * capture's formats are anyone's text, and libtraceevent believes its numbers and crashes on
 * some shapes (core/format_check.c says which).
 */
#ifndef PERF_SQL_FORMAT_CHECK_H
#define PERF_SQL_FORMAT_CHECK_H
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"

/*
 * The format text of table event (len bytes, no NUL needed): ASCII, and every field's offset
 * and size numbers with offset + size <= FIELD_MAX_RECORD (core/field.h); strict (a capture's):
 * also the kernel's shape, line by line. 0, or -EINVAL with e naming the table, the field and
 * the value as written.
 */
int format__check(const char *event, const char *text, size_t len, bool strict, struct err *e);
/* n bytes of text as one printable line in buf: other bytes as \xNN; returns buf. */
const char *format__printable(const char *p, size_t n, char *buf, size_t len);
#endif
