# GROUP BY stack in the kernel (docs/bpf.md, "Stacks"): bpf_get_stack() into a map keyed by the frames' hash
# on both paths over the same workloads. tests/workloads/stacks.c calls getppid from three known
# call chains a known number of times: the kernel's groups must be the perf ring's (--no-bpf),
# byte for byte, with exactly those counts; a full stack map is counted, never silent.
. "$(dirname "$0")/lib.sh"; need_root
sql="select count(*), folded_stack(stack) from sys_enter_getppid group by stack"
plan=$("$PERF_SQL" --explain "$sql" -- true) || fail "explain"
if ! printf '%s\n' "$plan" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
	fail "not aggregated in the kernel: $plan"
fi
printf '%s\n' "$plan" | grep -q "per-CPU hash (stack) -> count, up to 10240 groups, stack map of 10240 chains (user, up to [0-9]* frames each)" ||
	fail "explain does not name the stack map: $plan"
echo "ok: --explain: a stack map, the user chain of a system call"

# both A SQL CMD...: the same rows on both paths (A: -a or -q), printed
both() {
	local a=$1 sql=$2 k r
	shift 2
	k=$("$PERF_SQL" --csv $a "$sql" -- "$@" | grep -v '^a=' | tr -d '\r') || fail "bpf run: $sql"
	r=$("$PERF_SQL" --csv $a --no-bpf -m 1024 "$sql" -- "$@" | grep -v '^a=' | tr -d '\r') || fail "ring run: $sql"
	[ "$k" = "$r" ] || fail "$sql: BPF gave '$k', the ring '$r'"
	printf '%s\n' "$k"
}
st=("$WL/stacks" 3000 2000 1000)
f=";__libc_start_call_main;main;"
want="count(*),folded_stack(stack)
1000,\"stacks${f}stack_c;stack_b2;syscall 1000
\"
2000,\"stacks${f}stack_b;syscall 2000
\"
3000,\"stacks${f}stack_a;syscall 3000
\""
eq "$(both -q "$sql order by 1" "${st[@]}")" "$want" "the workload's three chains, exact, both paths"
got=$(both -a "select count(*), hex(stack) = hex(stack), stack_depth(stack), comm = 'stacks'
	from sys_enter_getppid where _pid = workload_pid() group by stack, comm order by 1" "${st[@]}")
eq "$(printf '%s\n' "$got" | tail -n +2 | tr '\n' ' ')" "1000,1,5,1 2000,1,4,1 3000,1,4,1 " \
	"-a, WHERE _pid: the stack BLOBs (task, name, frames) identical, depths"
got=$(both -q "select stack_text(stack, ' <- '), count(*) from sys_enter_getppid group by stack
	having count(*) > 1500 order by 2" "${st[@]}")
printf '%s\n' "$got" | grep -q '^syscall+0x[0-9a-f]* (stacks) <- stack_b+0x[0-9a-f]* (stacks) <- main+' ||
	fail "stack_text over the groups: $got"
echo "ok: stack_text and HAVING over the groups"

# a tracepoint fired in the kernel: the kernel chain too (forker forks from one place)
got=$(both -q "select count(*), folded_stack(stack), stack_text(stack) from sched_process_fork
	group by stack" "$WL/forker" 30)
printf '%s\n' "$got" | grep -q '^30,"forker;.*;kernel_clone;' ||
	fail "sched_process_fork's kernel and user chain: $got"
echo "ok: a tracepoint's kernel and user chains, 30 forks in one group, both paths"

# no room: a 2-entry stack map and a 2-group hash for three chains. What is not aggregated is
# counted as lost and said on stderr; what is aggregated is exact
out=$("$PERF_SQL" --csv -q --max-groups 2 "select count(*) from sys_enter_getppid group by stack;
	select sum(received), sum(lost) from perf_sql_stats" -- "${st[@]}" 2>&1 | tr -d '\r') || fail "max-groups run"
printf '%s\n' "$out" | grep -q "warning: syscalls:sys_enter_getppid: [0-9]* events of this window .*not aggregated; raise --max-groups (now 2)" ||
	fail "no warning: $out"
eq "$(printf '%s\n' "$out" | awk -F, '/^[0-9]+,[0-9]+$/ { print $1 + $2 }')" 6000 \
	"--max-groups 2: aggregated + lost = every call"

# what stays on the ring
p=$("$PERF_SQL" --explain -a "select count(*) from sys_enter_getppid where stack is not null
	group by comm" | grep "path  ")
printf '%s\n' "$p" | grep -q "perf ring: stack is a GROUP BY key in the kernel" || fail "$p"
echo "ok: a stack in WHERE: the ring, and why"

# folded_stack() without GROUP BY stack (the flame graph query): the stack is a key of the
# kernel's groups only, folded_stack_merge() adds their lines up
p=$("$PERF_SQL" --explain "select folded_stack(stack) from sys_enter_getppid" -- true | grep "path  ")
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* per-CPU hash (stack) -> count" || fail "$p"
eq "$(both -q "select folded_stack(stack), count(*) from sys_enter_getppid" "${st[@]}")" \
	"folded_stack(stack),count(*)
\"stacks${f}stack_a;syscall 3000
stacks${f}stack_b;syscall 2000
stacks${f}stack_c;stack_b2;syscall 1000
\",6000" "folded_stack() of every event, no GROUP BY, both paths"
eq "$(both -q "select comm, folded_stack(stack, 'inline') from sys_enter_getppid group by comm" \
	"$WL/stacks" 0 4 0)" "comm,\"folded_stack(stack, 'inline')\"
stacks,\"stacks${f}stack_b;syscall 4
\"" "folded_stack(stack, OPTIONS) grouped by comm, both paths"
