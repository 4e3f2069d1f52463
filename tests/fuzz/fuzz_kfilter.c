/*
 * tests/fuzz/fuzz_kfilter.c - ftrace filter strings (core/kfilter.c): the input is a series of
 * operations, each an opcode byte and NUL-separated strings:
 *   even  kfilter__and(NAME, op, values): a value count (1-4), then per value a kind byte and
 *         a string (text) or 8 bytes (integer)
 *   odd   kfilter__or(out of a size from the input, STRING) into a running OR buffer
 * (1) The filter text is NUL-terminated inside its buffer; NULL when overflowed or empty.
 * (2) A string value with '"' or '\' is never pushed (ftrace has no escapes).
 * (3) kfilter__or never writes past len and always leaves a NUL-terminated string.
 */
#include <stdio.h>
#include <stdlib.h>
#include "core/kfilter.h"
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct kfilter kf = { 0 };
	char names[4][64], vals[4][300], add[1200], name[64];
	size_t or_len = fz_u8(&f) * 9 + 1; /* 1 .. 2296 */
	char *or_out = malloc(or_len);

	or_out[0] = '\0';
	while (f.left) {
		uint8_t op = fz_u8(&f);

		if (!(op & 1)) {
			struct kf_value v[4];
			int nr = fz_u8(&f) % 4 + 1;

			fz_str(&f, name, sizeof(name));
			for (int i = 0; i < nr; i++) {
				v[i].is_str = fz_u8(&f) & 1;
				v[i].s = v[i].is_str ? fz_str(&f, vals[i], sizeof(vals[i])) : NULL;
				v[i].i = v[i].is_str ? 0 : (long long)fz_u64(&f);
			}
			(void)names;
			if (kfilter__and(&kf, name, (enum kf_op)((op >> 1) % 7), v, nr))
				for (int i = 0; i < nr; i++)
					FUZZ_ASSERT(!v[i].is_str || !strpbrk(v[i].s, "\"\\"));
			FUZZ_ASSERT(kf.len < sizeof(kf.buf) && memchr(kf.buf, 0, sizeof(kf.buf)));
			if (kfilter__str(&kf))
				FUZZ_ASSERT(strlen(kfilter__str(&kf)) == kf.len);
		} else {
			fz_str(&f, add, sizeof(add));
			kfilter__or(or_out, or_len, add);
			FUZZ_ASSERT(memchr(or_out, 0, or_len));
		}
	}
	free(or_out);
	return 0;
}
