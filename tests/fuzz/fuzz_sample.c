/*
 * tests/fuzz/fuzz_sample.c - the sample record decoder (core/sample.c) and the window store
 * behind it: bytes 0-7 are the sample_type (masked to the bits the decoder knows, so the
 * fuzzer explores layouts rather than the refusal), 8-15 the user-register mask, the rest the
 * record body, copied to a buffer of exactly its size so ASan sees any over-read.
 * (1) A parse that succeeds points only inside the body.
 * (2) A parsed sample appended to a window scans back with the same fields and bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include "core/sample.h"
#include "core/window.h"
#include "fuzz.h"

static int sample_inside(const void *p, size_t n, const uint8_t *body, size_t len)
{
	const uint8_t *b = p;

	return !n || (b >= body && b + n <= body + len);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint64_t st = fz_u64(&f) & SAMPLE_KNOWN_BITS, regs_mask = fz_u64(&f);
	uint8_t *body = malloc(f.left ? f.left : 1);
	size_t len = f.left;
	struct sample s;

	memcpy(body, f.p, len);
	if (sample__parse(body, len, st, regs_mask, &s) == 0) {
		struct window *w = window__new(1, NULL);
		struct wscan sc;
		const struct wrow *r;

		FUZZ_ASSERT(sample_inside(s.raw, s.raw_size, body, len));
		FUZZ_ASSERT(sample_inside(s.stack, s.nr_stack * 8, body, len));
		FUZZ_ASSERT(!s.regs || sample_inside(s.regs, (size_t)s.nr_regs * 8, body, len));
		FUZZ_ASSERT(window__append(w, 0, &s, 1) == 0);
		FUZZ_ASSERT(wscan__init(&sc, w) == 0);
		r = wscan__next(&sc);
		FUZZ_ASSERT(r && r->time == s.time && r->pid == s.pid && r->raw_size == s.raw_size);
		FUZZ_ASSERT(!s.raw_size || !memcmp(wrow_raw(r), s.raw, s.raw_size));
		FUZZ_ASSERT(r->nr_stack == s.nr_stack);
		FUZZ_ASSERT(!s.nr_stack || !memcmp(wrow_stack(r), s.stack, s.nr_stack * 8));
		FUZZ_ASSERT(!s.regs || !memcmp(wrow_regs(r), s.regs, (size_t)s.nr_regs * 8));
		FUZZ_ASSERT(!wscan__next(&sc));
		wscan__done(&sc);
		window__free(w);
	}
	free(body);
	return 0;
}
