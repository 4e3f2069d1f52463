# Every query shape that runs in the kernel (docs/bpf.md), on both paths over the same
# deterministic workloads: the BPF path's output must be the perf ring's (--no-bpf), byte for
# byte, and the plan must say the BPF path was taken. Exact counts where the workload fixes them.
. "$(dirname "$0")/lib.sh"; need_root
plan=$("$PERF_SQL" -a --explain "select comm, count(*) from sys_enter_getppid group by comm") ||
	fail "explain"
# only a machine without BPF (or without the privilege) skips; anything else is a failure
if ! printf '%s\n' "$plan" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
	fail "not aggregated in the kernel: $plan"
fi

# both SQL CMD...: -a (unless SCOPE=workload), on both paths; prints the rows (the workload's
# own lines dropped)
both() {
	local sql=$1 k r p a=-a
	shift
	[ "${SCOPE:-}" = workload ] && a=-q
	p=$("$PERF_SQL" $a --explain "$sql" -- "$@" 2>&1) || fail "explain: $sql: $p"
	printf '%s\n' "$p" | grep -q "path         aggregated in the kernel" ||
		fail "not aggregated in the kernel: $sql: $p"
	k=$(qx '^start=' $a "$sql" -- "$@") || fail "bpf run: $sql"
	r=$(qx '^start=' $a --no-bpf -m 1024 "$sql" -- "$@") || fail "ring run: $sql"
	[ "$k" = "$r" ] || fail "$sql: BPF gave '$k', the ring '$r'"
	printf '%s\n' "$k" | tr '\n' ' ' | sed 's/ $//'
}
# same SQL EXPECTED CMD...: both paths agree and give EXPECTED (rows joined by spaces)
same() {
	local sql=$1 want=$2 got
	shift 2
	got=$(both "$sql" "$@") || exit 1
	eq "$got" "$want" "$sql"
}

wr=("$WL/writes" 1000 777 50 10)
me="from sys_enter_write where _pid = workload_pid()"
same "select comm, count(*) $me group by comm" "writes,1050" "${wr[@]}"
same "select count(*), sum(count), min(count), max(count), avg(count), count(fd) $me" \
	"1050,777500,10,777,740.47619047619,1050" "${wr[@]}"
same "select count / 100 as k, count(*) n $me group by k order by n desc" "7,1000 0,50" "${wr[@]}"
same "select count & 7, count % 7, count(*) $me group by 1, 2" "1,0,1000 2,3,50" "${wr[@]}"
same "select count(*) $me group by fd having count(*) > 100 limit 1" "1050" "${wr[@]}"
same "select count(*) $me and (count = 777 or count < 11) and count != 12 and count not in (1, 2)
      and count >= 10 and count <= 777 and count > 9 and not count between 11 and 776" "1050" \
	"${wr[@]}"
same "select count(*), sum(count) $me and count in (777) and 777 = count" "1000,777000" "${wr[@]}"
same "select count(*) $me and comm = 'writes' and comm != 'x' and comm in ('writes', 'sh')" \
	"1050" "${wr[@]}"
same "select count(*), sum(count) $me and comm = 'a name longer than 15'" "0," "${wr[@]}"
same "select count, max(count) - min(count), count(*) * 2 $me group by count order by count" \
	"10,0,100 777,0,2000" "${wr[@]}"
same "select count(*) $me group by _tid" "1050" "${wr[@]}"
# by CPU, as a user runs it (unpinned: the writes fall where the scheduler puts them): the same
# total on both paths, 1050; then pinned to CPU 1, where the CPU is the workload's
# definition (and CPU 1 is the one whose idle events the ring misses here: the pin makes the
# check harder, not easier)
# (the two paths run one after the other, where the writes may fall on other CPUs: their sum,
# a subquery of the rows by CPU, compiled alone)
same "select sum(n), count(*) <= $(nproc) from (select _cpu, count(*) as n $me group by _cpu)" \
	"1050,1" "${wr[@]}"
