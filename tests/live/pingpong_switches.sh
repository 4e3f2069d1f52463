# N pipe round trips between two tasks pinned to one CPU: only one of them runs at a time and
# both run in every round trip, so each round trip is at least 2 switches out of the pair; a
# busy CPU adds more (preemptions), never fewer. Every one is a row, and no row comes twice.
# (-m 1024: a ring holds the whole run, so a busy machine that delays perf-sql loses nothing;
# what was lost would be in perf_sql_stats, and must be 0.)
. "$(dirname "$0")/lib.sh"; need_root
n=2000
for mode in per-task -a; do
	opt=(); [ $mode = -a ] && opt=(-a)
	out=$(q -m 1024 "${opt[@]}" "select count(*), count(distinct _cpu || ':' || _time) from sched_switch
		where prev_comm = 'pingpong'; select sum(lost) from perf_sql_stats" \
	      -- "$WL/pingpong" -c 0 $n) || fail "perf-sql $mode failed"
	rows=$(printf '%s\n' "$out" | sed -n 1p) lost=$(printf '%s\n' "$out" | sed -n 3p)
	eq "$lost" 0 "events lost ($mode)"
	[ "${rows%,*}" -ge $((2 * n)) ] || fail "switches out of the pair ($mode): ${rows%,*} < $((2 * n))"
	eq "${rows#*,}" "${rows%,*}" "distinct switches = rows ($mode; $((2 * n)) at least)"
done
# scheduler rows of a workload are those of its tasks: switches out of them and into them
# (before its exec the workload is still named perf-sql)
out=$(q "select count(*) from sched_switch where prev_comm not in ('pingpong', 'perf-sql')
         and next_comm not in ('pingpong', 'perf-sql')" \
      -- "$WL/pingpong" -c 0 $n) || fail "perf-sql failed"
eq "$out" 0 "switches neither out of nor into the workload"
