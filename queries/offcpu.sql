-- offcpu: off-CPU time by stack: where tasks blocked, and for how long, as folded lines
-- needs: tracepoints sched:sched_switch with stacks
-- param: than duration 0 "count only off-CPU periods of at least this"
-- param: limit int 20 "at most this many stacks (the longest total first)"
-- example: perf-sql offcpu than=1ms -d 10s -- ./app
-- example: perf-sql offcpu -d 10s --flame-graph off.svg    # and off.svg.folded for flamegraph.pl
-- pprof: SELECT start_value AS stack, sum(latency) AS off_ns, count(*) AS switches FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid', 'stack') WHERE key != 0 AND coalesce(is_target(key, start_time), 1) AND latency >= :than GROUP BY start_value
-- Like bcc offcputime -f. Each switch away from a task pairs with the switch back to it; the
-- stack is the one the task left the CPU with (pairs()'s start value 'stack'), kept with the
-- pending switch out (in the kernel, as bcc does). folded_us is a flame graph line weighted by
-- microseconds off CPU; a stack's tasks are summed (its line names the first task's comm).
-- Under -- CMD, -p or -t only the targets' tasks are counted (is_target()): the tasks that
-- switched to or from them are kept for pairing, not shown.
-- With -f pprof (and serve --pprof NAME offcpu), the same periods by stack as a profile:
-- off_ns, the time off CPU, and switches (docs/pprof.md).
WITH off AS (SELECT start_value AS stack, sum(latency) AS ns, count(*) AS n, max(latency) AS top
               FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid', 'stack')
              WHERE key != 0 AND coalesce(is_target(key, start_time), 1) AND latency >= :than
              GROUP BY start_value)
SELECT rtrim(rtrim(folded_stack(stack), char(10)), '0123456789') ||
       CAST(sum(ns) / 1000 AS INTEGER) AS folded_us,
       sum(n) AS switches, round(max(top) / 1e3, 1) AS max_us
  FROM off
 GROUP BY stack_text(stack)
 ORDER BY sum(ns) DESC
 LIMIT :limit;
