#!/usr/bin/env bash
# bench/serve.sh - the cost of perf-sql serve (docs/prometheus.md#overhead):
#  (1) perf-sql's CPU per scrape of an exposition of 1,000 series (a query of 1,000 rows, one
#      numeric column each), OpenMetrics as Prometheus asks, BENCH_SERVE_SCRAPES scrapes over
#      one keep-alive connection; the CPU of the same time without scrapes (the windows, each
#      rendered in both formats) is subtracted. perf-sql's CPU is the on-CPU ns of all its
#      threads (/proc/PID/task/*/schedstat).
#  (3) the same over TLS (--web.config.file: a self-signed certificate, basic auth of a bcrypt
#      hash, checked once then cached), against (1)'s plain HTTP.
#  (2) the collection's slowdown with and without 1 scrape per second: getppid_loop -t SECS on
#      CPU 0, untraced, traced by `perf-sql serve` (count(_cpu) of sys_enter_getppid: every
#      event sampled), and traced with a scraper of 1 scrape/s; ns per call, medians of REPS
#      interleaved runs, and the ratio with / without scrapes (target: 1.00).
#  (4) the cost of a served pprof profile (serve/debug_pprof.h): perf-sql's CPU for one
#      /debug/pprof/profile?seconds=BENCH_PPROF_SECS (30, every CPU at 99 Hz, stacks counted in
#      the kernel, symbolized once per window), less its CPU for the same time without one;
#      and the slowdown of a busy loop (getppid_loop -t SECS on CPU 0) in a profile's first
#      SECS (its start: the BPF program loaded, every task's binaries read for their symbols)
#      and in the SECS after, against none, medians of REPS interleaved runs (target: 1.00).
# Run by bench/run.sh (section "serve") or alone: PERF_SQL=... BUILD=... bash bench/serve.sh
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECS:-2}
PAGES=${BENCH_PAGES:-64}
SCRAPES=${BENCH_SERVE_SCRAPES:-3000}
PPROF_SECS=${BENCH_PPROF_SECS:-30}
OM="application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
T=$(mktemp -d)
SPID= SCRAPER=
cleanup() {
	local p
	for p in $SCRAPER $SPID; do { kill "$p" && wait "$p"; } 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
command -v curl >/dev/null || { echo "serve: [skipped: no curl]"; exit 0; }

# serve ARGS...: perf-sql serve on a free loopback port; sets SPID and PORT once collecting
serve() {
	"$PERF_SQL" serve --listen 127.0.0.1:0 "$@" 2> "$T/serve.err" & SPID=$!
	for _ in $(seq 200); do
		PORT=$(sed -n 's|^perf-sql: serving https*://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/serve.err" 2>/dev/null)
		[ -n "$PORT" ] && return 0
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.05
	done
	echo "serve: [skipped: perf-sql serve did not start: $(tail -1 "$T/serve.err")]"
	exit 0
}
stop() { kill -TERM "$SPID" && wait "$SPID"; SPID=; }
# on-CPU ns of every thread of PID
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'; }
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v s="$1" '$1 == s { print $2; exit }'; }

# (1) CPU per scrape, 1,000 series; (3) the same over TLS with basic auth
K_SQL="with recursive k(i) as (select 1 union all select i + 1 from k where i < 1000)
	select printf('%04d', i) as key, i as value from k"
# per_scrape SCHEME [CURL ARGS...]: perf-sql's CPU per scrape (us) of the server started last
per_scrape() {
	local scheme=$1 c0 c1 c2 t0 t1 t2
	shift
	sleep 1.5
	curl -s "$@" -H "Accept: $OM" "$scheme://127.0.0.1:$PORT/metrics" > "$T/one"
	series=$(grep -c '^perf_sql_k_value{' "$T/one")
	size=$(wc -c < "$T/one")
	c0=$(cpu_ns "$SPID"); t0=$(now)
	sleep 5
	c1=$(cpu_ns "$SPID"); t1=$(now)
	curl -s "$@" -H "Accept: $OM" "$scheme://127.0.0.1:$PORT/metrics?[1-$SCRAPES]" > /dev/null
	c2=$(cpu_ns "$SPID"); t2=$(now)
	stop
	awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v n="$SCRAPES" \
		-v series="$series" -v size="$size" \
		'BEGIN { idle = (c1 - c0) / (t1 - t0); printf "%.1f %.2f %.2f %d %d\n", ((c2 - c1) - idle * (t2 - t1)) / n / 1000, t2 - t1, idle / 1e6, series, size }'
}
serve -i 1000 --name k "$K_SQL" --name n "select count(*) from sys_enter_getppid"
read -r plain secs idle series size < <(per_scrape http)
echo "serve: $series series ($((size / 1000)) KB OpenMetrics): perf-sql CPU per scrape $plain us ($SCRAPES scrapes in $secs s, one keep-alive connection); without scrapes $idle ms of CPU per 1 s window (both formats rendered)"
if command -v openssl > /dev/null && python3 -W ignore -c 'import crypt' 2> /dev/null; then
	(cd "$T" && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1) > /dev/null 2>&1
	printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  b: %s\n' \
		"$(python3 -W ignore -c 'import crypt; print(crypt.crypt("pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')" > "$T/web.yml"
	serve -i 1000 --web.config.file "$T/web.yml" --name k "$K_SQL" --name n "select count(*) from sys_enter_getppid"
	read -r tls secs _ _ _ < <(per_scrape https --cacert "$T/cert.pem" -u b:pw)
	awk -v t="$tls" -v p="$plain" -v n="$SCRAPES" -v s="$secs" 'BEGIN {
		printf "serve: over TLS 1.3 with basic auth (bcrypt, cached), the same 1,000 series: perf-sql CPU per scrape %.1f us (%d scrapes in %.2f s, one keep-alive connection); / plain HTTP %.2f\n", t, n, s, t / p }'
else
	echo "serve: over TLS: [skipped: no openssl or no Python crypt module]"
fi

# (2) slowdown of a traced workload, with and without 1 scrape per second
run_loop() { taskset -c 0 "$WL/getppid_loop" -t "$SECS" | sed -n 's/^calls=\([0-9]*\) ns=\([0-9]*\)$/\2 \1/p' |
	awk '{ printf "%.2f\n", $1 / $2 }'; }
for ((r = 0; r < REPS; r++)); do
	run_loop >> "$T/base"
	for mode in serve scrape; do
		serve -i 1000 -m "$PAGES" --name g "select count(_cpu) as n from sys_enter_getppid where comm = 'getppid_loop'"
		sleep 1.2
		if [ $mode = scrape ]; then
			(while :; do curl -s -H "Accept: $OM" "http://127.0.0.1:$PORT/metrics" > /dev/null; sleep 1; done) &
			SCRAPER=$!
		fi
		run_loop >> "$T/$mode"
		sleep 1.2
		echo "$(metric perf_sql_g_n_total) $(metric 'perf_sql_events_lost_total{table="syscalls:sys_enter_getppid"}')" >> "$T/$mode.ev"
		[ -n "$SCRAPER" ] && { kill "$SCRAPER"; wait "$SCRAPER"; } 2>/dev/null
		SCRAPER=
		stop
	done
done
b=$(median < "$T/base"); s=$(median < "$T/serve"); sc=$(median < "$T/scrape")
ev() { awk '{ r += $1; l += $2 } END { printf "%d received, %d lost", r, l }' "$T/$1.ev"; }
awk -v b="$b" -v s="$s" -v c="$sc" -v secs="$SECS" -v reps="$REPS" 'BEGIN {
	printf "serve: getppid_loop -t %s on CPU 0, median of %d: untraced %.1f ns/call, under perf-sql serve %.1f ns/call (x%.2f), with 1 scrape/s %.1f ns/call (x%.2f); with / without scrapes %.3f (target 1.00)\n",
		secs, reps, b, s, s / b, c, c / b, c / s }'
echo "serve: events over the traced runs: without scrapes $(ev serve); with 1 scrape/s $(ev scrape)"

# (4) a served profile: perf-sql's CPU per request, and a busy loop's slowdown during one. The
# collection's thread has ended when the answer comes: the process's CPU time, which keeps
# the time of its ended threads (/proc/PID/stat utime + stime, in clock ticks), not cpu_ns
proc_ns() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) * 1e9 / hz }' "/proc/$1/stat"; }
serve -i 1000 --name q "select count(*) as n from sys_enter_reboot"
sleep 1.5
c0=$(proc_ns "$SPID"); t0=$(now)
sleep "$PPROF_SECS"
c1=$(proc_ns "$SPID"); t1=$(now)
code=$(curl -s -o "$T/cpu.pb.gz" -w '%{http_code}' "http://127.0.0.1:$PORT/debug/pprof/profile?seconds=$PPROF_SECS")
c2=$(proc_ns "$SPID"); t2=$(now)
if [ "$code" = 200 ]; then
	awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v s="$PPROF_SECS" \
		-v kb="$(($(wc -c < "$T/cpu.pb.gz") / 1000))" -v cpus="$(nproc)" 'BEGIN {
		idle = (c1 - c0) / (t1 - t0); cost = (c2 - c1) - idle * (t2 - t1)
		printf "serve: a %d s CPU profile (/debug/pprof/profile, %d CPUs at 99 Hz, %d KB gzip'"'"'d): perf-sql CPU %.1f ms per request (%.3f%% of the machine over the %d s), the answer %.2f s after the request\n",
			s, cpus, kb, cost / 1e6, cost / 1e9 / (s * cpus) * 100, s, t2 - t1 }'
else
	echo "serve: a ${PPROF_SECS} s CPU profile: [failed: HTTP $code]"
fi
for ((r = 0; r < REPS; r++)); do
	run_loop >> "$T/noprof"
	curl -s -o /dev/null "http://127.0.0.1:$PORT/debug/pprof/profile?seconds=$((SECS + 4))" & SCRAPER=$!
	sleep 0.5
	run_loop >> "$T/start" # the collection's first seconds: its start's loading and first windows
	run_loop >> "$T/prof"  # after them
	wait "$SCRAPER"
	SCRAPER=
done
stop
n=$(median < "$T/noprof"); st=$(median < "$T/start"); p=$(median < "$T/prof")
awk -v n="$n" -v st="$st" -v p="$p" -v secs="$SECS" -v reps="$REPS" 'BEGIN {
	printf "serve: getppid_loop -t %s on CPU 0, median of %d: %.1f ns/call without a profile; while /debug/pprof/profile collects, %.1f ns/call in its first %s s (x%.3f: its start) and %.1f ns/call after (x%.3f, target 1.00)\n",
		secs, reps, n, st, secs, st / n, p, p / n }'
