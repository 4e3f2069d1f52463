/*
 * core/sample.h - decoding PERF_RECORD_SAMPLE bodies: what perf_event_open wrote, field by
 * field, in the order the sample_type bits define. Takes (buf, len) so it can be fuzzed.
 */
#ifndef PERF_SQL_SAMPLE_H
#define PERF_SQL_SAMPLE_H
#include <stddef.h>
#include <stdint.h>

struct sample {
	uint64_t id, ip, time, addr, period;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_stack;
	const uint64_t *stack;
	uint64_t regs_abi;
	const uint64_t *regs; /* one per bit of the regs mask */
	int nr_regs;
	const uint8_t *user_stack; /* PERF_SAMPLE_STACK_USER: the copy from the user sp up */
	uint64_t user_stack_size;  /* bytes of it the kernel filled (dyn_size) */
	uint64_t cgroup;           /* PERF_SAMPLE_CGROUP: the task's cgroup id (perf_event's) */
};

/* The sample_type bits this decoder understands; any other bit set is -EINVAL. */
#define SAMPLE_KNOWN_BITS                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |    \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP)

/*
 * Decodes the body of one sample record (after struct perf_event_header; len bytes).
 * 0, or -EINVAL when the record is shorter than its own sizes say.
 */
int sample__parse(const void *body, size_t len, uint64_t sample_type, uint64_t regs_mask,
		  struct sample *out);
#endif
