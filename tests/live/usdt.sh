# USDT probes: listed from .note.stapsdt, traced through the uprobe PMU, arguments from the
# probe's own spec (here -8@%rax -8@%rdx).
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
probes=$(cat "$TFS/uprobe_events")
list=$("$PERF_SQL" --list-usdt "$WL/usdt_target") || fail "--list-usdt"
printf '%s\n' "$list" | grep -Eq '^perfsql +tick +0x[0-9a-f]+ +0 +-?8@%[a-z0-9]+ -?8@%[a-z0-9]+$' || fail "list: $list"
echo "ok: --list-usdt shows perfsql:tick and its argument spec"
out=$(qx sum= --usdt perfsql:tick@"$WL/usdt_target" "select count(*), sum(arg0), sum(arg1), count(arg2)
      from usdt_tick" -- "$WL/usdt_target" 1000) || fail "--usdt"
eq "$out" "1000,499500,999000,0" "1000 hits, sum(i), sum(2i), and no third argument"
err=$("$PERF_SQL" --usdt perfsql:nosuch@"$WL/usdt_target" "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status for an unknown probe"
[[ "$err" == *"no probe perfsql:nosuch in"*"list its probes with: perf-sql --list-usdt"* ]] || fail "message: $err"
[ "$(cat "$TFS/uprobe_events")" = "$probes" ] || fail "uprobe_events changed: $(cat "$TFS/uprobe_events")"
echo "ok: nothing left in tracefs"
