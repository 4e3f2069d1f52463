-- task-state: time per task in each state (R, S, D, ...), switch-out to switch-in
-- needs: tracepoints sched:sched_switch
-- param: than duration 0 "count only periods of at least this"
-- param: state text NULL "only this state: R, R+, S, D, I, ..."
-- param: limit int 20 "at most this many rows (the longest total first); -1: all"
-- example: perf-sql task-state -- ./app
-- example: perf-sql task-state state=D than=10ms -i 1000
-- Like perf-prof task-state. A sched_switch away from a task (prev_pid, prev_state) pairs with
-- the next switch back to it (next_pid); the state is the one it left the CPU in, so S is
-- sleeping, D uninterruptible, R/R+ preempted (waiting for a CPU). Times in microseconds.
-- Under -- CMD, -p or -t only the targets' tasks are listed (is_target()): the rows of other
-- tasks that switched to or from them are kept for pairing, not shown.
SELECT comm, key AS tid, task_state(start_value) AS state, count(*) AS calls,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid', 'prev_state')
 WHERE key != 0 AND coalesce(is_target(key, start_time), 1) AND latency >= :than AND (:state IS NULL OR task_state(start_value) = :state)
 GROUP BY key, start_value
 ORDER BY sum(latency) DESC
 LIMIT :limit;
