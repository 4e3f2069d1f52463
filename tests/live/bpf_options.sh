# Every option that picks events (-a, -C, -p, -t, --cgroup, -- CMD) on both paths (docs/bpf.md):
# the scheduler's tables (which name tasks: the targets' rows are those naming one of their
# tasks), pairs() of them (rundelay's) and a software event, in the kernel and with --no-bpf,
# over the same known workloads: the same rows, exact where the workload fixes them.
# Every CPU is kept busy (busy_cpus, lib.sh): the ring misses the scheduler's events fired in
# an idle CPU's interrupts on this VM, which the kernel path counts (tests/live/prof_rundelay.sh
# checks the kernel path on an idle machine); nothing is pinned. Where a CPU idled all the
# same, the ring says it lost events and the kernel's count is the larger.
. "$(dirname "$0")/lib.sh"; need_root
p=$("$PERF_SQL" --explain -p $$ "select prev_pid, count(*) from sched_switch group by 1") ||
	fail "explain -p"
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|perf ring: cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "-p sched_switch: not aggregated in the kernel: $p"
fi
dir=$(mktemp -d) || fail "mktemp"
cg=
trap 'kill "${BG[@]}" 2>/dev/null; idle_cpus; [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$dir"' EXIT
# the idle task's _comm is swapper on both paths (perf's name; bpf_get_current_comm() gives
# swapper/N): switches out of idle, which a CPU not kept busy makes many times a second (a
# machine loaded by other jobs may not idle for 3 s: then nothing is there to name)
seen=
for path in "" --no-bpf; do
	out=$(q $path -d 3s "select _comm, count(*) > 0 from sched_switch where prev_pid = 0
	      and _pid = 0 group by 1") || fail "swapper ${path:-in the kernel}"
	[ -z "$out" ] || eq "$out" "swapper,1" "the idle task's _comm ${path:-in the kernel}"
	seen+=$out
done
[ -n "$seen" ] || echo "ok: no CPU idled for 3 s here (a loaded machine): the idle task's name not seen"
busy_cpus

# at_once SQL WANT OPTION...: the held CMD (hold, by the caller) counted by SQL with OPTION on
# both paths at once, both attached before it runs; both give WANT (rows joined by spaces; "":
# the two agree), in LAST. System-wide runs end at SIGINT once CMD has ended.
at_once() {
	local sql=${1//HELD/$HELD} want=$2 k r p
	shift 2
	set -- "${@//HELD/$HELD}"
	mkdir -p "$dir/k" "$dir/r"
	query_held "$dir/k" "$sql" "$@"
	grep -q "path         aggregated in the kernel" "$dir/k/query.err" ||
		fail "$*: not in the kernel: $(grep path "$dir/k/query.err")"
	query_held "$dir/r" "$sql" --no-bpf -m 1024 "$@"
	echo go >"$dir/go"
	wait "$HELD" || fail "$*: the held command exited $?"
	for p in "${BG[@]:1}"; do
		case " $* " in *" -p "* | *" -t "* | *" --cgroup "*) ;; *) kill -INT "$p" ;; esac
	done
	for p in "${BG[@]:1}"; do
		wait "$p" || fail "perf-sql $p exited $?: $(cat "$dir"/*/query.err)"
	done
	k=$(tail -n +2 "$dir/k/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	r=$(tail -n +2 "$dir/r/query" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')
	LAST=$k
	if [ "$k" != "$r" ] && grep -q "did not run the program\|lost in the kernel" "$dir/k/query.err"; then
		# a run the kernel skipped (this program already ran on the CPU, interrupted by the
		# same tracepoint), counted lost and said: bpf.md, "Runs the kernel skipped"
		echo "ok: $* $sql: the kernel gave '$k', the ring '$r': $(grep warning "$dir/k/query.err")"
	elif [ "$k" != "$r" ] && grep -q "never wrote them" "$dir/r/query.err"; then
		# an idle moment of a CPU despite the busy loops: the ring's sample of an event in its
		# interrupts never written, counted lost and said; the kernel counted it
		[ "${k%,*}" = "${r%,*}" ] && [ "${k##*,}" -gt "${r##*,}" ] ||
			fail "$* $sql: the kernel gave '$k', the ring '$r' (one run)"
		echo "ok: $* $sql: the kernel gave '$k', the ring '$r': $(grep warning "$dir/r/query.err")"
	elif [ -n "${PAIRS:-}" ]; then
		# pairs(): the ring pairs in timestamp order, where a switch in stamped on one CPU
		# before the wakeup stamped on the other pairs with nothing (bpf_pairs.sh); the
		# kernel in the order things happened: the ring's pairs or more
		[ "${k##*,}" -ge "${r##*,}" ] && [ "${k%,*}" = "${r%,*}" ] ||
			fail "$* $sql: the kernel gave '$k', the ring '$r' (one run)"
		echo "ok: $* $sql: pairs in the kernel '$k', on the ring '$r' (one run)"
	else
		[ "$k" = "$r" ] || fail "$* $sql: the kernel gave '$k', the ring '$r' (one run)"
		[ -n "$want" ] || want=$k
		eq "$k" "$want" "$* (both paths, one run): $sql"
	fi
	rm -rf "$dir/k" "$dir/r" "$dir/go"
}

# sleeper 50 1: 50 wakeups of it (49 to 52 seen, on both paths alike: a sleep may fire none, the
# kernel may wake it more, as at its exec), 50 switches out asleep (prev_state S, 1) and its
# last, dead: a zombie (Z, 32), or already reaped (X, 16) where its parent, waiting on the other
# CPU, reaped it between its exit and that switch (each path reads exit_state at its own
# instant: the one exit is counted as "not asleep", 0); switches in: about one a sleep (none
# where the sleep's timer fired before it switched out, more where it was preempted)
sl=("$WL/sleeper" 50 1)
W="select comm, count(*) from sched_wakeup where pid = HELD and comm = 'sleeper' group by comm"
S="select prev_state = 1, count(*) from sched_switch where prev_pid = HELD and prev_comm = 'sleeper'
   and prev_state in (1, 16, 32) group by 1"
N="select next_comm, count(*) from sched_switch where next_pid = HELD and next_comm = 'sleeper'
   group by 1"
R="select start_value, count(*) from pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid',
   'comm') where key = HELD and start_value = 'sleeper' group by 1"
