# A profiler used as a table runs in the kernel as when it runs by name: the statement reads it
# as a CTE of its main statement (profilers/inline.c), so its aggregation is compiled as a
# sub-SELECT. Each answer is the same with --no-bpf (the profiler's table, profilers/view.c):
# syscalls' writes of a known workload (500 writes), kmemleak's queued messages (120 of 150);
# a statement that sets a parameter (WHERE than = ...) keeps the table, on the ring, and its
# answer holds.
. "$(dirname "$0")/lib.sh"; need_root
key=$((8000 + $$ % 1000 * 100))
trap '"$WL/msgs" 0 0 $key' EXIT
sql="select syscall, calls, errors from syscalls where syscall = 'write' and calls > 100"
p=$("$PERF_SQL" --explain "$sql" 2>&1) || fail "explain: $p"
if ! printf '%s\n' "$p" | grep -q "pairs() starts in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "select ... from syscalls: not in the kernel: $p"
fi
echo "ok: select ... from syscalls runs in the kernel"
printf '%s\n' "$p" | grep -q "a sub-SELECT of its statement, compiled alone" || fail "not compiled as a sub-SELECT: $p"
for path in "" --no-bpf; do
	out=$(q $path "$sql" -- "$WL/writes" 500 7) || fail "syscalls as a table $path: $out"
	eq "$out" "write,500,0" "syscalls as a table ${path:-(kernel)}: the workload's writes"
done

ksql="select objects, bytes from kmemleak where call_site like 'load_msg+%'"
"$PERF_SQL" --explain "$ksql" 2>&1 | grep -q "pending() starts in the kernel" ||
	fail "select ... from kmemleak: not in the kernel"
for path in "" --no-bpf; do
	out=$(q $path "$ksql" -- "$WL/msgs" 150 30 $key) || fail "kmemleak as a table $path: $out"
	eq "$out" "120,30720" "kmemleak as a table ${path:-(kernel)}: the queued messages"
	"$WL/msgs" 0 0 $key
done

# a parameter set in WHERE: the table serves it (it binds than per scan), on the ring
psql="select syscall, calls from syscalls where than = '0' and syscall = 'write'"
"$PERF_SQL" --explain "$psql" 2>&1 | grep "path" | grep -q "perf ring" ||
	fail "a parameter set in WHERE: expected the table, on the ring"
out=$(q "$psql" -- "$WL/writes" 300 7) || fail "syscalls than='0': $out"
eq "$out" "write,300" "syscalls as a table with than set: the workload's writes"
