/*
 * tests/unit/test_lost_warning.c - the lost-events warning names each cause with its own
 * remedy (engine/query.c query__lost_warning()): -m or WHERE for the ring, --max-memory for
 * refused rows, --max-groups for a full BPF map, --no-bpf for runs the kernel skipped, and nothing for events the kernel counted and
 * never wrote (docs/reliability.md).
 */
#include <string.h>
#include <stdio.h>
#include "engine/bpf_plan.h"
#include "engine/query.h"
#include "tests/unit/t.h"

static char full[] = "sched:sched_wakeup";
static struct tp_event ev = { .full = full };
static uint64_t lost[2], dropped[2], lost_ring[2], nostack; /* of the BPF stack map */
static uint64_t skipped; /* runs the kernel skipped (bpf/table.h (4)) */
static struct source src = { .ev = &ev, .lost = lost, .dropped = dropped, .lost_ring = lost_ring };
static struct session s = { .nr_cpus = 2, .opts = { .mmap_pages = 64 } };

static const char *warn(uint64_t l0, uint64_t l1, uint64_t r0, uint64_t r1, uint64_t d0)
{
	static char buf[640];

	lost[0] = l0, lost[1] = l1, lost_ring[0] = r0, lost_ring[1] = r1, dropped[0] = d0;
	dropped[1] = 0;
	query__lost_warning(&s, &src, 0, nostack, skipped, buf, sizeof(buf));
	return buf;
}

static void test_ring(void)
{
	const char *w = warn(3, 4, 3, 4, 0);

	T(!strcmp(w, "warning: sched:sched_wakeup lost 7 events in this window; raise -m (now 64 "
		     "pages) or filter more in WHERE"),
	  "ring only: %s", w);
	T(!strcmp(warn(0, 0, 0, 0, 0), ""), "nothing lost, no warning");
}

static void test_unwritten(void)
{
	const char *w = warn(5, 6, 0, 0, 0);

	T(!strstr(w, "raise -m"), "kernel-side loss only: no -m advice: %s", w);
	T(strstr(w, "warning: sched:sched_wakeup lost 11 events in this window: the kernel "
		    "counted them and never wrote them") == w,
	  "kernel-side loss named: %s", w);
	w = warn(5, 6, 2, 1, 0);
	T(!strcmp(w, "warning: sched:sched_wakeup lost 11 events in this window; raise -m (now 64 "
		     "pages) or filter more in WHERE for the ones the ring had no room for; the "
		     "other 8 the kernel counted and never wrote (no -m brings those back)"),
	  "both: %s", w);
}

/* an idle machine's loss of never-written events, every window: said the first time, then
 * summed and said once at the end; a window with ring losses is said as it comes */
static void test_repeats(void)
{
	char buf[256];
	struct source r = src;

	lost[0] = 5, lost[1] = 6, lost_ring[0] = lost_ring[1] = dropped[0] = dropped[1] = 0;
	T(!query__lost_again(&r, &s), "the first window's never-written loss is said");
	T(query__lost_again(&r, &s), "the second's is not");
	lost[1] = 0;
	T(query__lost_again(&r, &s), "nor the third's");
	lost_ring[0] = 2;
	T(!query__lost_again(&r, &s), "a window that lost in the ring is said");
	lost[0] = lost[1] = lost_ring[0] = 0;
	T(!query__lost_again(&r, &s), "a window without a loss: nothing to keep quiet");
	query__lost_repeats(&r, buf, sizeof(buf));
	T(!strcmp(buf, "warning: sched:sched_wakeup lost 16 more events in later windows, all of "
		       "them counted by the kernel and never written, as said above "
		       "(perf_sql_stats has each window's)"),
	  "the end's line sums the quiet windows: %s", buf);
	query__lost_repeats(&src, buf, sizeof(buf));
	T(!buf[0], "nothing kept quiet, no line: %s", buf);
}

