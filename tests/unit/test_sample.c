/*
 * tests/unit/test_sample.c - the sample decoder on hand-built records: field order, RAW and
 * CALLCHAIN sizes, and truncated or lying records (must be -EINVAL, never an over-read).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "core/sample.h"
#include "t.h"

static size_t put(uint8_t *buf, size_t off, const void *v, size_t n)
{
	memcpy(buf + off, v, n);
	return off + n;
}

static const uint64_t ST = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;

static size_t build(uint8_t *buf, uint32_t raw_size)
{
	uint64_t id = 42, time = 123456789, period = 1;
	uint32_t tid[2] = { 100, 101 }, cpu[2] = { 1, 0 };
	size_t off = 0;

	off = put(buf, off, &id, 8);
	off = put(buf, off, tid, 8);
	off = put(buf, off, &time, 8);
	off = put(buf, off, cpu, 8);
	off = put(buf, off, &period, 8);
	off = put(buf, off, &raw_size, 4);
	for (uint32_t i = 0; i < raw_size; i++)
		buf[off++] = (uint8_t)i;
	return off;
}

static void test_fields(void)
{
	uint8_t buf[256];
	size_t len = build(buf, 20);
	struct sample s;

	T(sample__parse(buf, len, ST, 0, &s) == 0, "a whole record parses");
	T(s.id == 42 && s.pid == 100 && s.tid == 101, "id, pid, tid");
	T(s.time == 123456789 && s.cpu == 1 && s.period == 1, "time, cpu, period");
	T(s.raw_size == 20 && ((const uint8_t *)s.raw)[19] == 19, "raw payload");
}

static void test_truncated(void)
{
	uint8_t buf[256];
	size_t len = build(buf, 20);
	struct sample s;

	for (size_t cut = 0; cut < len; cut++)
		T(sample__parse(buf, cut, ST, 0, &s) == -EINVAL, "record cut to %zu bytes", cut);
}

static void test_lying_sizes(void)
{
	uint8_t buf[256];
	size_t len = build(buf, 8);
	uint32_t huge = 0xfffffff0u;
	uint64_t nr = 1ull << 60, id = 1;
	struct sample s;

	memcpy(buf + 40, &huge, 4); /* raw size field */
	T(sample__parse(buf, len, ST, 0, &s) == -EINVAL, "raw size past the record");
	memcpy(buf, &id, 8);
	memcpy(buf + 8, &nr, 8);
	T(sample__parse(buf, 16, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN, 0, &s) == -EINVAL,
	  "callchain of 2^60 frames");
	T(sample__parse(buf, 16, PERF_SAMPLE_BRANCH_STACK, 0, &s) == -EINVAL,
	  "unknown sample bits");
}

static void test_callchain(void)
{
	uint64_t rec[5] = { 7, 3, 0xffffffff81000000ull, 0x401000, 0x402000 };
	struct sample s;

	T(sample__parse(rec, sizeof(rec), PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN, 0, &s) ==
		  0,
	  "callchain parses");
	T(s.id == 7 && s.nr_stack == 3 && s.stack[2] == 0x402000, "callchain frames");
}

/* PERF_SAMPLE_STACK_USER after REGS_USER: size, data[size], dyn_size; size 0 stands alone */
static void test_user_stack(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t rec[9] = { 7, 2, 0x1111, 0x2222, 32, 0xa, 0xb, 0xc, 0xd };
	uint64_t full[10];
	struct sample s;

	memcpy(full, rec, sizeof(rec));
	full[9] = 16; /* dyn_size: half of the copy was filled */
	T(sample__parse(full, sizeof(full), st, 0x3, &s) == 0, "regs + user stack parse");
	T(s.nr_regs == 2 && s.regs[1] == 0x2222, "user registers");
	T(s.user_stack && s.user_stack_size == 16 && ((const uint64_t *)s.user_stack)[1] == 0xb,
	  "user stack copy and dyn_size");
	T(sample__parse(full, sizeof(rec), st, 0x3, &s) == -EINVAL, "dyn_size missing");
	full[9] = 40;
	T(sample__parse(full, sizeof(full), st, 0x3, &s) == -EINVAL, "dyn_size past the copy");
	full[9] = 0;
	T(sample__parse(full, sizeof(full), st, 0x3, &s) == 0 && !s.user_stack,
	  "dyn_size 0: no stack");
	full[4] = 1ull << 62;
	T(sample__parse(full, sizeof(full), st, 0x3, &s) == -EINVAL, "copy size past the record");
	full[1] = 0; /* no regs (kernel thread), then a size-0 stack and nothing after it */
	full[2] = 0;
	T(sample__parse(full, 24, st, 0x3, &s) == 0 && !s.regs && !s.user_stack, "kernel thread");
}

int main(void)
{
	RUN(test_fields);
	RUN(test_truncated);
	RUN(test_lying_sizes);
	RUN(test_callchain);
	RUN(test_user_stack);
	return t_done("sample");
}
