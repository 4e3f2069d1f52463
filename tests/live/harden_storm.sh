# A syscall storm (getppid as fast as 2 threads can for STORM_SECONDS, default 20) against a
# 2-page ring with 1 s windows: perf-sql stays up and exits 0, received + lost equals the calls
# made exactly, every window's loss is in the CSV (perf_sql_stats) and in one stderr
# warning with the same number, and peak RSS stays under --max-memory (256 MiB) + 64 MiB.
# Prints the figures: calls, rate, received, lost, windows, peak RSS.
. "$(dirname "$0")/lib.sh"; need_root
secs=${STORM_SECONDS:-20}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err rss=$dir/rss
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f %M -o "$rss")
rm -f "$rss"
"${timer[@]}" "$PERF_SQL" --no-bpf --csv -m 2 -i 1000 "select count(*) from sys_enter_getppid where _pid = workload_pid();
	select sum(received), sum(lost) from perf_sql_stats" -- "$WL/storm" "$secs" 2 >"$out" 2>"$err" ||
	fail "perf-sql exited $? under the storm: $(tail -n 3 "$err")"
tr -d '\r' <"$out" >"$out.lf"
calls=$(grep -o '^calls=[0-9]*' "$out.lf" | cut -d= -f2)
[ -n "$calls" ] || fail "storm printed no calls= line"
# rows: "TIME,count" (statement 1) and "TIME,received,lost" (statement 2), one each per window
counts=$(grep -E '^[0-9]{4}-[^,]*,[0-9]+$' "$out.lf" | cut -d, -f2)
stats=$(grep -E '^[0-9]{4}-[^,]*,[0-9]+,[0-9]+$' "$out.lf" | cut -d, -f2,3)
windows=$(printf '%s\n' "$stats" | grep -c .)
recv=$(printf '%s\n' "$stats" | awk -F, '{ s += $1 } END { print s + 0 }')
lost=$(printf '%s\n' "$stats" | awk -F, '{ s += $2 } END { print s + 0 }')
rows=$(printf '%s\n' "$counts" | awk '{ s += $1 } END { print s + 0 }')
rate=$((calls / secs))
echo "storm: calls=$calls in ${secs}s ($rate/s), received=$recv lost=$lost, $windows windows"
[ "$windows" -ge "$secs" ] || fail "expected >= $secs windows, got $windows"
eq "$rows" "$recv" "rows seen = received"
eq "$((recv + lost))" "$calls" "received + lost = syscalls made"
# 8 KiB of ring fill in well under a millisecond at any rate a CPU of this kind makes
[ "$lost" -gt 0 ] || fail "a 2-page ring under a storm of $rate calls/s lost nothing"
# each window's loss: the CSV's lost column, in order, equals the warnings' numbers
csv_lost=$(printf '%s\n' "$stats" | cut -d, -f2 | grep -v '^0$' | tr '\n' ' ')
warn_lost=$(grep -o 'warning: syscalls:sys_enter_getppid lost [0-9]* events in this window' "$err" |
	awk '{ print $4 }' | tr '\n' ' ')
eq "$warn_lost" "$csv_lost" "per-window loss in stderr warnings = loss in the CSV"
lossy=$(printf '%s\n' "$stats" | awk -F, '$2 > 0' | grep -c .)
echo "ok: $lossy of $windows windows lost events; each warned once"
if [ -s "$rss" ]; then
	kb=$(tail -n 1 "$rss")
	echo "peak RSS: $kb KiB ($((kb / 1024)) MiB)"
	# ASan's shadow memory and quarantine are not perf-sql's: the bound holds for real builds
	if grep -qa __asan_init "$PERF_SQL"; then
		echo "(a sanitizer build: RSS not checked against the bound)"
	else
		[ "$kb" -le $(((256 + 64) * 1024)) ] || fail "peak RSS $kb KiB over --max-memory 256 MiB + 64 MiB"
	fi
else
	echo "peak RSS: not measured (no /usr/bin/time: apt-get install time)"
fi
