/*
 * core/ring.c - the perf ring event source: drain, dispatch, counts, losses (see core/ring.h).
 *
 * (1) Every fd's event id maps to its table (or to the sideband): records of any ring are
 *     dispatched by the id in front of each sample (PERF_SAMPLE_IDENTIFIER).
 * (2) Each sample is copied into its table's window store, in the stream of its CPU; rows of
 *     tasks that are not the workload's, and perf-sql's own samples, are counted as filtered.
 * (3) At the end of a window the kernel's counts are read before the last drain, so every
 *     counted event has been received or lost by the time losses are computed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include "core/cgroup.h"
#include "core/events.h"
#include "core/perf_glue.h"
#include "core/ring.h"
#include "core/target.h"

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_map *)a)->id, y = ((const struct id_map *)b)->id;

	return x < y ? -1 : x > y;
}

int ring__add_ids(struct session *s, struct perf_evsel *evsel, struct source *src)
{
	int nthr = src && source__system_wide(src) ? 1 : perf_thread_map__nr(s->threads);
	struct id_map *ids = s->ids;
	int nr_ids = s->nr_ids;

	for (int c = 0; c < s->nr_cpus; c++)
		for (int t = 0; t < nthr; t++) {
			int fd = evsel__fd(evsel, c, t);
			uint64_t id;
			void *n;

			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
				return -errno;
			n = realloc(ids, (size_t)(nr_ids + 1) * sizeof(*ids));
			if (!n)
				return -ENOMEM;
			ids = n;
			ids[nr_ids].id = id;
			ids[nr_ids++].src = src;
			s->ids = ids;
			s->nr_ids = nr_ids;
		}
	return 0;
}

void ring__sort_ids(struct session *s)
{
	if (s->nr_ids) /* none when every table is fed by BPF (qsort wants a base) */
		qsort(s->ids, (size_t)s->nr_ids, sizeof(*s->ids), cmp_id);
}

static struct id_map *find_id(struct session *s, uint64_t id)
{
	struct id_map key = { .id = id };

	return bsearch(&key, s->ids, (size_t)s->nr_ids, sizeof(*s->ids), cmp_id);
}

/* --call-graph dwarf/auto: the user stack is unwound while draining (auto without a copy: the
 * kernel's frame-pointer chain cut where the CFI says it turns to garbage) */
static bool unwinds(const struct session *s, const struct source *src)
{
	return s->stacks && src->need_stack &&
	       ((src->sample_type & PERF_SAMPLE_STACK_USER) ||
		s->opts.call_graph == CALL_GRAPH_AUTO);
}

/*
 * A task past its release (a dying task's last switch out) has no pid for perf, which writes
 * pid and tid -1. The record's common_pid is its tid, as the kernel path's
 * bpf_get_current_pid_tgid() gives it, and its process is known for the tree's tasks.
 */
static void released_task(const struct session *s, struct sample *smp)
{
	int32_t tid;

	memcpy(&tid, (const uint8_t *)smp->raw + 4, 4);
	if (tid <= 0)
		return;
	smp->tid = (uint32_t)tid;
	if (tree__pid(&s->tree, smp->tid))
		smp->pid = tree__pid(&s->tree, smp->tid);
}

static void handle_sample(struct session *s, const union perf_event *ev, bool held)
{
	const uint8_t *body = (const uint8_t *)ev + sizeof(ev->header);
	size_t len = ev->header.size - sizeof(ev->header);
	uint64_t chain[512];
	struct sample smp;
	struct id_map *m;
	uint64_t id;
	int idx, ret;

	if (len < 8)
		return;
	memcpy(&id, body, 8);
	m = find_id(s, id);
	if (!m || !m->src)
		return;
	if (sample__parse(body, len, m->src->sample_type,
			  m->src->sample_type & PERF_SAMPLE_REGS_USER ? UPROBE_REGS_MASK : 0, &smp))
		return;
	if (!(m->src->sample_type & PERF_SAMPLE_PERIOD))
		smp.period = m->src->period_used;
	if (smp.tid == UINT32_MAX && m->src->ev->kind == EV_TRACEPOINT && smp.raw_size >= 8)
		released_task(s, &smp);
	idx = target__stream(s, smp.cpu);
	if (idx < 0) { /* not from a CPU whose ring this is: stored nowhere, counted */
		s->nr_stray++;
		return;
	}
	/* decided once this drain's forks are read; unwound once its mappings are (a stack may be
	 * read before the MMAP2 of the exec it runs in, from another ring) */
	if ((m->src->tree_filter || unwinds(s, m->src)) && !held) {
		if (tree__hold(&s->tree, ev, ev->header.size))
			m->src->dropped[idx]++;
		return;
	}
	if (m->src->tree_filter && !tree__keeps(&s->tree, m->src, &smp)) {
		m->src->filtered[idx]++;
		return;
	}
	if (smp.pid == s->self && m->src->ev->kind != EV_TRACEPOINT) {
		m->src->filtered
			[idx]++; /* perf-sql's own samples (tracepoints: filtered in kernel) */
		return;
	}
	/* a process's mappings are read at its first stack, while it is alive */
	if (m->src->need_stack && s->stacks && u32set__add(&s->stack_pids, smp.pid))
		s->stacks->new_pid(s->stack_ctx, smp.pid);
	if (unwinds(s, m->src)) {
		smp.nr_stack = s->stacks->user_stack(s->stack_ctx, &smp, chain, sizeof(chain) / 8);
		smp.stack = chain;
	}
	if (!m->src->need_regs) /* taken for unwinding only */
		smp.regs = NULL;
	ret = window__append(m->src->win, idx, &smp, m->src->need_stack);
	if (ret == 0)
		m->src->received[idx]++;
	else
		m->src->dropped[idx]++;
}