same "select _cpu, count(*) $me group by _cpu" "1,1050" taskset -c 1 "${wr[@]}"
same "select upper(comm), sum(count) / count(*) $me group by comm" "WRITES,740" "${wr[@]}"
both "select log2_hist(count), log2_hist(count, 'bytes'), lin_hist(count, 0, 1000, 100, 'B') $me" \
	"${wr[@]}" > /dev/null && echo "ok: log2_hist and lin_hist, with and without a unit"
both "select count, log2_hist(count), lin_hist(count, -5, 20, 3) $me group by count" \
	"${wr[@]}" > /dev/null && echo "ok: histograms per group, lin_hist with under- and overflow"
# system calls run on tp_btf/sys_enter and sys_exit: the fields from the registers and arguments
p=$("$PERF_SQL" -a --explain "select count(*) from sys_exit_write where ret > 0 group by _cpu")
printf '%s\n' "$p" | grep -q "on tp_btf/sys_exit (system call 1)" || fail "tp_btf: $p"
same "select count, count(*), min(buf) > 0 $me group by fd, count" "10,50,1 777,1000,1" "${wr[@]}"
same "select ret, count(*) from sys_exit_write where _pid = workload_pid() group by ret" \
	"10,50 777,1000" "${wr[@]}"
same "select id, count(*), min(ret), sum(ret) from \"raw_syscalls:sys_exit\" where id = 1 and
      _pid = workload_pid() group by id" "1,1050,10,777500" "${wr[@]}"
same "select count(*) from \"raw_syscalls:sys_enter\" where id = 1 and _pid = workload_pid()" \
	"1050" "${wr[@]}"
same "select __syscall_nr, count(*) $me group by 1" "1,1050" "${wr[@]}"
# a char[16] field as the key (the new task's comm), another workload
same "select comm, count(*), min(pid) > workload_pid() from sched_wakeup_new
      where _pid = workload_pid() and comm = 'forker' group by comm" "forker,30,1" "$WL/forker" 30
same "select count(*) >= 500, count(*) < 520 from page_fault_user where _pid = workload_pid()
      and error_code = 6" "1,1" "$WL/pagetouch" 500

# -- CMD without -a: the workload's tasks from its exec, children and threads included (a map
# kept by programs on task_rename, task_newtask, sched_process_exit), as inherit follows them
p=$("$PERF_SQL" --explain "select comm, count(*) from sys_enter_write group by comm" -- true)
printf '%s\n' "$p" | grep -q "target       workload pid [0-9]* and its children from its exec" ||
	fail "workload scope: $p"
SCOPE=workload same "select comm, count(*), sum(count) from sys_enter_write group by comm" \
	"writes,1050,777500" "${wr[@]}"
SCOPE=workload same "select comm, count(*) from sys_enter_exit_group group by comm" \
	"forker,31" "$WL/forker" 30
SCOPE=workload same "select comm, count(*) from sys_enter_exit_group group by comm" \
	"forker,37 sh,1 writes,1" sh -c "$WL/forker 30; $WL/writes 100 8 10 9; $WL/forker 5"
SCOPE=workload same "select comm, count(*), sum(count) from sys_enter_write group by comm" \
	"writes,110,890" sh -c "$WL/forker 30; $WL/writes 100 8 10 9; $WL/forker 5"

