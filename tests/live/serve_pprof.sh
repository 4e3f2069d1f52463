# perf-sql serve's /debug/pprof/ (serve/debug_pprof.h), read as Go's net/http/pprof is:
# `go tool pprof -raw URL?seconds=2` gets a CPU profile with burn's burn_a and burn_b on top,
# while /metrics answers (before the profile does) and a second request of the same endpoint
# gets 429 with Retry-After; seconds=abc, 0 and past --pprof-max-seconds are 400 (a line go
# tool pprof shows: X-Go-Pprof); /debug/pprof/ lists the endpoints; rows without a stack are a
# 500 saying so; a --pprof offcpu "SQL" endpoint, collecting for 11 s (past the 10 s idle
# timeout and the 1 s --request-deadline), has sleeper's 20 sleeps through do_nanosleep, as
# --pprof offp offcpu (the profiler's pprof line) has at the same time; a
# client that hangs up mid-collection ends it (the next request starts at once, the perf
# events are closed); SIGTERM during a collection answers 503 and exits 0 within a second.
# Under serve -p PID, the profile is PID's alone.
. "$(dirname "$0")/lib.sh"; need_root
command -v go > /dev/null || skip "[skipped: no go: go tool pprof reads the profiles (apt-get install golang-go, or make setup)]"
. "$(dirname "$0")/serve_lib.inc"
export HOME=$SERVE_DIR PPROF_TMPDIR=$SERVE_DIR # pprof keeps nothing in root's home
d=$SERVE_DIR
pprof() { go tool pprof "$@" 2> "$d/pprof.err" || fail "go tool pprof $*: $(cat "$d/pprof.err")"; }
ms() { date +%s%3N; }
# under the sanitizers (make asan): no report of serve's, threads and all
clean() { ! grep -q 'runtime error:\|Sanitizer' "$d/serve.err" || fail "sanitizer reports: $(grep -A5 'runtime error:\|Sanitizer' "$d/serve.err" | head -20)"; }
off="select start_value as stack, sum(latency) as off_ns, count(*) as switches, comm
	from pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid', 'stack')
	group by start_value, comm"
serve_start --request-deadline 1s --pprof-max-seconds 20 --max-groups 65536 --name w \
	"select count(*) as n from sys_enter_write where count = 3217" --pprof offcpu "$off" \
	--pprof nostack "select count(*) as n from cpu_clock" --pprof offp offcpu
url="http://127.0.0.1:$PORT/debug/pprof"
code() { curl -s --max-time 30 -o "$d/body" -w '%{http_code}' "$@"; }

# the listing, and what is not there
code "$url/" > "$d/code"
eq "$(cat "$d/code")" 200 "/debug/pprof/"
eq "$(grep '^/debug/pprof/' "$d/body" | tr '\n' ' ')" "/debug/pprof/profile /debug/pprof/offcpu /debug/pprof/nostack /debug/pprof/offp " "the endpoints listed"
grep -qx "    profiler offcpu" "$d/body" || fail "offp is not said to be the profiler offcpu: $(cat "$d/body")"
grep -q "(default 20, at most 20)" "$d/body" || fail "the listing's limits: $(cat "$d/body")"
eq "$(code "$url/heap")" 404 "/debug/pprof/heap"
grep -q '^/debug/pprof/profile$' "$d/body" || fail "a 404 of /debug/pprof/ lists nothing: $(cat "$d/body")"
echo "ok: /debug/pprof/ lists profile, offcpu, nostack and offp; /debug/pprof/heap is a 404 with the list"
# a query whose rows have no stack: 500, with what to do
eq "$(code "$url/nostack?seconds=1")" 500 "a profile of rows without a stack"
eq "$(cat "$d/body")" "/debug/pprof/nostack: no row of the result has a stack (select a table's stack column, or GROUP BY stack: docs/pprof.md)" "its answer"

# seconds that are not 1..--pprof-max-seconds: 400, one line; HEAD collects nothing
for s in abc 0 21 100000 -1 1.5; do
	eq "$(code "$url/profile?seconds=$s")" 400 "seconds=$s"
	eq "$(cat "$d/body")" "seconds '$s': expected a whole number of seconds from 1 to 20 (perf-sql serve --pprof-max-seconds)" "seconds=$s's answer"
done
eq "$(curl -s -I -o /dev/null -w '%{http_code}' "$url/profile?seconds=1")" 405 "HEAD of a profile"
go tool pprof -raw "$url/profile?seconds=21" > /dev/null 2> "$d/21.err" && fail "go tool pprof of seconds=21 succeeded"
grep -qF "server response: 400 Bad Request - seconds '21': expected a whole number of seconds from 1 to 20" "$d/21.err" ||
	fail "go tool pprof does not show the server's line (X-Go-Pprof): $(cat "$d/21.err")"
