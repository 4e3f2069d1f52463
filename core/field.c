/*
 * core/field.c - field decoding (see core/field.h).
 *
 * (1) Integers are read in their declared size and sign-extended when the format says signed.
 * (2) __data_loc: a u32 whose low 16 bits are the offset from the record start and high 16 the
 *     length; __rel_loc counts the offset from the end of the field itself.
 * (3) Any offset or length past the stored raw size gives false (SQL NULL), never an over-read.
 */
#include <string.h>
#include "core/field.h"

bool field__int(const struct tp_field *f, const struct wrow *r, int64_t *out)
{
	uint64_t u = 0;

	if (f->kind != FIELD_INT || (uint32_t)f->offset + (uint32_t)f->size > r->raw_size)
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
	uint32_t off = (uint32_t)f->offset, len = (uint32_t)f->size, loc;

	if (f->kind == FIELD_INT || off + len > r->raw_size)
		return false;
	if (f->kind == FIELD_DYN_STR || f->kind == FIELD_DYN_BLOB) {
		memcpy(&loc, raw + f->offset, 4);
		off = (loc & 0xffff) + (f->is_relative ? (uint32_t)(f->offset + f->size) : 0);
		len = loc >> 16;
		if (off + len > r->raw_size)
			return false;
	}
	if (f->kind == FIELD_STR || f->kind == FIELD_DYN_STR)
		len = (uint32_t)strnlen((const char *)raw + off, len);
	*out = raw + off;
	*len_out = len;
	return true;
}

const struct tp_field *field__find(const struct tp_event *ev, const char *name)
{
	for (int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}
