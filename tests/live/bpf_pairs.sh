# pairs() in the kernel (bpf/pairs.h, docs/bpf.md): the same statement on both paths over
# deterministic workloads gives the same rows (counts, sums, minimums, maximums of the events'
# values, exact); percentiles of latency are within 1/128 of the values they stand for, checked
# in the same run against the kernel's exact min and max; pairs spanning windows are paired;
# --explain shows both programs and the maps; the pairs() row of perf_sql_stats is kept.
. "$(dirname "$0")/lib.sh"; need_root
P="pairs('sys_enter', '_tid', 'sys_exit', '_tid', 'id', 'ret')"
plan=$("$PERF_SQL" --explain "select count(*) from $P") || fail "explain"
if ! printf '%s\n' "$plan" | grep -q "pairs() starts in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: pairs(): not permitted\|cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path | head -1)"
	fail "pairs() not in the kernel: $plan"
fi
printf '%s\n' "$plan" | grep -q "on tp_btf/sys_enter stores (time, start value) in the key's task's storage (key 0, the idle tasks: in a hash of up to" ||
	fail "explain: the start program and the pending map: $plan"
printf '%s\n' "$plan" | grep -q "on tp_btf/sys_exit.*looks the key up in the pending starts" ||
	fail "explain: the end program: $plan"
echo "ok: --explain shows the start program, the pending map and the end program"
# a kernel without task storage: the hash keeps every start (bpf/table.c), and says so
plan=$(PERF_SQL_TEST_NO_TASK_STORAGE=1 "$PERF_SQL" --explain "select count(*) from $P") || fail "explain"
printf '%s\n' "$plan" | grep -q "on tp_btf/sys_enter stores (time, start value) by key in a hash of up to" ||
	fail "explain without task storage: $plan"
n=$(PERF_SQL_TEST_NO_TASK_STORAGE=1 "$PERF_SQL" "select count(*) from $P where key = workload_pid() and start_value = 1" -- "$WL/writes" 300 7 | tail -1 | tr -d ' ')
eq "$n" 300 "without task storage: the workload's writes paired in the hash"
p=$("$PERF_SQL" --no-bpf --explain "select count(*) from $P")
[ "$(printf '%s\n' "$p" | grep -c 'path         perf ring: --no-bpf')" = 2 ] || fail "--no-bpf: $p"
echo "ok: --no-bpf keeps both tables on the ring"

# same SQL EXPECTED CMD...: in the kernel (the plan says so) and on the ring, the same rows
same() {
	local sql=$1 want=$2 k r p
	shift 2
	p=$("$PERF_SQL" --explain "$sql" -- "$@" 2>&1) || fail "explain: $sql: $p"
	printf '%s\n' "$p" | grep -q "pairs() .*ended here\|pairs() ended and started" ||
		fail "not paired in the kernel: $sql: $p"
	k=$(qx "^calls=" "$sql" -- "$@" | tr '\n' ' ' | sed 's/ $//') || fail "bpf run: $sql"
	r=$(qx "^calls=" --no-bpf -m 1024 "$sql" -- "$@" | tr '\n' ' ' | sed 's/ $//') || fail "ring run: $sql"
	[ "$k" = "$r" ] || fail "$sql: BPF gave '$k', the ring '$r'"
	eq "$k" "$want" "$sql"
}
W="where key = workload_pid()"
same "select syscall_name(start_value), count(*), sum(end_value), min(end_value), max(end_value),
      sum(end_value < 0) from $P $W and start_value = 1 group by start_value" \
	"write,1000,777000,777,777,0" "$WL/writes" 1000 777
E="pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'count', 'ret')"
same "select end_value, count(*) from $E $W group by end_value order by 1" "10,50 777,1000" \
	"$WL/writes" 1000 777 50 10
same "select start_value, count(*), count(latency), sum(latency >= 0), avg(end_value) from $E $W
      and latency >= 0 and start_value in (10, 777) group by 1 order by 1" \
	"10,50,50,50,10.0 777,1000,1000,1000,777.0" "$WL/writes" 1000 777 50 10
same "select count(*) from $E $W and latency < 0" "0" "$WL/writes" 100 7
same "select comm, count(*), min(start_tid) = max(end_tid), min(start_pid) = workload_pid()
      from pairs('sys_enter_getppid', '_tid', 'sys_exit_getppid', '_tid') $W group by comm" \
	"getppid_loop,1000,1,1" "$WL/getppid_loop" 1000
same "select count(*) from pairs('sys_enter_getppid', '_tid', 'sys_exit_getppid', '_tid')
      where key = workload_pid() + 1" "0" "$WL/getppid_loop" 100

