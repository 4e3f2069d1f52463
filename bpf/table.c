/*
 * bpf/table.c - one table aggregated in the kernel (see bpf/table.h): maps, loading,
 * attaching, and each window's readout merged over CPUs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include "bpf/compile.h"
#include "bpf/listing.h"
#include "core/test_hook.h"
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/session.h"

#define BATCH 256 /* keys per lookup-and-delete call */
#define LOG_SIZE (256 * 1024)

static int new_map(enum bpf_map_type type, const char *name, uint32_t key_size, uint32_t value_size,
		   uint32_t n, uint32_t flags, int inner)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

	if (inner >= 0)
		o.inner_map_fd = (uint32_t)inner;
	return bpf_map_create(type, name, key_size, value_size, n, &o);
}

/* pairs()' task storage (bpf/pairs.h (4)) of value_size bytes: the kernel wants its BTF, an
 * int key (a task's fd from user space) and the value's type (u64s); -1 with errno */
static int task_map(uint32_t value_size)
{
	struct btf *btf = btf__new_empty();
	int k, u, v, fd = -1, err;

	if (!btf)
		return -1;
	k = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	u = btf__add_int(btf, "u64", 8, 0);
	v = k > 0 && u > 0 ? btf__add_array(btf, k, u, value_size / 8) : -1;
	if (v > 0 && !btf__load_into_kernel(btf)) {
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC,
			    .btf_fd = (uint32_t)btf__fd(btf), .btf_key_type_id = (uint32_t)k,
			    .btf_value_type_id = (uint32_t)v);

		fd = bpf_map_create(BPF_MAP_TYPE_TASK_STORAGE, "psql_tasks", 4, value_size, 0, &o);
	}
	err = errno;
	btf__free(btf); /* the map keeps its own reference */
	errno = err;
	return fd;
}

int bpf_table__set_ctl(struct bpf_table *t, bool on)
{
	uint32_t zero = 0;
	uint8_t *v = calloc(1, (size_t)bpf_ctl_size(&t->plan));
	const struct session *s = t->src->s;
	int ret;

	if (!v)
		return -ENOMEM;
	*(uint32_t *)(v + BPF_CTL_ENABLED) = on;
	*(uint32_t *)(v + BPF_CTL_STACKS) = (uint32_t)t->stack_map;
	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpu_num[i] < t->plan.nr_cpu_ids)
			v[BPF_CTL_CPUMASK + s->cpu_num[i] / 8] |=
				(uint8_t)(1u << (s->cpu_num[i] % 8));
	ret = bpf_map_update_elem(t->ctl_fd, &zero, v, BPF_ANY);
	free(v);
	return ret;
}

