/*
 * symbols/stack.h - a call chain as a SQL value: a BLOB "PSQLSTK1" | pid u32 | tid u32 |
 * time u64 | frames u64[], the frames as perf_event_open gave them (innermost first, with
 * PERF_CONTEXT_KERNEL / PERF_CONTEXT_USER markers). The stack functions read it.
 */
#ifndef PERF_SQL_STACK_H
#define PERF_SQL_STACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_MAGIC "PSQLSTK1"

struct stack_view {
	uint32_t pid, tid;
	uint64_t time;
	const uint64_t *frames; /* unaligned-safe copy is not needed: blobs are malloc'd */
	size_t nr;
};

/* malloc'd blob (free() it); NULL if out of memory */
void *stack_blob__new(uint32_t pid, uint32_t tid, uint64_t time, const uint64_t *frames, size_t nr,
		      size_t *len_out);
/* false if blob is not a stack */
bool stack_blob__view(const void *blob, size_t len, struct stack_view *out);

/* One frame, markers removed, with whether it is a kernel address. */
struct stack_frame {
	uint64_t addr;
	bool kernel;
	bool leaf; /* innermost of its context: the sampled IP, not a return address */
};
/* The frames of v outermost first (as folded stacks are written); returns how many (<= max). */
size_t stack_frames(const struct stack_view *v, struct stack_frame *out, size_t max);
#endif
