/*
 * core/bp_probe.h - whether hardware breakpoints fire on this machine (core/bp_probe.c).
 */
#ifndef PERF_SQL_BP_PROBE_H
#define PERF_SQL_BP_PROBE_H

/* Hits counted for a write breakpoint on a store of our own written 16 times: 16 where
 * breakpoints work, 0 where the machine delivers none; -errno if one cannot be opened. */
int bp_probe__hits(void);
#endif
