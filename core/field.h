/*
 * core/field.h - reading one format field of a stored tracepoint record: integers with their
 * sign, fixed arrays, and __data_loc/__rel_loc dynamic arrays, all bounds-checked against
 * the row's raw size (in 64 bits), and a format's offsets and sizes checked when it is loaded.
 */
#ifndef PERF_SQL_FIELD_H
#define PERF_SQL_FIELD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/catalog.h"
#include "core/err.h"
#include "core/window.h"

/* An integer field's value; false if the record has no such bytes (no raw data collected). */
bool field__int(const struct tp_field *f, const struct wrow *r, int64_t *out);
/* A string or array field: pointer into the record and length (strings end at their NUL). */
bool field__bytes(const struct tp_field *f, const struct wrow *r, const uint8_t **out,
		  size_t *len_out);
/* The most bytes a tracepoint record (perf's u16 record size) has: every field lies within. */
#define FIELD_MAX_RECORD 65536
/* A field as libtraceevent parsed it (the text was checked by core/format_check.h): it lies within
 * FIELD_MAX_RECORD, an integer has 1, 2, 4 or 8 bytes, a dynamic one >= 4. 0, or -EINVAL with e
 * naming the table (event), the field and the values. */
int field__check(const char *event, const struct tp_field *f, struct err *e);
/* The field named name in ev, or NULL. */
const struct tp_field *field__find(const struct tp_event *ev, const char *name);
#endif
