# A workload's tasks from its exec, on both paths (docs/bpf.md, "A workload's tasks"): under
# `-- CMD` the perf ring's events are per task with enable_on_exec and the BPF path's map of
# tasks is armed at the same exec, so neither counts what the held child does before it (the
# execvp's $PATH attempts, the execve's own sys_enter), as perf stat -- CMD does not. Each
# shape runs the same command three times: perf-sql in the kernel, on the ring (--no-bpf), and
# perf stat; all three must agree, and the execve counts must be the command's: `sh -c "A; B"`
# execs A and B once each (sh's own exec is the workload's: only its sys_exit is counted).
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
cmd="$WL/writes 10 8; $WL/getppid_loop 5 >/dev/null"
p=$("$PERF_SQL" --explain "select comm, count(*) from sys_enter_execve group by comm" -- sh -c "$cmd") ||
	fail "explain"
if ! printf '%s\n' "$p" | grep -q "path         aggregated in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "not aggregated in the kernel: $p"
fi
printf '%s\n' "$p" | grep -q "target       workload pid [0-9]* and its children from its exec" ||
	fail "explain's target: $p"
echo "ok: --explain says the kernel, the workload's tasks from its exec"

# stat EVENT CMD...: perf stat's count of EVENT over CMD
stat() {
	local ev=$1
	shift
	perf stat -x, -e "$ev" -- "$@" 2>&1 >/dev/null | awk -F, -v e="$ev" '$3 == e { print $1 }'
}
# three SQL EVENT WANT CMD...: SQL over CMD in the kernel and on the ring gives WANT (rows
# joined by spaces), and the sum of its count column (the last) is perf stat's count of EVENT
three() {
	local sql=$1 ev=$2 want=$3 k r n sum
	shift 3
	k=$(q -m 1024 "$sql" -- "$@" | tr '\n' ' ' | sed 's/ $//')
	r=$(q -m 1024 --no-bpf "$sql" -- "$@" | tr '\n' ' ' | sed 's/ $//')
	n=$(stat "$ev" "$@")
	[ "$k" = "$r" ] || fail "$sql -- $*: the kernel gave '$k', the ring '$r'"
	[ -z "$want" ] || eq "$k" "$want" "$sql -- $* (both paths)"
	sum=$(printf '%s\n' "$k" | tr ' ' '\n' | awk -F, '{ s += $NF } END { print s + 0 }')
	eq "$sum" "$n" "$sql -- $*: both paths' total against perf stat -e $ev"
}
three "select comm, count(*) from sys_enter_execve group by comm" syscalls:sys_enter_execve \
	"sh,2" sh -c "$cmd"
three "select comm, count(*) from sys_exit_execve group by comm order by comm" \
	syscalls:sys_exit_execve "getppid_loop,1 sh,1 writes,1" sh -c "$cmd"
# every system call of a static workload, its first ones after the exec included
three "select comm, count(*) from \"raw_syscalls:sys_enter\" group by comm" raw_syscalls:sys_enter \
	"" "$WL/writes" 10 8
three "select comm, count(*) from \"raw_syscalls:sys_exit\" group by comm" raw_syscalls:sys_exit \
	"" "$WL/writes" 10 8
