-- offcpu: off-CPU time by stack: where tasks blocked, and for how long, as folded lines
-- needs: tracepoints sched:sched_switch with stacks
-- param: than duration 0 "count only off-CPU periods of at least this"
-- param: limit int 20 "at most this many stacks (the longest total first)"
-- example: perf-sql offcpu than=1ms -d 10 -- ./app
-- example: perf-sql offcpu -d 10 -f csv | cut -d, -f1 > off.folded; flamegraph.pl off.folded
-- Like bcc offcputime -f. Each switch away from a task pairs with the switch back to it; the
-- stack is the one the task left the CPU with. folded_us is a flame graph line weighted by
-- microseconds off CPU. Run it without -i: the stack comes from the switch-out row, which
-- only the window it happened in holds.
WITH sw AS MATERIALIZED (SELECT _time, prev_pid, stack FROM sched_switch)
SELECT rtrim(rtrim(folded_stack(sw.stack), char(10)), '0123456789') ||
       CAST(sum(p.latency) / 1000 AS INTEGER) AS folded_us,
       count(*) AS switches, round(max(p.latency) / 1e3, 1) AS max_us
  FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid') AS p
  JOIN sw ON sw._time = p.start_time AND sw.prev_pid = p.key
 WHERE p.key != 0 AND p.latency >= :than
 GROUP BY stack_text(sw.stack)
 ORDER BY sum(p.latency) DESC
 LIMIT :limit;
