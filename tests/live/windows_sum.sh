# -i windows: every window prints (the last, partial one too) and their sum is the total.
. "$(dirname "$0")/lib.sh"; need_root
script="for i in 1 2 3 4 5 6 7 8 9 10; do $WL/writes 100 33; sleep 0.05; done"
out=$(q -i 100 "select count(*) from sys_enter_write where count = 33" -- sh -c "$script") || fail "perf-sql failed"
windows=$(printf '%s\n' "$out" | wc -l)
sum=$(printf '%s\n' "$out" | awk -F, '{ s += $2 } END { print s }')
eq "$sum" 1000 "sum over windows"
[ "$windows" -ge 4 ] || fail "expected at least 4 windows, got $windows"
echo "ok: $windows windows"
# window_start is RFC 3339 local time with milliseconds
first=$(printf '%s\n' "$out" | head -1 | cut -d, -f1)
[[ "$first" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}$ ]] ||
	fail "window_start '$first' is not RFC 3339 with ms"
echo "ok: window_start $first"
