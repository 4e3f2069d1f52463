/*
 * core/catalog.h - every tracepoint on this machine, by name; formats parsed lazily.
 */
#ifndef PERF_SQL_CATALOG_H
#define PERF_SQL_CATALOG_H
#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"

enum field_kind {
	FIELD_INT,      /* signed or unsigned integer of 1, 2, 4 or 8 bytes */
	FIELD_STR,      /* char name[N]: TEXT up to the first NUL */
	FIELD_BLOB,     /* other fixed arrays */
	FIELD_DYN_STR,  /* __data_loc / __rel_loc char[] */
	FIELD_DYN_BLOB, /* __data_loc / __rel_loc other arrays */
};

struct tp_field {
	const char *name; /* borrowed from libtraceevent */
	const char *type; /* "pid_t", "char[16]", "__data_loc char[]" */
	int offset, size;
	enum field_kind kind;
	bool is_signed;
	bool is_relative; /* __rel_loc: offset counts from the end of the field */
};

enum event_kind {
	EV_TRACEPOINT,
	EV_SOFTWARE,   /* cpu_clock, page_faults, ... */
	EV_HARDWARE,   /* cycles, instructions, ... (not in a VM without a PMU) */
	EV_CACHE,      /* l1d_read_miss, ... */
	EV_UPROBE,     /* --uprobe FUNC@BINARY */
	EV_BREAKPOINT, /* --breakpoint ADDR|SYMBOL */
	EV_RAW,        /* a sysfs PMU event: "cpu/mem-loads/", "msr/tsc/" */
};

struct tp_event {
	char *system, *name, *full; /* "sched", "sched_switch", "sched:sched_switch" */
	enum event_kind kind;
	uint32_t pmu_type; /* perf_event_attr type/config of a non-tracepoint */
	uint64_t pmu_config, pmu_config1, pmu_config2;
	uint32_t bp_type, bp_len; /* breakpoints */
	char *probe_path;         /* uprobes: the binary (config1 points at it) */
	int8_t arg_reg[6];        /* uprobes/USDT: perf register of arg0..arg5 (-1: none) */
	uint8_t arg_size[6];      /* USDT: bytes of each argument (0: all 8) */
	bool arg_signed[6];
	char *format_text; /* tracepoints, once parsed: kept for captures */
	void *tep_event;   /* struct tep_event *, once parsed (print fmt symbols) */
	bool short_unique; /* no other system has an event of this name */
	bool parsed;
	bool cgroup_rows; /* a capture's table: its rows end with a cgroup id (core/window.h) */
	int id;           /* tracepoint id (PERF_TYPE_TRACEPOINT config), after parse */
	int nr_fields;
	struct tp_field *fields; /* the event's own fields (common_* left out) */
	const char *print_fmt;
};

struct catalog;

struct catalog *catalog__new(const char *tracefs, struct err *e);
void catalog__free(struct catalog *c);
int catalog__nr_events(const struct catalog *c);
struct tp_event *catalog__event(struct catalog *c, int idx);
/* "sched_switch" or "sched:sched_switch" ("sched/sched_switch" too); NULL when unknown */
struct tp_event *catalog__find(struct catalog *c, const char *name);
/* A catalog with no tracefs behind it (replaying a capture): events come from catalog__add. */
struct catalog *catalog__new_offline(struct err *e);
/* Parses ev's format from text (a capture's copy); 0 or -errno with e set. */
int catalog__parse_text(struct catalog *c, struct tp_event *ev, const char *text, size_t len,
			struct err *e);
/* Reads id and format of ev (once); 0 or -errno with e set. */
int catalog__parse(struct catalog *c, struct tp_event *ev, struct err *e);
/* Up to 3 closest names to a misspelt one, ", "-separated, in buf ("" when none is close). */
void catalog__suggest(struct catalog *c, const char *name, char *buf, size_t len);
/* Adds a non-tracepoint event (PMU, probe, breakpoint); its full name is system:name. */
struct tp_event *catalog__add(struct catalog *c, const char *system, const char *name,
			      enum event_kind kind, struct err *e);
/* Re-sorts after catalog__add(): event pointers taken before are stale. */
void catalog__resort(struct catalog *c);
/* The generic software, hardware and cache events and this machine's sysfs PMU events
 * (core/pmu.c); the generic ones only (any kernel has them). */
int pmu__add_events(struct catalog *c, struct err *e);
int pmu__add_generic(struct catalog *c, struct err *e);
const char *event_kind_name(enum event_kind kind);
/* The event among the parsed ones whose print fmt maps field through __print_symbolic
 * (flags false) or __print_flags (flags true): its struct tep_print_arg *, or NULL. */
const void *catalog__print_arg(struct catalog *c, const char *field, bool flags);
#endif