static void release_held(void *ctx, const void *record) { handle_sample(ctx, record, true); }

/* PERF_RECORD_CGROUP: u64 id, the path from the hierarchy's root (NUL-padded), then the
 * sample_id trailer (tid, time, identifier: 24 bytes); a record of another hierarchy than v2
 * never comes (the kernel writes them for the default hierarchy only) */
static void side_cgroup(struct session *s, const union perf_event *ev, const uint8_t *end)
{
	const char *path = (const char *)ev + sizeof(ev->header) + 8;
	char norm[4096];
	uint64_t id;
	size_t max;

	if (!s->cgroups || ev->header.size < sizeof(ev->header) + 8 + 24 + 1)
		return;
	memcpy(&id, (const uint8_t *)ev + sizeof(ev->header), 8);
	max = (size_t)(end - 24 - (const uint8_t *)path);
	if (!memchr(path, 0, max))
		return;
	cgroup_path__normalize(path, norm, sizeof(norm));
	cgroup_map__set(s->cgroups, id, norm);
}

static void handle_side(struct session *s, const union perf_event *ev)
{
	const uint8_t *end = (const uint8_t *)ev + ev->header.size;
	struct id_map *m;
	uint64_t time = 0;

	if (ev->header.size >= sizeof(ev->header) + 24)
		memcpy(&time, end - 16, 8); /* sample_id trailer: tid, time, identifier */
	s->tree.nr_side += ev->header.type == PERF_RECORD_FORK ||
			   ev->header.type == PERF_RECORD_EXIT ||
			   ev->header.type == PERF_RECORD_COMM;
	switch (ev->header.type) {
	case PERF_RECORD_COMM:
		if (s->comms)
			comm_map__set(s->comms, ev->comm.tid, time, ev->comm.comm);
		if (ev->header.misc & PERF_RECORD_MISC_COMM_EXEC) {
			tree__exec(&s->tree, ev->comm.tid, time);
			tree__set_pid(&s->tree, ev->comm.tid, ev->comm.pid);
		}
		if ((ev->header.misc & PERF_RECORD_MISC_COMM_EXEC) && s->stacks &&
		    ev->comm.pid == ev->comm.tid) /* a new program: its old mappings are gone */
			s->stacks->mmap(s->stack_ctx, ev->comm.pid, 0, 0, 0, NULL);
		break;
	case PERF_RECORD_MMAP2:
		if (s->stacks)
			s->stacks->mmap(s->stack_ctx, ev->mmap2.pid, ev->mmap2.start, ev->mmap2.len,
					ev->mmap2.pgoff, ev->mmap2.filename);
		break;
	case PERF_RECORD_FORK:
		if (s->comms)
			comm_map__fork(s->comms, ev->fork.ptid, ev->fork.tid, ev->fork.time);
		if (s->tree.active) { /* the sideband lives in the tree's tasks only */
			tree__fork(&s->tree, ev->fork.tid, ev->fork.time);
			tree__set_pid(&s->tree, ev->fork.tid, ev->fork.pid);
		}
		break;
	case PERF_RECORD_CGROUP: side_cgroup(s, ev, end); break;
	case PERF_RECORD_LOST: /* tables: counted through the kernel's event counts instead */
		m = find_id(s, ev->lost.id);
		if (m && !m->src) /* the sideband's own: forks may be missed */
			s->tree.lost_side += ev->lost.lost;
		break;
	default: break;
	}
}

void ring__handle(struct session *s, const union perf_event *ev)
{
	if (ev->header.type == PERF_RECORD_SAMPLE)
		handle_sample(s, ev, false);
	else
		handle_side(s, ev);
}

