/*
 * bpf/tree.c - the workload's tasks as a BPF map (see bpf/tree.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include "core/test_hook.h"
#include "bpf/insn.h"
#include "bpf/kernel_btf.h"
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

/* fp-4 = the new task's tid: the record's field pid (classic), or task_struct.pid of the
 * raw tracepoint's args[0] (raw; an unreadable one goes to full) */
static void child_tid(struct basm *a, bool raw, int pid_off, int full)
{
	if (!raw) {
		basm__emit(a, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_6, (int16_t)pid_off));
		basm__emit(a, bi_stx(BPF_W, FP, BPF_REG_1, -4));
		return;
	}
	basm__emit(a, bi_ldx(BPF_DW, BPF_REG_3, BPF_REG_6, 0));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_3, pid_off));
	basm__emit(a, bi_mov64_reg(BPF_REG_1, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_1, -4));
	basm__emit(a, bi_mov64_imm(BPF_REG_2, 4));
	basm__emit(a, bi_call(BPF_FUNC_probe_read_kernel));
	basm__jmp_imm(a, BPF_JNE, BPF_REG_0, 0, full);
}

/* tree[fp-4] = alive; r0 = 0 or -errno */
static void add(struct basm *a, int map)
{
	basm__emit(a, bi_st(BPF_W, FP, -8, BPF_TREE_ALIVE));
	basm__ld_map(a, BPF_REG_1, map);
	basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
	basm__emit(a, bi_mov64_reg(BPF_REG_3, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_3, -8));
	basm__emit(a, bi_mov64_imm(BPF_REG_4, BPF_ANY));
	basm__emit(a, bi_call(BPF_FUNC_map_update_elem));
}

/* refused[0] += 1 on this CPU (atomic: a program can be preempted by another on the CPU) */
static void count_refused(struct basm *a, int map, int out)
{
	basm__emit(a, bi_st(BPF_W, FP, -8, 0));
	basm__ld_map(a, BPF_REG_1, map);
	basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -8));
	basm__emit(a, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, 0, out);
	basm__emit(a, bi_mov64_imm(BPF_REG_1, 1));
	basm__emit(a, bi_atomic_add64(BPF_REG_0, BPF_REG_1, 0));
}

/* fp-4's member: r0 = its value (BPF_TREE_ALIVE, BPF_TREE_EXITED), or 0 when not a member */
static void lookup(struct basm *a, int map)
{
	basm__ld_map(a, BPF_REG_1, map);
	basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
	basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
	basm__emit(a, bi_call(BPF_FUNC_map_lookup_elem));
}

/*
 * which: 0 arm (the workload's tid joins), 1 inherit (a member's child joins), 2 exit (the
 * member's own events end: marked exited), 3 free (an exited member leaves; a tid that joined
 * again since, reused, stays)
 */
static void program(struct basm *a, const struct bpf_tree *t, int which, pid_t workload,
		    int pid_off)
{
	int out = basm__label(a), full = basm__label(a);

	basm__emit(a, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
	if (which == 3)
		child_tid(a, t->raw, pid_off, out);
	else
		current_tid(a);
	if (which == 0) {
		basm__jmp32_imm(a, BPF_JNE, BPF_REG_0, (int32_t)workload, out);
	} else {
		lookup(a, t->map_fd);
		basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, 0, out);
	}
	if (which == 2) {
		basm__emit(a, bi_st(BPF_W, BPF_REG_0, 0, BPF_TREE_EXITED));
	} else if (which == 3) { /* r0: the value */
		basm__emit(a, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_0, 0));
		basm__jmp_imm(a, BPF_JNE, BPF_REG_1, BPF_TREE_EXITED, out);
		basm__ld_map(a, BPF_REG_1, t->map_fd);
		basm__emit(a, bi_mov64_reg(BPF_REG_2, FP));
		basm__emit(a, bi_alu64_imm(BPF_ADD, BPF_REG_2, -4));
		basm__emit(a, bi_call(BPF_FUNC_map_delete_elem));
	}
	if (which >= 2) {
		basm__place(a, full); /* unused */
	} else {
		if (which == 1)
			child_tid(a, t->raw, pid_off, full);
		add(a, t->map_fd);
		basm__jmp_imm(a, BPF_JEQ, BPF_REG_0, 0, out);
		basm__place(a, full);
		count_refused(a, t->refused_fd, out);
	}
	basm__place(a, out);
	/* a raw tracepoint ignores it; on a classic one, every other perf user sees the event */
	basm__emit(a, bi_mov64_imm(BPF_REG_0, 1));
	basm__emit(a, bi_exit());
}

static int load(const struct bpf_tree *t, int which, pid_t workload, int pid_off)
{
	struct basm a = { 0 };
	int fd = -EINVAL;

	program(&a, t, which, workload, pid_off);
	if (!basm__finish(&a))
		fd = bpf_prog_load(t->raw ? BPF_PROG_TYPE_RAW_TRACEPOINT : BPF_PROG_TYPE_TRACEPOINT,
				   "perf_sql_tree", "GPL", a.insn, (size_t)a.nr, NULL);
	basm__free(&a);
	return fd < 0 ? -errno : fd;
}

/* -p, -t, --cgroup: their threads are members from the start (the programs follow them
 * from here: children join, the exited leave) */
static int seed(struct bpf_tree *t, const struct session *s, struct err *e)
{
	uint32_t one = BPF_TREE_ALIVE;

	for (int i = 0; i < s->nr_tids; i++) {
		uint32_t tid = (uint32_t)s->tids[i];

		if (bpf_map_update_elem(t->map_fd, &tid, &one, BPF_ANY))
			return err_set(e, -errno,
				       "cannot add thread %u to the BPF map of the targets' tasks "
				       "(%d at most): %s; use --no-bpf",
				       tid, t->max, strerror(errno));
	}
	return 0;
}

