/*
 * tests/fuzz/fuzz.h - what every fuzz target shares: a byte reader over the input, and the
 * entry point's name. Each target is one file, fuzz_NAME.c, with one LLVMFuzzerTestOneInput;
 * tests/unit/test_fuzz_regress.c includes them all, renamed through FUZZ_ENTRY, and replays
 * tests/fuzz/corpus/NAME/ and tests/fuzz/regress/NAME/ on each unit test run.
 */
#ifndef PERF_SQL_FUZZ_H
#define PERF_SQL_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

/* a checked invariant: abort, so libFuzzer keeps the input as a crash */
#define FUZZ_ASSERT(cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

struct fz {
	const uint8_t *p;
	size_t left;
};

static inline uint64_t fz_bytes(struct fz *f, size_t n)
{
	uint64_t v = 0;

	if (n > f->left)
		n = f->left;
	memcpy(&v, f->p, n);
	f->p += n;
	f->left -= n;
	return v;
}

static inline uint8_t fz_u8(struct fz *f) { return (uint8_t)fz_bytes(f, 1); }
static inline uint32_t fz_u32(struct fz *f) { return (uint32_t)fz_bytes(f, 4); }
static inline uint64_t fz_u64(struct fz *f) { return fz_bytes(f, 8); }

/* the next string: up to a NUL or the end, copied NUL-terminated into buf */
static inline const char *fz_str(struct fz *f, char *buf, size_t len)
{
	size_t n = 0;

	while (n < f->left && f->p[n] && n + 1 < len)
		n++;
	memcpy(buf, f->p, n);
	buf[n] = '\0';
	if (n < f->left && !f->p[n])
		n++;
	f->p += n;
	f->left -= n;
	return buf;
}
#endif
