/*
 * tests/unit/t_switch.h - a fake sched:sched_switch event for unit tests that build a session
 * by hand (test_task_filter, test_tree): the fields the task filters and the process tree read,
 * at the kernel's offsets (PREV_OFF, NEXT_OFF: prev_pid and next_pid in the raw record), and
 * the records the ring dispatches for it: a sample of it, the sideband's FORK record.
 */
#ifndef PERF_SQL_T_SWITCH_H
#define PERF_SQL_T_SWITCH_H
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include "core/catalog.h"
#include "core/ring.h"

#define PREV_OFF 24
#define NEXT_OFF 56

static struct tp_field sw_fields[] = {
	{ .name = "prev_comm", .offset = 8, .size = 16 },
	{ .name = "prev_pid", .offset = PREV_OFF, .size = 4, .is_signed = true },
	{ .name = "prev_state", .offset = 32, .size = 8, .is_signed = true },
	{ .name = "next_comm", .offset = 40, .size = 16 },
	{ .name = "next_pid", .offset = NEXT_OFF, .size = 4, .is_signed = true },
};

static struct tp_event sched_switch = {
	.system = "sched",
	.name = "sched_switch",
	.full = "sched:sched_switch",
	.kind = EV_TRACEPOINT,
	.parsed = true,
	.nr_fields = 5,
	.fields = sw_fields,
};

/* a sched_switch sample of event id from prev to next, run in task tid, at time, on CPU 1 */
static inline void switch_sample(struct session *s, uint64_t id, int32_t tid, int32_t prev,
				 int32_t next, uint64_t time)
{
	uint64_t rec[6 + 9] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(rec) };
	uint32_t pid_tid[2] = { (uint32_t)tid, (uint32_t)tid }, cpu_res[2] = { 1, 0 };
	uint32_t raw_size = 68;
	uint8_t *raw = (uint8_t *)&rec[6] + 4;

	memcpy(&rec[0], &h, 8);
	rec[1] = id;
	memcpy(&rec[2], pid_tid, 8);
	rec[3] = time;
	memcpy(&rec[4], cpu_res, 8);
	rec[5] = 1;
	memcpy(&rec[6], &raw_size, 4); /* then the raw record, padded to 8 bytes */
	memcpy(raw + PREV_OFF, &prev, 4);
	memcpy(raw + NEXT_OFF, &next, 4);
	ring__handle(s, (const union perf_event *)rec);
}

/* the sideband's FORK record of event id: parent made child at time (sample_id: tid, time,
 * id) */
static inline void fork_record(struct session *s, uint64_t id, uint32_t parent, uint32_t child,
			       uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		uint32_t id_pid, id_tid;
		uint64_t id_time, id;
	} r = { { PERF_RECORD_FORK, 0, sizeof(r) },
		child,
		parent,
		child,
		parent,
		time,
		child,
		child,
		time,
		id };

	ring__handle(s, (const union perf_event *)&r);
}
#endif
