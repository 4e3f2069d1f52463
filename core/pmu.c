/*
 * core/pmu.c - the perf PMU events as catalog entries: every generic software, hardware and
 * cache event becomes a table (cpu_clock, page_faults, cycles, l1d_read_miss, ...).
 *
 * (1) One static table of (name, type, config); cache events are the perf_event_attr
 *     encoding id | op << 8 | result << 16 of the generic cache events.
 * (2) Whether the machine can open one is only known at open time: a VM without a PMU says
 *     ENOENT for cycles, turned into "not supported by this CPU/VM; try cpu_clock".
 */
#include <stdio.h>
#include <linux/perf_event.h>
#include "core/catalog.h"

static const struct {
	const char *name;
	enum event_kind kind;
	uint32_t type;
	uint64_t config;
} pmu_events[] = {
	{ "cpu_clock", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task_clock", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page_faults", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor_faults", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major_faults", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context_switches", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu_migrations", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment_faults", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation_faults", EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cycles", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache_references", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache_misses", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch_instructions", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch_misses", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus_cycles", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled_cycles_frontend", EV_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled_cycles_backend", EV_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref_cycles", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
#define CACHE(id, op, res) \
	((uint64_t)PERF_COUNT_HW_CACHE_##id | (uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)
	{ "l1d_read_access", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS) },
	{ "l1d_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS) },
	{ "l1d_write_access", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS) },
	{ "l1i_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS) },
	{ "llc_read_access", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS) },
	{ "llc_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS) },
	{ "llc_write_access", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS) },
	{ "llc_write_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, MISS) },
	{ "dtlb_read_access", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, ACCESS) },
	{ "dtlb_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, MISS) },
	{ "itlb_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS) },
	{ "branch_read_miss", EV_CACHE, PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS) },
#undef CACHE
};

int pmu__add_events(struct catalog *c, struct err *e)
{
	for (size_t i = 0; i < sizeof(pmu_events) / sizeof(pmu_events[0]); i++) {
		struct tp_event *ev = catalog__add(c, event_kind_name(pmu_events[i].kind),
						   pmu_events[i].name, pmu_events[i].kind, e);

		if (!ev)
			return e->code;
		ev->pmu_type = pmu_events[i].type;
		ev->pmu_config = pmu_events[i].config;
	}
	return 0;
}
