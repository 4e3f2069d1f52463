# perf-sql serve's limits per client (serve/serve_http.c (3), docs/security.md): 200 slow
# sockets from 127.0.0.2, each sending one header byte every half second, get --max-per-client (4 here)
# connections and no more; a scrape from 127.0.0.1 meanwhile answers, with the workload's
# exact count; the held ones are closed by --request-deadline (3 s) though they keep sending,
# where the 10 s idle timeout alone would keep them for good. Then the byte caps: a label of
# 200 KB is cut to --max-label-bytes and the bytes cut are counted; 100 of them keep the peak
# RSS under a third of the uncapped run's; a small --max-exposition-bytes leaves series out.
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"
serve_start -i 200 --max-per-client 4 --request-deadline 3s --name w \
	"select count(*) as n from sys_enter_write where count = 3217"
"$WL/writes" 30 3217 > /dev/null || fail "writes"
wait_metric perf_sql_w_n_total 30
python3 - "$PORT" > "$SERVE_DIR/slow.out" 2>&1 <<'PY' & SERVE_KIDS=$!
import socket, sys, time
port = int(sys.argv[1])
socks, refused = [], 0
start = time.monotonic()            # before the first connect: no deadline ends before 3 s
for _ in range(200):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    try:
        s.connect(("127.0.0.1", port))
        socks.append(s)
    except OSError:
        refused += 1
alive, closed, at_1_5, i = list(socks), [], None, 0
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
while alive and time.monotonic() - start < 8:
    for s in list(alive):           # a byte each half second, never the header's end
        try:
            s.send(req[i:i + 1] if i < len(req) else b"a")
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    raise OSError("closed")
            except BlockingIOError:
                pass
            s.setblocking(True)
        except OSError:
            closed.append(time.monotonic() - start)
            alive.remove(s)
    if at_1_5 is None and time.monotonic() - start >= 1.5:
        at_1_5 = len(alive)
    i += 1
    time.sleep(0.5)
print("connected", len(socks), "refused", refused)
print("alive_at_1.5s", at_1_5)
print("last_closed", round(max(closed), 1) if closed else -1)
print("alive_after_8s", len(alive))
PY
sleep 1 # the slow sockets are connected and holding their slots
"$WL/writes" 20 3217 > /dev/null || fail "writes"
wait_metric perf_sql_w_n_total 50
# served meanwhile, not once the slots free up: well before the 3 s deadline
t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/metrics") || fail "a scrape while held"
awk -v t="$t" 'BEGIN { exit !(t < 1) }' || fail "the scrape took ${t}s: it waited for the slow clients"
echo "ok: a scrape from 127.0.0.1 answers while 127.0.0.2 holds its slots (in ${t}s) and sees the 20 new writes"
wait "$SERVE_KIDS" || fail "slow clients: $(cat "$SERVE_DIR/slow.out")"
SERVE_KIDS=
cat "$SERVE_DIR/slow.out"
eq "$(awk '$1 == "alive_at_1.5s" { print $2 }' "$SERVE_DIR/slow.out")" 4 "slow connections open at 1.5 s: --max-per-client"
eq "$(awk '$1 == "alive_after_8s" { print $2 }' "$SERVE_DIR/slow.out")" 0 "none left after 8 s"
last=$(awk '$1 == "last_closed" { print $2 }' "$SERVE_DIR/slow.out")
awk -v t="$last" 'BEGIN { exit !(t >= 3 && t <= 6) }' || fail "the held ones closed by ${last}s, expected the 3 s deadline"
echo "ok: the held slow connections closed by the deadline (the last at ${last}s)"
serve_stop