static void test_memory_and_bpf(void)
{
	const char *w = warn(10, 0, 10, 0, 10);
	char want[512];

	T(!strcmp(w, "warning: sched:sched_wakeup lost 10 events in this window, 10 of them past "
		     "--max-memory (256 MiB); raise --max-memory, use -i, or filter more in WHERE"),
	  "refused past --max-memory: %s", w);
	src.bpf = true;
	w = warn(4, 0, 0, 0, 0);
	snprintf(want, sizeof(want),
		 "warning: sched:sched_wakeup: 4 events of this window found the BPF map full and "
		 "were not aggregated; raise --max-groups (now %d)",
		 BPF_DEFAULT_MAX_GROUPS);
	T(!strcmp(w, want), "BPF map full: %s", w);
	nostack = 4;
	w = warn(4, 0, 0, 0, 0);
	snprintf(want, sizeof(want),
		 "warning: sched:sched_wakeup: 4 events of this window had a call chain the BPF "
		 "stack map could not take (full) and were not aggregated; raise --max-groups "
		 "(now %d)",
		 BPF_DEFAULT_MAX_GROUPS);
	T(!strcmp(w, want), "BPF stack map: %s", w);
	w = warn(5, 1, 0, 0, 0);
	snprintf(want, sizeof(want),
		 "warning: sched:sched_wakeup: 2 events of this window found the BPF map full and "
		 "were not aggregated, 4 more had a call chain the BPF stack map could not take "
		 "(full) and were not aggregated; raise --max-groups (now %d)",
		 BPF_DEFAULT_MAX_GROUPS);
	T(!strcmp(w, want), "both BPF maps: %s", w);
	nostack = 0;
	src.bpf = false;
}

/* runs the kernel skipped: alone, and after a full map (the rest of lost) */
static void test_skipped(void)
{
	const char *w;
	char want[640];

	src.bpf = true;
	skipped = 3;
	w = warn(3, 0, 0, 0, 0);
	T(!strcmp(w, "warning: sched:sched_wakeup: 3 events of this window were not aggregated: "
		     "the kernel did not run the program (another BPF program or a BPF map call "
		     "held the CPU); --no-bpf counts on the perf ring"),
	  "skipped only: %s", w);
	w = warn(3, 2, 0, 0, 0);
	snprintf(want, sizeof(want),
		 "warning: sched:sched_wakeup: 2 events of this window found the BPF map full and "
		 "were not aggregated; raise --max-groups (now %d); 3 more were not aggregated: "
		 "the kernel did not run the program (another BPF program or a BPF map call held "
		 "the CPU); --no-bpf counts on the perf ring",
		 BPF_DEFAULT_MAX_GROUPS);
	T(!strcmp(w, want), "full map and skipped: %s", w);
	skipped = 0;
	src.bpf = false;
}

/* a replay: losses of the recording, rows past --max-memory in this replay, or both */
static void test_replay(void)
{
	int dummy;
	const char *w;

	s.replay = &dummy;
	w = warn(3, 4, 0, 0, 0);
	T(!strcmp(w, "warning: sched:sched_wakeup lost 7 events in this window when it was "
		     "recorded"),
	  "recorded losses: %s", w);
	s.opts.max_memory = 4096;
	w = warn(5, 0, 0, 0, 5);
	T(!strcmp(w, "warning: sched:sched_wakeup: 5 rows of this window were past --max-memory "
		     "(4 KiB) in this replay and not kept (counted as lost); raise --max-memory, "
		     "replay with -i (a recorded window at a time), or filter more in WHERE"),
	  "past --max-memory: %s", w);
	s.opts.max_memory = 0;
	w = warn(9, 1, 0, 0, 6);
	T(!strcmp(w,
		  "warning: sched:sched_wakeup lost 4 events in this window when it was "
		  "recorded; 6 more rows of this window were past --max-memory (256 MiB) in this "
		  "replay and not kept (counted as lost); raise --max-memory, replay with -i (a "
		  "recorded window at a time), or filter more in WHERE"),
	  "both: %s", w);
	s.replay = NULL;
}

int main(void)
{
	RUN(test_ring);
	RUN(test_unwritten);
	RUN(test_repeats);
	RUN(test_memory_and_bpf);
	RUN(test_skipped);
	RUN(test_replay);
	return t_done("lost_warning");
}
