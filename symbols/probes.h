/*
 * symbols/probes.h - tables made from the command line: uprobes/uretprobes on a function of a
 * binary (through the uprobe PMU, so nothing is left in tracefs if perf-sql dies) and hardware
 * breakpoints on an address or a symbol.
 */
#ifndef PERF_SQL_PROBES_H
#define PERF_SQL_PROBES_H
#include <stdbool.h>
#include "core/catalog.h"
#include "core/err.h"

/* "FUNC@BINARY" -> table uprobe_FUNC (uretprobe_FUNC when ret); 0 or -errno */
int probes__add_uprobe(struct catalog *c, const char *spec, bool ret, struct err *e);
/* "PROVIDER:NAME@BINARY" -> table usdt_NAME (a uprobe at the probe, args from its spec) */
int probes__add_usdt(struct catalog *c, const char *spec, struct err *e);
/* "ADDR|SYMBOL[@BINARY][/LEN][:rwx]" -> table breakpoint, breakpoint2, ... (4 at most); a bare
 * SYMBOL is looked up in workload (the command's binary) */
int probes__add_breakpoint(struct catalog *c, const char *spec, const char *workload, int nth,
			   struct err *e);
#endif