# pairs spanning windows: 3 sleeps of 500 ms, 150 ms windows, on both paths
for path in "" --no-bpf; do
	n=$(q $path -i 150 "select count(*) from pairs('sys_enter_clock_nanosleep', '_tid',
	    'sys_exit_clock_nanosleep', '_tid') $W" -- "$WL/sleeper" 3 500 | awk -F, '{ s += $2 } END { print s }')
	eq "$n" 3 "pairs spanning windows ${path:-in the kernel}"
done

# percentiles from the log-linear buckets, against the same run's exact min and max: p0 and
# p100 are the min's and the max's buckets, within 1/128; p50 between them
out=$(q "select count(*), min(latency), max(latency), percentile(latency, 0),
      percentile(latency, 100), p50(latency), p99(latency), p999(latency) from $E $W" \
      -- "$WL/writes" 1000 777)
IFS=, read -r n mn mx p0 p100 p50 p99 p999 <<<"$out"
eq "$n" 1000 "write pairs with percentiles"
awk -v a="$p0" -v b="$mn" 'BEGIN { exit !((a - b) ^ 2 <= (b / 128) ^ 2) }' ||
	fail "p0 $p0 not within 1/128 of min $mn"
awk -v a="$p100" -v b="$mx" 'BEGIN { exit !((a - b) ^ 2 <= (b / 128) ^ 2) }' ||
	fail "p100 $p100 not within 1/128 of max $mx"
awk -v l="$mn" -v h="$mx" -v a="$p50" -v b="$p99" -v c="$p999" \
	'BEGIN { e = 1 + 1 / 128; exit !(a >= l / e && a <= b && b <= c && c <= h * e) }' ||
	fail "p50 $p50 p99 $p99 p999 $p999 not ordered within [$mn, $mx]"
echo "ok: p0 $p0 ~ min $mn, p100 $p100 ~ max $mx (1/128), p50 $p50 <= p99 $p99 <= p999 $p999"
# one pair: every percentile is its latency's bucket
out=$(q "select min(latency), p50(latency), p99(latency) from pairs('sys_enter_clock_nanosleep',
      '_tid', 'sys_exit_clock_nanosleep', '_tid') $W" -- "$WL/sleeper" 1 20)
IFS=, read -r mn p50 p99 <<<"$out"
awk -v a="$p50" -v b="$mn" -v c="$p99" 'BEGIN { exit !((a - b) ^ 2 <= (b / 128) ^ 2 && a == c) }' ||
	fail "one 20 ms sleep: p50 $p50, p99 $p99, latency $mn"
echo "ok: one 20 ms sleep of $mn ns: p50 = p99 = $p50 (within 1/128)"

# the pairs() row of perf_sql_stats counts the pairs, as on the ring
for path in "" --no-bpf; do
	out=$(qx "^calls=" $path "select count(*) from pairs('sys_enter_getppid', '_tid', 'sys_exit_getppid', '_tid');
	      select \"table\", received from perf_sql_stats where cpu is null" \
	      -- "$WL/getppid_loop" 1000 | tail -1)
	eq "$out" "\"pairs(sys_enter_getppid, _tid, sys_exit_getppid, _tid)\",1000" \
		"perf_sql_stats row of pairs() ${path:-in the kernel}"
done
# the profilers: syscalls in the kernel by default
p=$("$PERF_SQL" --explain syscalls -- true)
printf '%s\n' "$p" | grep -q "pairs() starts in the kernel" || fail "syscalls not in the kernel: $p"
echo "ok: syscalls pairs in the kernel"

# rundelay's pairs() on tp_btf/sched_wakeup and tp_btf/sched_switch (bpf/sched_btf.h): --explain
# says so, and for a prev_state start (computed in the program)
R="pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid', 'comm')"
p=$("$PERF_SQL" -a --explain "select start_value, count(*) from $R group by start_value")
printf '%s\n' "$p" | grep -q "pairs() starts in the kernel: BPF program [0-9]* of [0-9]* insns on tp_btf/sched_wakeup stores" ||
	fail "rundelay's start not on tp_btf: $p"
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on tp_btf/sched_switch .*pairs() ended here" ||
	fail "rundelay's end not on tp_btf: $p"
p=$("$PERF_SQL" -a --explain "select count(*) from pairs('sched_switch', 'prev_pid', 'sched_wakeup', 'pid', 'prev_state')")
printf '%s\n' "$p" | grep -q "pairs() starts in the kernel: BPF program [0-9]* of [0-9]* insns on tp_btf/sched_switch stores" ||
	fail "prev_state start: $p"
echo "ok: --explain: rundelay's pairs on tp_btf/sched_wakeup and tp_btf/sched_switch; a prev_state start too"
# one held run of the sleeper, paired at once in the kernel and on the ring (both -a, attached
# before it starts): the same pairs. Nothing is pinned; every CPU is kept busy (busy_cpus,
# lib.sh: the ring misses the events an idle CPU's interrupts fire here, the kernel does not).
# at_once N [SQL]: sleeper N 1 (SQL: default its wakeup -> run pairs, HELD its pid); the kernel's
# rows into K (the ring's must be the same)
dir=$(mktemp -d) || fail "mktemp"
trap 'kill "${BG[@]}" ${bt:-} ${gl[@]+"${gl[@]}"} 2>/dev/null; idle_cpus; rm -rf "$dir"' EXIT
busy_cpus
at_once() {
	local sql=${2:-} rsql r p kp rp w
	hold "$dir" "$WL/sleeper" "$1" 1
	[ -n "$sql" ] || sql="select start_value, count(*), count(latency) from $R where key = HELD
	     and start_value = 'sleeper' group by start_value"
	sql=${sql//HELD/$HELD} rsql=$sql
	# pairs: the ring also counts the wakeups (the most pairs there can be), in the same run
	[ -n "${2:-}" ] || rsql="$sql; select count(*) from sched_wakeup where pid = $HELD and comm = 'sleeper'"
	mkdir -p "$dir/k" "$dir/r"
	query_held "$dir/k" "$sql" -a -m 1024
	query_held "$dir/r" "$rsql" -a --no-bpf -m 1024
	echo go >"$dir/go"
	wait "$HELD" || fail "the sleeper exited $?"
	kill -INT "${BG[@]:1}"
	for p in "${BG[@]:1}"; do
		wait "$p" || fail "perf-sql $p exited $?: $(cat "$dir"/*/query.err)"
	done
	grep -q "were lost in the kernel" "$dir/k/query.err" &&
		fail "pairs lost in the kernel: $(grep warning "$dir/k/query.err")"
	K=$(tail -n +2 "$dir/k/query" | tr -d '\r'); r=$(sed -n 2p "$dir/r/query" | tr -d '\r')
	w=$(sed -n 4p "$dir/r/query" | tr -d '\r')
	rm -rf "$dir/k" "$dir/r" "$dir/go"
	if [ -n "${2:-}" ]; then
		[ "$K" = "$r" ] || fail "$sql: the kernel gave '$K', the ring '$r'"
		return
	fi
	# the kernel pairs in the order things happened; the ring in timestamp order, where a
	# switch in stamped on one CPU before the wakeup stamped on the other pairs with nothing:
	# the kernel's pairs are the ring's or more, never more than the wakeups
	kp=$(echo "$K" | cut -d, -f2) rp=$(echo "$r" | cut -d, -f2)
	[ "$rp" -le "$kp" ] && [ "$kp" -le "$w" ] && [ "$(echo "$K" | cut -d, -f3)" = "$kp" ] ||
		fail "rundelay pairs of one run: the kernel gave '$K', the ring '$r', $w wakeups"
}
at_once 100
# (about one a sleep, one more for the wakeup after the exec, and the kernel may wake it more
# (102 seen in one run, every one a wakeup the ring counted too); fewer where a sleep's timer
# fired before it switched out: no switch in follows that wakeup, on either path. The exact
# check is at_once's: the ring's pairs or more, never more than the wakeups of the same run)
between "$(echo "$K" | cut -d, -f2)" 1 105 "wakeup -> run pairs of 100 sleeps, the ring's or more, at most its wakeups ($K)"

idle_cpus
# While another tool's program on a classic tracepoint runs on the sleeper's CPU (bpftrace on
# syscalls:sys_enter_getppid, a getppid loop on every CPU, unpinned), a classic tracepoint program is
# skipped whenever a wakeup's interrupt lands inside it (bpf_prog_active: 50-320 of 2000 wakeups
# were lost); a tp_btf program is not: every wakeup is counted, and pairs() loses none.
command -v bpftrace >/dev/null || skip "bpftrace is not installed (apt-get install bpftrace): the busy-CPU check needs another tool's tracepoint program"
bpftrace -e 'tracepoint:syscalls:sys_enter_getppid { @n = count(); }' >"$dir/bt" 2>&1 & bt=$!
for _ in $(seq 200); do grep -q "Attaching" "$dir/bt" && break; sleep 0.05; done
grep -q "Attaching" "$dir/bt" || fail "bpftrace did not attach: $(cat "$dir/bt")"
gl=()
for _ in $(seq "$(nproc)"); do "$WL/getppid_loop" -t 60 >/dev/null & gl+=($!); done
# the ring's rows of the same run are the reference (a perf event is not skipped there)
at_once 400 "select count(*) from sched_wakeup where pid = HELD and comm = 'sleeper'"
echo "ok: wakeups of 400 sleeps counted in the kernel beside bpftrace's classic program: the ring's ($K)"
at_once 400
echo "ok: wakeup -> run pairs of 400 sleeps beside bpftrace's classic program: none lost, the ring's or more ($K)"
kill "${gl[@]}" $bt 2>/dev/null; wait
