# A syscall storm against a 1-page ring: received + lost = the exact number of syscalls, the
# loss shows in perf_sql_stats and as one stderr warning per window.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# --no-bpf: the ring's losses are the subject (in the kernel this count would lose nothing)
out=$("$PERF_SQL" --no-bpf --csv -m 1 "select count(*) from sys_enter_getppid where _pid = workload_pid();
      select sum(received), sum(lost) from perf_sql_stats" -- "$WL/storm" 1 2>"$dir/err") || fail "run"
calls=$(grep -o 'calls=[0-9]*' "$dir/err" /dev/null | head -1 | cut -d= -f2)
[ -n "$calls" ] || calls=$(printf '%s\n' "$out" | grep -o 'calls=[0-9]*' | cut -d= -f2)
rows=$(printf '%s\n' "$out" | tr -d '\r' | grep -v '^calls=')
count=$(printf '%s\n' "$rows" | sed -n 2p)
recv=$(printf '%s\n' "$rows" | sed -n 4p | cut -d, -f1)
lost=$(printf '%s\n' "$rows" | sed -n 4p | cut -d, -f2)
eq "$count" "$recv" "rows seen = received"
eq "$((recv + lost))" "$calls" "received + lost = syscalls made"
[ "$lost" -gt 0 ] || fail "a 1-page ring under a storm should lose events"
grep -q "warning: syscalls:sys_enter_getppid lost $lost events in this window; raise -m" "$dir/err" ||
	fail "no lost warning: $(cat "$dir/err")"
echo "ok: lost $lost of $calls, warned"
