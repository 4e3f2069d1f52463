/*
 * core/field.c - field decoding (see core/field.h).
 *
 * (1) Integers are read in their declared size and sign-extended when the format says signed.
 * (2) __data_loc: a u32 whose low 16 bits are the offset from the record start and high 16 the
 *     length; __rel_loc counts the offset from the end of the field itself.
 * (3) Any offset or length past the stored raw size gives false (SQL NULL), never an over-read:
 *     every sum is taken in 64 bits from non-negative parts, so none wraps.
 * (4) A format's offsets and sizes are checked once, when it is loaded (field__check_format()
 *     on the text as written, field__check() on what libtraceevent made of it): each within
 *     FIELD_MAX_RECORD, a dynamic field's u32 whole, an integer of 1, 2, 4 or 8 bytes. A
 *     capture's format text is anyone's: its numbers are refused before they are believed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"

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

/* n bytes of capture text as one printable line: other bytes as \xNN (names and numbers of a
 * format come from a file, and go into an error line on someone's terminal) */
static const char *printable(const char *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

/* the name a "field:TYPE NAME[N]" declaration (n bytes) gives, into name: its last word, less
 * an array's [N] ("__data_loc char[] name" has brackets in its type) */
static void decl_name(const char *decl, size_t n, char *name, size_t len)
{
	const char *end = decl + n, *start;

	while (end > decl && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end > decl && end[-1] == ']')
		while (end > decl && *--end != '[')
			;
	start = end;
	while (start > decl && start[-1] != ' ' && start[-1] != '\t')
		start--;
	printable(start, (size_t)(end - start), name, len);
}

/* "KEY:VALUE;" in the n bytes of line: a pointer to VALUE and its length, or NULL */
static const char *key_value(const char *line, size_t n, const char *key, size_t *len_out)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i + klen <= n; i++) {
		const char *v = line + i + klen;
		size_t k = 0;

		if (memcmp(line + i, key, klen) || (i && line[i - 1] != '\t' && line[i - 1] != ' '))
			continue;
		while (v + k < line + n && v[k] != ';')
			k++;
		*len_out = k;
		return v;
	}
	return NULL;
}

/* a number of the format as written (n bytes): decimal or 0x hex digits, within [0, max] */
static bool number_ok(const char *text, size_t n, long long max, long long *out)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf) || text[0] < '0' || text[0] > '9')
		return false;
	memcpy(buf, text, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtoll(buf, &end, 0);
	return !errno && !*end && *out >= 0 && *out <= max;
}

static int check_line(const char *event, const char *line, size_t n, struct err *e)
{
	const char *decl = memchr(line, ':', n) + 1, *off, *size;
	const char *semi = memchr(decl, ';', n - (size_t)(decl - line));
	char name[128], ev[160], val[64], val2[64];
	size_t off_len = 0, size_len = 0;
	long long o = 0, sz = 0;

	decl_name(decl, semi ? (size_t)(semi - decl) : 0, name, sizeof(name));
	printable(event, strlen(event), ev, sizeof(ev));
	off = key_value(line, n, "offset:", &off_len);
	size = key_value(line, n, "size:", &size_len);
	if (!off || !size)
		return err_set(e, -EINVAL, "table %s: field %s: no offset or no size", ev, name);
	printable(off, off_len, val, sizeof(val));
	if (!number_ok(off, off_len, FIELD_MAX_RECORD - 1, &o))
		return err_set(e, -EINVAL,
			       "table %s: field %s: offset %s is out of range (0 to %d: a "
			       "tracepoint record is at most 64 KiB)",
			       ev, name, val, FIELD_MAX_RECORD - 1);
	printable(size, size_len, val2, sizeof(val2));
	if (!number_ok(size, size_len, FIELD_MAX_RECORD, &sz) || o + sz > FIELD_MAX_RECORD)
		return err_set(e, -EINVAL,
			       "table %s: field %s: size %s at offset %s is out of range (a field "
			       "ends within 64 KiB, a tracepoint record's most)",
			       ev, name, val2, val);
	return 0;
}

int field__check_format(const char *event, const char *text, size_t len, struct err *e)
{
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), lead = 0;
		int ret;

		while (lead < n && (p[lead] == ' ' || p[lead] == '\t'))
			lead++;
		if (lead + 6 <= n && !memcmp(p + lead, "field:", 6) &&
		    (ret = check_line(event, p, n, e)))
			return ret;
		p += n + 1;
	}
	return 0;
}

int field__check(const char *event, const struct tp_field *f, struct err *e)
{
	bool dynamic = f->kind == FIELD_DYN_STR || f->kind == FIELD_DYN_BLOB;

	char ev[160], name[128];

	printable(event, strlen(event), ev, sizeof(ev));
	printable(f->name, strlen(f->name), name, sizeof(name));
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