# the byte caps against the same query without them, in this run: 100 series with 200 KB labels
# (the rows of a recursive CTE, each window); capped, the exposition is under a tenth of the
# uncapped one's and the server's peak RSS under a third (but under AddressSanitizer, whose
# quarantine holds freed memory), and every byte cut is counted; a small exposition cap leaves
# series out, counted
big="with recursive k(i) as (select 1 union all select i + 1 from k where i < 100)
	select printf('%03d%.*c', i, 200000, 'x') as k, i as v from k"
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$SERVE_PID/status"; }
size() { scrape | wc -c; }
# under AddressSanitizer the peak RSS is its quarantine's (freed memory held back), not ours
asan=; ldd "$PERF_SQL" 2>/dev/null | grep -q libasan && asan=1
serve_start -i 300 --max-label-bytes 1048576 --max-exposition-bytes 4G --name big "$big" --name n "select count(*) from sys_enter_getppid"
wait_metric perf_sql_series 101 # and n
uncapped=$(hwm) uncapped_size=$(size)
serve_stop
serve_start -i 300 --name big "$big" --name n "select count(*) from sys_enter_getppid"
wait_metric perf_sql_series 101 # and n
sleep 1 # a few windows more
capped=$(hwm) capped_size=$(size)
cut=$(metric perf_sql_dropped_label_bytes_total)
[ "$cut" -gt 0 ] && [ $((cut % (100 * (200003 - 4096)))) = 0 ] || fail "bytes cut: $cut, expected 100 * (200003 - 4096) a window"
[ $((capped_size * 10)) -lt "$uncapped_size" ] ||
	fail "the exposition capped is $capped_size bytes, uncapped $uncapped_size: not a tenth"
[ -n "$asan" ] || [ $((capped * 3)) -lt "$uncapped" ] ||
	fail "peak RSS capped ${capped} kB, uncapped ${uncapped} kB: not a third"
echo "ok: 100 labels of 200 KB cut to 4096 bytes: exposition $capped_size bytes (uncapped $uncapped_size), peak RSS ${capped} kB (uncapped ${uncapped} kB${asan:+; not compared under AddressSanitizer}); $cut bytes cut, counted"
serve_stop
serve_start -i 300 --max-exposition-bytes 64K --name big "$big" --name n "select count(*) from sys_enter_getppid"
sleep 0.6
held=$(metric perf_sql_series); over=$(metric perf_sql_dropped_series_over_bytes_total)
between "$held" 2 100 "series held under --max-exposition-bytes 64K (n the one small)"
[ "$over" -gt 0 ] || fail "no series counted over the exposition cap: $over"
echo "ok: --max-exposition-bytes 64K: $held of 100 series held, $over rows left out and counted"
serve_stop

# the byte caps: one series with a 200 KB label, cut to 1000 bytes
serve_start -i 200 --max-label-bytes 1000 --name big \
	"select printf('%.*c', 200000, 'x') as k, count(*) as n from sys_enter_write where count = 3217 group by k"
"$WL/writes" 5 3217 > /dev/null || fail "writes"
wait_metric "perf_sql_big_n_total{k=\"$(printf '%.0sx' $(seq 1000) )\"}" 5
cut=$(metric perf_sql_dropped_label_bytes_total)
[ "$cut" -gt 0 ] && [ $((cut % 199000)) = 0 ] || fail "bytes cut: $cut, expected 199000 a window"
echo "ok: a 200 KB label cut to 1000 bytes, the cut counted"
serve_stop

# the systemd unit's sandbox (contrib/perf-sql.service): its exposure score stays at or under
# 2.5 (what its header and docs/security.md say), read offline as systemd reads it
root=$(cd "$(dirname "$0")/../.." && pwd)
if command -v systemd-analyze >/dev/null &&
	systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
	score=$(systemd-analyze security --offline=yes "$root/contrib/perf-sql.service" 2>&1 |
		sed -n 's/.*Overall exposure level for perf-sql.service: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] || fail "systemd-analyze gave no score"
	systemd-analyze security --offline=yes --threshold=25 "$root/contrib/perf-sql.service" \
		> /dev/null 2>&1 || fail "contrib/perf-sql.service: exposure $score, over 2.5"
	echo "ok: contrib/perf-sql.service's exposure level $score (at most 2.5)"
else
	echo "skip: the unit's score: no systemd-analyze security --offline here (systemd >= 250)"
fi

# an address other hosts reach is said at start; loopback is not
err=$("$PERF_SQL" serve --listen 0.0.0.0:0 -d 300ms syscalls 2>&1 >/dev/null) || fail "serve 0.0.0.0: $err"
[[ "$err" == *"warning: 0.0.0.0:"*" is reachable from other hosts, and /metrics has no TLS and no authentication"* ]] ||
	fail "no warning for 0.0.0.0: $err"
err=$("$PERF_SQL" serve --listen 127.0.0.1:0 -d 300ms syscalls 2>&1 >/dev/null) || fail "serve: $err"
[[ "$err" == *warning* ]] && fail "a warning on loopback: $err"
echo "ok: listening beyond loopback without TLS or authentication is warned about"
