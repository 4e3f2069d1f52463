/*
 * tests/fuzz/fuzz_capture.c - the capture reader (core/capture.c) and the row checks replay
 * relies on (window__append_rows, window__adopt): the input is a capture file, read through
 * a memfd so capture__open() sees a real path.
 * (1) Reading stops at the end, at a cut tail, or with an error; it never crashes or loops.
 * (2) RECORDS blocks either fail the row checks or scan back row by row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/window.h"
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	int fd = memfd_create("capture", MFD_CLOEXEC), cut, ret, blocks = 0;
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
	while (r && (ret = capture__next(r, &type, &block, &len, &cut, &e)) == 1 &&
	       blocks++ < 1000) {
		uint32_t hdr[2];
		struct wscan sc;
		size_t rows = 0;

		if (type != CAP_RECORDS || len < 8)
			continue;
		memcpy(hdr, block, 8);
		if (window__append_rows(w, (int)(hdr[0] % 4), (const uint8_t *)block + 8, len - 8))
			continue;
		FUZZ_ASSERT(wscan__init(&sc, w) == 0);
		while (wscan__next(&sc))
			rows++;
		wscan__done(&sc);
		FUZZ_ASSERT(rows == w->nr_rows);
		window__clear(w);
	}
	capture__free(r);
out:
	window__free(w);
	if (fd >= 0)
		close(fd);
	return 0;
}
