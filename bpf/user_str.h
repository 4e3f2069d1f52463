/*
 * bpf/user_str.h - user strings of system calls: the text a `const char *` argument of a
 * syscalls:sys_enter_* event points to, copied at the time of the call (docs/bpf.md).
 *
 *   user_str__load(s, src, attach, e)   planning: maps, program loaded and attached
 *   (the ring opens src as a BPF output event on every CPU; user_str_source's open puts
 *   those fds in the program's perf event array)
 *   user_str__get(ev, k, raw, ...)      a row's string k (vtab/tp_table.c: NAME_str)
 *
 * (1) The program, on the tracepoint, per call: leaves out perf-sql's own process; builds
 *     the event's record as the tracepoint writes it (common_type, common_pid = the thread,
 *     __syscall_nr, the arguments) in a per-CPU scratch value; copies each user string
 *     (bpf_probe_read_user_str, at most USER_STR_MAX bytes); and writes record and strings
 *     as one sample of this CPU's output event (bpf_perf_event_output). The kernel stamps
 *     that sample's time, pid, tid and cpu as it stamps the tracepoint's (the perf clock,
 *     the task that runs), so each string is joined to its own event, with no race.
 * (2) It returns 1: the tracepoint's other perf users see every event.
 * (3) Its fds are perf-sql's (the program is attached to a disabled perf event of the
 *     tracepoint): it is detached when the process ends, however it ends.
 * (4) After the record (rounded to 8 bytes), string k is USER_STR_SLOT bytes: the helper's
 *     s64 result (the length with the NUL, or -errno), then the bytes.
 */
#ifndef PERF_SQL_BPF_USER_STR_H
#define PERF_SQL_BPF_USER_STR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/catalog.h"
#include "core/err.h"
#include "core/event_source.h"

struct session;
struct source;

#define USER_STR_MAX 256 /* bytes of a string kept: a longer one is cut to its first 256 */
#define USER_STR_SLOT (8 + ((USER_STR_MAX + 1 + 7) / 8) * 8)
#define USER_STR_FIELDS 6

/* Whether field f of ev is a user string: a `const char *` argument of a system call's entry,
 * but a byte buffer with its length (write's buf, count). */
bool user_str__field(const struct tp_event *ev, const struct tp_field *f);
/* f's index among ev's user strings, or -1. */
int user_str__index(const struct tp_event *ev, const struct tp_field *f);
/* String k of a record written by the program: false (NULL) when the record has none or the
 * pointer could not be read (NULL, unmapped, or a page not in memory at the call). */
bool user_str__get(const struct tp_event *ev, int k, const void *raw, size_t raw_size,
		   const char **out, size_t *len_out);

struct user_str_prog {
	struct source *src;
	int array_fd, scratch_fd, prog_fd, perf_fd;
	int nr_insns, nr_strs, size;
	uint32_t prog_id;
	char *listing; /* loaded, not attached (--explain): the listing (bpf/listing.h) */
};

/* Loads src's program (and attaches it unless attach is false: --explain); 0 or -errno with
 * e set to one line. The session then has user_str_source among its event sources. */
int user_str__load(struct session *s, struct source *src, bool attach, struct err *e);
/* src's program built, not loaded (a capture, --kernel-facts: --explain), leaving out process
 * self: its listing (malloc'd, bpf/listing.h) and size; 0 or -errno with e set. */
int user_str__list(struct source *src, uint32_t self, char **listing_out, int *nr_insns,
		   struct err *e);
/* src's program, or NULL. */
const struct user_str_prog *user_str__of(const struct session *s, const struct source *src);

extern const struct event_source_ops user_str_source;
#endif