echo "ok: seconds=abc, 0, 21, 100000, -1 and 1.5 are 400 with one line, which go tool pprof shows; HEAD is a 405"

# off-CPU by stack for 11 s, in the background: 20 sleeps of 10 ms while it runs, once both
# collections have opened sched_switch on every CPU (on a loaded machine their start may take
# longer than a fixed pause: a sleep before it is not theirs)
fds=$(perf_fds "$SERVE_PID")
curl -s --max-time 40 -o "$d/off.pb.gz" -w '%{http_code}' "$url/offcpu?seconds=11" > "$d/off.code" &
SERVE_KIDS=$!
curl -s --max-time 40 -o "$d/offp.pb.gz" -w '%{http_code}' "$url/offp?seconds=3" > "$d/offp.code" &
offp=$!
for _ in $(seq 200); do
	[ "$(perf_fds "$SERVE_PID")" -ge $((fds + 2 * $(nproc))) ] && break
	sleep 0.05
done
[ "$(perf_fds "$SERVE_PID")" -ge $((fds + 2 * $(nproc))) ] ||
	fail "the two off-CPU collections did not open their events: $(perf_fds "$SERVE_PID") perf fds, $fds before"
# and their programs attached (loading offcpu's takes a while on a loaded machine: a fixed
# pause after the fds missed the first sleep in a CI run), then enabled right after
command -v bpftool > /dev/null || fail "bpftool is not installed (make setup installs it)"
attached() { bpftool perf list 2> /dev/null | grep -c "^pid $SERVE_PID .*tracepoint  *sched_switch"; }
for _ in $(seq 400); do
	[ "$(attached)" -ge 2 ] && break
	sleep 0.05
done
[ "$(attached)" -ge 2 ] || fail "the two off-CPU collections attached no program: $(bpftool perf list 2>&1 | head -5)"
sleep 0.3 # enabled
"$WL/sleeper" 20 10 & spid=$! # its pid picks its samples: other tests may run sleepers too
wait "$spid" || fail "sleeper"

