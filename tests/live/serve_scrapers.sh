# perf-sql serve under many scrapers and under stuck ones: 100 concurrent scrapes of a large
# exposition (every event of the catalog as a series, ~2,400) all get a whole window, and
# perf-sql's peak RSS grows by less than SERVE_RSS_CAP_MB (default 8: 100 scrapes each holding a
# copy would take 16 MB); a SIGSTOP'd curl reading at 1 KB/s, a client that never reads, and one
# that never ends its request do not stall collection (a workload's exact count, received +
# lost, still arrives in /metrics) and SIGTERM still ends perf-sql with exit 0 within a second.
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"
CAP_MB=${SERVE_RSS_CAP_MB:-8}
WR=wr$$
cp "$WL/writes" "$SERVE_DIR/$WR" || fail "copy writes"
serve_start -i 200 -m 256 --name ev "select name as event, kind, 1 as present from perf_sql_events" \
	--name wr "select count(*) as n from sys_enter_write where count = 3331 and comm = '$WR'"
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$SERVE_PID/status"; }
OM="application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"

# a few windows and scrapes first: the peak of a steady server
for _ in $(seq 5); do scrape "$OM" > "$SERVE_DIR/one" || fail "a scrape failed"; done
series=$(grep -c '^perf_sql_ev_present{' "$SERVE_DIR/one")
[ "$series" -gt 1000 ] || fail "only $series series of perf_sql_ev_present"
size=$(wc -c < "$SERVE_DIR/one")
before=$(hwm)
mkdir -p "$SERVE_DIR/bodies"
seq 100 | xargs -P 100 -I{} curl -sf --max-time 20 -H "Accept: $OM" -o "$SERVE_DIR/bodies/{}" \
	"http://127.0.0.1:$PORT/metrics" || fail "a concurrent scrape failed"
after=$(hwm)
whole=0
for f in "$SERVE_DIR"/bodies/*; do
	[ "$(tail -n 1 "$f")" = "# EOF" ] && [ "$(grep -c '^perf_sql_ev_present{' "$f")" = "$series" ] &&
		[ "$(grep -c '^perf_sql_windows_total ' "$f")" = 1 ] && whole=$((whole + 1))
done
eq "$whole" 100 "concurrent scrapes that got a whole window ($series series, $size bytes)"
if grep -qa __asan_init "$PERF_SQL"; then   # ASan's allocator keeps freed memory (quarantine)
	echo "note: peak RSS $before -> $after kB; no cap under AddressSanitizer"
else
	[ $((after - before)) -lt $((CAP_MB * 1024)) ] ||
		fail "peak RSS grew from $before to $after kB with 100 concurrent scrapes (cap $CAP_MB MB)"
	echo "ok: peak RSS $before -> $after kB with 100 concurrent scrapes (cap +$CAP_MB MB)"
fi

# stuck scrapers: a stopped slow reader, a client that never reads, an unfinished request
curl -s --limit-rate 1K -o /dev/null "http://127.0.0.1:$PORT/metrics" & slow=$!
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1]))); s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
time.sleep(120)' "$PORT" & deaf=$!
SERVE_KIDS="$slow $deaf"
exec {half}<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&$half
sleep 0.5
kill -STOP $slow $deaf
w0=$(metric perf_sql_windows_total)
"$SERVE_DIR/$WR" 3000 3331 || fail "writes failed"
wait_counted perf_sql_wr_n_total 3000
w1=$(metric perf_sql_windows_total)
[ "$w1" -gt "$w0" ] || fail "no window ended ($w0 -> $w1)"
echo "ok: windows $w0 -> $w1 and the exact count, with 3 stuck scrapers"
serve_stop
exec {half}>&-
