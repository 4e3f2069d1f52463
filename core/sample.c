/*
 * core/sample.c - PERF_RECORD_SAMPLE decoder (see core/sample.h).
 *
 * (1) Fields appear in the order of include/uapi/linux/perf_event.h's sample layout.
 * (2) Every read is bounds-checked against len: a truncated or lying record is -EINVAL, never
 *     a read past the copy the ring reader made.
 * (3) Pointers in struct sample point into body: valid while body is.
 * (4) PERF_SAMPLE_STACK_USER is size, data[size], dyn_size (the bytes filled), all absent but
 *     size when size is 0.
 * (5) PERF_SAMPLE_CGROUP is one u64, the id of the task's cgroup in the hierarchy the
 *     perf_event controller is on (the v2 one unless perf_event is mounted as v1).
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include "core/sample.h"

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const void *take(struct cursor *c, uint64_t n)
{
	const void *at = c->p;

	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return at;
}

int sample__parse(const void *body, size_t len, uint64_t st, uint64_t regs_mask, struct sample *out)
{
	struct cursor c = { body, (const uint8_t *)body + len, 0 };
	uint64_t v;

	memset(out, 0, sizeof(*out));
	if (st & ~(uint64_t)SAMPLE_KNOWN_BITS)
		return -EINVAL;
	if (st & PERF_SAMPLE_IDENTIFIER)
		out->id = take_u64(&c);
	if (st & PERF_SAMPLE_IP)
		out->ip = take_u64(&c);
	if (st & PERF_SAMPLE_TID) {
		v = take_u64(&c);
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		out->time = take_u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		out->addr = take_u64(&c);
	if (st & PERF_SAMPLE_ID)
		out->id = take_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take_u64(&c);
	if (st & PERF_SAMPLE_CPU)
		out->cpu = (uint32_t)take_u64(&c);
	if (st & PERF_SAMPLE_PERIOD)
		out->period = take_u64(&c);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		out->nr_stack = take_u64(&c);
		if (out->nr_stack > (uint64_t)len / 8)
			return -EINVAL;
		out->stack = take(&c, out->nr_stack * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		const uint32_t *sz = take(&c, 4);

		if (!sz)
			return -EINVAL;
		memcpy(&out->raw_size, sz, 4);
		out->raw = take(&c, out->raw_size);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		out->regs_abi = take_u64(&c);
		if (out->regs_abi) {
			out->nr_regs = __builtin_popcountll(regs_mask);
			out->regs = take(&c, (uint64_t)out->nr_regs * 8);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take_u64(&c);

		if (size) { /* 0 (a kernel thread): no data and no dyn_size follow */
			out->user_stack = take(&c, size);
			out->user_stack_size = take_u64(&c);
			if (out->user_stack_size > size)
				return -EINVAL;
			if (!out->user_stack_size)
				out->user_stack = NULL;
		}
	}
	if (st & PERF_SAMPLE_CGROUP) /* after WEIGHT .. PHYS_ADDR, which are never asked */
		out->cgroup = take_u64(&c);
	return c.bad ? -EINVAL : 0;
}
