/*
 * core/field.h - reading one format field of a stored tracepoint record: integers with their
 * sign, fixed arrays, and __data_loc/__rel_loc dynamic arrays, all bounds-checked.
 */
#ifndef PERF_SQL_FIELD_H
#define PERF_SQL_FIELD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/catalog.h"
#include "core/window.h"

/* An integer field's value; false if the record has no such bytes (no raw data collected). */
bool field__int(const struct tp_field *f, const struct wrow *r, int64_t *out);
/* A string or array field: pointer into the record and length (strings end at their NUL). */
bool field__bytes(const struct tp_field *f, const struct wrow *r, const uint8_t **out,
		  size_t *len_out);
/* The field named name in ev, or NULL. */
const struct tp_field *field__find(const struct tp_event *ev, const char *name);
#endif
