# The query is the configuration: WHERE becomes a kernel filter (with the bound value of
# workload_pid()), unread fields are not sampled, -C/-p pick the targets.
. "$(dirname "$0")/lib.sh"; need_root
sql="select count(*) from sys_enter_write where _tid = workload_pid() and count = 777;
     select sum(received), sum(lost) from perf_sql_stats"
# --no-bpf: the ftrace filters of the perf ring path (in the kernel, BPF evaluates WHERE itself)
plan=$("$PERF_SQL" --no-bpf --explain "$sql" -- "$WL/writes" 300 777 100 5) || fail "explain"
pid=$(printf '%s\n' "$plan" | sed -n 's/.*workload pid \([0-9]*\).*/\1/p')
printf '%s\n' "$plan" | grep -q "kernel filter common_pid == $pid && count == 777$" ||
	fail "explain lacks the filter: $plan"
echo "ok: explain shows common_pid == $pid && count == 777"
out=$(q --no-bpf "$sql" -- "$WL/writes" 300 777 100 5 | tr '\n' ' ') || fail "run"
eq "$out" "300 sum(received),sum(lost) 300,0 " "count, then received/lost: nothing extra reached user space"
out=$(q --no-bpf --no-pushdown "$sql" -- "$WL/writes" 300 777 100 5 | tr '\n' ' ') || fail "run"
eq "$out" "300 sum(received),sum(lost) 400,0 " "without pushdown all 400 writes are received"
# a query that reads no field samples no raw data; one that reads no column only counts
# (--no-bpf: on the perf ring; this one would otherwise be aggregated in the kernel)
plan=$("$PERF_SQL" --no-bpf --explain "select count(*), max(_cpu) from sys_enter_write") || fail "explain"
printf '%s\n' "$plan" | grep -q "sample_type  IDENTIFIER|TID|TIME|CPU|PERIOD$" || fail "RAW sampled: $plan"
echo "ok: no RAW without a field"
# (--no-bpf: a system call's count(*) alone is otherwise a tp_btf program's, bpf/hook.h (4))
plan=$("$PERF_SQL" --no-bpf --explain "select count(*) from sys_enter_write") || fail "explain"
printf '%s\n' "$plan" | grep -q "counting (no column is read)" || fail "count(*) samples: $plan"
out=$(q --no-bpf "select count(*) from sys_enter_write; select sum(received), sum(lost) from perf_sql_stats" \
      -- "$WL/writes" 3000 8 | tr '\n' ' ') || fail "counting run"
eq "$out" "3000 sum(received),sum(lost) 3000,0 " "count(*) in counting mode, and its stats"
# -C 0: only CPU 0
# (sleepers on both CPUs: an idle CPU may not switch at all in a quiet half second; the pins
# make the workload switch on each CPU, which -C must then keep or drop: the unpinned -C case,
# as a user runs it, is tests/live/bpf_options.sh's, on both paths)
out=$(q -a -C 0 "select group_concat(distinct _cpu), count(*) >= 20 from sched_switch" \
      -- sh -c "taskset -c 0 $WL/sleeper 20 5 & taskset -c 1 $WL/sleeper 20 5; wait") || fail "-C run"
eq "$out" "0,1" "cpus seen with -C 0 (and CPU 0's 20 sleeps among them)"
# -p on a sleeper: scheduler events are taken system-wide, the targets' rows kept in user space; the
# sleeper is held before its exec until perf-sql collects (lib.sh hold), so no sleep is missed
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
hold "$dir" "$WL/sleeper" 50 20
plan=$("$PERF_SQL" --no-bpf -p $HELD --explain "select count(*) from sched_switch") || fail "explain -p"
printf '%s\n' "$plan" | grep -q "prev_pid/next_pid) is in the targets. process tree" || fail "-p plan: $plan"
query_held "$dir" "select count(*) from sched_switch where prev_pid = $HELD and prev_state = 1"
release "$dir"
between "$(tail -n +2 "$dir/query" | tr -d '\r')" 50 53 "sleeps seen as S-state switches with -p"
# on the ring, scheduler rows of other tasks are dropped before SQL, and counted (prev_pid + 0:
# not pushed; --no-bpf: in the kernel the tree map drops them before any row is made)
out=$(q --no-bpf "select count(*) >= 5 from sched_switch where prev_pid + 0 = workload_pid();
         select sum(filtered_in_user) > 0, count(filtered_in_kernel) from perf_sql_stats" \
      -- "$WL/sleeper" 5 10 | tr '\n' ' ')
eq "$out" "1 sum(filtered_in_user) > 0,count(filtered_in_kernel) 1,0 " "filtered_in_user counted, filtered_in_kernel NULL"
