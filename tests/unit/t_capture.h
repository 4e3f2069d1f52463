/*
 * tests/unit/t_capture.h - crafted captures: a table of every field type a tracepoint format
 * has (integers of 1, 2, 4 and 8 bytes, signed and not, char[], other arrays, a struct, and
 * __data_loc / __rel_loc strings and arrays), whose format text can carry any offset or size
 * a hostile file could, with rows in as many windows as asked. Used by test_capture_craft.c,
 * which also writes them for tests/live/capture_crafted.sh (--write DIR).
 *
 *   craft_write(path, craft_format(NULL, NULL, NULL), &(struct craft){ .windows = 3 }, &e);
 */
#ifndef PERF_SQL_T_CAPTURE_H
#define PERF_SQL_T_CAPTURE_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/capture.h"
#include "core/window.h"

#define CRAFT_TABLE "crafted:every_type"

/* the fields after the common ones: name, declaration, offset, size, signed */
static const struct craft_field {
	const char *name, *decl;
	int offset, size, is_signed;
} craft_fields[] = {
	{ "f_u8", "u8 f_u8", 8, 1, 0 },
	{ "f_s8", "s8 f_s8", 9, 1, 1 },
	{ "f_u16", "u16 f_u16", 10, 2, 0 },
	{ "f_s16", "s16 f_s16", 12, 2, 1 },
	{ "f_u32", "u32 f_u32", 16, 4, 0 },
	{ "f_s32", "s32 f_s32", 20, 4, 1 },
	{ "f_u64", "u64 f_u64", 24, 8, 0 },
	{ "f_s64", "s64 f_s64", 32, 8, 1 },
	{ "f_str", "char f_str[16]", 40, 16, 0 },
	{ "f_arr", "u32 f_arr[4]", 56, 16, 0 },
	{ "f_blob", "u8 f_blob[5]", 72, 5, 0 },
	{ "f_dstr", "__data_loc char[] f_dstr", 80, 4, 0 },
	{ "f_dblob", "__data_loc u8[] f_dblob", 84, 4, 0 },
	{ "f_rstr", "__rel_loc char[] f_rstr", 88, 4, 0 },
	{ "f_pair", "struct pair f_pair", 92, 12, 0 },
};
#define CRAFT_NR_FIELDS ((int)(sizeof(craft_fields) / sizeof(craft_fields[0])))
#define CRAFT_RAW 117 /* the fixed part (104 bytes), then "hello\0", 3 bytes, "rel\0" */

/*
 * The format text; the field named field (NULL: none) gets the offset and size texts given
 * (NULL: its own) instead of its own. Static buffer.
 */
static inline const char *craft_format(const char *field, const char *offset, const char *size)
{
	static char text[4096];
	int n = snprintf(
		text, sizeof(text),
		"name: every_type\nID: 4242\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");

	for (int i = 0; i < CRAFT_NR_FIELDS; i++) {
		const struct craft_field *f = &craft_fields[i];
		char o[32], s[32];
		bool it = field && !strcmp(field, f->name);

		snprintf(o, sizeof(o), "%d", f->offset);
		snprintf(s, sizeof(s), "%d", f->size);
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "\tfield:%s;\toffset:%s;\tsize:%s;\tsigned:%d;\n", f->decl,
			      it && offset ? offset : o, it && size ? size : s, f->is_signed);
	}
	snprintf(text + n, sizeof(text) - (size_t)n,
		 "\nprint fmt: \"u8=%%u str=%%s\", REC->f_u8, __get_str(f_dstr)\n");
	return text;
}

/* one row's raw record: every field a known value (time t, row k) */
static inline void craft_raw(uint8_t *raw, uint32_t k)
{
	uint16_t type = 4242, u16 = 0xfffe;
	int32_t pid = (int32_t)k, s32 = -2;
	uint32_t u32 = 0xfffffffd, arr[4] = { 1, 2, 3, 4 }, loc;
	uint64_t u64 = 0xfffffffffffffffcull;
	int64_t s64 = -5;

	memset(raw, 0, CRAFT_RAW);
	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
	raw[8] = 200;  /* f_u8 */
	raw[9] = 0xc8; /* f_s8: -56 */
	memcpy(raw + 10, &u16, 2);
	memcpy(raw + 12, &u16, 2); /* f_s16: -2 */
	memcpy(raw + 16, &u32, 4);
	memcpy(raw + 20, &s32, 4);
	memcpy(raw + 24, &u64, 8);
	memcpy(raw + 32, &s64, 8);
	memcpy(raw + 40, "crafted", 8);
	memcpy(raw + 56, arr, 16);
	memcpy(raw + 72, "\x01\x02\x03\x04\x05", 5);
	loc = 104u | 6u << 16; /* "hello\0" */
	memcpy(raw + 80, &loc, 4);
	loc = 110u | 3u << 16; /* 3 bytes */
	memcpy(raw + 84, &loc, 4);
	loc = (113u - 92u) | 4u << 16; /* "rel\0", from the end of the field (88 + 4) */
	memcpy(raw + 88, &loc, 4);
	memcpy(raw + 92, "\xaa\xbb\xcc\xdd\xee\xff\x11\x22\x33\x44\x55\x66", 12);
	memcpy(raw + 104, "hello\0\x07\x08\x09rel", 13); /* and the NUL: raw[116] is 0 */
}

