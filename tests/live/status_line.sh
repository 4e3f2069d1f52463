# The status line on a terminal (tmux): counts of the run itself while collecting (1000 writes
# of a workload), the window count with -i, erased before results (the screen holds only the
# rows), never in stdout, -o FILE or a stderr that is not a terminal, none with -q, at most 5
# redraws a second, Ctrl-C stops; record and replay show theirs.
. "$(dirname "$0")/lib.sh"; need_root
command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux)"
tmp=$(mktemp -d)
nr=0
sock=$tmp/tmux.0
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
screen() { tm capture-pane -p -t t | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
# wait_for REGEX [MS]: until a line of the screen matches, or fail after MS (default 20000)
wait_for() {
	local end=$(( $(date +%s%N) / 1000000 + ${2:-20000} ))
	until screen | grep -qE -- "$1"; do
		[ $(( $(date +%s%N) / 1000000 )) -lt $end ] || fail "waited for '$1'; screen:
$(screen)"
		sleep 0.05
	done
}
# run CMD: CMD in a new 100x30 pane (its raw output logged to $tmp/log), then "rc=N" and the
# run's wall time in ms in $tmp/ms. Each run has a server of its own: a new one on the socket
# of one that is exiting may exit with it
run() {
	tm kill-server 2>/dev/null; rm -f "$tmp/log" "$tmp/ms"
	nr=$((nr + 1)); sock=$tmp/tmux.$nr
	tm new-session -d -s t -x 100 -y 30 "sleep 0.3; t0=\$(date +%s%N); $1; \
		echo rc=\$?; echo \$(( (\$(date +%s%N) - t0) / 1000000 )) > $tmp/ms; sleep 120"
	tm pipe-pane -t t -o "cat >> $tmp/log"
}
wait_end() { wait_for '^rc=[0-9]+$' "${1:-30000}"; }
# wait_counts REGEX: until the status line is REGEX followed by "N events, M lost; Ctrl-C to
# stop" with N + M = 1000 (the workload's writes, as the kernel counted them): RECV=N, LOST=M
wait_counts() {
	local end=$(( $(date +%s%N) / 1000000 + 20000 )) line
	while :; do
		line=$(screen | grep -E -- "$1 [0-9]+ events, [0-9]+ lost; Ctrl-C to stop\$")
		if [[ $line =~ \ ([0-9]+)\ events,\ ([0-9]+)\ lost ]]; then
			RECV=${BASH_REMATCH[1]} LOST=${BASH_REMATCH[2]}
			[ $((RECV + LOST)) = 1000 ] && break
		fi
		[ $(( $(date +%s%N) / 1000000 )) -lt $end ] ||
			fail "waited for '$1 N events, M lost' with N + M = 1000; screen:
$(screen)"
		sleep 0.05
	done
	echo "ok: status line: $line"
}
# the result after Ctrl-C: the rows, and a warning for what was lost (none when 0)
check_result() {
	local lost=0 rows
	rows=$(screen | grep -v '^perf-sql: warning: ' | tr '\n' ' ')
	[[ $(screen) =~ lost\ ([0-9]+)\ events ]] && lost=${BASH_REMATCH[1]}
	eq "$rows" "count(*) $((1000 - lost)) rc=0 " "$1 (1000 writes, $lost lost)"
}
# the workload: 1000 writes of 777 bytes, then a marker file, then it waits for Ctrl-C
W="sh -c '$WL/writes 1000 777 && touch $tmp/wrote && exec sleep 100'"
SQL='select count(*) from sys_enter_write where count = 777'

# 1. while collecting: the run's own counts; Ctrl-C stops; the line is gone, the result stays
run "$PERF_SQL --csv -d 90s \"$SQL\" -- $W"
wait_counts '^collecting [0-9.]+s of 90s:'
tm send-keys -t t C-c
wait_end
check_result "the screen after Ctrl-C (the status line erased)"
grep -aq $'\r\e\\[K' "$tmp/log" || fail "the status line was not erased with \\r ESC [K"

# 2. stdout to a file: only the rows there; the line is on the terminal
run "$PERF_SQL --csv -d 90s \"$SQL\" -- $W > $tmp/out"
wait_counts '^collecting [0-9.]+s of 90s:'
tm send-keys -t t C-c
wait_end
lost=0; [[ $(screen) =~ lost\ ([0-9]+)\ events ]] && lost=${BASH_REMATCH[1]}
eq "$(cat -v "$tmp/out" | tr '\n' ' ')" "count(*) $((1000 - lost)) " \
	"stdout redirected: the rows alone (CSV lines end in LF; $lost lost)"
eq "$(screen | grep -v '^perf-sql: warning: ' | tr '\n' ' ')" "rc=0 " \
	"stdout redirected: the screen at the end"

# 3. -o FILE with -q, and stderr a file: no line at all. A run draws its first line at its
# first turn of the loop, so 1 s of collection would show one (as in 1. and 2.)
run "$PERF_SQL -q --csv -d 1s -o $tmp/out2 \"$SQL\" -- $W"
wait_end
eq "$(head -n 1 "$tmp/out2" | cat -v)" "count(*)" "-o FILE: the header, then the rows alone"
grep -aq 'collecting' "$tmp/log" && fail "-q: a status line was drawn: $(cat -v "$tmp/log")"
echo "ok: -q: no status line"
run "$PERF_SQL --csv -d 1s \"$SQL\" -- $W 2> $tmp/err"
wait_end
eq "$(cat -v "$tmp/err")" "" "stderr to a file: no status line in it"
grep -aq 'collecting' "$tmp/log" && fail "stderr to a file: a status line was drawn: $(cat -v "$tmp/log")"
echo "ok: stderr to a file: no status line"

# 5. -i: the window count; each window's rows are printed on a clean line (the screen has
# only rows above the status line); at most 5 redraws a second
run "$PERF_SQL --csv -i 300 \"$SQL\" -- $W"
wait_counts '^collecting [0-9.]+s until sh exits: window ([4-9]|[1-9][0-9]+),'
screen | head -n -1 | grep -vqE '^(window_start,count\(\*\)|[0-9T:.+-]+,[0-9]+)$' &&
	fail "-i: something besides rows above the status line: $(screen)"
echo "ok: -i: $(screen | tail -n 1)"
tm send-keys -t t C-c
wait_end
screen | grep -q collecting && fail "-i: the status line stayed: $(screen)"
eq "$(screen | grep -E '^[0-9T:.+-]+,[0-9]+$' | awk -F, '{ n += $2 } END { print n }')" $RECV \
	"-i: the windows' rows add up to the events of the status line"
draws=$(grep -ao $'\rcollecting' "$tmp/log" | wc -l)
ms=$(cat "$tmp/ms")
between "$draws" 1 $(( ms * 5 / 1000 + 2 )) "redraws in $ms ms (at most 5 a second)"

# 6. record, then replay: each has its line, gone at the end
run "$PERF_SQL record -o $tmp/cap sys_enter_write -- $W"
wait_counts "^recording to $tmp/cap [0-9.]+s until sh exits:"
tm send-keys -t t C-c
wait_end
screen | grep -q '^recording' && fail "record: the status line stayed: $(screen)"
screen | grep -qE "^perf-sql: recorded [0-9]+ events \\([0-9]+ lost\\)" || fail "record: $(screen)"
[[ $(screen) =~ recorded\ ([0-9]+)\ events\ \(([0-9]+)\ lost ]]
eq "$((BASH_REMATCH[1] + BASH_REMATCH[2]))" 1000 "record: events recorded + lost"
RECORDED=${BASH_REMATCH[1]}
run "$PERF_SQL -r $tmp/cap --csv \"$SQL\""
wait_end
grep -aq "replaying $tmp/cap: 0 events, 0 lost; Ctrl-C to stop" "$tmp/log" ||
	fail "replay: no status line: $(cat -v "$tmp/log")"
eq "$(screen | tr '\n' ' ')" "count(*) $RECORDED rc=0 " "replay: the screen at the end"
