# pairs(): start/end events paired by key across windows.
. "$(dirname "$0")/lib.sh"; need_root
# 4 sleeps of 700 ms with 200 ms windows: every pair spans windows, none is lost; each latency
# is at least 700 ms, and all four together no longer than the whole run (measured around it)
start=$(date +%s%N)
out=$(q -i 200 "select count(*), min(latency), sum(latency) from pairs('sys_enter_clock_nanosleep',
      '_tid', 'sys_exit_clock_nanosleep', '_tid') where key = workload_pid()" -- "$WL/sleeper" 4 700) ||
	fail "perf-sql failed"
wall=$(($(date +%s%N) - start))
n=$(printf '%s\n' "$out" | awk -F, '{ n += $2 } END { print n }')
eq "$n" 4 "pairs over all windows"
windows=$(printf '%s\n' "$out" | awk -F, '$2 > 0' | wc -l)
eq "$windows" 4 "windows with a pair"
printf '%s\n' "$out" | awk -F, '$2 > 0 && $3 < 700000000 { exit 1 }' || fail "a latency under 700 ms: $out"
sum=$(printf '%s\n' "$out" | awk -F, '{ s += $4 } END { printf "%.0f", s }')
[ "$sum" -le "$wall" ] || fail "the 4 latencies sum to $sum ns, longer than the run ($wall ns)"
echo "ok: every latency >= 700 ms; together $((sum / 1000000)) ms, within the run's $((wall / 1000000)) ms"
# syscalls with values: the start row's id and the end row's ret
out=$(q "select syscall_name(start_value), count(*), sum(end_value) from pairs('sys_enter', '_tid',
      'sys_exit', '_tid', 'id', 'ret') where key = workload_pid() and start_value = 1 group by 1" \
      -- "$WL/writes" 500 7) || fail "perf-sql failed"
eq "$out" "write,500,3500" "write pairs: calls and the sum of their return values"
# wakeup -> run, from sched_wakeup to sched_switch: exactly the pairs the same run's rows make
# (a switch to the workload right after a wakeup of it, in time order, a newer wakeup replacing),
# never more than its wakeups; and every one of its 200 sleeps is a wakeup received or counted
# lost. (Not "a pair per sleep": rows of two CPUs are ordered by their timestamps, and a switch
# in on one CPU may be stamped before the wakeup another CPU stamped for it: no pair, on the ring
# as in any time-ordered reader.) Nothing is pinned: on this VM the kernel writes no sample of a
# wakeup an idle CPU's interrupt fires (docs/reliability.md), and each is counted lost (-m 1024:
# under -- CMD every CPU's switches reach the ring, to be picked in user space)
REF="with ev as (select _time as t, 0 as k from sched_wakeup where pid = workload_pid()
       union all select _time, 1 from sched_switch where next_pid = workload_pid()),
     o as (select k, lag(k) over (order by t, k) as pk from ev)
     select count(*) from o where k = 1 and pk = 0"
out=$(q -m 1024 "select (select count(*) from pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid')
      where key = workload_pid()) as n, (select count(*) from sched_wakeup where pid = workload_pid())
      as w, ($REF) as ref, (select sum(lost) from perf_sql_stats where \"table\" = 'sched_wakeup')
      as lost" -- "$WL/sleeper" 200 1) || fail "perf-sql failed"
IFS=, read -r n w ref lost <<<"$out"
[ "$w" -ge $((200 - lost)) ] || fail "$w wakeups of the workload's 200 sleeps ($lost lost)"
echo "ok: $w wakeups of the workload's 200 sleeps ($lost lost)"
eq "$n" "$ref" "wakeup -> run pairs, against the same run's rows"
[ "$n" -le "$w" ] || fail "$n wakeup -> run pairs, more than the $w wakeups"
# the pairs stream has its own perf_sql_stats row
out=$(q "select count(*) from pairs('sys_enter_getppid', '_tid', 'sys_exit_getppid', '_tid');
         select \"table\", received from perf_sql_stats where cpu is null" \
      -- "$WL/getppid_loop" 1000 | tail -1)
eq "$out" "\"pairs(sys_enter_getppid, _tid, sys_exit_getppid, _tid)\",1000" "perf_sql_stats row of pairs()"
# the pending store is bounded: 1.5M starts that never end leave at most 2^20 pending, the
# oldest evicted and counted lost in the pairs() row of perf_sql_stats
out=$("$PERF_SQL" --csv -m 1024 "select count(*) from pairs('sys_enter_getppid', '_time',
      'sys_enter_getppid', '_time'); select lost from perf_sql_stats where cpu is null;
      select sum(received) from perf_sql_stats where cpu is not null" \
      -- "$WL/getppid_loop" 1500000 | tr -d '\r' | grep -E '^[0-9]+$' | tr '\n' ' ')
set -- $out
eq "$1" 0 "pairs of starts that never end"
[ "$2" -gt 0 ] && [ $(($3 - $2)) -le 1048576 ] || fail "pending not bounded: $3 starts, $2 evicted"
echo "ok: $3 starts, $2 evicted, $(($3 - $2)) pending (<= 2^20)"
