/*
 * tests/fuzz/fuzz_window.c - the window store (core/window.c) under append/scan/clear
 * sequences the input drives: byte 0 the number of streams (1-64), bytes 1-4 the byte budget
 * (0: none), then operations:
 *   0..5  append one row to stream (next byte % streams): raw size (2 bytes, up to 64 KiB),
 *         call chain depth (1 byte), time step (2 bytes): times grow within a stream
 *   6     scan: every row once, in time order, with its payload intact
 *   7     clear: no rows, the budget whole again
 * (1) Rows refused past the budget are counted in nr_dropped; the budget never goes negative.
 * (2) A scan returns exactly nr_rows rows, non-decreasing in time, each with the bytes written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/window.h"
#include "fuzz.h"

#define WIN_MAX_RAW (64u << 10)

static uint8_t win_pattern(uint64_t time, uint32_t i) { return (uint8_t)(time * 31 + i); }

static void win_scan(struct window *w)
{
	struct wscan sc;
	const struct wrow *r;
	uint64_t n = 0, last = 0;

	FUZZ_ASSERT(wscan__init(&sc, w) == 0);
	while ((r = wscan__next(&sc))) {
		const uint8_t *raw = wrow_raw(r);

		FUZZ_ASSERT(r->time >= last);
		last = r->time;
		FUZZ_ASSERT((int)r->cpu < w->nr_streams && r->pid == (uint32_t)r->time);
		for (uint32_t i = 0; i < r->raw_size; i += 97)
			FUZZ_ASSERT(raw[i] == win_pattern(r->time, i));
		for (uint32_t i = 0; i < r->nr_stack; i++)
			FUZZ_ASSERT(wrow_stack(r)[i] == r->time + i);
		n++;
	}
	wscan__done(&sc);
	FUZZ_ASSERT(n == w->nr_rows);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static uint8_t raw[WIN_MAX_RAW];
	static uint64_t stack[256];
	struct fz f = { data, size };
	int nr = fz_u8(&f) % 64 + 1;
	size_t budget = fz_u32(&f), initial = budget;
	uint64_t times[64] = { 0 }, dropped = 0;
	struct window *w = window__new(nr, budget ? &budget : NULL);

	FUZZ_ASSERT(w);
	while (f.left) {
		uint8_t op = fz_u8(&f) % 8;

		if (op < 6) {
			int st = fz_u8(&f) % nr;
			struct sample s = { 0 };
			int rc;

			s.raw_size = (uint32_t)fz_bytes(&f, 2) % WIN_MAX_RAW;
			s.nr_stack = fz_u8(&f);
			times[st] += fz_bytes(&f, 2);
			s.time = times[st];
			s.pid = (uint32_t)s.time;
			s.cpu = (uint32_t)st;
			for (uint32_t i = 0; i < s.raw_size; i++)
				raw[i] = win_pattern(s.time, i);
			for (uint32_t i = 0; i < s.nr_stack; i++)
				stack[i] = s.time + i;
			s.raw = raw;
			s.stack = stack;
			rc = window__append(w, st, &s, op & 1);
			FUZZ_ASSERT(rc == 0 || rc == -ENOSPC);
			if (rc == -ENOSPC)
				FUZZ_ASSERT(initial && w->nr_dropped == ++dropped);
		} else if (op == 6) {
			win_scan(w);
		} else {
			window__clear(w);
			FUZZ_ASSERT(w->nr_rows == 0 && w->bytes == 0);
			FUZZ_ASSERT(!initial || budget == initial);
		}
		FUZZ_ASSERT(!initial || budget + w->bytes == initial);
	}
	win_scan(w);
	window__free(w);
	return 0;
}
