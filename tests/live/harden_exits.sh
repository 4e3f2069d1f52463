# Clean exits. (1) SIGTERM, SIGHUP, SIGINT mid-run: the result is printed and the exit status
# is 0; perf-sql had perf fds open while running and is gone after. (2) A workload killed by a
# signal, or exiting non-zero, is reported on stderr; the result is still printed (status 0).
# (3) No tracefs state is left: the filter files of the events used still say "none" and
# uprobe_events/kprobe_events are as before. (4) Not root: exit 77 and one line naming the
# sysctl kernel.perf_event_paranoid, CAP_PERFMON and the tracefs path.
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
tfs=$TFS
state() {
	cat "$tfs/events/sched/sched_switch/filter" "$tfs/events/syscalls/sys_enter_getppid/filter" \
		"$tfs/uprobe_events" "$tfs/kprobe_events" 2>/dev/null
}
before=$(state)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err


# (1) signals: a filtered query (the kernel gets a filter) and a uprobe (a probe is created)
for sig in TERM HUP INT; do
	"$PERF_SQL" --csv "select count(*) from sched_switch where prev_pid = 4194000;
		select count(*) from sys_enter_getppid" >"$out" 2>"$err" &
	pid=$!
	for _ in $(seq 50); do [ "$(event_fds $pid)" -gt 0 ] && break; sleep 0.1; done
	fds=$(event_fds $pid)
	[ "$fds" -gt 0 ] || fail "SIG$sig: perf-sql never opened its events: $(cat "$err")"
	sleep 0.5
	kill -"$sig" $pid
	wait $pid; rc=$?
	eq "$rc" 0 "exit status after SIG$sig"
	grep -q '^count(\*)' "$out" && [ "$(tr -d '\r' <"$out" | grep -cE '^[0-9]+$')" = 2 ] ||
		fail "SIG$sig: no result printed: $(cat "$out" "$err")"
	[ -d "/proc/$pid" ] && fail "SIG$sig: perf-sql $pid still running"
	echo "ok: SIG$sig: result printed, $fds perf fds while running, none after (process gone)"
done

"$PERF_SQL" --csv --uprobe target_fn@"$WL/uprobe_target" "select count(*) from uprobe_target_fn" \
	-- "$WL/uprobe_target" 100000000 >"$out" 2>"$err" &
pid=$!
for _ in $(seq 50); do [ "$(event_fds $pid)" -gt 0 ] && break; sleep 0.1; done
sleep 0.5
child=$(pgrep -P $pid) || fail "perf-sql $pid has no workload child"
kill -TERM $pid
wait $pid; rc=$?
eq "$rc" 0 "exit status after SIGTERM with a uprobe and a workload"
tr -d '\r' <"$out" | grep -qE '^[0-9]+$' || fail "uprobe run: no result: $(cat "$out" "$err")"
# (this run's workload, by pid: another run of this test may have one of the same name)
if tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null | grep -q uprobe_target; then
	kill -KILL "$child"; fail "workload $child left running after SIGTERM"
fi
echo "ok: SIGTERM with a uprobe: result printed, workload gone"

# (2) the workload's end
# (a shell that kills itself at once may not switch out before it dies: the row is printed,
# whatever its count)
"$PERF_SQL" --csv "select count(*) >= 0 from sched_switch" -- sh -c 'kill -KILL $$' >"$out" 2>"$err"; rc=$?
eq "$rc" 0 "exit status when the workload is killed"
grep -q "workload 'sh' was killed by signal 9 (Killed)" "$err" || fail "killed workload not reported: $(cat "$err")"
tr -d '\r' <"$out" | grep -qx 1 || fail "no result after the workload was killed: $(cat "$out")"
"$PERF_SQL" --csv "select count(*) >= 0 from sched_switch" -- sh -c 'exit 3' >"$out" 2>"$err"; rc=$?
grep -q "workload 'sh' exited with status 3" "$err" || fail "workload status not reported: $(cat "$err")"
echo "ok: a killed workload and a failing one are reported (status $rc for the failing one)"

# (3) kernel state
after=$(state)
eq "$after" "$before" "tracefs filters and probe lists unchanged"
grep -qx none "$tfs/events/sched/sched_switch/filter" || fail "sched_switch filter left: $(cat "$tfs/events/sched/sched_switch/filter")"

# (4) not root
command -v setpriv >/dev/null || skip "no setpriv for the non-root check"
setpriv --reuid=65534 --regid=65534 --clear-groups "$PERF_SQL" -d 1s "select count(*) from sched_switch" \
	>"$out" 2>"$err"; rc=$?
eq "$rc" 77 "exit status without privileges"
eq "$(grep -c . "$err")" 1 "lines of the privilege message"
for word in kernel.perf_event_paranoid CAP_PERFMON "$tfs"; do
	grep -qF "$word" "$err" || fail "privilege message does not name $word: $(cat "$err")"
done
echo "ok: non-root: exit 77, one line naming the sysctl, the capability and $tfs"