static int create_maps(struct bpf_table *t, int nr_maps, struct err *e)
{
	const struct bpf_plan *p = &t->plan;
	uint32_t zero = 0;

	t->nr_maps = nr_maps;
	t->ctl_fd = new_map(BPF_MAP_TYPE_ARRAY, "psql_ctl", 4, (uint32_t)bpf_ctl_size(p), 1, 0, -1);
	t->stats_fd =
		new_map(BPF_MAP_TYPE_ARRAY, "psql_stats", 4, (uint32_t)BPF_STATS_SIZE(p), 1, 0, -1);
	if (bpf_plan__has_stack(p) && bpf_stack__create_maps(t, e))
		return e->code;
	t->zero_fd = new_map(BPF_MAP_TYPE_ARRAY, "psql_zero", 4, (uint32_t)p->value_size, 1, 0, -1);
	/* pairs() end in the scheduler and in interrupts, where a map that allocates as it
	 * grows fails in bursts: their maps are allocated up front (percentiles: buckets too);
	 * so are the maps of a kmem:* table: a map that grows refills from an irq_work, kmallocs
	 * the program would see (or skip, nested in itself) on the time of the task it runs in */
	for (int i = 0; i < nr_maps; i++)
		t->map_fd[i] =
			new_map(BPF_MAP_TYPE_PERCPU_HASH, "psql_groups", (uint32_t)p->key_size,
				(uint32_t)p->value_size,
				(uint32_t)(p->pair.pending_rows      ? 1 /* pending(): no group */
					   : bpf_plan__has_loglin(p) ? p->max_groups * 4
								     : p->max_groups),
				p->pair.role != BPF_PAIR_NONE || !strcmp(t->src->ev->system, "kmem")
					? 0
					: BPF_F_NO_PREALLOC,
				-1);
	if (p->pair.role != BPF_PAIR_NONE) {
		t->pending_fd =
			new_map(BPF_MAP_TYPE_HASH, "psql_pending", 8, BPF_PAIR_VALUE(&p->pair),
				(uint32_t)p->pair.max_pending, 0, -1);
		t->counts_fd = new_map(BPF_MAP_TYPE_PERCPU_ARRAY, "psql_pair_counts", 4,
				       BPF_PAIR_NR_COUNTS * 8, 1, 0, -1);
		if (t->pending_fd < 0 || t->counts_fd < 0)
			return err_set(e, -errno, "cannot create the pairs' BPF maps: %s",
				       strerror(errno));
		/* a kernel without task storage (or its BTF): the hash keeps every start
		 * (tests/live/bpf_pairs.sh: TEST_HOOK NO_TASK_STORAGE) */
		if (p->pair.task_store &&
		    (TEST_HOOK("NO_TASK_STORAGE") ||
		     (t->tasks_fd = task_map((uint32_t)BPF_PAIR_VALUE(&p->pair))) < 0))
			t->plan.pair.task_store = false;
		t->plan.pair.pending_fd = t->pending_fd;
		t->plan.pair.counts_fd = t->counts_fd;
		t->plan.pair.tasks_fd = t->tasks_fd;
	}
	if ((t->ctl_fd < 0 || t->stats_fd < 0) && errno == EPERM)
		return err_set(e, -errno, "not permitted to create BPF maps (CAP_BPF, or root)");
	if (t->ctl_fd < 0 || t->stats_fd < 0 || t->zero_fd < 0 || t->map_fd[0] < 0 ||
	    (nr_maps == 2 && t->map_fd[1] < 0))
		return err_set(e, -errno, "cannot create BPF maps: %s", strerror(errno));
	/* an update of a map of maps returns after a grace period (bpf/table.h (1)): without
	 * windows the program uses its map directly, and the map of maps only waits at the end */
	t->outer_fd = new_map(BPF_MAP_TYPE_ARRAY_OF_MAPS, "psql_outer", 4, 4, 1, 0, t->map_fd[0]);
	if (t->outer_fd < 0 ||
	    (nr_maps == 2 && bpf_map_update_elem(t->outer_fd, &zero, &t->map_fd[0], BPF_ANY)))
		return err_set(e, -errno, "cannot create the BPF map of maps: %s", strerror(errno));
	if (bpf_table__set_ctl(t, false))
		return err_set(e, -errno, "cannot set the BPF control map: %s", strerror(errno));
	return 0;
}

/* the verifier's last lines, joined by " | " */
static void log_tail(const char *log, char *out, size_t len, int lines)
{
	const char *end = log + strlen(log), *p = end;
	size_t n;

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	end = p;
	while (p > log && lines > 0)
		if (*--p == '\n')
			lines--;
	if (*p == '\n')
		p++;
	n = (size_t)(end - p) < len - 1 ? (size_t)(end - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = ';';
}

static int prog_load(const struct bpf_plan *p, int btf_id, const struct basm *a, char *log,
		     int level)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = log ? LOG_SIZE : 0,
		    .log_level = (uint32_t)level);

	if (p->hook == BPF_HOOK_TP || p->hook == BPF_HOOK_PERF || p->hook == BPF_HOOK_UPROBE)
		return bpf_prog_load(p->hook == BPF_HOOK_TP     ? BPF_PROG_TYPE_TRACEPOINT
				     : p->hook == BPF_HOOK_PERF ? BPF_PROG_TYPE_PERF_EVENT
								: BPF_PROG_TYPE_KPROBE,
				     "perf_sql_agg", "GPL", a->insn, (size_t)a->nr, &o);
	o.expected_attach_type = BPF_TRACE_RAW_TP;
	o.attach_btf_id = (uint32_t)btf_id;
	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "perf_sql_agg", "GPL", a->insn, (size_t)a->nr,
			     &o);
}

