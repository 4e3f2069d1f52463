-- oncpu: which tasks ran on which CPU, how often and for how long
-- needs: tracepoints sched:sched_switch
-- param: than duration 0 "count only runs of at least this"
-- param: limit int -1 "at most this many rows; -1: all"
-- example: perf-sql oncpu -i 1000
-- example: perf-sql oncpu -C 0 -d 5s
-- Like perf-prof oncpu. A switch to a task (next_pid) pairs with the next switch away from it
-- (prev_pid); the idle task (pid 0) is left out. Times in microseconds.
SELECT end_cpu AS cpu, start_value AS comm, key AS tid, count(*) AS runs,
       round(sum(latency) / 1e3, 1) AS total_us, round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('sched_switch', 'next_pid', 'sched_switch', 'prev_pid', 'next_comm')
 WHERE key != 0 AND latency >= :than
 GROUP BY end_cpu, key
 ORDER BY cpu, sum(latency) DESC
 LIMIT :limit;
