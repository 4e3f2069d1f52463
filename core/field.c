/*
 * core/field.c - field decoding (see core/field.h).
 *
 * (1) Integers are read in their declared size and sign-extended when the format says signed.
 * (2) __data_loc: a u32 whose low 16 bits are the offset from the record start and high 16 the
 *     length; __rel_loc counts the offset from the end of the field itself.
 * (3) Any offset or length past the stored raw size gives false (SQL NULL), never an over-read:
 *     every sum is taken in 64 bits from non-negative parts, so none wraps.
 * (4) A format's offsets and sizes are checked once, when it is loaded (core/format_check.c on the
 *     text as written, field__check() on what libtraceevent made of it): each within
 *     FIELD_MAX_RECORD, a dynamic field's u32 whole, an integer of 1, 2, 4 or 8 bytes. A
 *     capture's format text is anyone's: its numbers are refused before they are believed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "core/format_check.h"

/* bytes [off, off + len) of r's raw record exist */
static bool in_record(const struct wrow *r, int64_t off, int64_t len)
{
	return off >= 0 && len >= 0 && (uint64_t)off + (uint64_t)len <= r->raw_size;
}

bool field__int(const struct tp_field *f, const struct wrow *r, int64_t *out)
{
	uint64_t u = 0;

	if (f->kind != FIELD_INT || f->size < 1 || f->size > 8 || !in_record(r, f->offset, f->size))
		return false;
	memcpy(&u, (const uint8_t *)wrow_raw(r) + f->offset, (size_t)f->size);
	if (f->is_signed && f->size < 8 && (u >> (f->size * 8 - 1)) & 1)
		u |= ~0ull << (f->size * 8);
	memcpy(out, &u, 8);
	return true;
}

bool field__bytes(const struct tp_field *f, const struct wrow *r, const uint8_t **out,
		  size_t *len_out)
{
	const uint8_t *raw = wrow_raw(r);
	int64_t off = f->offset, len = f->size;
	uint32_t loc;

	if (f->kind == FIELD_INT || !in_record(r, off, len))
		return false;
	if (f->kind == FIELD_DYN_STR || f->kind == FIELD_DYN_BLOB) {
		if (!in_record(r, f->offset, 4)) /* the u32 itself */
			return false;
		memcpy(&loc, raw + f->offset, 4);
		off = (int64_t)(loc & 0xffff) + (f->is_relative ? (int64_t)f->offset + f->size : 0);
		len = loc >> 16;
		if (!in_record(r, off, len))
			return false;
	}
	if (f->kind == FIELD_STR || f->kind == FIELD_DYN_STR)
		len = (int64_t)strnlen((const char *)raw + off, (size_t)len);
	*out = raw + off;
	*len_out = (size_t)len;
	return true;
}

const struct tp_field *field__find(const struct tp_event *ev, const char *name)
{
	for (int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

int field__check(const char *event, const struct tp_field *f, struct err *e)
{
	bool dynamic = f->kind == FIELD_DYN_STR || f->kind == FIELD_DYN_BLOB;

	char ev[160], name[128];

	format__printable(event, strlen(event), ev, sizeof(ev));
	format__printable(f->name, strlen(f->name), name, sizeof(name));
	if (f->offset < 0 || f->size < 0 || f->offset >= FIELD_MAX_RECORD ||
	    f->size > FIELD_MAX_RECORD - f->offset)
		return err_set(
			e, -EINVAL,
			"table %s: field %s: offset %d and size %d are out of range (a field "
			"lies within 64 KiB, a tracepoint record's most)",
			ev, name, f->offset, f->size);
	if ((dynamic && f->size < 4) ||
	    (f->kind == FIELD_INT && f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return err_set(e, -EINVAL, "table %s: field %s: %s of %d bytes", ev, name,
			       dynamic ? "a __data_loc or __rel_loc field" : "an integer", f->size);
	return 0;
}
