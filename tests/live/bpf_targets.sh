# -p, -t and --cgroup in the kernel (docs/bpf.md, "A workload's tasks"): the targets' threads
# are members of the BPF map of tasks from the start, their children join it (task_newtask) as
# the perf ring's inherit follows them; GROUP BY and pairs() alike. One held run of a known workload is counted at once by
# perf-sql in the kernel and on the ring (--no-bpf), both attached before it starts: identical,
# exact answers.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d) || fail "mktemp"
cg=
trap 'kill "${BG[@]}" 2>/dev/null; [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$dir"' EXIT
p=$("$PERF_SQL" --explain -p $$ "select comm, count(*) from sys_enter_getppid group by comm") ||
	fail "explain -p"
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "-p: not aggregated in the kernel: $p"
fi
printf '%s\n' "$p" | grep -q "target       1 thread of -p, -t or --cgroup and their children" ||
	fail "-p: explain's target: $p"
echo "ok: -p: --explain says the kernel and the targets' map"

# twice SQL WANT OPTION...: the held CMD (started by the caller) counted by SQL with OPTION on
# both paths at once; both must give WANT (rows joined by spaces; "": the same rows), in LAST
twice() {
	local sql=$1 want=$2 k r
	shift 2
	mkdir -p "$dir/k" "$dir/r"
	query_held "$dir/k" "$sql" "$@"
	for _ in $(seq 100); do grep -q "^  path " "$dir/k/query.err" && break; sleep 0.02; done
	grep -q "path         aggregated in the kernel" "$dir/k/query.err" ||
		fail "$*: not in the kernel: $(cat "$dir/k/query.err")"
	query_held "$dir/r" "$sql" --no-bpf -m 1024 "$@"
	release "$dir"
	k=$(tail -n +2 "$dir/k/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	r=$(tail -n +2 "$dir/r/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	[ "$k" = "$r" ] || fail "$* $sql: the kernel gave '$k', the ring '$r'"
	[ -n "$want" ] || want=$k # no known answer: the two paths agree
	LAST=$k
	eq "$k" "$want" "$* (both paths): $sql"
	rm -rf "$dir/k" "$dir/r" "$dir/go"
}
sql="select comm, count(*) from sys_enter_getppid group by comm"
# -p: the process (sh, whose start calls getppid once) and the children it starts
hold "$dir" sh -c "$WL/stacks 300 200 100 >/dev/null; $WL/stacks 10 20 30 >/dev/null"
twice "$sql" "sh,1 stacks,660" -p "$HELD"
f=";__libc_start_call_main;main;" # rows joined by spaces: folded_stack's line ends too
hold "$dir" "$WL/stacks" 3000 2000 1000
twice "select count(*), folded_stack(stack) from sys_enter_getppid group by stack order by 1" \
	"1000,\"stacks${f}stack_c;stack_b2;syscall 1000 \" 2000,\"stacks${f}stack_b;syscall 2000 \" 3000,\"stacks${f}stack_a;syscall 3000 \"" \
	-p "$HELD"
# pairs() (the syscalls profiler's statement, with its syscall=): both programs see the
# targets' tasks only; the read the held sh waits in when they attach has no start: unpaired on
# both paths
P="pairs('sys_enter', '_tid', 'sys_exit', '_tid', 'id', 'ret')"
psql="select syscall_name(start_value), count(*), sum(end_value < 0) from $P
      where syscall_name(start_value) = 'getppid' group by start_value"
hold "$dir" sh -c "$WL/stacks 300 200 100 >/dev/null; $WL/stacks 10 20 30 >/dev/null"
twice "$psql" "getppid,661,0" -p "$HELD"
# every call of the tree, by system call (its own exec's included: started after the attach)
hold "$dir" sh -c "$WL/stacks 3 2 1 >/dev/null; $WL/writes 20 8"
twice "select syscall_name(start_value), count(*), sum(end_value < 0) from $P
      group by start_value order by 1" "" -p "$HELD"
case " $LAST " in *" getppid,7,0 "*) ;; *) fail "-p: every call: no getppid,7,0 in '$LAST'" ;; esac
echo "ok: -p: every call: getppid,7,0 among them (sh 1, stacks 6)"
gsql="select comm, count(*) from pairs('sys_enter_getppid', '_tid', 'sys_exit_getppid', '_tid')
      group by comm"
hold "$dir" sh -c "$WL/stacks 30 20 10 >/dev/null; $WL/stacks 1 2 3 >/dev/null"
twice "$gsql" "sh,1 stacks,66" -p "$HELD"
# -t: one thread (and what it starts)
hold "$dir" sh -c "$WL/stacks 7 0 0 >/dev/null; $WL/stacks 0 0 5 >/dev/null"
twice "$sql" "sh,1 stacks,12" -t "$HELD"
hold "$dir" sh -c "$WL/stacks 7 0 0 >/dev/null; $WL/stacks 0 0 5 >/dev/null"
twice "$gsql" "sh,1 stacks,12" -t "$HELD"

# --cgroup: the threads in it at the start, and their children
base=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && base=$d && break
done
if [ -n "$base" ] && mkdir "$base/perfsql-bpf-$$" 2>/dev/null; then
	cg="$base/perfsql-bpf-$$"
	hold "$dir" sh -c "$WL/stacks 40 0 0 >/dev/null; $WL/stacks 0 2 0 >/dev/null"
	echo "$HELD" > "$cg/cgroup.procs" || fail "cannot move $HELD into $cg"
	twice "$sql" "sh,1 stacks,42" --cgroup "${cg#$base/}"
	hold "$dir" sh -c "$WL/stacks 40 0 0 >/dev/null; $WL/stacks 0 2 0 >/dev/null"
	echo "$HELD" > "$cg/cgroup.procs" || fail "cannot move $HELD into $cg"
	twice "$gsql" "sh,1 stacks,42" --cgroup "${cg#$base/}"
else
	echo "ok: --cgroup not tried: no cgroup v2 hierarchy to make a cgroup in"
fi

# under -p, sampled events and tables that name tasks run in the kernel too (their equivalence
# with the ring: tests/live/bpf_options.sh)
p=$("$PERF_SQL" --explain -p $$ "select count(*) from cpu_clock(99) group by _tid" | grep "path  ")
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on cpu_clock sampled at 99 Hz" ||
	fail "-p cpu_clock: $p"
p=$("$PERF_SQL" --explain -p $$ "select prev_pid, count(*) from sched_switch group by 1")
printf '%s\n' "$p" | grep -q "path         aggregated in the kernel" || fail "-p sched_switch: $p"
printf '%s\n' "$p" | grep -q "an event counts when a task it names (prev_pid/next_pid) is one" ||
	fail "-p sched_switch: its target: $p"
p=$("$PERF_SQL" --explain -p $$ rundelay | grep "path  " | head -1)
printf '%s\n' "$p" | grep -q "pairs() starts in the kernel" || fail "-p rundelay: $p"
echo "ok: -p: sampled events and tables that name tasks run in the kernel, with their targets"