# the CPU profile of burn, as a Go scraper takes it; meanwhile /metrics and a second request
"$WL/burn" 4 & burn=$!
SERVE_KIDS="$SERVE_KIDS $burn"
sleep 0.2
go tool pprof -raw "$url/profile?seconds=2" > "$d/cpu.raw" 2> "$d/cpu.err" & gp=$!
sleep 0.5
busy=$(curl -s --max-time 30 -D "$d/429.h" -o "$d/429.body" -w '%{http_code}' "$url/profile?seconds=2")
metrics=$(curl -s --max-time 30 -o "$d/metrics" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
metrics_done=$(ms)
wait "$gp" || fail "go tool pprof -raw $url/profile?seconds=2: $(cat "$d/cpu.err")"
profile_done=$(ms)
eq "$busy" 429 "a second request while the profile is collected"
retry=$(tr -d '\r' < "$d/429.h" | awk -F': ' 'tolower($1) == "retry-after" { print $2 }')
between "$retry" 1 2 "Retry-After (seconds left of 2)"
grep -q "^/debug/pprof/profile: a profile is being collected ($retry s left)" "$d/429.body" ||
	fail "the 429's body: $(cat "$d/429.body")"
echo "ok: a second request got 429, Retry-After: $retry"
eq "$metrics" 200 "/metrics during the collection"
grep -q '^perf_sql_windows_total ' "$d/metrics" || fail "/metrics: $(head -3 "$d/metrics")"
[ "$metrics_done" -lt "$profile_done" ] || fail "/metrics answered only after the profile"
echo "ok: /metrics answered during the collection, $((profile_done - metrics_done)) ms before the profile"
grep -qx "PeriodType: cpu nanoseconds" "$d/cpu.raw" && grep -qx "Period: 10101010" "$d/cpu.raw" ||
	fail "not a 99 Hz CPU profile: $(head -5 "$d/cpu.raw")"
saved=$(sed -n 's/^Saved profile in //p' "$d/cpu.err")
[ -f "$saved" ] || fail "go tool pprof saved no profile: $(cat "$d/cpu.err")"
pprof -top -tagfocus=pid="$burn" -nodefraction=0 "$saved" > "$d/cpu.top"
grep -qx "Type: cpu" "$d/cpu.top" || fail "type: $(head -5 "$d/cpu.top")"
top2=$(awk '/^ +flat +flat%/ { s = 1; next } s { print $6 }' "$d/cpu.top" | head -2 | tr '\n' ' ')
eq "$top2" "burn_a burn_b " "burn's two functions on top, burn_a first"
wait "$burn"
echo "ok: go tool pprof -raw of the served profile: 99 Hz, burn_a and burn_b on top"

# a client that hangs up mid-collection: the collection ends (at its next window), its events
# are closed, the next request is not refused
fds=$(perf_fds "$SERVE_PID")
curl -s --max-time 1 -o /dev/null "$url/profile?seconds=15"; rc=$?
eq "$rc" 28 "curl --max-time 1 timed out"
sleep 1.5
eq "$(perf_fds "$SERVE_PID")" "$fds" "perf_event fds once the client left"
eq "$(code "$url/profile?seconds=1")" 200 "the next request after a client left"
gzip -t "$d/body" || fail "the profile after a client left is not gzip'd"
echo "ok: a client that left mid-collection: no collection left, the next request collects"

# the profiler offcpu's pprof line, its parameters' defaults: the same 20 sleeps
wait "$offp" || fail "curl of offp"
eq "$(cat "$d/offp.code")" 200 "/debug/pprof/offp?seconds=3 (--pprof offp offcpu)"
pprof -raw -tagfocus=pid="$spid" -focus='^do_nanosleep$' "$d/offp.pb.gz" > "$d/offp.raw"
grep -qx "off_ns/nanoseconds\[dflt\] switches/count" "$d/offp.raw" || fail "offp's types: $(sed -n 5,6p "$d/offp.raw")"

# the 11 s off-CPU profile: sleeper's 20 sleeps, but for any the kernel said it lost and for
# one switch in after a sleep that this kernel delivers to no tracer at all (BPF, ring or
# bpftrace: about 1 in 1,200, docs/reliability.md "Almost none"), which both collections then
# miss alike
wait "${SERVE_KIDS%% *}"
SERVE_KIDS=
eq "$(cat "$d/off.code")" 200 "the 11 s off-CPU profile (past --request-deadline 1s and the 10 s idle timeout)"
said=$(grep '/debug/pprof/off' "$d/serve.err" | grep -o '[0-9]* events of this window had a call chain the BPF stack map could not take\|[0-9]* pairs of this window were lost in the kernel' |
	awk '{ n += $1 } END { print n + 0 }')
pprof -raw -tagfocus=pid="$spid" -focus='^do_nanosleep$' "$d/off.pb.gz" > "$d/off.raw"
grep -qx "off_ns/nanoseconds\[dflt\] switches/count" "$d/off.raw" || fail "types: $(sed -n 5,6p "$d/off.raw")"
sleeps() { awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
	s && /^ +[0-9]+ +[0-9]+:/ { v = $2; sub(/:$/, "", v); n += v } END { print n + 0 }' "$1"; }
n=$(sleeps "$d/off.raw")
between "$n" $((20 - said - 1)) 20 "sleeps through do_nanosleep (pid $spid), but for the $said the kernel said it lost"
between "$(sleeps "$d/offp.raw")" $((20 - said - 1)) 20 "offp's sleeps through do_nanosleep (pid $spid)"
echo "ok: /debug/pprof/offcpu?seconds=11: $n of sleeper's 20 sleeps"
eq "$(ls "/proc/$SERVE_PID/task" | wc -l)" 3 "serve's threads once no profile is collected (collection, server, watchdog)"

# SIGTERM during a collection: 503, exit 0 within a second (serve_stop)
curl -s --max-time 30 -o "$d/stop.body" -w '%{http_code}' "$url/profile?seconds=15" > "$d/stop.code" &
SERVE_KIDS=$!
sleep 1.5
serve_stop
wait "$SERVE_KIDS"
SERVE_KIDS=
eq "$(cat "$d/stop.code")" 503 "a collection's answer when serve stops"
eq "$(cat "$d/stop.body")" "/debug/pprof/profile: collection cancelled: serve is stopping or the client left" "its body"
clean
echo "ok: SIGTERM during a collection: 503, exit 0"

# serve's targets are the profile's: with -p, burn's samples only (its pid the one label)
"$WL/burn" 3 & burn=$!
SERVE_KIDS=$burn
serve_start -p "$burn" --name w "select count(*) as n from sys_enter_write"
curl -s --max-time 30 -o "$d/p.pb.gz" "http://127.0.0.1:$PORT/debug/pprof/profile?seconds=1" || fail "the profile under -p"
pprof -tags "$d/p.pb.gz" > "$d/p.tags"
grep -qE "^ +[0-9.]+[a-z]* \( *100(\.0+)?%\): $burn\$" "$d/p.tags" || fail "-p $burn: the pids of the samples: $(cat "$d/p.tags")"
pprof -top "$d/p.pb.gz" | grep -qE ' burn_a$' || fail "-p $burn: no burn_a"
serve_stop
clean
wait "$burn"
SERVE_KIDS=
echo "ok: under serve's -p $burn, the profile is burn's alone"
