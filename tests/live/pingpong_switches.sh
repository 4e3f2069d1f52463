# N pipe round trips between two tasks pinned to one CPU: only one of them runs at a time and
# both run in every round trip, so each round trip is at least 2 switches out of the pair;
# other tasks on that CPU (perf-sql's own wakeups) add a few, never many.
. "$(dirname "$0")/lib.sh"; need_root
n=2000
out=$(q "select count(*) from sched_switch where prev_comm = 'pingpong'" \
      -- "$WL/pingpong" -c 0 $n) || fail "perf-sql failed"
between "$out" $((2 * n)) $((2 * n + 20)) "switches out of the pair (per-task events)"
out=$(q -a "select count(*) from sched_switch where prev_comm = 'pingpong'" \
      -- "$WL/pingpong" -c 0 $n) || fail "perf-sql -a failed"
between "$out" $((2 * n)) $((2 * n + 20)) "switches out of the pair (-a, system-wide)"
# scheduler rows of a workload are those of its tasks: switches out of them and into them
# (before its exec the workload is still named perf-sql)
out=$(q "select count(*) from sched_switch where prev_comm not in ('pingpong', 'perf-sql')
         and next_comm not in ('pingpong', 'perf-sql')" \
      -- "$WL/pingpong" -c 0 $n) || fail "perf-sql failed"
eq "$out" 0 "switches neither out of nor into the workload"