R1=${R//HELD/workload_pid()}
for opt in -a -p -t; do
	o=("$opt")
	[ "$opt" = -a ] || o+=(HELD)
	hold "$dir" "${sl[@]}"; at_once "$W" "" "${o[@]}"
	between "${LAST#sleeper,}" 45 55 "$opt: wakeups of 50 sleeps"
	hold "$dir" "${sl[@]}"; at_once "$S" "" "${o[@]}"
	eq "$LAST" "0,1 1,50" "$opt: 50 sleeps and one exit"
	hold "$dir" "${sl[@]}"; at_once "$N" "" "${o[@]}"
	between "${LAST#sleeper,}" 45 500 "$opt: switches to the sleeper"
	# a pair a sleep, but where the sleep's timer fired before it switched out (no switch in
	# follows that wakeup, on either path)
	hold "$dir" "${sl[@]}"; PAIRS=1 at_once "$R" "" "${o[@]}"
	between "${LAST#sleeper,}" 45 55 "$opt: wakeup -> run pairs of 50 sleeps"
done
# the targets' rows are those that name one of their tasks, whoever runs them: under -p, a
# wakeup of the sleeper in another task's interrupt is the sleeper's, a wakeup the sleeper did
# of another task (none here) would not be
hold "$dir" "${sl[@]}"
at_once "select comm, count(*) from sched_wakeup group by comm" "" -p HELD
n=$(printf '%s\n' $LAST | sed -n 's/^sleeper,//p')
between "${n:-0}" 45 55 "-p: wakeups of the sleeper by name ($LAST)"

# -a (and no option): perf-sql leaves out the rows that name no task but itself and the idle
# task, on both paths, and no more: two copies at once, psql-a and psql-b, count the wakeups of
# psql-b (its poll's timeouts); psql-b counts none of its own, psql-a sees them
cp "$PERF_SQL" "$dir/psql-a" && cp "$PERF_SQL" "$dir/psql-b" || fail "cp perf-sql"
for path in "" --no-bpf; do
	wq="select count(*) from sched_wakeup where comm = 'psql-b' group by comm"
	"$dir/psql-a" --csv $path -d 1500ms "$wq" >"$dir/a" 2>&1 & pa=$!
	"$dir/psql-b" --csv $path -d 1s "$wq" >"$dir/b" 2>&1 || fail "psql-b $path: $(cat "$dir/b")"
	wait $pa || fail "psql-a $path: $(cat "$dir/a")"
	a=$(grep -v ' ' "$dir/a" | tail -n +2 | tr -d '\r') b=$(grep -v ' ' "$dir/b" | tail -n +2 | tr -d '\r')
	[ -z "$b" ] && [ "${a:-0}" -gt 0 ] ||
		fail "wakeups of psql-b ${path:-in the kernel}: psql-a saw '$a', psql-b '$b'"
	echo "ok: wakeups of psql-b ${path:-in the kernel}: psql-b left its own out, psql-a saw $a"
done
# -C 1: only CPU 1's events, on both paths (the sleeper runs on either CPU)
hold "$dir" "${sl[@]}"
at_once "select _cpu, count(*) from sched_switch where prev_pid = HELD and prev_state = 1
	 group by 1" "" -C 1
case "$LAST" in "" | "1,"*) ;; *) fail "-C 1: rows of another CPU: $LAST" ;; esac
hold "$dir" "${sl[@]}"
at_once "select _cpu, count(*) from sys_enter_clock_nanosleep where _pid = HELD group by 1" "" -C 1
case "$LAST" in "" | "1,"*) ;; *) fail "-C 1: rows of another CPU: $LAST" ;; esac
p=$("$PERF_SQL" -C 1 --explain "select _cpu, count(*) from sched_switch group by 1")
printf '%s\n' "$p" | grep -q "aggregated in the kernel" || fail "-C 1: not in the kernel: $p"