/* compiles and loads plan p: its fd, instructions and id into the out-parameters */
static int load_one(struct bpf_table *t, const struct bpf_plan *p, int *fd_out, int *nr_out,
		    uint32_t *id_out, int *btf_out, char *log_out, size_t log_len, struct err *e)
{
	struct bpf_prog_maps m = { .ctl = t->ctl_fd,
				   .stats = t->stats_fd,
				   .outer = t->outer_fd,
				   .zero = t->zero_fd,
				   .stacks = t->stacks_fd,
				   .stacks1 = t->stacks1_fd,
				   .stack_buf = t->stack_buf_fd,
				   .direct = t->nr_maps == 1 ? t->map_fd[0] : -1 };
	struct bpf_prog_info info = { 0 };
	uint32_t info_len = sizeof(info);
	struct basm a = { 0 };
	char *log;
	int ret;

	if ((ret = bpf_prog__build(p, &m, NULL, btf_out, &a, e))) /* the running kernel's facts */
		return ret;
	if (TEST_HOOK("BAD_BPF")) /* tests: a program the verifier refuses (core/test_hook.h) */
		a.insn[0] = bi_ldx(BPF_DW, BPF_REG_2, BPF_REG_1, 0); /* ctx bytes 0-7: refused */
	*nr_out = a.nr;
	*fd_out = prog_load(p, *btf_out, &a, NULL, 0);
	if (*fd_out < 0 && (log = calloc(1, LOG_SIZE))) { /* again, for the verifier's words */
		ret = errno;
		*fd_out = prog_load(p, *btf_out, &a, log, 1);
		if (*fd_out < 0 && log_out)
			log_tail(log, log_out, log_len, 6);
		errno = ret;
		free(log);
	}
	basm__free(&a);
	if (*fd_out < 0 && errno == EPERM)
		return err_set(e, -errno,
			       "not permitted to load a BPF program (CAP_BPF and "
			       "CAP_PERFMON, or root)");
	if (*fd_out < 0 && log_out && log_out[0])
		return err_set(e, -errno, "the verifier refused the BPF program (%d insns)",
			       *nr_out);
	if (*fd_out < 0)
		return err_set(e, -errno, "the kernel refused the BPF program (%d insns): %s",
			       *nr_out, strerror(errno));
	if (!bpf_obj_get_info_by_fd(*fd_out, &info, &info_len))
		*id_out = info.id;
	return 0;
}

static int load(struct bpf_table *t, char *log_out, size_t log_len, struct err *e)
{
	struct bpf_plan sp;

	if (load_one(t, &t->plan, &t->prog_fd, &t->nr_insns, &t->prog_id, &t->btf_id, log_out,
		     log_len, e))
		return e->code;
	if (t->plan.pair.role != BPF_PAIR_END)
		return 0;
	sp = bpf_plan__start(&t->plan);
	return load_one(t, &sp, &t->start_prog_fd, &t->start_nr_insns, &t->start_prog_id,
			&t->start_btf_id, log_out, log_len, e);
}

/* a software event sampled on every CPU of the session, the program on each (disabled until
 * bpf_table__enable) */
static int attach_pmu(struct bpf_table *t, struct err *e)
{
	const struct session *s = t->src->s;
	struct perf_event_attr a = { .type = t->plan.pmu_type,
				     .size = sizeof(a),
				     .config = t->plan.pmu_config,
				     .disabled = 1 };

	if (t->plan.sample_freq) {
		a.freq = 1;
		a.sample_freq = t->plan.sample_freq;
	} else {
		a.sample_period = t->plan.sample_period;
	}
	if (!(t->pmu_fds = calloc((size_t)s->nr_cpus, sizeof(int))))
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < s->nr_cpus; i++) {
		int fd = (int)syscall(__NR_perf_event_open, &a, -1, s->cpu_num[i], -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			return err_set(e, -errno, "cannot open the event on CPU %d: %s",
				       s->cpu_num[i], strerror(errno));
		t->pmu_fds[t->nr_pmu_fds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, t->prog_fd))
			return err_set(e, -errno, "cannot attach the BPF program: %s",
				       strerror(errno));
	}
	return 0;
}

