-- trace: print every event of one table, in time order
-- needs: the tracepoint named by table=
-- param: table table NULL "the tracepoint to print: sched_switch, sched:sched_switch, ..."
-- param: comm text NULL "only events of tasks whose name matches this GLOB"
-- param: limit int -1 "print at most this many events per window; -1: all"
-- example: perf-sql trace table=sched_wakeup -i 1000
-- example: perf-sql trace table=sys_enter_openat -- ./app
-- Like perf-prof trace -e EVENT. With -i the events of each window print at its end.
-- On a syscalls:sys_enter_* table the NAME_str columns (filename_str, ...) print the strings
-- the call was given, copied at the call by a BPF program (docs/bpf.md, user strings).
SELECT ts(_time) AS time, *
  FROM :table
 WHERE :comm IS NULL OR _comm GLOB :comm
 ORDER BY _time
 LIMIT :limit;
