/*
 * render/pprof.h - -f pprof: a query's rows as a pprof profile (profile.proto, gzip'd), the format
 * `go tool pprof`, Pyroscope, Parca and Grafana read (docs/pprof.md).
 *
 *   perf-sql -f pprof -o cpu.pb.gz "SELECT stack, count(*) AS samples FROM cpu_clock
 *                                  GROUP BY stack" -- ./app
 *
 * (1) A row is a sample when a column holds a stack (symbols/stack.h: a table's stack column,
 *     or GROUP BY stack); the first such column is its stack, leaf first in the profile. Rows
 *     without one are counted and left out; every window's rows add up (-i).
 * (2) Every other column is a sample type or a label, by name over the whole run: a column
 *     named comm, pid, tid, cpu, cgroup, cgroup_id (or _comm, _pid, _cgroup, ...), or ending in
 *     pid or tid, is a label;
 *     else a numeric column is a sample type (REAL rounded), and a TEXT column is a label
 *     unless every value is a duration as dur() writes it ("1.23ms": then a sample type in
 *     nanoseconds, as dur() rounded it). NULLs count 0; other BLOBs are left out.
 * (3) A sample type is named after its column; its unit from the name: *_ns nanoseconds,
 *     *_us microseconds, *_ms milliseconds, *_s seconds, *bytes bytes; else count.
 * (4) The stack's task gives the labels comm and pid when no column is so named.
 * (5) A location is an address of a mapping (path, build ID, bounds and file offset, so that
 *     pprof can symbolize it again): a return address minus one, the call, as perf-sql
 *     symbolizes it; kernel frames are in the mapping [kernel.kallsyms]. Its lines are
 *     perf-sql's symbolization: the function, with its source file and line where DWARF has
 *     them, and with --inline the inlined functions first, as pprof's inline lines. A frame
 *     perf-sql cannot name has no line (pprof shows its address, or symbolizes it itself).
 * (6) A stack from a cpu_clock or task_clock table sampled at HZ gives, as Go's CPU profiles:
 *     period_type cpu/nanoseconds, period 1e9/HZ (or the table's period: ns of CPU time), and
 *     after the first sample type, when its
 *     unit is count, a type cpu/nanoseconds = that count x period. A capture (-r) does not
 *     keep the rate: no period then.
 * (7) time_nanos is the first window's start, duration_nanos the run's length; the sample
 *     type pprof shows first is the first column's (cpu when (6) adds it).
 */
#ifndef PERF_SQL_PPROF_H
#define PERF_SQL_PPROF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "core/err.h"

struct pprof;
struct session;
struct symbols;

struct pprof *pprof__new(void);
void pprof__free(struct pprof *p);
/* Before a window's statements: the session's symbols, --inline, the clock tables' rate (6),
 * the window's start (7). */
void pprof__window(struct pprof *p, struct session *s);
/* Steps st to its end, adding its rows (1)-(4); SQLITE_OK, SQLITE_NOMEM, or st's error. */
int pprof__statement(struct pprof *p, sqlite3_stmt *st);
/* The rows seen, and of them the samples (rows with a stack). */
void pprof__counts(const struct pprof *p, size_t *rows_out, size_t *samples_out);
/* The profile, gzip'd, in a malloc'd buffer: 0 or -ENOMEM. */
int pprof__encode(struct pprof *p, uint8_t **buf_out, size_t *len_out);
/* Before the run: may a profile be written to path (core/outfile.h), or, path NULL, to stdout
 * (not a terminal)? 0 or -errno with e set. */
int pprof__check(const char *path, struct err *e);
/* Writes the profile to path, whole or not at all, by core/outfile.h's rules; NULL: stdout
 * (refused on a terminal). 0 or -errno with e set. */
int pprof__save(struct pprof *p, const char *path, struct err *e);
#endif
