# The workload's process tree is exact (issue 13): every child, grandchild and thread is in the
# scheduler tables from its fork to its exit, whichever CPU's ring is read first. Four trees:
# a shell loop of N commands, N forks at once, N threads, a fork chain of depth N.
#  (1) fork, exec, exit and wakeup_new rows under -- CMD equal the workload's exact counts, and
#      perf stat's on the same command (these counts do not depend on timing);
#  (2) the forks join the exits on the child's pid, one row per child;
#  (3) wakeups and sleeps (switches out in state S) depend on timing: one run of CMD is counted
#      at once by perf stat (inherit: what runs in the tree's tasks, from CMD's exec to each
#      task's exit) and by perf-sql, which runs perf stat as its workload. perf-sql's rows that
#      ran in those tasks, from the same exec to the same exits, must be as many, exactly.
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
n=50
dir=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$dir"' EXIT
list=$(seq -s ' ' $n)
events=sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit
events=$events,sched:sched_wakeup_new
counts="select (select count(*) from sched_process_fork) forks,
	(select count(*) from sched_process_exec) execs, (select count(*) from sched_process_exit) exits,
	(select count(*) from sched_wakeup_new) wakeup_new,
	(select count(*) from sched_process_fork f join sched_process_exit e on e.pid = f.child_pid) joined,
	(select sum(lost) from perf_sql_stats) lost"
# what ran in the tree below perf stat (its one child, CMD, from its exec on), up to each exit
# (unary + keeps a term that names another table's rows out of the kernel filters: the dry run
# that plans them sees those tables empty)
in_tree="+_tid in kids and (_tid not in cmd or _time >= (select t from t0))
	and _time <= coalesce((select t from ex where p = _tid), 9e18)"
context="with kids(p) as (select child_pid from sched_process_fork),
	cmd(p) as (select child_pid from sched_process_fork where +parent_pid = workload_pid()),
	t0(t) as (select min(_time) from sched_process_exec where +pid in cmd),
	ex(p, t) as (select pid, _time from sched_process_exit)
	select (select count(*) from sched_wakeup where $in_tree) wakeups,
	       (select count(*) from sched_switch where prev_state = 1 and $in_tree) sleeps,
	       (select count(*) from cmd) cmds, (select sum(lost) from perf_sql_stats) lost"
check() {   # check NAME FORKS EXECS EXITS CMD...
	local name=$1 forks=$2 execs=$3 exits=$4 got ps
	shift 4
	perf stat -x, -o "$dir/stat" -e $events -- "$@" || fail "$name: perf stat failed"
	ps=$(for e in fork exec exit; do stat_count "$dir" sched:sched_process_$e; done
	     stat_count "$dir" sched:sched_wakeup_new)
	eq "$(echo $ps)" "$forks $execs $exits $forks" "$name: perf stat forks, execs, exits, wakeup_new"
	got=$(q "$counts" -- "$@") || fail "$name: perf-sql failed"
	eq "$got" "$forks,$execs,$exits,$forks,$forks,0" \
		"$name: perf-sql forks, execs, exits, wakeup_new, forks joined to exits, lost"
	got=$(q "$context" -- sh -c 'exec perf stat -x, -o "$0" -e sched:sched_wakeup \
		--filter "pid != $PPID" -e sched:sched_switch --filter "prev_state == 1" -- "$@"' \
		"$dir/stat" "$@") || fail "$name: perf-sql -- perf stat failed"
	# (perf-sql's sched_switch and sched_wakeup hold other tasks' rows, some of which the kernel
	# may count and not write, see docs/reliability.md: not these, which ran in the tree)
	ps="$(stat_count "$dir" sched:sched_wakeup),$(stat_count "$dir" sched:sched_switch),1"
	eq "${got%,*}" "$ps" "$name: wakeups and sleeps in the tree, as perf stat counted them in one run"
}
check "shell loop of $n" $n $((n + 1)) $((n + 1)) sh -c "for i in $list; do /bin/true; done"
check "$n forks" $n 1 $((n + 1)) "$WL/forker" $n
check "$n threads" $n 1 $((n + 1)) "$WL/spawn" threads $n
check "chain of $n" $n 1 $((n + 1)) "$WL/spawn" chain $n
