# WHERE values computed from rows (IN subquery, recursive CTE, scalar subquery) are never kernel
# filters: the dry run computes them over empty tables, and pushed they would drop the rows the
# run needs. Constants beside them still are (live/pushdown).
. "$(dirname "$0")/lib.sh"; need_root
# spawn chain 5: 5 forks, 6 exits in the workload's tree (workloads/spawn.c (1)(2))
tree="with recursive t(p) as (select workload_pid() union
        select child_pid from sched_process_fork, t where parent_pid = t.p)
      select count(*) from sched_process_exit where pid in t"
out=$(q -m 1024 "$tree" -- "$WL/spawn" chain 5) || fail "recursive CTE run"
eq "$out" 6 "exits of the tree named by a recursive CTE"
plan=$("$PERF_SQL" --explain "$tree" -- "$WL/spawn" chain 5) || fail "explain"
printf '%s\n' "$plan" | grep -q "kernel filter.*\(pid ==\|parent_pid ==\)" &&
	fail "a value from rows became a kernel filter: $plan"
echo "ok: no kernel filter from the CTE's values"
# forker 5: the workload and its 5 children exit (workloads/forker.c (2))
out=$(q -m 1024 "select count(*) from sched_process_exit where pid in
        (select workload_pid() union select child_pid from sched_process_fork)" \
      -- "$WL/forker" 5) || fail "IN subquery run"
eq "$out" 6 "exits of the workload and of the children an IN subquery names"
# a scalar subquery over an empty table is 0 in the dry run, 10 in the run (writes 10 777)
out=$(q -m 1024 "select count(*) from sys_enter_write where _tid = workload_pid() and
        count = 767 + (select count(*) from sys_enter_write where count = 777)" \
      -- "$WL/writes" 10 777) || fail "scalar subquery run"
eq "$out" 10 "writes of 767 + (the count of 777-byte writes) bytes"