static int attach_one(struct bpf_table *t, int tp_id, enum bpf_hook hook, int prog_fd, int *perf_fd,
		      struct err *e)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .size = sizeof(a),
				     .config = (uint64_t)tp_id,
				     .disabled = 1 };

	if (hook == BPF_HOOK_UPROBE) { /* as core/events.c opens it, every task (not a start) */
		a.type = t->plan.pmu_type;
		a.config = t->plan.pmu_config;
		a.config1 = (uint64_t)(uintptr_t)t->plan.probe_path;
		a.config2 = t->plan.pmu_config2;
		a.sample_period = 1;
	}
	if (hook == BPF_HOOK_SYS_ENTER || hook == BPF_HOOK_SYS_EXIT || hook == BPF_HOOK_TP_BTF) {
		/* a raw tracepoint's link: an fd of ours too */
		*perf_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
		return *perf_fd < 0 ? err_set(e, -errno, "cannot attach to the raw tracepoint: %s",
					      strerror(errno))
				    : 0;
	}
	*perf_fd = (int)syscall(__NR_perf_event_open, &a, -1, t->src->s->cpu_num[0], -1,
				PERF_FLAG_FD_CLOEXEC);
	if (*perf_fd < 0)
		return err_set(e, -errno, "cannot open the tracepoint for BPF: %s",
			       strerror(errno));
	if (ioctl(*perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd))
		return err_set(e, -errno, "cannot attach the BPF program: %s", strerror(errno));
	return 0;
}

static int attach(struct bpf_table *t, struct err *e)
{
	const struct bpf_plan *p = &t->plan;

	if (p->hook == BPF_HOOK_PERF)
		return attach_pmu(t, e);
	if (p->pair.role == BPF_PAIR_END && /* the start's program first: its table may be busy */
	    attach_one(t, p->pair.start_tp_id, p->pair.start_hook, t->start_prog_fd,
		       &t->start_perf_fd, e))
		return e->code;
	return attach_one(t, p->tp_id, p->hook, t->prog_fd, &t->perf_fd, e);
}

