# Several statements over one table, each a GROUP BY of it alone, run in the kernel: a program
# and a map each on the tracepoint. The writes workload (500 writes of 7 bytes and 200 of 64)
# is counted by size in one statement and summed by name in the other; both answers are the
# ring's (--no-bpf), and the table's received events are the 700 once, not once per program.
# Then two statements over two pairs() (a program pair each) and one pairs() read twice (the ring).
. "$(dirname "$0")/lib.sh"; need_root
sql="select count, count(*) from sys_enter_write where _pid = workload_pid() group by count order by count;
     select _comm, sum(count) from sys_enter_write where _pid = workload_pid() group by 1;
     select sum(received) from perf_sql_stats where \"table\" = 'sys_enter_write'"
p=$("$PERF_SQL" --explain "$sql" -- true 2>&1) || fail "explain: $p"
if ! printf '%s\n' "$p" | grep -q "read by 2 statements, a program and a map each"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "two statements over sys_enter_write: not both in the kernel: $p"
fi
echo "ok: two statements over sys_enter_write: a program each in the kernel"
for path in "" --no-bpf; do
	out=$(q $path "$sql" -- "$WL/writes" 500 7 200 64) || fail "$path: $out"
	out=$(printf '%s\n' "$out" | grep -v '^count\|^_comm\|^sum(received)\|^$' | tr '\n' ' ')
	eq "$out" "7,500 64,200 writes,16300 700 " "sizes, bytes and events received ${path:-(kernel)}"
done
# two statements over two different pairs(): each pairs() in the kernel (one pairs() read by
# two statements stays on the ring, and its tables' notes say why); pingpong's parent writes
# and reads 300 times each: 300 pairs of each on both paths
pr="select count(*) from pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid') where
      key = workload_pid();
    select count(*) from pairs('sys_enter_read', '_tid', 'sys_exit_read', '_tid') where
      key = workload_pid()"
p=$("$PERF_SQL" --explain "$pr" -- true 2>&1) || fail "explain: $p"
n=$(printf '%s\n' "$p" | grep -c "path .*pairs() starts in the kernel")
[ "$n" = 2 ] || fail "two statements over two pairs(): $n of 2 in the kernel: $p"
p=$("$PERF_SQL" --explain "select count(*) from pairs('sys_enter_write', '_tid', 'sys_exit_write',
	'_tid'); select max(latency) from pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid')" \
	-- true 2>&1) || fail "explain: $p"
printf '%s\n' "$p" | grep -q "another statement reads pairs() or pending() of its tables" ||
	fail "one pairs() read by two statements: not said to stay on the ring: $p"
echo "ok: two pairs() in the kernel, a pairs() of two statements on the ring"
for path in "" --no-bpf; do
	out=$(q $path "$pr" -- "$WL/pingpong" 300 | grep -v '^count' | tr '\n' ' ') || fail "$out"
	eq "$out" "300 300 " "write and read pairs of pingpong's parent ${path:-(kernel)}"
done
