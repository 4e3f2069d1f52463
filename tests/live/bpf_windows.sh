# Tables aggregated in the kernel (docs/bpf.md) over time and next to others: every event in
# exactly one -i window; a full map counted as lost, never dropped silently; the program returns
# 1, so a perf stat of the same tracepoint in parallel counts every event; a BPF table and a
# ring table in one run; nothing stays attached after SIGINT, SIGTERM or SIGKILL.
. "$(dirname "$0")/lib.sh"; need_root
plan=$("$PERF_SQL" -a --explain "select comm, count(*) from sys_enter_getppid group by comm") ||
	fail "explain"
# only a machine without BPF (or without the privilege) skips; anything else is a failure
if ! printf '%s\n' "$plan" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$plan" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$plan" | grep path)"
	fail "not aggregated in the kernel: $plan"
fi
d=$(mktemp -d) || fail "mktemp"
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2> /dev/null; rm -rf "$d"' EXIT

# (1) windows: the two maps swap at each window's end; the sums over windows are exact. Two
# runs of writes 1 s apart, so their events fall in two windows at least whatever the machine's
# load (a window's end swaps the maps, which waits for an RCU grace period: 250 ms were seen
# under ASan on a loaded machine, so no more windows than that are required); a size of 4321
# bytes and the name keep other tasks' writes out
n=300000
"$PERF_SQL" --csv -a -i 25 "select count(*), sum(count) from sys_enter_write where count = 4321
	and comm = 'writes'; select sum(received), sum(lost) from perf_sql_stats" -- \
	sh -c "$WL/writes $((n / 2)) 4321; sleep 1; $WL/writes $((n / 2)) 4321" > "$d/w" ||
	fail "windowed run"
wins=$(grep -c '^20' "$d/w")
full=$(awk -F, '/^20/ && NF == 3 && !seen[$1]++ && $2 > 0' "$d/w" | wc -l)
[ "$full" -ge 2 ] || fail "the writes in $full window(s): $(head -5 "$d/w")"
got=$(awk -F, '/^20/ && NF == 3 && !seen[$1]++ { c += $2; s += $3 } END { printf "%d %d", c, s }' "$d/w")
eq "$got" "$n $((n * 4321))" "count(*) and sum(count) over $((wins / 2)) windows of 25 ms"
got=$(awk -F, '/^20/ && NF == 3 && seen[$1]++ { r += $2; l += $3 } END { printf "%d %d", r, l }' "$d/w")
eq "$got" "$n 0" "perf_sql_stats over the windows: received (events aggregated), lost"

# (1b) the storm that makes a 1-page ring lose events (live/lost_exact): in the kernel every
# call is counted, nothing lost
out=$("$PERF_SQL" --csv -m 1 "select count(*) from sys_enter_getppid where _pid = workload_pid();
	select sum(received), sum(lost) from perf_sql_stats" -- "$WL/storm" 1 2> "$d/err" |
	tr -d '\r') || fail "storm run"
calls=$(grep -o 'calls=[0-9]*' "$d/err" /dev/null | head -1 | cut -d= -f2)
[ -n "$calls" ] || calls=$(printf '%s\n' "$out" | grep -o 'calls=[0-9]*' | cut -d= -f2)
out=$(printf '%s\n' "$out" | grep -v '^calls=' | tr '\n' ' ')
eq "$out" "count(*) $calls sum(received),sum(lost) $calls,0 " "a storm of $calls getppid calls"

# (2) --max-groups: 10 groups fit, the other 30 forks are lost (counted), with a warning
out=$(q -a --max-groups 10 "select child_pid, count(*) from sched_process_fork
	where parent_pid = workload_pid() group by child_pid;
	select sum(received), sum(lost) from perf_sql_stats" -- "$WL/forker" 40 2> "$d/err")
eq "$(printf '%s\n' "$out" | grep -c ',1$')" 10 "groups aggregated with --max-groups 10"
eq "$(printf '%s\n' "$out" | tail -1)" "10,30" "perf_sql_stats received, lost"
grep -q "sched:sched_process_fork: 30 events of this window found the BPF map full and were not aggregated; raise --max-groups (now 10)" "$d/err" ||
	fail "no warning: $(cat "$d/err")"
echo "ok: the full map's 30 events said on stderr"

# (3) a perf stat of the same tracepoint in parallel counts every event (the program returns 1);
# a BPF table and a ring table in one run
k=200000
# (p99() outside pairs() keeps the second on the ring: SQLite computes it)
R="select count(*), p99(_cpu) >= 0 from sys_exit_getppid where comm = 'getppid_loop'"
out=$(qx '^calls=' -a -m 1024 "select count(*) >= $k from sys_enter_getppid where comm = 'getppid_loop'
	group by comm; $R" -- \
	perf stat -x, -e syscalls:sys_enter_getppid -o "$d/stat" -- "$WL/getppid_loop" $k | tr '\n' ' ')
stat=$(awk -F, '$3 == "syscalls:sys_enter_getppid" { print $1 }' "$d/stat")
eq "$stat" "$k" "perf stat's count of getppid_loop's calls while perf-sql's program ran"
case $out in
"1 count(*),p99(_cpu) >= 0 "[0-9]*",1 ") n=${out#1 count(\*),p99(_cpu) >= 0 }
	[ "${n%,1 }" -ge $k ] || fail "ring table: $out" ;;
*) fail "BPF and ring tables in one run: $out" ;;
esac
echo "ok: the BPF table and the ring table of one run both saw the $k calls"
p=$("$PERF_SQL" -a --explain "select count(*) from sys_enter_getppid where comm = 'x' group by comm;
	$R")
[ "$(printf '%s\n' "$p" | grep -c 'path         aggregated in the kernel')" = 1 ] &&
	[ "$(printf '%s\n' "$p" | grep -c 'path         perf ring')" = 1 ] || fail "paths: $p"
echo "ok: --explain: one table in the kernel, one on the ring"

# (4) however perf-sql ends, its program is gone with it
command -v bpftool > /dev/null || skip "bpftool is not installed (make setup installs it)"
for sig in INT TERM KILL; do
	"$PERF_SQL" -a -v "select comm, count(*) from sys_enter_getppid group by comm" > /dev/null \
		2> "$d/v.$sig" & pid=$!
	id=
	for _ in $(seq 100); do
		id=$(sed -n 's/.*aggregated in the kernel: BPF program \([0-9]*\) .*/\1/p' "$d/v.$sig")
		[ -n "$id" ] && break
		sleep 0.05
	done
	[ -n "$id" ] || { kill -KILL $pid; fail "SIG$sig: no program id in: $(cat "$d/v.$sig")"; }
	bpftool prog show id "$id" > "$d/show" 2>&1 ||
		fail "program $id not loaded while running (perf-sql $(kill -0 $pid 2> /dev/null &&
		echo running || echo gone)): $(cat "$d/show" "$d/v.$sig")"
	sleep 0.2
	kill -"$sig" $pid
	wait $pid
	# detached with the process's fds; the kernel frees the program after a grace period
	for _ in $(seq 100); do bpftool prog show id "$id" > /dev/null 2>&1 || break; sleep 0.05; done
	! bpftool prog show id "$id" > /dev/null 2>&1 || fail "program $id still loaded 5 s after SIG$sig"
	pid=
	echo "ok: SIG$sig: program $id gone with perf-sql"
done
