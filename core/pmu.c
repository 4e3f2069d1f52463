/*
 * core/pmu.c - the perf PMU events as catalog entries: every generic software, hardware and
 * cache event becomes a table (cpu_clock, page_faults, cycles, l1d_read_miss, ...).
 *
 * (1) One static table of (name, type, config); cache events are the perf_event_attr
 *     encoding id | op << 8 | result << 16 of the generic cache events.
 * (2) Whether the machine can open one is only known at open time: a VM without a PMU says
 *     ENOENT for cycles, turned into "not supported by this CPU/VM; try cpu_clock".
 * (3) sysfs PMU events (/sys/bus/event_source/devices/PMU/events/EVENT, e.g. "cpu/mem-loads/",
 *     "msr/tsc/") become tables too: their "event=0x..,umask=0x.." terms are placed into
 *     config words through the PMU's format/TERM bit ranges.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "core/catalog.h"
#include "core/tracefs.h"

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
	{ "branch_instructions", EV_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch_misses", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus_cycles", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled_cycles_frontend", EV_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled_cycles_backend", EV_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref_cycles", EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
#define CACHE(id, op, res)                                                                         \
	((uint64_t)PERF_COUNT_HW_CACHE_##id | (uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8 |         \
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

/* "config:0-7,21" -> which config word (0, 1, 2) and a value placed into its bits */
static int place(const char *format, uint64_t value, uint64_t *cfg)
{
	const char *p = strchr(format, ':');
	int word = !strncmp(format, "config1", 7) ? 1 : !strncmp(format, "config2", 7) ? 2 : 0;
	int shift = 0;

	while (p && *p) {
		int lo, hi, n = 0;

		p++;
		if (sscanf(p, "%d-%d%n", &lo, &hi, &n) != 2) {
			if (sscanf(p, "%d%n", &lo, &n) != 1)
				return -1;
			hi = lo;
		}
		for (int b = lo; b <= hi && b < 64; b++, shift++)
			if ((value >> shift) & 1)
				cfg[word] |= 1ull << b;
		p = strchr(p + n, ',');
	}
	return 0;
}

/* "event=0x3c,umask=0x00" with the PMU's format/TERM files -> config, config1, config2 */
static int parse_terms(const char *dir, const char *terms, uint64_t cfg[3])
{
	char term[64], path[700], *fmt;
	const char *p = terms;
	unsigned long long v;

	while (*p && *p != '\n') {
		int n = 0;

		if (sscanf(p, "%63[^=,\n]%n", term, &n) != 1)
			return -1;
		p += n;
		v = 1;
		if (*p == '=' && sscanf(p + 1, "%lli%n", &v, &n) == 1)
			p += 1 + n;
		snprintf(path, sizeof(path), "%s/format/%s", dir, term);
		if (read_file(path, &fmt, NULL))
			return -1;
		n = place(fmt, v, cfg);
		free(fmt);
		if (n)
			return -1;
		p += *p == ',';
	}
	return 0;
}

/* every /sys/bus/event_source/devices/PMU/events/EVENT (skipping .scale/.unit files) */
static int add_sysfs_events(struct catalog *c, struct err *e)
{
	const char *root = "/sys/bus/event_source/devices";
	DIR *devs = opendir(root), *evs;
	struct dirent *d, *ev;
	char dir[512], path[1024], *buf;

	while (devs && (d = readdir(devs))) {
		uint64_t type;

		if (d->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, d->d_name);
		snprintf(path, sizeof(path), "%s/type", dir);
		if (read_file(path, &buf, NULL))
			continue;
		type = strtoull(buf, NULL, 10);
		free(buf);
		snprintf(path, sizeof(path), "%s/events", dir);
		evs = opendir(path);
		while (evs && (ev = readdir(evs))) {
			uint64_t cfg[3] = { 0 };
			struct tp_event *t;

			if (ev->d_name[0] == '.' || strchr(ev->d_name, '.'))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s", dir, ev->d_name);
			if (read_file(path, &buf, NULL))
				continue;
			if (parse_terms(dir, buf, cfg)) { /* terms this parser cannot place: skip */
				free(buf);
				continue;
			}
			free(buf);
			t = catalog__add(c, d->d_name, ev->d_name, EV_RAW, e);
			if (!t) {
				closedir(evs);
				closedir(devs);
				return e->code;
			}
			t->pmu_type = (uint32_t)type;
			t->pmu_config = cfg[0];
			t->pmu_config1 = cfg[1];
			t->pmu_config2 = cfg[2];
		}
		if (evs)
			closedir(evs);
	}
	if (devs)
		closedir(devs);
	return 0;
}

int pmu__add_events(struct catalog *c, struct err *e)
{
	int ret = add_sysfs_events(c, e);

	return ret ? ret : pmu__add_generic(c, e);
}

int pmu__add_generic(struct catalog *c, struct err *e)
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
