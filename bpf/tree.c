/*
 * bpf/tree.c - the workload's tasks as a BPF map (see bpf/tree.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include "bpf/insn.h"
#include "bpf/tree.h"
#include "core/field.h"
#include "core/session.h"

#define FP BPF_REG_10

int bpf_attach_tracepoint(int tp_id, int cpu, int prog_fd)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .size = sizeof(a),
				     .config = (uint64_t)tp_id,
				     .disabled = 1 };
	int fd = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* fp-4 = the current thread's id */
static void current_tid(struct basm *a)
{
	basm__emit(a, bi_call(BPF_FUNC_get_current_pid_tgid));
	basm__emit(a, bi_stx(BPF_W, FP, BPF_REG_0, -4));
}

/* tree[fp-4] = 1 */
static void add(struct basm *a, int map)
{
	basm__emit(a, bi_st(BPF_W, FP, -8, 1));
	basm__ld_map(a, BPF_REG_1, map);
	basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
	basm__emit(a, bi_mov64_reg(BPF_REG_3, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_3, -8));
	basm__emit(a, bi_mov64_imm(BPF_REG_4, BPF_ANY));
	basm__emit(a, bi_call(BPF_FUNC_map_update_elem));
}

/* which: 0 arm (the workload's tid joins), 1 inherit (a member's child joins), 2 forget */
static void program(struct basm *a, int which, int map, pid_t workload, int pid_off)
{
	int out = basm__label(a);

	basm__emit(a, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
	current_tid(a);
	if (which == 0) {
		basm__jmp32_imm(a, BPF_JNE, BPF_REG_0, (int32_t)workload, out);
		add(a, map);
	} else {
		basm__ld_map(a, BPF_REG_1, map);
		basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
		basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
		basm__emit(a, bi_call(which == 1 ? BPF_FUNC_map_lookup_elem
						 : BPF_FUNC_map_delete_elem));
	}
	if (which == 1) {
		basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, 0, out);
		basm__emit(a, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_6, (int16_t)pid_off));
		basm__emit(a, bi_stx(BPF_W, FP, BPF_REG_1, -4));
		add(a, map);
	}
	basm__place(a, out);
	basm__emit(a, bi_mov64_imm(BPF_REG_0, 1)); /* every other perf user sees the event */
	basm__emit(a, bi_exit());
}

static int load(struct bpf_tree *t, int which, pid_t workload, int pid_off)
{
	struct basm a = { 0 };
	int fd = -EINVAL;

	program(&a, which, t->map_fd, workload, pid_off);
	if (!basm__finish(&a))
		fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "perf_sql_tree", "GPL", a.insn,
				   (size_t)a.nr, NULL);
	basm__free(&a);
	return fd;
}

/* -p, -t, --cgroup: their threads are members from the start (the programs follow them
 * from here: children join, the exited leave) */
static int seed(struct bpf_tree *t, const struct session *s, struct err *e)
{
	uint32_t one = 1;

	for (int i = 0; i < s->nr_tids; i++) {
		uint32_t tid = (uint32_t)s->tids[i];

		if (bpf_map_update_elem(t->map_fd, &tid, &one, BPF_ANY))
			return err_set(e, -errno, "cannot add thread %u to the BPF map: %s", tid,
				       strerror(errno));
	}
	return 0;
}

int bpf_tree__open(struct bpf_tree *t, struct session *s, pid_t workload, bool attach,
		   struct err *e)
{
	static const char *const events[3] = { "task:task_rename", "task:task_newtask",
					       "sched:sched_process_exit" };
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	const struct tp_field *pid;
	struct tp_event *ev[3];

	for (int i = 0; i < 3; i++)
		t->prog_fd[i] = t->perf_fd[i] = -1;
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "psql_tree", 4, 4, BPF_TREE_MAX, &o);
	if (t->map_fd < 0)
		return err_set(e, -errno, "cannot create the BPF map of the workload's tasks: %s",
			       strerror(errno));
	for (int i = 0; i < 3; i++)
		if (!(ev[i] = catalog__find(s->cat, events[i])) || catalog__parse(s->cat, ev[i], e))
			return e->code ? e->code
				       : err_set(e, -ENOENT, "no tracepoint %s", events[i]);
	if (!(pid = field__find(ev[1], "pid")) || pid->size != 4)
		return err_set(e, -ENOENT, "task:task_newtask has no 4-byte field pid");
	for (int i = workload ? 0 : 1; attach && i < 3; i++) {
		if ((t->prog_fd[i] = load(t, i, workload, pid->offset)) < 0)
			return err_set(e, -errno, "the kernel refused the program of %s: %s",
				       events[i], strerror(errno));
		if ((t->perf_fd[i] =
			     bpf_attach_tracepoint(ev[i]->id, s->cpu_num[0], t->prog_fd[i])) < 0)
			return err_set(e, t->perf_fd[i], "cannot attach to %s: %s", events[i],
				       strerror(-t->perf_fd[i]));
	}
	return workload ? 0 : seed(t, s, e);
}

void bpf_tree__close(struct bpf_tree *t)
{
	for (int i = 0; i < 3; i++) {
		if (t->perf_fd[i] >= 0)
			close(t->perf_fd[i]);
		if (t->prog_fd[i] >= 0)
			close(t->prog_fd[i]);
		t->perf_fd[i] = t->prog_fd[i] = -1;
	}
	if (t->map_fd >= 0)
		close(t->map_fd);
	t->map_fd = -1;
}