/*
 * No perf_mmap__read_done(): it is for overwrite rings, and sets the next read's start to the
 * head as it is then. Here a record the kernel published after the last read_event() found
 * none would be stepped over, never read and never counted lost (the tail never passed it):
 * one call in tens of thousands of a busy ring. read_event() already leaves the start after
 * the last record read, and consume() gives that space back.
 */
static void drain_one(struct session *s, struct perf_evlist *evlist)
{
	struct perf_mmap *map;
	union perf_event *ev;

	perf_evlist__for_each_mmap(evlist, map, false)
	{
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			ring__handle(s, mmap__whole_event(map, ev));
			perf_mmap__consume(map);
		}
	}
}

/* The sideband's ring is the last evlist: read after every table's ring (core/tree.c (2)). */
static void ring_drain(struct session *s)
{
	for (int i = 0; i < s->nr_evlists; i++)
		drain_one(s, s->evlists[i]);
	tree__release(&s->tree, release_held, s);
}

/*
 * Counts from the kernel, read before the last drain of a window: val (events that happened,
 * children of an inherited event included) and lost (PERF_FORMAT_LOST, this fd only).
 */
static void ring_read_counts(struct session *s)
{
	int nthr = s->threads ? perf_thread_map__nr(s->threads) : 0;

	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		src->enabled_ns = src->running_ns = 0; /* cumulative, summed over CPUs */
		for (int c = 0; c < s->nr_cpus; c++) {
			uint64_t val = 0, lost = 0;

			for (int t = 0; t < nthr; t++) {
				struct perf_counts_values v = { 0 };

				if (src->evsel && !perf_evsel__read(src->evsel, c, t, &v)) {
					val += v.val;
					lost += v.lost;
					src->enabled_ns += v.ena;
					src->running_ns += v.run;
				}
			}
			src->count_seen[c] = val;
			src->lost_samples[c] = lost;
		}
	}
}

/*
 * Lost in this window = events the kernel counted - events received - losses already
 * reported, all cumulative. Counts were read before the final drain, so every counted event
 * is either received or lost by now; events after the read can only make this low for one
 * window, never high, and the next window catches up. Inherited children's losses are
 * included (PERF_FORMAT_LOST alone misses them; LOST records come late or never).
 */
void session__account_lost(struct session *s)
{
	if (s->tree.active) { /* the tree's own records: a lost fork is a task missed */
		session__extra_add(s, s->tree.stat, s->tree.nr_side, s->tree.lost_side);
		s->tree.nr_side = s->tree.lost_side = 0;
	}
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		if (src->bpf) { /* received and lost read by its BPF source (bpf/table.c) */
			for (int c = 0; c < s->nr_cpus; c++) {
				src->total_received += src->received[c];
				src->total_lost += src->lost[c];
			}
			continue;
		}
		for (int c = 0; c < s->nr_cpus; c++) {
			/* the ring's own losses (PERF_FORMAT_LOST: children's included) and refusals */
			src->lost_ring[c] =
				src->lost_samples[c] - src->lost_ring_all[c] + src->dropped[c];
			src->lost_ring_all[c] = src->lost_samples[c];
			if (src->counting) /* nothing to lose: this window's rows are the count */
				src->received[c] = src->count_seen[c] - src->received_all[c];
			if (!src->counting && (src->period_used != 1 || src->user_str)) {
				/* sampled every N events or at a frequency, or written by a BPF program
				 * (an output event counts nothing): the count is not a number of samples,
				 * so the kernel's PERF_FORMAT_LOST is the measure */
				src->lost[c] = src->lost_ring[c];
				src->lost_all[c] = src->lost_samples[c];
				src->total_lost += src->lost[c];
				src->total_received += src->received[c];
				continue;
			}
			uint64_t got = src->received_all[c] + src->received[c] + src->dropped[c] +
				       src->filtered[c];
			uint64_t missing = src->count_seen[c] > got ? src->count_seen[c] - got : 0;

			src->lost[c] = missing > src->lost_all[c] ? missing - src->lost_all[c] : 0;
			src->lost[c] += src->dropped[c];
			src->lost_all[c] += src->lost[c] - src->dropped[c];
			src->received_all[c] +=
				src->received[c] + src->dropped[c] + src->filtered[c];
			src->total_lost += src->lost[c];
			src->total_received += src->received[c];
			if (src->lost_ring[c] >
			    src->lost[c]) /* counted lost before its count read */
				src->lost_ring[c] = src->lost[c];
		}
	}
}

const struct event_source_ops ring_source = {
	.name = "perf rings",
	.open = events__open,
	.enable = events__enable,
	.disable = events__disable,
	.drain = ring_drain,
	.read_counts = ring_read_counts,
	.release = events__release,
	.close = events__close,
};