struct bpf_table *bpf_table__new(const struct bpf_plan *p, struct source *src, bool do_attach,
				 int nr_maps, char *log_out, size_t log_len, struct err *e)
{
	struct bpf_table *t = calloc(1, sizeof(*t));

	if (!t) {
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	t->ctl_fd = t->stats_fd = t->zero_fd = t->outer_fd = t->prog_fd = t->perf_fd = -1;
	t->start_prog_fd = t->start_perf_fd = t->pending_fd = t->counts_fd = t->tasks_fd = -1;
	t->pair_stat = -1;
	t->map_fd[0] = t->map_fd[1] = t->stacks_fd = t->stacks1_fd = t->stack_buf_fd = -1;
	t->plan = *p;
	if (t->plan.stack_depth <= 0)
		t->plan.stack_depth = bpf_stack__max_depth();
	t->src = src;
	bpf_plan__layout(&t->plan);
	bpf_plan__fold(&t->plan);
	t->row_size = t->plan.key_size + t->plan.value_size;
	t->nr_possible = libbpf_num_possible_cpus();
	if (log_out && log_len)
		log_out[0] = '\0';
	if (t->nr_possible <= 0) {
		err_set(e, -EINVAL, "cannot count the possible CPUs");
		goto fail;
	}
	t->full_seen = calloc((size_t)t->nr_possible, 8);
	t->nostack_seen = calloc((size_t)t->nr_possible, 8);
	t->counts_seen = calloc((size_t)t->nr_possible, 8 * BPF_PAIR_NR_COUNTS);
	t->keys = malloc((size_t)BATCH * (size_t)t->plan.key_size);
	t->vals = malloc((size_t)BATCH * (size_t)t->nr_possible * (size_t)t->plan.value_size);
	if (!t->full_seen || !t->nostack_seen || !t->counts_seen || !t->keys || !t->vals) {
		err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	if (create_maps(t, nr_maps, e) || load(t, log_out, log_len, e) ||
	    (do_attach && attach(t, e)))
		goto fail;
	return t;
fail:
	bpf_table__free(t);
	return NULL;
}

void bpf_table__free(struct bpf_table *t)
{
	int *fds[] = { &t->start_perf_fd, &t->perf_fd,    &t->start_prog_fd, &t->prog_fd,
		       &t->outer_fd,      &t->map_fd[0],  &t->map_fd[1],     &t->zero_fd,
		       &t->stats_fd,      &t->ctl_fd,     &t->pending_fd,    &t->counts_fd,
		       &t->stacks_fd,     &t->stacks1_fd, &t->stack_buf_fd,  &t->tasks_fd };

	if (!t)
		return;
	for (int i = 0; i < t->nr_pmu_fds; i++)
		close(t->pmu_fds[i]);
	free(t->pmu_fds);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	free(t->full_seen);
	free(t->nostack_seen);
	free(t->counts_seen);
	free(t->hist);
	free(t->keys);
	free(t->vals);
	free(t->rows);
	free(t->pend);
	free(t->index);
	free(t);
}

int bpf_table__enable(struct bpf_table *t, bool on)
{
	int ret = bpf_table__set_ctl(t, on) ? -errno : 0;

	for (int i = 0; i < t->nr_pmu_fds; i++)
		ioctl(t->pmu_fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	t->enabled = on;
	return ret;
}

static size_t key_hash(const uint8_t *k, int len)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < len; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return (size_t)h;
}

/* the index slot of key: its row's, or the empty one where it goes */
static size_t slot_of(const struct bpf_table *t, const uint8_t *key)
{
	size_t i = key_hash(key, t->plan.key_size) & (t->index_cap - 1);

	while (t->index[i] &&
	       memcmp(bpf_table__key(t, t->index[i] - 1), key, (size_t)t->plan.key_size))
		i = (i + 1) & (t->index_cap - 1);
	return i;
}

static int grow_index(struct bpf_table *t)
{
	size_t cap = t->index_cap ? t->index_cap * 2 : 128;
	uint32_t *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	free(t->index);
	t->index = n;
	t->index_cap = cap;
	for (size_t r = 0; r < t->nr_rows; r++)
		t->index[slot_of(t, bpf_table__key(t, r))] = (uint32_t)r + 1;
	return 0;
}

/* the window's row of key, a new one (value zero) the first time; NULL: out of memory */
uint8_t *bpf_table__row_of(struct bpf_table *t, const uint8_t *key)
{
	size_t i;
	uint8_t *row;

	if ((t->nr_rows + 1) * 2 > t->index_cap && grow_index(t))
		return NULL;
	i = slot_of(t, key);
	if (t->index[i])
		return t->rows + (t->index[i] - 1) * (size_t)t->row_size;
	if (t->nr_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 64;
		uint8_t *n = realloc(t->rows, cap * (size_t)t->row_size);

		if (!n)
			return NULL;
		t->rows = n;
		t->cap_rows = cap;
	}
	row = t->rows + t->nr_rows * (size_t)t->row_size;
	memcpy(row, key, (size_t)t->plan.key_size);
	memset(row + t->plan.key_size, 0, (size_t)t->plan.value_size);
	t->index[i] = (uint32_t)++t->nr_rows;
	return row;
}

static uint64_t u64_at(const uint8_t *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* keys[0..n) with their per-CPU values: one row each; each CPU's count to its stream */
static int take(struct bpf_table *t, uint32_t n)
{
	struct session *s = t->src->s;
	int ks = t->plan.key_size, vs = t->plan.value_size;

	for (uint32_t k = 0; k < n; k++) {
		uint8_t *key = (uint8_t *)t->keys + (size_t)k * (size_t)ks, *row;

		if (bpf_plan__has_loglin(&t->plan) && u64_at(key, ks - 8)) {
			if (bpf_table__take_bucket(t, key, k))
				return -ENOMEM;
			continue;
		}
		if (!(row = bpf_table__row_of(t, key)))
			return -ENOMEM;
		bpf_table__note_stack_pids(t, row);
		for (int c = 0; c < t->nr_possible; c++) {
			const uint8_t *v =
				(uint8_t *)t->vals +
				((size_t)k * (size_t)t->nr_possible + (size_t)c) * (size_t)vs;
			uint64_t count = u64_at(v, BPF_VAL_COUNT);
			int idx = c < s->nr_cpu_ids ? s->cpu_idx[c] : -1;

			if (!count)
				continue;
			bpf_plan__merge(&t->plan, row + ks, v);
			if (t->secondary) /* the same events as the first table's */
				continue;
			if (idx >= 0)
				t->src->received[idx] += count;
			else
				s->nr_stray += count;
		}
	}
	return 0;
}

/* every group of map fd, deleted as read (no program writes it any more) */
static int drain_map(struct bpf_table *t, int fd)
{
	bool first = true;
	int ret;

	do {
		uint32_t n = BATCH;

		ret = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &t->batch, &t->batch,
						      t->keys, t->vals, &n, NULL);
		if (ret < 0 && ret != -ENOENT)
			return ret;
		first = false;
		if (take(t, n))
			return -ENOMEM;
	} while (ret == 0);
	return 0;
}

/* runs the kernel skipped (bpf/table.h (4)): not per CPU, so lost on the first CPU's row (pairs(): its row) */
static void read_skipped(struct bpf_table *t)
{
	uint64_t d;

	if (t->counts_fd >= 0) /* pairs(): bpf/pairs_read.c reads them into its row */
		return;
	d = bpf_prog__new_misses(t->prog_fd, &t->misses_seen[1]);
	t->nr_skipped += d;
	if (!t->secondary) /* the first program's skips stand for every program's */
		t->src->lost[0] += d;
}

static void read_full(struct bpf_table *t)
{
	struct session *s = t->src->s;
	uint32_t zero = 0;
	uint64_t *full = calloc((size_t)BPF_STATS_SIZE(&t->plan), 1);
	const uint64_t *nostack = full + t->plan.nr_cpu_ids;

	if (t->window != t->nostack_window) {
		t->nostack_window = t->window;
		t->nr_nostack = t->nr_skipped = 0;
	}
	if (!full || bpf_map_lookup_elem(t->stats_fd, &zero, full)) {
		free(full);
		return;
	}
	for (int c = 0; c < t->plan.nr_cpu_ids && c < t->nr_possible; c++) {
		int idx = c < s->nr_cpu_ids ? s->cpu_idx[c] : -1;
		uint64_t d = full[c] - t->full_seen[c] + nostack[c] - t->nostack_seen[c];

		t->nr_nostack += nostack[c] - t->nostack_seen[c];
		t->full_seen[c] = full[c];
		t->nostack_seen[c] = nostack[c];
		if (idx >= 0)
			t->src->lost[idx] += d;
	}
	free(full);
}

void bpf_table__read(struct bpf_table *t, bool *waited)
{
	int old = t->cur, zero = 0, ret = 0;
	/* switched off with one map: a wait another table made after the switch-off covers it */
	bool off = !t->enabled && t->nr_maps == 1;

	if (t->window != t->src->s->nr_windows) { /* a new window: its own groups */
		t->window = t->src->s->nr_windows;
		t->nr_rows = t->nr_hist = 0;
		if (t->index)
			memset(t->index, 0, t->index_cap * sizeof(*t->index));
	}
	if (t->src->s->window_end && (ret = bpf_stack__next_window(t)))
		t->read_failed = true, t->read_errno = -ret;
	if (t->nr_maps == 2)
		t->cur = 1 - t->cur;
	/* returns once no program run can still be using the old map (see bpf/table.h (1)) */
	if (!off || !*waited)
		ret = bpf_map_update_elem(t->outer_fd, &zero, &t->map_fd[t->cur], BPF_ANY) ? -errno
											   : 0;
	if (!ret && off)
		*waited = true;
	if (!ret)
		ret = drain_map(t, t->map_fd[old]);
	if (ret) {
		t->read_failed = true;
		t->read_errno = -ret;
	}
	read_full(t);
	read_skipped(t);
	bpf_table__read_pairs(t);
}
