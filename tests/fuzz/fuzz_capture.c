/*
 * tests/fuzz/fuzz_capture.c - the capture reader (core/capture.c) and the row checks replay
 * relies on (window__append_rows, window__adopt): the input is a capture file, read through
 * a memfd so capture__open() sees a real path.
 * (1) Reading stops at the end, at a cut tail, or with an error; it never crashes or loops.
 * (2) RECORDS blocks either fail the row checks or scan back row by row.
 * (3) Two passes, as a replay reads (core/replay.c): a first that reads the frames of META,
 *     TABLE and COMMS only, stepping over the others, then, rewound, a second of every block:
 *     each block the first pass returned, the second returns with the same type, unless it
 *     finds a corrupt frame the first stepped over; a cut is found at the same offset.
 * (5) A third pass reads ahead on two threads (capture__read_ahead()): the same blocks, types,
 *     lengths and end as the second, one block at a time.
 * (4) A table whose rows carry a cgroup id (bit 8 of the table index here, CAP_TABLE_CGROUP
 *     in a capture): every row the checks let through has room for it after its body.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/window.h"
#include "fuzz.h"

#define FIRST (1u << CAP_META | 1u << CAP_TABLE | 1u << CAP_COMMS)

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	int fd = memfd_create("capture", MFD_CLOEXEC), cut, ret = -1, blocks = 0, nr_first = 0;
	uint32_t types[1000], second[1000];
	size_t lens[1000];
	uint64_t first_cut = 0;
	struct window *w = window__new(4, NULL);
	struct capture_reader *r;
	struct err e = { 0 };
	const void *block;
	char path[64];
	uint32_t type;
	size_t len;

	if (fd < 0 || !w || write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = capture__open(path, &e);
	while (r && nr_first < 1000 &&
	       (ret = capture__next_of(r, FIRST, &type, &block, &len, &cut, &e)) == 1) {
		FUZZ_ASSERT(!block == !(type < 32 && (FIRST >> type) & 1));
		types[nr_first++] = type;
	}
	first_cut = r ? capture__cut_at(r, NULL) : 0;
	if (r)
		capture__rewind(r);
	while (r && (ret = capture__next(r, &type, &block, &len, &cut, &e)) == 1 &&
	       blocks++ < 1000) {
		uint32_t hdr[2];
		struct wscan sc;
		size_t rows = 0;

		FUZZ_ASSERT(blocks > nr_first || types[blocks - 1] == type);
		if (blocks <= 1000) {
			second[blocks - 1] = type;
			lens[blocks - 1] = len;
		}
		if (type != CAP_RECORDS || len < 8)
			continue;
		memcpy(hdr, block, 8);
		w->cgroup = (hdr[0] >> 8) & 1;
		if (window__append_rows(w, (int)(hdr[0] % 4), (const uint8_t *)block + 8, len - 8))
			continue;
		FUZZ_ASSERT(wscan__init(&sc, w) == 0);
		for (const struct wrow *row; (row = wscan__next(&sc)); rows++) {
			size_t body = ((row->raw_size + 7u) & ~7u) + (size_t)row->nr_stack * 8 +
				      row->regs_off_nr * 8;

			FUZZ_ASSERT(row->size == sizeof(*row) + body + (w->cgroup ? 8 : 0));
			if (w->cgroup) { /* read: ASan sees a read past the row */
				volatile uint64_t id = wrow_cgroup(row);
				(void)id;
			}
		}
		wscan__done(&sc);
		FUZZ_ASSERT(rows == w->nr_rows);
		window__clear(w);
	}
	if (r && ret == 0) /* the same end: what the first pass found as a cut, the second too */
		FUZZ_ASSERT(capture__cut_at(r, NULL) == first_cut);
	if (r && blocks <= 1000) { /* (5) */
		int ahead = 0, ret2;

		capture__rewind(r);
		FUZZ_ASSERT(capture__read_ahead(r, 2, 1 << 16) == 0);
		while ((ret2 = capture__next(r, &type, &block, &len, &cut, &e)) == 1) {
			FUZZ_ASSERT(ahead < blocks && second[ahead] == type && lens[ahead] == len);
			ahead++;
		}
		FUZZ_ASSERT(ret2 == ret && ahead == blocks);
	}
	capture__free(r);
out:
	window__free(w);
	if (fd >= 0)
		close(fd);
	return 0;
}
