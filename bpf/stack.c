/*
 * bpf/stack.c - the chains of a stack key (bpf/plan.h (5)): how deep the kernel walks, a
 * group's frames read back from the stack map as a perf sample has them, and the processes
 * whose mappings user space must read while they live.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include "bpf/table.h"
#include "core/session.h"

/* the kernel's longest callchain (perf_event_max_stack), which perf samples are cut at too */
int bpf_stack__max_depth(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	int n = 0;

	if (f && fscanf(f, "%d", &n) != 1)
		n = 0;
	if (f)
		fclose(f);
	return n > 0 && n <= 4096 ? n : 127;
}

static size_t chain(const struct bpf_table *t, int32_t id, uint64_t marker, uint64_t *frames,
		    size_t max, uint64_t *buf)
{
	size_t n = 0;

	if (id < 0 || max < 2 || bpf_map_lookup_elem(t->stacks_fd, &id, buf))
		return 0;
	frames[n++] = marker;
	for (int i = 0; i < t->plan.stack_depth && buf[i] && n < max; i++)
		frames[n++] = buf[i];
	return n > 1 ? n : 0;
}

size_t bpf_table__stack(const struct bpf_table *t, const uint8_t *key, uint64_t *frames, size_t max)
{
	uint64_t *buf = calloc((size_t)t->plan.stack_depth, 8);
	int32_t kid, uid;
	size_t n;

	if (!buf)
		return 0;
	memcpy(&kid, key + 8, 4);
	memcpy(&uid, key + 12, 4);
	n = chain(t, kid, (uint64_t)PERF_CONTEXT_KERNEL, frames, max, buf);
	n += chain(t, uid, (uint64_t)PERF_CONTEXT_USER, frames + n, max - n, buf);
	free(buf);
	return n;
}

/* a stack's process: its mappings are read now, while it may still live (symbols/) */
void bpf_table__note_stack_pids(struct bpf_table *t, const uint8_t *key)
{
	struct session *s = t->src->s;
	uint32_t pid;

	for (int i = 0; i < t->plan.nr_keys && s->on_new_stack_pid; i++) {
		if (t->plan.keys[i].col != BCOL_STACK)
			continue;
		memcpy(&pid, key + t->plan.key_off[i] + 4, 4);
		if (u32set__add(&s->stack_pids, pid))
			s->on_new_stack_pid(s->stack_ctx, pid);
	}
}
