# Every numeric option refuses, with one line naming it and exit 2: overflow, a negative, a
# sign, a space, trailing junk, nothing. The options are read from --help (each with a value
# N, MS, HZ, SIZE or D), so a new numeric option is checked too; then serve's --max-series and
# the REPL's .interval and .freq. Values that fit are taken (a run that answers).
. "$(dirname "$0")/lib.sh"
opts=$("$PERF_SQL" --help | sed -nE 's/^ +(-[a-zA-Z], )?(--[a-z-]+) (N|MS|HZ|SIZE|D) .*/\2/p')
[ "$(echo "$opts" | wc -l)" -ge 8 ] || fail "too few numeric options in --help: $opts"
bad_values=("99999999999999999999" "-1" "+5" " 5" "5x" "" "1e999" "0x10")
# refused WHAT ARGS...: exit 2, one line naming what
refused() {
	local what=$1 err rc
	shift
	err=$("$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, expected 2 ($err)"
	[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] || fail "$what: not one line: $err"
	[[ "$err" == *"$what"* ]] || fail "$what: the line does not name it: $err"
}
for o in $opts; do
	for v in "${bad_values[@]}"; do
		# (a duration or size may take "0x10" as hex digits: only where the option is a count)
		[ "$v" = 0x10 ] && [[ " --duration --interval --max-memory --query-timeout --stack-size " == *" $o "* ]] && continue
		refused "$o" "$PERF_SQL" "$o" "$v" "select 1"
	done
	echo "ok: $o refuses ${#bad_values[@]} bad values with one line"
done
for v in "${bad_values[@]}" 0; do
	refused "--max-series" "$PERF_SQL" serve --listen 127.0.0.1:0 --max-series "$v" syscalls
done
echo "ok: serve --max-series refuses $((${#bad_values[@]} + 1)) bad values"
# values that fit
out=$(q -i 1000 -m 128 -F 99 --max-groups 100 --max-memory 64M --stack-size 8K --query-timeout 5s \
	-d 100ms "select 7")
eq "${out##*,}" 7 "a run with every numeric option set"
# one duration grammar (core/units.h): -i, -d, .interval, .duration take 500ms, 1s, 2m, and a
# bare number is milliseconds in each; 1200 ms in windows of 500 ms is 3 windows, of 1 s is 2
for i in 500 500ms 0.5s; do
	eq "$(q -q -d 1200ms -i "$i" "select count(*) > 0 from sched_switch" | grep -c ',1$')" 3 \
		"-i $i: windows of 500 ms"
done
eq "$(q -q -d 1.2s -i 1s "select count(*) > 0 from sched_switch" | grep -c ',1$')" 2 "-i 1s"
eq "$(printf '.interval 1s\n.interval\n.interval 250\n.interval\n.duration 2m\n.duration\n' |
	"$PERF_SQL")" $'1000 ms\n250 ms\n120000 ms' "REPL: .interval and .duration as -i and -d"
err=$("$PERF_SQL" -d 5 "select 1" 2>&1 >/dev/null)
eq "$err" "perf-sql: note: -d 5 is 5 ms (a bare number is milliseconds); write 5s for seconds" \
	"-d 5 says it is 5 ms"
# the REPL: a bad value is one line and the script's status 2; a good one is taken
printf '.interval 99999999999999999999\n.freq -1\n.freq 1000001\n.interval 5x\n' |
	"$PERF_SQL" >/dev/null 2>"$BUILD/.opts_numbers.err"; rc=$?
eq "$rc" 2 "REPL: status after bad .interval/.freq"
eq "$(grep -c . "$BUILD/.opts_numbers.err")" 4 "REPL: one line per bad value"
rm -f "$BUILD/.opts_numbers.err"
eq "$(printf '.interval 300ms\n.interval\n' | "$PERF_SQL")" "300 ms" "REPL: .interval 300ms taken"