static const char *const tree_events[BPF_TREE_PROGS] = { "task:task_rename", "task:task_newtask",
							 "sched:sched_process_exit",
							 "sched:sched_process_free" };

/* the programs on raw tracepoints: the offset of task_struct.pid from the kernel's BTF */
static int attach_raw(struct bpf_tree *t, pid_t workload, struct err *e)
{
	const struct kernel_btf *btf = kernel_btf__vmlinux(e);
	struct kernel_btf_member m;

	if (!btf)
		return e->code;
	if (kernel_btf__member(btf, BTF_KIND_STRUCT, "task_struct", "pid", &m) || m.bitfield_size ||
	    m.bit_off % 8)
		return err_set(e, -ENOENT, "the kernel's BTF has no task_struct.pid");
	t->raw = true;
	for (int i = workload ? 0 : 1; i < BPF_TREE_PROGS; i++) {
		if ((t->prog_fd[i] = load(t, i, workload, (int)(m.bit_off / 8))) < 0)
			return err_set(e, t->prog_fd[i], "the kernel refused the program of %s: %s",
				       tree_events[i], strerror(-t->prog_fd[i]));
		if ((t->link_fd[i] = bpf_raw_tracepoint_open(strchr(tree_events[i], ':') + 1,
							     t->prog_fd[i])) < 0)
			return err_set(e, -errno, "cannot attach to raw tracepoint %s: %s",
				       tree_events[i], strerror(errno));
	}
	return 0;
}

/* the fallback: classic tracepoints, the new or freed task's tid from the record's field pid */
static int attach_classic(struct bpf_tree *t, struct session *s, pid_t workload, struct err *e)
{
	struct tp_event *ev[BPF_TREE_PROGS];
	int pid_off[BPF_TREE_PROGS] = { 0 };

	t->raw = false;
	for (int i = 0; i < BPF_TREE_PROGS; i++) {
		const struct tp_field *pid;

		if (!(ev[i] = catalog__find(s->cat, tree_events[i])) ||
		    catalog__parse(s->cat, ev[i], e))
			return e->code ? e->code
				       : err_set(e, -ENOENT, "no tracepoint %s", tree_events[i]);
		if ((i == 1 || i == 3) && (!(pid = field__find(ev[i], "pid")) || pid->size != 4))
			return err_set(e, -ENOENT, "%s has no 4-byte field pid", tree_events[i]);
		if (i == 1 || i == 3)
			pid_off[i] = pid->offset;
	}
	for (int i = workload ? 0 : 1; i < BPF_TREE_PROGS; i++) {
		if ((t->prog_fd[i] = load(t, i, workload, pid_off[i])) < 0)
			return err_set(e, t->prog_fd[i], "the kernel refused the program of %s: %s",
				       tree_events[i], strerror(-t->prog_fd[i]));
		if ((t->link_fd[i] =
			     bpf_attach_tracepoint(ev[i]->id, s->cpu_num[0], t->prog_fd[i])) < 0)
			return err_set(e, t->link_fd[i], "cannot attach to %s: %s", tree_events[i],
				       strerror(-t->link_fd[i]));
	}
	return 0;
}

static void detach(struct bpf_tree *t)
{
	for (int i = 0; i < BPF_TREE_PROGS; i++) {
		if (t->link_fd[i] >= 0)
			close(t->link_fd[i]);
		if (t->prog_fd[i] >= 0)
			close(t->prog_fd[i]);
		t->link_fd[i] = t->prog_fd[i] = -1;
	}
}

int bpf_tree__open(struct bpf_tree *t, struct session *s, pid_t workload, bool attach,
		   struct err *e)
{
	/* preallocated: a map that allocates as it grows refills through irq_work, kmallocs in
	 * the context of whatever task runs (the workload: kmemleak would list them as its own) */
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = 0);
	const char *test_max = TEST_HOOK("TREE_MAX"); /* tests: a full map (core/test_hook.h) */
	struct err raw_e = { 0 };

	t->max = test_max && atoi(test_max) > 0 ? atoi(test_max) : BPF_TREE_MAX;
	t->refused_fd = -1;
	for (int i = 0; i < BPF_TREE_PROGS; i++)
		t->prog_fd[i] = t->link_fd[i] = -1;
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "psql_tree", 4, 4, (uint32_t)t->max, &o);
	if (t->map_fd < 0)
		return err_set(e, -errno, "cannot create the BPF map of the workload's tasks: %s",
			       strerror(errno));
	t->refused_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "psql_tree_full", 4, 8, 1, NULL);
	if (t->refused_fd < 0)
		return err_set(e, -errno, "cannot create the BPF map of refused tasks: %s",
			       strerror(errno));
	if (attach && attach_raw(t, workload, &raw_e)) {
		detach(t);
		if (attach_classic(t, s, workload, e))
			return e->code;
	}
	return workload ? 0 : seed(t, s, e);
}

unsigned long long bpf_tree__nr_refused(const struct bpf_tree *t)
{
	int nr = libbpf_num_possible_cpus();
	unsigned long long sum = 0, *v;
	uint32_t key = 0;

	if (t->refused_fd < 0 || nr <= 0 || !(v = calloc((size_t)nr, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(t->refused_fd, &key, v))
		for (int i = 0; i < nr; i++)
			sum += v[i];
	free(v);
	return sum;
}

void bpf_tree__close(struct bpf_tree *t)
{
	detach(t);
	if (t->map_fd >= 0)
		close(t->map_fd);
	if (t->refused_fd >= 0)
		close(t->refused_fd);
	t->map_fd = t->refused_fd = -1;
}
