# profiler task-state: 50 sleeps of 20 ms -> S with 49-52 calls, at least 20 ms per sleep seen
# in total and no more than the run's wall time (measured around it: a busy machine wakes the
# sleeper late). Nothing is pinned. Under -- CMD task-state runs in the kernel (is_target(key,
# start_time) tested by the start's program: docs/bpf.md), which sees every switch, so it runs
# first on the machine as it is (idle or not); then with --no-bpf, on the perf ring, which
# misses the switches an idle CPU's interrupts make here (a switch back in after a timer
# wakeup: docs/reliability.md), so every CPU is kept busy (busy_cpus, lib.sh) for it.
. "$(dirname "$0")/lib.sh"; need_root
# (-m 1024: on the ring under -- CMD every CPU's switches reach it, to be picked in user space;
# on a busy machine 64 pages overflow)
# (the sleeper's tid from the shell that becomes it: the rows may hold other tasks, a sleeper of
# another run among them, that switched out to it)
tmp=$(mktemp -d); trap 'kill ${BG[@]+"${BG[@]}"} 2>/dev/null; idle_cpus; rm -rf "$tmp"' EXIT
p=$("$PERF_SQL" --explain task-state -- true 2>&1) || fail "explain task-state: $p"
if printf '%s\n' "$p" | grep -q "path         aggregated in the kernel"; then
	printf '%s\n' "$p" | grep -q "is_target(key, start_time): a start whose key is not in the map" ||
		fail "task-state -- CMD: no start filter: $p"
	paths=("" --no-bpf)
else
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" ||
		fail "task-state -- CMD: not in the kernel: $(printf '%s\n' "$p" | grep path)"
	echo "note: no BPF here ($(printf '%s\n' "$p" | grep path)): the ring only"
	paths=(--no-bpf)
fi
for path in "${paths[@]}"; do
	[ "$path" = --no-bpf ] && busy_cpus
	start=$(date +%s%N)
	out=$(q $path -m 1024 task-state -- sh -c "echo \$\$ > $tmp/pid; exec $WL/sleeper 50 20") ||
		fail "perf-sql $path task-state failed"
	wall_ms=$((($(date +%s%N) - start) / 1000000))
	# comm,tid,state,calls,total_us,min_us,p50_us,p99_us,max_us; the comm may still be sh's
	row=$(printf '%s\n' "$out" | grep -E "^[^,]*,$(cat "$tmp/pid"),S,") ||
		fail "${path:-kernel}: no S row of $(cat "$tmp/pid"): $out"
	[ "$(printf '%s\n' "$row" | wc -l)" = 1 ] || fail "${path:-kernel}: more than one S row: $row"
	# a sleep whose timer fires before the task is off its CPU is no S period (49 accepted)
	calls=$(echo "$row" | cut -d, -f4)
	between "$calls" 49 52 "${path:-kernel}: S periods of 50 sleeps"
	total_ms=$(echo "$row" | awk -F, '{ printf "%d", $5 / 1000 }')
	between "$total_ms" $((20 * (calls < 50 ? calls : 50))) "$wall_ms" \
		"${path:-kernel}: S total ms (the run took $wall_ms ms)"
	# state= keeps only that state
	out=$(q $path task-state state=S -- "$WL/sleeper" 5 20) || fail "task-state state=S failed"
	eq "$(printf '%s\n' "$out" | cut -d, -f3 | sort -u)" S "${path:-kernel}: states with state=S"
done
# only the workload's tree is listed, on both paths: a task outside it that the sleeper hands
# the CPU to and takes it back from (the busy loops) switches with it on every sleep, and its
# rows pair in pairs(), but it is no row of task-state
for path in "${paths[@]}"; do
	out=$(q $path -m 1024 task-state limit=-1 -- sh -c "echo \$\$ > $tmp/pid; exec $WL/sleeper 20 20") ||
		fail "perf-sql $path task-state (beside busy loops) failed"
	eq "$(printf '%s\n' "$out" | cut -d, -f2 | sort -u | tr '\n' ' ')" "$(cat "$tmp/pid") " \
		"${path:-kernel}: tids listed under -- CMD, busy loops on every CPU"
done
# the same run's rows do hold the busy loops' switches with the sleeper (what the profiler
# leaves out)
out=$(q -m 1024 "select count(distinct key) > 1 from pairs('sched_switch', 'prev_pid',
	'sched_switch', 'next_pid') where key != 0" -- "$WL/sleeper" 20 20) ||
	fail "pairs beside busy loops failed"
eq "$out" 1 "pairs() of sched_switch under -- CMD hold other tasks than the workload's"
