/*
 * symbols/unwind.h - user stacks from a copy of the stack (PERF_SAMPLE_STACK_USER) and the
 * user registers (PERF_SAMPLE_REGS_USER), unwound through each binary's CFI (libdw).
 */
#ifndef PERF_SQL_UNWIND_H
#define PERF_SQL_UNWIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/sample.h"

struct symbols;

/*
 * The user frames of pid, innermost first (the sampled ip, then return addresses), into out
 * (at most max); regs in UPROBE_REGS_MASK order (core/session.h), stack copied from regs' sp.
 * *clean_out: the walk reached the outermost frame (the CFI says the return address is
 * undefined: _start, a thread's start), rather than stopping where it could not go on.
 */
size_t unwind__user(struct symbols *sy, uint32_t pid, const uint64_t *regs, const uint8_t *stack,
		    size_t stack_len, uint64_t *out, size_t max, bool *clean_out);
/*
 * smp's call chain (PERF_CONTEXT_* markers and all) with its user part from unwind__user():
 * the kernel's part kept, then PERF_CONTEXT_USER and the unwound frames. When smp also has the
 * kernel's frame-pointer walk of user space (--call-graph auto) and the CFI walk did not reach
 * the outermost frame, the deeper of the two is kept; the fp walk is first cut after the first
 * frame whose CFI does not keep rbp as a frame pointer (the next would be garbage). Without a
 * copy (auto, on tables of every event) that cut fp walk is the user part. Returns the length
 * written to chain.
 */
size_t unwind__chain(struct symbols *sy, const struct sample *smp, uint64_t *chain, size_t max);

/* What unwinding did so far (for -v and the benchmark). */
struct unwind_stats {
	uint64_t samples, frames; /* samples unwound, user frames they gave */
	uint64_t clean;           /* samples whose walk reached the outermost frame */
	uint64_t fp_kept;         /* auto: samples where the fp chain was deeper and kept */
	uint64_t ns;              /* time spent unwinding */
};
void symbols__unwind_stats(const struct symbols *sy, struct unwind_stats *out);
#endif
