-- rundelay: scheduling delay per task: wakeup -> running, calls and min/p50/p99/max
-- needs: tracepoints sched:sched_wakeup, sched:sched_switch
-- param: than duration 0 "count only delays of at least this"
-- param: comm text NULL "only tasks whose name matches this GLOB"
-- param: limit int 20 "at most this many tasks (the longest total first); -1: all"
-- example: perf-sql rundelay than=4ms -i 1000
-- example: perf-sql rundelay -- ./app
-- Like perf-prof rundelay and bcc runqlat -P. A sched_wakeup of a task pairs with the next
-- sched_switch to it (next_pid), across windows. Times are in microseconds. Paired in the
-- kernel by default (docs/bpf.md): p50/p99 within 0.8 %; --no-bpf pairs in user space, exact.
SELECT start_value AS comm, key AS tid, count(*) AS runs,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid', 'comm')
 WHERE latency >= :than AND (:comm IS NULL OR start_value GLOB :comm)
 GROUP BY key, start_value
 ORDER BY sum(latency) DESC
 LIMIT :limit;
