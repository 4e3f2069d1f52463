/*
 * symbols/probes.c - uprobe and breakpoint tables (see symbols/probes.h).
 *
 * (1) uprobe: perf_event_attr type = /sys/bus/event_source/devices/uprobe/type, config1 = the
 *     binary's path, config2 = the function's file offset (ELF st_value -> PT_LOAD offset),
 *     config bit 0 = return probe. Arguments are read from sampled user registers.
 * (2) breakpoint: PERF_TYPE_BREAKPOINT, bp_addr from a hex address or an ELF symbol, bp_len
 *     1/2/4/8 (default 8; execute breakpoints take sizeof(long)), bp_type from r, w, x.
 * (3) Names are checked first: one clear line for a missing binary, function or symbol.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "core/tracefs.h"
#include "symbols/probes.h"
#include "symbols/symbols.h"
#include "symbols/usdt.h"

/* a command name as execvp would find it */
static bool find_binary(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	struct stat st;

	if (!*name)
		return false;
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK) == 0;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
		if (access(buf, X_OK) == 0 && !stat(buf, &st) && S_ISREG(st.st_mode)) {
			snprintf(out, len, "%s", buf);
			return true;
		}
		path += n + (path[n] == ':');
	}
	return false;
}

static int uprobe_pmu_type(struct err *e)
{
	char *buf = NULL;
	int ret = read_file("/sys/bus/event_source/devices/uprobe/type", &buf, NULL), type;

	if (ret) {
		err_set(e, ret, "uprobes: this kernel has no uprobe PMU");
		return err_hint(e, "it needs CONFIG_UPROBE_EVENTS");
	}
	type = atoi(buf);
	free(buf);
	return type;
}

int probes__add_uprobe(struct catalog *c, const char *spec, bool ret, struct err *e)
{
	char func[128], binary[PATH_MAX], path[PATH_MAX], name[160];
	const char *at = strchr(spec, '@');
	struct tp_event *ev;
	uint64_t off;
	int type;

	if (!at || at == spec || !at[1] || (size_t)(at - spec) >= sizeof(func)) {
		err_set(e, -EINVAL, "--%s '%s': expected FUNC@BINARY", ret ? "uretprobe" : "uprobe",
			spec);
		err_hint(e, "e.g. --uprobe malloc@/lib/x86_64-linux-gnu/libc.so.6");
		return err_usage(e);
	}
	snprintf(func, sizeof(func), "%.*s", (int)(at - spec), spec);
	snprintf(binary, sizeof(binary), "%s", at + 1);
	if (!find_binary(binary, path, sizeof(path)) || !realpath(path, binary))
		return err_set(e, -ENOENT, "--uprobe %s: no such binary '%s'", spec, at + 1);
	off = symbols__elf_file_offset(binary, func);
	if (!off) {
		err_set(e, -ENOENT, "--uprobe %s: no function '%s' in %s", spec, func, binary);
		return err_hint(e, "list its functions with: nm -D --defined-only %s", binary);
	}
	if ((type = uprobe_pmu_type(e)) < 0)
		return type;
	snprintf(name, sizeof(name), "%s_%s", ret ? "uretprobe" : "uprobe", func);
	ev = catalog__add(c, ret ? "uretprobe" : "uprobe", name, EV_UPROBE, e);
	if (!ev)
		return e->code;
	ev->pmu_type = (uint32_t)type;
	ev->pmu_config = ret ? 1 : 0;
	ev->pmu_config2 = off;
	for (int k = 0; k < 6; k++) /* the x86-64 ABI: di si dx cx r8 r9 */
		ev->arg_reg[k] = (int8_t)(int[]){ 5, 4, 3, 2, 16, 17 }[k];
	ev->probe_path = strdup(binary);
	if (!ev->probe_path)
		return err_set(e, -ENOMEM, "out of memory");
	catalog__resort(c); /* ev is stale from here */
	return 0;
}

static int bp_type_of(const char *rwx)
{
	int t = 0;

	for (; *rwx; rwx++) {
		if (*rwx == 'r')
			t |= HW_BREAKPOINT_R;
		else if (*rwx == 'w')
			t |= HW_BREAKPOINT_W;
		else if (*rwx == 'x')
			t |= HW_BREAKPOINT_X;
		else
			return -1;
	}
	/* the CPU watches reads only together with writes */
	return t == HW_BREAKPOINT_R ? HW_BREAKPOINT_RW : t;
}

int probes__add_breakpoint(struct catalog *c, const char *spec, const char *workload, int nth,
			   struct err *e)
{
	char target[256] = "", rwx[8] = "w", binary[PATH_MAX], name[32], *end;
	unsigned len = 8;
	const char *p = spec;
	char *at;
	uint64_t addr;
	struct tp_event *ev;
	int type;

