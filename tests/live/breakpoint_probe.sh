# Hardware breakpoints on any host: some deliver hits, some never do (perf stat -e mem:ADDR:w
# counts 0). perf-sql's count must equal perf stat's in the same run, and when it is 0 because
# the machine delivers no hits, perf-sql says so in one line (its probe of a store of its own).
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (the reference count)"
make -s "$WL/watch" 2>/dev/null || true
addr=$(nm "$WL/watch" | awk '$3 == "watched" {print "0x" $1}')
[ -n "$addr" ] || fail "no symbol watched in $WL/watch"
ref=$(perf stat -x, -e "mem:$addr:w" -- "$WL/watch" 500 2>&1 >/dev/null |
	awk -F, '/mem:/ {print $1}')
case $ref in
''|*[!0-9]*) skip "perf stat cannot count mem:$addr:w here ($ref)" ;;
esac
err=$(mktemp); trap 'rm -f "$err"' EXIT
out=$("$PERF_SQL" --csv --breakpoint "$addr" "select count(*) from breakpoint" \
	-- "$WL/watch" 500 2>"$err" | grep -v '^0x' | tail -n +2 | tr -d '\r') ||
	fail "perf-sql: $(cat "$err")"
eq "$out" "$ref" "breakpoint hits of 500 writes, perf-sql vs perf stat in the same run"
if [ "$ref" = 0 ]; then
	grep -q "this machine delivers no hardware breakpoint hits" "$err" ||
		fail "0 rows on a host without breakpoint hits, and no word of why: $(cat "$err")"
	echo "ok: this host delivers no breakpoint hits, and perf-sql says so"
else
	eq "$ref" 500 "perf stat's count of 500 writes"
	! grep -q "delivers no hardware breakpoint" "$err" || fail "a false warning: $(cat "$err")"
	echo "ok: no warning where breakpoints fire"
fi
