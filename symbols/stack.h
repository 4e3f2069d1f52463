/*
 * symbols/stack.h - a call chain as a SQL value: a BLOB "PSQLSTK2" | pid u32 | tid u32 |
 * comm char[16] | frames u64[], the frames as perf_event_open gave them (innermost first, with
 * PERF_CONTEXT_KERNEL / PERF_CONTEXT_USER markers). The stack functions read it.
 *
 * The BLOB is what the stack is, nothing of when it was taken: the task, its name then
 * (NUL-padded), the frames. So GROUP BY stack groups the events of one call chain of one
 * thread, as the kernel's stack map does (docs/bpf.md), and the same event gives the same
 * BLOB from a perf ring or from a BPF map.
 */
#ifndef PERF_SQL_STACK_H
#define PERF_SQL_STACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_MAGIC "PSQLSTK2"
#define STACK_COMM_LEN 16

struct stack_view {
	uint32_t pid, tid;
	char comm[STACK_COMM_LEN + 1]; /* "" when it was not known */
	const uint64_t *frames;        /* unaligned-safe copy is not needed: blobs are malloc'd */
	size_t nr;
};

/* malloc'd blob (free() it); NULL if out of memory. comm: up to 16 bytes, or NULL. */
void *stack_blob__new(uint32_t pid, uint32_t tid, const char *comm, const uint64_t *frames,
		      size_t nr, size_t *len_out);
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