	if (nth >= 4)
		return err_set(e, -ENOSPC,
			       "--breakpoint %s: at most 4 hardware breakpoints (the CPU "
			       "has 4 debug registers)",
			       spec);
	/* suffixes are read from the end, so a binary's path may hold '/' too */
	snprintf(target, sizeof(target), "%s", p);
	if ((end = strrchr(target, ':')) && end[1] && strspn(end + 1, "rwx") == strlen(end + 1)) {
		snprintf(rwx, sizeof(rwx), "%.7s", end + 1);
		*end = '\0';
	}
	if ((end = strrchr(target, '/')) && end[1] &&
	    strspn(end + 1, "0123456789") == strlen(end + 1)) {
		len = (unsigned)strtoul(end + 1, NULL, 10);
		*end = '\0';
	}
	type = bp_type_of(rwx);
	if (!target[0] || type < 0 || (len != 1 && len != 2 && len != 4 && len != 8)) {
		err_set(e, -EINVAL, "--breakpoint '%s': expected ADDR|SYMBOL[@BINARY][/LEN][:rwx]",
			spec);
		err_hint(e, "LEN is 1, 2, 4 or 8; e.g. --breakpoint counter/8:w -- ./app");
		return err_usage(e);
	}
	addr = strtoull(target, &end, 0);
	if (*end) { /* a symbol */
		at = strchr(target, '@');
		if (at)
			*at = '\0';
		if (!(at ? at[1] : workload && *workload) ||
		    !find_binary(at ? at + 1 : workload, binary, sizeof(binary))) {
			err_set(e, -ENOENT,
				"--breakpoint %s: no binary to find '%s' in; give SYMBOL@BINARY or "
				"run a workload after --",
				spec, target);
			return err_usage(e);
		}
		addr = symbols__elf_address(binary, target, NULL);
		if (!addr)
			return err_set(e, -ENOENT, "--breakpoint %s: no symbol '%s' in %s", spec,
				       target, binary);
	}
	snprintf(name, sizeof(name), nth ? "breakpoint%d" : "breakpoint", nth + 1);
	ev = catalog__add(c, "breakpoint", name, EV_BREAKPOINT, e);
	if (!ev)
		return e->code;
	ev->pmu_type = PERF_TYPE_BREAKPOINT;
	ev->pmu_config1 = addr;
	ev->bp_type = (uint32_t)type;
	ev->bp_len = type & HW_BREAKPOINT_X ? sizeof(long) : len;
	catalog__resort(c);
	return 0;
}

int probes__add_usdt(struct catalog *c, const char *spec, struct err *e)
{
	char provider[64] = "", name[64] = "", binary[PATH_MAX], path[PATH_MAX], table[96];
	const char *at = strchr(spec, '@');
	struct usdt_probe *probes = NULL, *p = NULL;
	struct tp_event *ev;
	int nr = 0, type, ret;

	if (!at || sscanf(spec, "%63[^:@]:%63[^@]", provider, name) != 2) {
		err_set(e, -EINVAL, "--usdt '%s': expected PROVIDER:NAME@BINARY", spec);
		err_hint(e, "list a binary's probes with: perf-sql --list-usdt BINARY");
		return err_usage(e);
	}
	if (!find_binary(at + 1, path, sizeof(path)) || !realpath(path, binary))
		return err_set(e, -ENOENT, "--usdt %s: no such binary '%s'", spec, at + 1);
	if ((ret = usdt__list(binary, &probes, &nr, e)))
		return ret;
	for (int i = 0; i < nr && !p; i++)
		if (!strcmp(probes[i].provider, provider) && !strcmp(probes[i].name, name))
			p = &probes[i];
	if (!p || !p->pc_offset) {
		free(probes);
		err_set(e, -ENOENT, "--usdt %s: no probe %s:%s in %s", spec, provider, name,
			binary);
		return err_hint(e, "list its probes with: perf-sql --list-usdt %s", binary);
	}
	if ((type = uprobe_pmu_type(e)) < 0) {
		free(probes);
		return type;
	}
	snprintf(table, sizeof(table), "usdt_%s", name);
	ev = catalog__add(c, "usdt", table, EV_UPROBE, e);
	if (!ev) {
		free(probes);
		return e->code;
	}
	ev->pmu_type = (uint32_t)type;
	/* a probe guarded by a semaphore: the kernel counts it up while the probe is on */
	ev->pmu_config = p->sema_offset << 32;
	ev->pmu_config2 = p->pc_offset;
	for (int k = 0; k < 6; k++) {
		int reg, size, sign;

		ev->arg_reg[k] = -1;
		if (!usdt__arg_reg(p->args, k, &reg, &size, &sign)) {
			ev->arg_reg[k] = (int8_t)reg;
			ev->arg_size[k] = (uint8_t)size;
			ev->arg_signed[k] = sign;
		}
	}
	free(probes);
	ev->probe_path = strdup(binary);
	if (!ev->probe_path)
		return err_set(e, -ENOMEM, "out of memory");
	catalog__resort(c); /* ev is stale from here */
	return 0;
}