# --cgroup: the threads in it at the start, and their children
base=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && base=$d && break
done
if [ -n "$base" ] && mkdir "$base/perfsql-opt-$$" 2>/dev/null; then
	cg="$base/perfsql-opt-$$"
	hold "$dir" "${sl[@]}"
	echo "$HELD" >"$cg/cgroup.procs" || fail "cannot move $HELD into $cg"
	at_once "$W" "" --cgroup "${cg#$base/}"
	between "${LAST#sleeper,}" 45 55 "--cgroup: wakeups of 50 sleeps"
	hold "$dir" "${sl[@]}"
	echo "$HELD" >"$cg/cgroup.procs" || fail "cannot move $HELD into $cg"
	PAIRS=1 at_once "$R" "" --cgroup "${cg#$base/}"
	between "${LAST#sleeper,}" 45 55 "--cgroup: wakeup -> run pairs of 50 sleeps"
else
	echo "ok: --cgroup not tried: no cgroup v2 hierarchy to make a cgroup in"
fi

# -- CMD (one run each: the workload is perf-sql's own): the same exact counts (the rows name
# the workload's pid: a switch from another task named sleeper into it is its row too)
cmd() {
	local sql=$1 want=$2 k r
	shift 2
	k=$(q "$sql" -- "$@") || fail "bpf run: $sql"
	r=$(q --no-bpf -m 1024 "$sql" -- "$@") || fail "ring run: $sql"
	eq "$k" "$want" "-- $* (in the kernel): $sql"
	eq "$r" "$want" "-- $* (on the ring): $sql"
}
p=$("$PERF_SQL" --explain "${W//HELD/workload_pid()}" -- true)
printf '%s\n' "$p" | grep -q "an event counts when a task it names (pid) is one" ||
	fail "-- CMD: sched_wakeup's target: $p"
