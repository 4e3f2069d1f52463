/*
 * tests/fuzz/fuzz_capture_text.c - what a capture's text makes of its rows: the META text and
 * TABLE blocks as the first pass of a replay reads them (replay__block(): the CPU list, the
 * names, the tracepoint format checked by core/field.c then parsed by libtraceevent), then
 * every field of every table decoded (field__int, field__bytes) on rows the input makes, each
 * allocated to its exact raw size so a byte read too far is ASan's to see. fuzz_capture.c
 * drives the block reader beneath; this is the text and the fields above it.
 *
 * Input: META text NUL, then up to 3 tables, each: u8 index, u8 kind, system NUL, name NUL,
 * format text NUL; then a CGROUPS block: u16 size, that many bytes; then rows, each: u16 raw
 * size (% 1024), that many bytes.
 * (1) Loading either succeeds or fails with a message; it never crashes or reads past a block.
 * (2) Every field accepted lies within 64 KiB; an integer is of 1, 2, 4 or 8 bytes.
 * (3) Decoding gives bytes inside the row's raw record or nothing (false), for any row.
 * (4) A CGROUPS block's entries are read within it; every path taken is printable text.
 */
#include <stdio.h>
#include <stdlib.h>
#include "core/capture.h"
#include "core/cgroup.h"
#include "core/field.h"
#include "core/record.h"
#include "fuzz.h"

/* libtraceevent's parser leaks a token on some errors (1.7.1): its leaks are not ours to find */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libtraceevent.so\n"; }

static void ct_table(struct session *s, struct fz *f)
{
	char sys[64], name[64], fmt[8192];
	uint8_t block[8 + sizeof(sys) + sizeof(name) + sizeof(fmt)];
	uint32_t hdr[2] = { fz_u8(f), fz_u8(f) % 8 };
	struct err e = { 0 };
	size_t len = 8;

	fz_str(f, sys, sizeof(sys));
	fz_str(f, name, sizeof(name));
	fz_str(f, fmt, sizeof(fmt));
	memcpy(block, hdr, 8);
	memcpy(block + len, sys, strlen(sys) + 1);
	len += strlen(sys) + 1;
	memcpy(block + len, name, strlen(name) + 1);
	len += strlen(name) + 1;
	memcpy(block + len, fmt, strlen(fmt)); /* as record__begin writes it: no NUL */
	len += strlen(fmt);
	if (replay__block(s, CAP_TABLE, block, len, &e))
		FUZZ_ASSERT(e.code < 0 && e.msg[0]);
}

static void ct_decode(const struct tp_event *ev, const struct wrow *r)
{
	const uint8_t *raw = wrow_raw(r), *p;
	size_t len;
	int64_t v;

	for (int i = 0; i < ev->nr_fields; i++) {
		const struct tp_field *fd = &ev->fields[i];

		FUZZ_ASSERT(fd->offset >= 0 && fd->size >= 0 &&
			    fd->offset + fd->size <= FIELD_MAX_RECORD);
		FUZZ_ASSERT(fd->kind != FIELD_INT || fd->size == 1 || fd->size == 2 ||
			    fd->size == 4 || fd->size == 8);
		FUZZ_ASSERT(field__find(ev, fd->name) != NULL);
		if (field__int(fd, r, &v))
			FUZZ_ASSERT(fd->kind == FIELD_INT);
		if (field__bytes(fd, r, &p, &len))
			FUZZ_ASSERT(p >= raw && len <= r->raw_size &&
				    (size_t)(p - raw) <= r->raw_size - len);
	}
}

static void check_path(void *ctx, uint64_t id, const char *path)
{
	(void)ctx;
	FUZZ_ASSERT(id != 0 && path[0]);
	for (; *path; path++)
		FUZZ_ASSERT((unsigned char)*path >= ' ' && *path != 0x7f);
}

static void ct_cgroups(struct session *s, struct fz *f)
{
	size_t n = f->left ? (size_t)fz_bytes(f, 2) : 0;
	struct err e = { 0 };

	n = n < f->left ? n : f->left;
	if (replay__block(s, CAP_CGROUPS, f->p, n, &e))
		FUZZ_ASSERT(e.code < 0 && e.msg[0]);
	f->p += n;
	f->left -= n;
	cgroup_map__for_each(s->cgroups, check_path, NULL);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct session_opts opts = { 0 };
	struct err e = { 0 };
	struct session *s = session__new_offline(&opts, &e);
	char meta[1024];
	int tables;

	if (!s)
		return 0;
	fz_str(&f, meta, sizeof(meta));
	if (replay__block(s, CAP_META, meta, strlen(meta), &e))
		FUZZ_ASSERT(e.code < 0 && e.msg[0]);
	tables = f.left ? fz_u8(&f) % 4 : 0;
	for (int t = 0; t < tables; t++)
		ct_table(s, &f);
	catalog__resort(s->cat);
	ct_cgroups(s, &f);
	for (int n = 0; f.left && n < 64; n++) {
		uint32_t raw = (uint32_t)fz_bytes(&f, 2) % 1024;
		struct wrow *r = malloc(sizeof(*r) + raw);

		if (!r)
			break;
		memset(r, 0, sizeof(*r));
		r->raw_size = raw;
		memset(r->data, 0, raw);
		memcpy(r->data, f.p, raw < f.left ? raw : f.left);
		f.p += raw < f.left ? raw : f.left;
		f.left -= raw < f.left ? raw : f.left;
		for (int i = 0; i < catalog__nr_events(s->cat); i++)
			ct_decode(catalog__event(s->cat, i), r);
		free(r);
	}
	session__close(s);
	return 0;
}
