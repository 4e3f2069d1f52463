# The BPF map of the workload's tasks (bpf/tree.h): its three programs on raw tracepoints, its
# refused members said, and nothing left in the kernel however perf-sql ends.
#  (1) forker N: count(*) of sys_enter_exit_group by comm in the kernel = N + 1 (forker and
#      its N children: the children joined at task_newtask), no warning.
#  (2) the map made too small for the tree (PERF_SQL_TEST_TREE_MAX=4): the rows plus the
#      refused tasks the warning names = N + 1 exactly, and the warning names the remedy.
#  (3) on exit, SIGINT and SIGKILL: the programs and links perf-sql held while it ran (from its
#      fdinfo) are gone from the kernel (bpftool prog/link show).
. "$(dirname "$0")/lib.sh"; need_root
n=100
d=$(mktemp -d) || fail "mktemp"
trap 'kill -KILL ${pid:-} 2>/dev/null; rm -rf "$d"' EXIT
sql="select comm, count(*) from sys_enter_exit_group group by comm"

# (1)
"$PERF_SQL" --csv "$sql" -- "$WL/forker" $n > "$d/out" 2> "$d/err" || fail "perf-sql: $(cat "$d/err")"
eq "$(tail -n +2 "$d/out" | tr -d '\r')" "forker,$((n + 1))" "exit_group of forker $n, in the kernel"
eq "$(grep -c warning "$d/err")" 0 "warnings with a map large enough"

# (2)
PERF_SQL_TEST_TREE_MAX=4 "$PERF_SQL" --csv "$sql" -- "$WL/forker" $n > "$d/out" 2> "$d/err" ||
	fail "perf-sql: $(cat "$d/err")"
got=$(tail -n +2 "$d/out" | tr -d '\r' | awk -F, '{ print $2 }')
refused=$(sed -n 's/.*warning: \([0-9]*\) new tasks of the workload were not followed.*/\1/p' "$d/err")
[ -n "$refused" ] && [ "$refused" -gt 0 ] || fail "no warning of refused tasks: $(cat "$d/err")"
eq "$((${got:-0} + refused))" $((n + 1)) "rows + refused tasks with a map of 4"
grep -q "use --no-bpf" "$d/err" || fail "the warning names no remedy: $(cat "$d/err")"
echo "ok: the warning names its remedy"

# (3)
command -v bpftool > /dev/null || skip "bpftool is not installed (make setup installs it)"
ids() { cat /proc/"$1"/fdinfo/* 2> /dev/null | sed -n "s/^$2:[[:space:]]*//p" | sort -u; }
for how in exit INT KILL; do
	len=1; [ $how = exit ] || len=30
	"$PERF_SQL" "select comm, count(*) from sys_enter_getppid group by comm" -- sleep $len \
		> /dev/null 2> "$d/err.$how" & pid=$!
	progs= links=
	for _ in $(seq 100); do
		progs=$(ids $pid prog_id); links=$(ids $pid link_id)
		[ "$(echo "$links" | grep -c .)" -ge 4 ] && break
		sleep 0.05
	done
	[ "$(echo "$links" | grep -c .)" -ge 4 ] || fail "$how: perf-sql holds links '$links'"
	for l in $links; do bpftool link show id "$l"; done > "$d/links"
	eq "$(grep -c "raw_tracepoint" "$d/links")" "$(echo "$links" | grep -c .)" \
		"$how: raw tracepoint links held (tree and table)"
	[ $how = exit ] || { sleep 0.2; kill -"$how" $pid; }
	wait $pid
	pid=
	for _ in $(seq 100); do
		left=
		for p in $progs; do bpftool prog show id "$p" > /dev/null 2>&1 && left="$left $p"; done
		for l in $links; do bpftool link show id "$l" > /dev/null 2>&1 && left="$left l$l"; done
		[ -z "$left" ] && break
		sleep 0.05
	done
	eq "${left:-none}" none "$how: programs and links left 5 s after perf-sql ended"
done