k=$(q "select count(*) from sched_wakeup" -- "${sl[@]}") || fail "-- CMD: wakeups in the kernel"
between "$k" 45 55 "-- CMD: wakeups of 50 sleeps in the kernel"
k=$(q --no-bpf -m 1024 "select count(*) from sched_wakeup" -- "${sl[@]}") || fail "ring run"
between "$k" 45 55 "-- CMD: wakeups of 50 sleeps on the ring"
# the exit's switch out is EXIT_ZOMBIE (32), or EXIT_DEAD (16) when perf-sql, the parent,
# reaped it first: a race of the two tasks, as under -t above; each path's run must be one
for path in "" --no-bpf; do
	k=$(q $path -m 1024 "${S//HELD/workload_pid()}" -- "${sl[@]}" | tr '\n' ' ') || fail "run $path"
	case $k in
	"0,1 1,50 ") echo "ok: -- CMD ${path:-(in the kernel)}: 50 sleeps and one exit: $k" ;;
	*) fail "-- CMD ${path:-(in the kernel)}: switches out of the sleeper: '$k', expected 0,1 (the exit) 1,50 (the sleeps)" ;;
	esac
done
# a dying task's last switch out (prev_state 32, EXIT_ZOMBIE, or 16, EXIT_DEAD when its parent
# reaped it first: pingpong's parent is reaped by perf-sql, a race as above): its _pid and
# _comm are its own on both paths (perf writes pid and tid -1 for a released task: the ring
# takes the record's)
cmd "select _comm, _pid = prev_pid, count(*) from sched_switch where prev_state in (16, 32)
     and prev_comm = 'pingpong' group by 1, 2" "pingpong,1,2" "$WL/pingpong" -c 0 200
k=$(q "$R1" -- "${sl[@]}" | sed 's/^sleeper,//')
between "$k" 45 55 "-- CMD: wakeup -> run pairs of 50 sleeps in the kernel"
k=$(q --no-bpf -m 1024 "$R1" -- "${sl[@]}" | sed 's/^sleeper,//')
between "$k" 45 55 "-- CMD: wakeup -> run pairs of 50 sleeps on the ring"
# percentiles in the kernel lie within their group's min and max: a system call made once has
# p50 = p99 = its latency (a log-linear bucket's middle could lie past it: 'min 28.2, p50 28.3')
pq="select count(*), p50(latency) = min(latency), p99(latency) = max(latency),
    p50(latency) between min(latency) and max(latency) from pairs('sys_enter', '_tid',
    'sys_exit', '_tid', 'id') group by start_value"
p=$("$PERF_SQL" --explain "$pq" -- true)
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .*percentiles(latency)" ||
	fail "percentiles not in the kernel: $p"
k=$(q "$pq" -- "$WL/writes" 100 7 | grep -v '[a-z]') || fail "percentiles run"
eq "$(printf '%s\n' "$k" | awk -F, '$1 == 1 && $2 $3 $4 != "111" || $1 > 1 && $4 != 1' | wc -l)" 0 \
	"percentile groups outside their min and max (of $(printf '%s\n' "$k" | wc -l) groups)"

# a software event of a workload: sampled on every CPU in the kernel, the workload's samples
# kept; pagetouch 500 faults each page of its mapping once (the range it prints at its end)
pages() {
	local out se
	out=$("$PERF_SQL" --csv "$@" "select addr / 4096, count(*) from page_faults group by 1" \
		-- "$WL/pagetouch" 500) || fail "page_faults run $*"
	se=$(printf '%s\n' "$out" | sed -n 's/^start=\(0x[0-9a-f]*\) end=\(0x[0-9a-f]*\)$/\1 \2/p')
	[ -n "$se" ] || fail "no range from pagetouch: $out"
	printf '%s\n' "$out" | awk -F, -v s=$((${se% *} / 4096)) -v e=$((${se#* } / 4096)) '
		$1 ~ /^[0-9]+$/ && $1 >= s && $1 < e { n++; c += $2 } END { print n, c }'
}
p=$("$PERF_SQL" --explain "select addr, count(*) from page_faults group by 1" -- true)
printf '%s\n' "$p" | grep -q "aggregated in the kernel: .* on page_faults sampled every 1 events" ||
	fail "-- CMD page_faults: $p"
eq "$(pages)" "500 500" "-- CMD: pagetouch's pages in the kernel (sampled on every CPU): pages, faults"
eq "$(pages --no-bpf)" "500 500" "-- CMD: pagetouch's pages on the ring (per task)"