# software events: a perf_event program on each CPU's samples. pagetouch's N faults in its
# mapping (the range it prints at its end), page by page, exactly, on both paths
pages() {
	local out se
	out=$("$PERF_SQL" --csv -a "$@" "select addr / 4096, count(*), sum(_period), min(ip) > 0
		from page_faults where _pid = workload_pid() group by 1" -- "$WL/pagetouch" 500) ||
		fail "page_faults run $*"
	se=$(printf '%s\n' "$out" | sed -n 's/^start=\(0x[0-9a-f]*\) end=\(0x[0-9a-f]*\)$/\1 \2/p')
	[ -n "$se" ] || fail "no range from pagetouch: $out"
	printf '%s\n' "$out" | awk -F, -v s=$((${se% *} / 4096)) -v e=$((${se#* } / 4096)) '
		$1 ~ /^[0-9]+$/ && $1 >= s && $1 < e { n++; c += $2; p += $3; ip += $4 }
		END { print n, c, p, ip }'
}
p=$("$PERF_SQL" -a --explain "select count(*) from page_faults where _pid = 1 group by addr")
printf '%s\n' "$p" | grep -q "on page_faults sampled every 1 events on" || fail "page_faults: $p"
eq "$(pages)" "500 500 500 500" "pagetouch's pages in the kernel: pages, faults, periods, ips"
eq "$(pages --no-bpf)" "500 500 500 500" "pagetouch's pages on the ring"
# burn 1 cpu: one second of its own CPU time however loaded the machine, so 99 samples of it on
# average. A CPU's 99 Hz tick lands on burn with the share f of that CPU burn holds: a binomial
# count of mean 99 and deviation sqrt(99 (1 - f)), at most 7 while burn gets half a CPU or more
# (93..107 seen here under a hog); 70..130 is 4 of those, and still fails a wrong rate (x2, /2)
same "select count(*) between 70 and 130, min(_period) > 0 from cpu_clock(99)
      where _pid = workload_pid()" "1,1" "$WL/burn" 1 cpu

# the scheduler's tracepoints on tp_btf (bpf/sched_btf.h): their fields are members of the task
# arguments. One held run is counted at once by perf-sql -a in the kernel and on the ring
# (--no-bpf), both attached before it starts: the same rows. Nothing is pinned; every CPU is
# kept busy (busy_cpus, lib.sh: the ring misses the events an idle CPU's interrupts fire here,
# which the kernel counts). at_once SQL WANT CMD...: WANT "" is "the two paths agree"; the rows
# (joined by spaces) in LAST
dir=$(mktemp -d) || fail "mktemp"
trap 'kill "${BG[@]}" 2>/dev/null; idle_cpus; rm -rf "$dir"' EXIT
busy_cpus
at_once() {
	local sql=$1 want=$2 k r p
	shift 2
	hold "$dir" "$@"
	mkdir -p "$dir/k" "$dir/r"
	query_held "$dir/k" "${sql//HELD/$HELD}" -a
	grep -q "path         aggregated in the kernel: .* on tp_btf/sched_" "$dir/k/query.err" ||
		fail "$sql: not on tp_btf: $(grep path "$dir/k/query.err")"
	query_held "$dir/r" "${sql//HELD/$HELD}" -a --no-bpf -m 1024
	# -a runs until stopped: the held CMD's end, then Ctrl-C (each prints and exits 0)
	echo go >"$dir/go"
	wait "$HELD" || fail "$*: exited $?"
	kill -INT "${BG[@]:1}"
	for p in "${BG[@]:1}"; do
		wait "$p" || fail "perf-sql $p exited $?: $(cat "$dir"/*/query.err)"
	done
	k=$(tail -n +2 "$dir/k/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	r=$(tail -n +2 "$dir/r/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	rm -rf "$dir/k" "$dir/r" "$dir/go"
	[ "$k" = "$r" ] || fail "$sql: the kernel gave '$k', the ring '$r' (same run)"
	LAST=$k
	[ -n "$want" ] || want=$k
	eq "$k" "$want" "$sql (both paths, one run)"
}
sl=("$WL/sleeper" 50 1)
# sleeper: a wakeup of its pid named sleeper per sleep, on either CPU (target_cpu: task_cpu()),
# the same rows on both paths, whatever task the interrupt that wakes it lands in (perf-sql
# leaves out only the rows that name itself)
at_once "select comm, target_cpu, min(prio) = max(prio), count(*) > 0
	 from sched_wakeup where pid = HELD and comm = 'sleeper'
	 group by comm, target_cpu" "" "${sl[@]}"
at_once "select count(*) > 0, min(prio) > 0 from sched_waking
	 where pid = HELD and comm = 'sleeper'" "1,1" "${sl[@]}"
# each sleep switches away from the sleeper once (prev_state S) and back to it (more when a
# third task preempts it, fewer when its timer fired before it switched out: the same on both
# paths)
at_once "select prev_comm, min(prev_prio) = max(prev_prio), count(*) >= 50 from sched_switch
	 where prev_pid = HELD and prev_comm = 'sleeper' group by prev_comm" "sleeper,1,1" "${sl[@]}"
at_once "select next_comm, count(*) from sched_switch where next_pid = HELD and next_comm = 'sleeper'
	 group by next_comm" "" "${sl[@]}"
n=$(printf '%s\n' "$LAST" | tr ' ' '\n' | awk -F, '$1 == "sleeper" { print $2 }')
[ "${n:-0}" -ge 45 ] || fail "switches to the sleeper: $LAST"
# prev_state, computed in the tp_btf program as __trace_sched_switch_state() computes it
# (preempted: 256, else the reported state's highest bit, exit_state ORed in): the tracepoint's
# value for every switch out of the sleeper, its sleeps (S, 1) and any preemption by the busy
# loops (R+, 256), the same rows on both paths. Its last switch, out of exit, is Z (32) or X
# (16) as its parent has reaped it or not yet, on another CPU: each path reads exit_state at
# its own instant (one run gave Z in the kernel, X on the ring), so it is counted on its own
at_once "select prev_state, count(*) from sched_switch where prev_pid = HELD
	 and prev_state != 16 and prev_state != 32 group by 1" "" "${sl[@]}"
n=$(printf '%s\n' "$LAST" | tr ' ' '\n' | awk -F, '$1 == 1 { print $2 }')
[ "${n:-0}" -ge 45 ] || fail "the sleeper's switches out in state S: $LAST"
at_once "select count(*) from sched_switch where prev_pid = HELD and prev_state in (16, 32)" 1 "${sl[@]}"
# pingpong -c 0 1000: 2000 switches to its two tasks at least (each blocks in read once per
# round trip and runs again: a switch in; a third task cutting in adds switches, never removes
# one), counted by name, both paths the same
at_once "select next_comm, count(*) >= 2000, count(*) = count(next_prio)
	 from sched_switch where next_comm = 'pingpong' group by 1" "pingpong,1,1" "$WL/pingpong" -c 0 1000
# irq:softirq_entry and irq_handler_exit on tp_btf, their fields the raw tracepoint's arguments
# (bpf/sched_btf.c): over one second of busy CPUs, both paths at once, system-wide (no task
# names these events), every vector a softirq number and TIMER (1) among them, every handler's
# return an irqreturn_t (0 to 2; a second may hold no device interrupt at all). Which rare
# vectors or irqs each path's second holds may differ (they start apart), so the check is the
# values', not the counts'
for t in softirq_entry irq_handler_exit; do
	p=$("$PERF_SQL" -a --explain "select count(*) from $t group by $([ $t = softirq_entry ] && echo vec || echo ret)")
	printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on tp_btf/$t " || fail "$t: not tp_btf: $p"
done
"$PERF_SQL" -a --csv -d 1s "select vec from softirq_entry group by vec;
	select ret from irq_handler_exit group by ret" > "$dir/vk" 2> "$dir/vk.err" &
vk=$!
"$PERF_SQL" -a --csv -d 1s --no-bpf -m 1024 "select vec from softirq_entry group by vec;
	select ret from irq_handler_exit group by ret" > "$dir/vr" 2> "$dir/vr.err" ||
	fail "softirq_entry on the ring: $(cat "$dir/vr.err")"
wait $vk || fail "softirq_entry in the kernel: $(cat "$dir/vk.err")"
for f in vk vr; do
	v=$(tr -d '\r' < "$dir/$f" | grep -vx 'vec\|ret' | tr '\n' ' ')
	vecs=$(tr -d '\r' < "$dir/$f" | sed -n '/^vec$/,/^ret$/p' | grep -vx 'vec\|ret')
	rets=$(tr -d '\r' < "$dir/$f" | sed -n '/^ret$/,$p' | grep -vx ret)
	printf '%s\n' $vecs | grep -qx 1 || fail "$f: no TIMER softirq in a busy second: $v"
	printf '%s\n' $vecs | awk 'NF && ($1 < 0 || $1 > 9) { bad = 1 } END { exit bad }' ||
		fail "$f: a vector out of 0..9: $v"
	printf '%s\n' $rets | awk 'NF && ($1 < 0 || $1 > 2) { bad = 1 } END { exit bad }' ||
		fail "$f: a handler's return out of 0..2: $v"
done
echo "ok: softirq_entry's vectors and irq_handler_exit's returns on tp_btf, both paths: $(tr -d '\r' < "$dir/vk" | tr '\n' ' ')"
idle_cpus
# the plan: tp_btf when only members are read, and prev_state, computed
p=$("$PERF_SQL" -a --explain "select next_comm, count(*) from sched_switch group by next_comm")
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on tp_btf/sched_switch" ||
	fail "sched_switch by next_comm: not tp_btf: $p"
for t in sched_wakeup sched_wakeup_new sched_waking; do
	p=$("$PERF_SQL" -a --explain "select comm, count(*) from $t where pid > 1 group by comm")
	printf '%s\n' "$p" | grep -q "on tp_btf/$t " || fail "$t: not tp_btf: $p"
done
p=$("$PERF_SQL" -a --explain "select prev_state, count(*) from sched_switch group by prev_state")
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on tp_btf/sched_switch" || fail "prev_state: $p"
# a stack key keeps the tracepoint, and says why
p=$("$PERF_SQL" -a --explain "select stack, count(*) from sched_switch group by stack")
printf '%s\n' "$p" | grep -q "on the tracepoint (not tp_btf: a stack key: a raw tracepoint's program would see its own call's chain)" ||
	fail "a stack key: $p"
echo "ok: --explain: tp_btf/sched_switch (prev_state too), sched_wakeup, sched_wakeup_new, sched_waking; a stack key on the tracepoint, with why"

# what stays on the ring, and why: why SQL WANT OPTION [-- CMD...]
why() {
	local sql=$1 want=$2 opt=$3 p
	shift 3
	p=$("$PERF_SQL" --explain "$opt" "$sql" "$@" 2>&1 | grep "path  ")
	printf '%s\n' "$p" | grep -q "perf ring: .*$want" || fail "$sql: expected 'perf ring: ...$want', got: $p"
	echo "ok: ring: $want"
}
why "select comm from sys_enter_write" "reads rows, not groups" -a
why "select p99(count) from sys_enter_write" "p99() is computed in SQLite only" -a
why "select count(*) from sched_wakeup" "counting mode" -a
# count(*) alone of a system call (never fired inside its own program) is a tp_btf program's
# (bpf/hook.h (4)): its link detaches at once, where a perf event's close waits a grace period
p=$("$PERF_SQL" --explain -a "select count(*) from sys_enter_write" 2>&1 | grep "path  ")
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on tp_btf/sys_enter (system call 1)" ||
	fail "count(*) of sys_enter_write: $p"
out=$(q "select count(*) from sys_enter_write; select count(*) from sys_enter_getppid" \
	-- "${wr[@]}" | tr '\n' ' ')
eq "$out" "1050 count(*) 0 " "count(*) alone of two tables in the kernel: the workload's writes, exactly"
why "select comm, count(*) from sys_enter_write group by comm; select comm from sys_enter_write" \
	"read by 2 statements, not each a GROUP BY" -a
why "select comm, count(*) from sys_enter_write group by comm" "no-bpf" --no-bpf
# pairs() plans its tables once per run: the table's one GROUP BY does not account for them
why "select comm, count(*) from sys_enter_write group by comm;
     select count(*) from pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid')" \
	"read by more than one statement or table" -a
out=$(q -a "select count(*) $me group by comm; select count(*) from pairs('sys_enter_write',
	'_tid', 'sys_exit_write', '_tid') where start_tid = workload_pid()" -- "${wr[@]}" | tr '\n' ' ')
eq "$out" "1050 count(*) 1050 " "a GROUP BY and pairs() over one table: both see every row"

# a program the verifier refuses: one line, the ring's answer
out=$(PERF_SQL_TEST_BAD_BPF=1 "$PERF_SQL" --csv -a "select comm, count(*) $me group by comm" \
      -- "${wr[@]}" 2>&1 | tr -d '\r' | tr '\n' ' ' | sed 's/([0-9]* insns)/(N insns)/')
eq "$out" "perf-sql: syscalls:sys_enter_write: not aggregated in the kernel (the verifier refused the BPF program (N insns)); the perf ring is used instead (-v shows the verifier's last lines) comm,count(*) writes,1050 " \
	"a refused program: one line, then the ring's rows"
