# `perf-sql syscalls syscall=NAME` in the kernel (docs/bpf.md, "pairs() in the kernel"): the
# profiler's WHERE syscall_name(start_value) = :syscall is tested by the end program as
# start_value = NAME's number. Against workloads/writes (N + M writes, every one returning its
# count) and getppid_loop (N getppid calls): the same rows as --no-bpf (calls and errors;
# latencies are each path's own), exact; an unknown name gives no row on both paths; --explain
# says how the name was read.
. "$(dirname "$0")/lib.sh"; need_root
p=$("$PERF_SQL" --explain syscalls syscall=write -- true) || fail "explain"
if ! printf '%s\n' "$p" | grep -q "pairs() starts in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: pairs(): not permitted\|cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path | head -1)"
	fail "syscalls syscall=write not in the kernel: $p"
fi
printf '%s\n' "$p" | grep -q "(syscall_name(start_value) = 'write' tested as start_value = 1)" ||
	fail "explain: how syscall= is read: $p"
echo "ok: --explain: syscall=write in the kernel, tested as start_value = 1"
p=$("$PERF_SQL" --explain syscalls syscall=nosuch -- true) || fail "explain nosuch"
printf '%s\n' "$p" | grep -q "(syscall_name(start_value) = 'nosuch' is false: no such system call)" ||
	fail "explain: syscall=nosuch: $p"
echo "ok: --explain: syscall=nosuch is false in the kernel"

# both WANT ARGS... -- CMD...: the profiler's syscall,calls,errors in the kernel and on the ring
both() {
	local want=$1 k r args=()
	shift
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	k=$(qx "^calls=" syscalls "${args[@]}" -- "$@" | cut -d, -f1,2,8 | tr '\n' ' ' | sed 's/ $//') ||
		fail "bpf run: ${args[*]}"
	r=$(qx "^calls=" --no-bpf -m 1024 syscalls "${args[@]}" -- "$@" | cut -d, -f1,2,8 |
		tr '\n' ' ' | sed 's/ $//') || fail "ring run: ${args[*]}"
	[ "$k" = "$r" ] || fail "syscalls ${args[*]}: BPF gave '$k', the ring '$r'"
	eq "$k" "$want" "syscalls ${args[*]} -- $* (both paths)"
}
both "write,1050,0" syscall=write -- "$WL/writes" 1000 777 50 10
both "getppid,300,0" syscall=getppid -- "$WL/getppid_loop" 300
both "" syscall=nosuch -- "$WL/writes" 10 7
# with than=: the end program tests both terms
both "" syscall=getppid than=1s -- "$WL/getppid_loop" 300
# the same test in a GROUP BY statement of raw_syscalls:sys_enter
sql="select syscall_name(id), count(*) from \"raw_syscalls:sys_enter\"
     where syscall_name(id) = 'write' group by id"
p=$("$PERF_SQL" --explain "$sql" -- true | grep "path  ")
printf '%s\n' "$p" | grep -q "aggregated in the kernel.*tested as id = 1" || fail "explain: $p"
eq "$(q "$sql" -- "$WL/writes" 30 7)" "write,30" "$sql (in the kernel)"
eq "$(q --no-bpf "$sql" -- "$WL/writes" 30 7)" "write,30" "$sql (on the ring)"