struct craft {
	int windows;          /* WINDOW blocks (0: the rows and no WINDOW block) */
	int rows;             /* per window (0: 4) */
	const char *map_path; /* a MAPS block naming this file before the rows (NULL: none) */
	uint64_t *first_window_end_out; /* where the first WINDOW block ends in the file */
};

static inline int craft_block(struct capture_writer *w, enum capture_block type, const void *d,
			      size_t len)
{
	return capture__write(w, type, d, len);
}

static inline int craft_table(struct capture_writer *w, const char *format)
{
	size_t len = 8 + sizeof("crafted") + sizeof("every_type") + strlen(format);
	uint8_t *b = malloc(len);
	uint32_t hdr[2] = { 0, 0 }; /* table 0, a tracepoint */
	int ret;

	if (!b)
		return -1;
	memcpy(b, hdr, 8);
	memcpy(b + 8, "crafted", sizeof("crafted"));
	memcpy(b + 8 + sizeof("crafted"), "every_type", sizeof("every_type"));
	memcpy(b + 8 + sizeof("crafted") + sizeof("every_type"), format, strlen(format));
	ret = craft_block(w, CAP_TABLE, b, len);
	free(b);
	return ret;
}

static inline int craft_maps(struct capture_writer *w, const char *path)
{
	uint8_t b[32 + 4096];
	uint32_t pid = 4242, plen = (uint32_t)strlen(path);
	uint64_t start = 0x400000, end = 0x500000, pgoff = 0;

	memcpy(b, &pid, 4);
	memcpy(b + 4, &plen, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &end, 8);
	memcpy(b + 24, &pgoff, 8);
	memcpy(b + 32, path, plen);
	return craft_block(w, CAP_MAPS, b, 32 + plen);
}

/* one window's rows: time = its index * 1e6 + row, on CPU 0 */
static inline int craft_rows(struct capture_writer *w, int window, int rows)
{
	size_t row = sizeof(struct wrow) + ((CRAFT_RAW + 7) & ~7u), len = 8 + (size_t)rows * row;
	uint8_t *b = calloc(1, len);
	uint32_t hdr[2] = { 0, 0 };
	int ret;

	if (!b)
		return -1;
	memcpy(b, hdr, 8);
	for (int k = 0; k < rows; k++) {
		struct wrow *r = (struct wrow *)(b + 8 + (size_t)k * row);

		r->time = (uint64_t)window * 1000000 + (uint64_t)k + 1;
		r->pid = r->tid = 4242;
		r->raw_size = CRAFT_RAW;
		r->size = (uint32_t)row;
		craft_raw(r->data, (uint32_t)k);
	}
	ret = craft_block(w, CAP_RECORDS, b, len);
	free(b);
	return ret;
}

static inline int craft_window(struct capture_writer *w, int window, int rows)
{
	uint8_t b[12 + 24] = { 0 };
	uint64_t start = 1000000000ull * (uint64_t)(window + 1), recv = (uint64_t)rows;
	uint32_t nr = 1;

	memcpy(b, &start, 8);
	memcpy(b + 8, &nr, 4); /* table 0, stream 0: rows received, 0 lost */
	memcpy(b + 20, &recv, 8);
	return craft_block(w, CAP_WINDOW, b, sizeof(b));
}

/* a whole capture at path: META, the table, then per window [MAPS] RECORDS WINDOW, COMMS */
static inline int craft_write(const char *path, const char *format, const struct craft *c,
			      struct err *e)
{
	static const char meta[] = "host=craft\nkernel=0\nmachine=x86_64\ncpus=1\nstart_ns=1\n"
				   "clock_offset_ns=0\ncommand=crafted\ncpu_list=0\n";
	struct capture_writer *w = capture__create(path, e);
	int rows = c->rows ? c->rows : 4, ret;
	uint8_t comm[32] = { 0 };
	uint32_t tid = 4242;

	if (!w)
		return -1;
	ret = craft_block(w, CAP_META, meta, sizeof(meta) - 1) || craft_table(w, format);
	if (!ret && c->map_path)
		ret = craft_maps(w, c->map_path);
	for (int i = 0; !ret && i < (c->windows ? c->windows : 1); i++) {
		ret = craft_rows(w, i, rows) || (c->windows && craft_window(w, i, rows));
		if (i == 0 && c->first_window_end_out) {
			uint64_t raw;

			capture__sizes(w, &raw, c->first_window_end_out);
		}
	}
	memcpy(comm, &tid, 4);
	memcpy(comm + 16, "crafted", 8);
	if (!ret)
		ret = craft_block(w, CAP_COMMS, comm, sizeof(comm));
	return capture__close(w, e) || ret ? -1 : 0;
}
#endif
