# profiler rundelay: 200 sleeps of 1 ms -> 200-203 wakeup -> run pairs for the sleeper's tid.
# (pinned to CPU 0: on this VM, CPU 1 drops timer-wakeup samples from hard-IRQ context)
. "$(dirname "$0")/lib.sh"; need_root
# (-m 1024: under -- CMD every CPU's switches reach the ring, to be picked in user space; on a
# busy machine 64 pages overflow)
# (the sleeper's tid from the shell that becomes it: the rows may hold other tasks, a sleeper of
# another run among them)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$(q -m 1024 rundelay limit=-1 -- sh -c "echo \$\$ > $tmp/pid; exec taskset -c 0 $WL/sleeper 200 1") ||
	fail "perf-sql rundelay failed"
row=$(printf '%s\n' "$out" | grep "^sleeper,$(cat "$tmp/pid"),") ||
	fail "no sleeper row for tid $(cat "$tmp/pid"): $out"
# comm,tid,runs,total_us,min_us,p50_us,p99_us,max_us
# a timer that fires on CPU 1 (kernel.timer_migration) loses its wakeup sample there (counted
# lost, see tests/live/pairs.sh): one such wakeup in a run is accepted
between "$(echo "$row" | cut -d, -f3)" 199 203 "wakeup -> run pairs of the sleeper"
[[ "$(echo "$row" | cut -d, -f2)" =~ ^[0-9]+$ ]] || fail "tid is not a number: $row"
# than=1s: no sleeper waited that long for a CPU
out=$(q rundelay than=1s -- taskset -c 0 "$WL/sleeper" 20 1) || fail "rundelay than=1s failed"
eq "$(printf '%s\n' "$out" | grep -c '^sleeper,')" 0 "sleeper rows with than=1s"
