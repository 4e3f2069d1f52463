-- multi-trace: latency from an event to the next one with the same key in another table
-- needs: the tracepoints named by start= and end=
-- param: start table NULL "the start table, e.g. sched_wakeup"
-- param: end table NULL "the end table, e.g. sched_switch"
-- param: start_key column _tid "the key column of the start table"
-- param: end_key column _tid "the key column of the end table"
-- param: than duration 0 "count only latencies of at least this"
-- example: perf-sql multi-trace start=sys_enter_read end=sys_exit_read -- ./app
-- example: perf-sql multi-trace start=sched_wakeup start_key=pid end=sched_switch end_key=next_pid than=1ms -i 1000
-- Like perf-prof multi-trace -e START -e END -k KEY. Pairs span windows (pairs()). Times in
-- microseconds; hist is a log2 histogram of them.
SELECT count(*) AS pairs, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us, sum(lost) AS lost,
       log2_hist(latency / 1000, 'us') AS hist
  FROM pairs(':start', ':start_key', ':end', ':end_key')
 WHERE latency >= :than;
