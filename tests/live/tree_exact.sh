# The workload's process tree is exact (issue 13): every child, grandchild and thread is in the
# scheduler tables from its fork to its exit, whichever CPU's ring is read first. Four trees:
# a shell loop of N commands, N forks at once, N threads, a fork chain of depth N. Each runs
# as a copy of its program in a scratch directory, so its exec is told apart from any other.
#  (1) fork, exec, exit and wakeup_new rows under -- CMD equal the tree's exact counts, and perf
#      stat's on the same command (these counts do not depend on timing); the forks join the
#      exits on the child's pid, one row per child.
#  (2) Wakeups and switches depend on timing, so one run of CMD is counted at once by three:
#      perf-sql, which runs `perf stat -- CMD` as its workload, and perf-sql -a around it all.
#      - sleeps (switches out in state S) ran in the tree's tasks: as many as perf stat counted
#        (inherit: what runs in the tree's tasks, from CMD's exec to each task's exit);
#      - wakeups of the tree's tasks, and switches into them, happen in any task or interrupt:
#        as many as perf-sql -a saw of the tree it rebuilds from the forks, from CMD's exec.
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
n=50
dir=$(mktemp -d) || fail "mktemp"
trap 'kill ${ref:-} 2>/dev/null; rm -rf "$dir"' EXIT
list=$(seq -s ' ' $n)
events=sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit
events=$events,sched:sched_wakeup_new
counts="select (select count(*) from sched_process_fork) forks,
	(select count(*) from sched_process_exec) execs, (select count(*) from sched_process_exit) exits,
	(select count(*) from sched_wakeup_new) wakeup_new,
	(select count(*) from sched_process_fork f join sched_process_exit e on e.pid = f.child_pid) joined,
	(select sum(lost) from perf_sql_stats) lost"
# Below perf stat: its one child is CMD, a member from its exec. A unary + keeps each term that
# names another table's rows out of the kernel filters (the dry run that plans them sees empty
# tables).
from_exec() { echo "+$1 in kids and (+$1 not in cmd or _time >= (select t from t0))"; }
mine="with kids(p) as (select child_pid from sched_process_fork),
	cmd(p) as (select child_pid from sched_process_fork where +parent_pid = workload_pid()),
	t0(t) as (select min(_time) from sched_process_exec where +pid in cmd),
	ex(p, t) as (select pid, _time from sched_process_exit)
	select (select count(*) from sched_switch where prev_state = 1 and $(from_exec _tid)
		and _time <= coalesce((select t from ex where p = _tid), 9e18)) sleeps,
	       (select count(*) from sched_wakeup where $(from_exec pid)) wakeups,
	       (select count(*) from sched_switch where $(from_exec next_pid)) switch_ins,
	       (select sum(lost) from perf_sql_stats) lost"
# perf-sql -a: the tree of the exec of FILE, from the forks, each task from its fork
ref_sql() {
	echo "with recursive t(p, since) as (select pid, _time from sched_process_exec
		where filename = '$1' union select f.child_pid, f._time from sched_process_fork f
		join t on +f.parent_pid = t.p and f._time >= t.since)
	select (select count(*) from sched_wakeup w join t on +w.pid = t.p and w._time >= t.since),
	       (select count(*) from sched_switch s join t on +s.next_pid = t.p
		and s._time >= t.since) switch_ins, (select sum(lost) from perf_sql_stats) lost"
}
rows_of() { echo "${1%,*}"; }   # a CSV row without its last column (lost)
check() {   # check NAME FORKS EXECS EXITS PROGRAM ARGS...
	local name=$1 forks=$2 execs=$3 exits=$4 prog got ps
	shift 4
	prog=$dir/$(basename "$1")
	cp "$(command -v "$1")" "$prog" || fail "cp $1"
	shift
	perf stat -x, -o "$dir/stat" -e $events -- "$prog" "$@" || fail "$name: perf stat failed"
	ps=$(for e in fork exec exit; do stat_count "$dir" sched:sched_process_$e; done
	     stat_count "$dir" sched:sched_wakeup_new)
	eq "$(echo $ps)" "$forks $execs $exits $forks" "$name: perf stat forks, execs, exits, wakeup_new"
	got=$(q "$counts" -- "$prog" "$@") || fail "$name: perf-sql failed"
	# every row is there; lost is said, not required 0: on an idle CPU the kernel counts some
	# events of other tasks it never writes (docs/reliability.md), which changes no row here
	eq "$(rows_of "$got")" "$forks,$execs,$exits,$forks,$forks" \
		"$name: perf-sql forks, execs, exits, wakeup_new, forks joined to exits (lost ${got##*,})"
	# (2): perf-sql -a collects first, until the end FIFO is written
	rm -f "$dir/end" "$dir/ref" "$dir/ref.err"
	mkfifo "$dir/end" || fail "mkfifo"
	"$PERF_SQL" --csv -v -a -m 1024 "$(ref_sql "$prog")" -- sh -c 'read -r _ < "$0"' "$dir/end" \
		>"$dir/ref" 2>"$dir/ref.err" & ref=$!
	wait_plan $ref "$dir/ref.err"
	got=$(q -m 1024 "$mine" -- sh -c 'exec perf stat -x, -o "$0" -e sched:sched_switch \
		--filter "prev_state == 1" -- "$@"' "$dir/stat" "$prog" "$@") ||
		fail "$name: perf-sql -- perf stat failed"
	echo end >"$dir/end"
	wait $ref || fail "perf-sql -a failed: $(cat "$dir/ref.err")"
	ref=
	eq "${got%%,*}" "$(stat_count "$dir" sched:sched_switch)" \
		"$name: sleeps in the tree, as perf stat counted them in the same run"
	# the rows without the last column, each run's lost (said on a failure: the kernel's unwritten
	# events of an idle CPU are missing from both runs alike, docs/reliability.md; -m 1024 keeps
	# the rings themselves from losing any on a loaded machine)
	r=$(tail -n +2 "$dir/ref" | tr -d '\r')
	eq "$(rows_of "${got#*,}")" "$(rows_of "$r")" \
		"$name: wakeups of the tree's tasks and switches into them, as perf-sql -a saw them (lost: perf-sql ${got##*,}, perf-sql -a ${r##*,})"
}
check "shell loop of $n" $n $((n + 1)) $((n + 1)) sh -c "for i in $list; do /bin/true; done"
check "$n forks" $n 1 $((n + 1)) "$WL/forker" $n
check "$n threads" $n 1 $((n + 1)) "$WL/spawn" threads $n
check "chain of $n" $n 1 $((n + 1)) "$WL/spawn" chain $n
