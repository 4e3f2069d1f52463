/*
 * symbols/stack.c - the stack BLOB (see symbols/stack.h).
 *
 * (1) Context markers (PERF_CONTEXT_*: values >= (u64)-4095) switch kernel/user and are not
 *     frames.
 * (2) Frames come innermost first from the kernel; stack_frames() returns them outermost
 *     first: user frames (outer) before kernel frames (inner), as flamegraph.pl expects.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "symbols/stack.h"

#define HDR (8 + 4 + 4 + STACK_COMM_LEN)

void *stack_blob__new(uint32_t pid, uint32_t tid, const char *comm, const uint64_t *frames,
		      size_t nr, size_t *len_out)
{
	uint8_t *b = calloc(1, HDR + nr * 8);

	if (!b)
		return NULL;
	memcpy(b, STACK_MAGIC, 8);
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &tid, 4);
	if (comm)
		memcpy(b + 16, comm, strnlen(comm, STACK_COMM_LEN));
	if (nr)
		memcpy(b + HDR, frames, nr * 8);
	*len_out = HDR + nr * 8;
	return b;
}

bool stack_blob__view(const void *blob, size_t len, struct stack_view *out)
{
	const uint8_t *b = blob;

	if (!b || len < HDR || (len - HDR) % 8 || memcmp(b, STACK_MAGIC, 8))
		return false;
	memcpy(&out->pid, b + 8, 4);
	memcpy(&out->tid, b + 12, 4);
	memcpy(out->comm, b + 16, STACK_COMM_LEN);
	out->comm[STACK_COMM_LEN] = '\0';
	out->frames = (const uint64_t *)(b + HDR);
	out->nr = (len - HDR) / 8;
	return true;
}

size_t stack_frames(const struct stack_view *v, struct stack_frame *out, size_t max)
{
	struct stack_frame kern[256], user[256];
	size_t nk = 0, nu = 0, n = 0;
	bool kernel = false, first = true;

	for (size_t i = 0; i < v->nr; i++) {
		uint64_t a;

		memcpy(&a, &v->frames[i], 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			first = true;
			continue;
		}
		if (kernel && nk < 256)
			kern[nk++] = (struct stack_frame){ a, true, first };
		else if (!kernel && nu < 256)
			user[nu++] = (struct stack_frame){ a, false, first };
		first = false;
	}
	while (nu && n < max)
		out[n++] = user[--nu];
	while (nk && n < max)
		out[n++] = kern[--nk];
	return n;
}
