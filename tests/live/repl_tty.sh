# The REPL on a real terminal (tmux): completion, a watched query redrawn in place, Ctrl-C
# back to the prompt within a second, Ctrl-C ending an endless statement, Ctrl-C at the prompt,
# history, .quit.
. "$(dirname "$0")/lib.sh"; need_root
if ! command -v tmux >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null 2>&1 ||
		skip "tmux is not installed and apt-get install tmux failed"
fi
tmp=$(mktemp -d)
# a tmux server per start(), on its own socket: a new session on the socket of a server that is
# still exiting fails ("server exited unexpectedly")
nr_servers=0 sock=$tmp/tmux.0.sock
tm() { tmux -S "$sock" "$@"; }
trap 'for s in "$tmp"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$tmp"' EXIT
# screen: the pane's text, trailing blank lines dropped
screen() { tm capture-pane -p -t t | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
# wait_for REGEX [MS]: until the screen matches (a line), or fail after MS (default 5000)
wait_for() {
	local end=$(( $(date +%s%N) / 1000000 + ${2:-5000} ))
	until screen | grep -qE -- "$1"; do
		[ $(( $(date +%s%N) / 1000000 )) -lt $end ] || fail "waited for '$1'; screen:
$(screen)"
		sleep 0.02
	done
}
prompt_last() { [ "$(screen | tail -n 1 | sed 's/ *$//')" = "perf-sql>" ]; }
# keys TEXT: typed literally (tmux reads a trailing ';' as its command separator: escape it)
keys() { local s=$1; [[ $s == *';' ]] && s="${s%;}\\;"; tm send-keys -t t -l "$s"; }

start() {
	tm kill-server 2>/dev/null; rm -f "$tmp/rc"
	nr_servers=$((nr_servers + 1)) sock=$tmp/tmux.$nr_servers.sock
	tm new-session -d -s t -x 120 -y 40 "env XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state \
		TERM=xterm $PERF_SQL; echo \$? > $tmp/rc; sleep 60"
	wait_for '^perf-sql> *$'
}

start
# completion: a unique prefix completes, an ambiguous one lists the choices on a second Tab
keys 'select count(*) from sched_swi'; tm send-keys -t t Tab
wait_for 'from sched_switch *$'
echo "ok: sched_swi<Tab> completes to sched_switch"
keys ' where prev_co'; tm send-keys -t t Tab
wait_for 'where prev_comm *$'
echo "ok: columns of the tables named complete (prev_co<Tab> -> prev_comm)"
tm send-keys -t t C-c
wait_for 'prev_comm \^C$'
prompt_last || fail "Ctrl-C on a line: no empty prompt: $(screen)"
echo "ok: Ctrl-C clears the line"
keys 'select * from sched_sw'; tm send-keys -t t Tab Tab
wait_for 'sched_swap_numa +sched_switch|sched_switch$'
echo "ok: sched_sw<Tab><Tab> lists the sched_sw* tables"
tm send-keys -t t C-u
# a statement's first word is a keyword, never a table (avc:selinux_audited), in the case typed
keys 'sel'; tm send-keys -t t Tab
wait_for '^perf-sql> select *$'
tm send-keys -t t C-u
keys 'SEL'; tm send-keys -t t Tab
wait_for '^perf-sql> SELECT *$'
tm send-keys -t t C-u
keys 'select 1; sel'; tm send-keys -t t Tab
wait_for '^perf-sql> select 1; select *$'
tm send-keys -t t C-u
echo "ok: sel<Tab> -> select, SEL<Tab> -> SELECT (keywords first at a statement's start)"
keys '.sch'; tm send-keys -t t Tab
wait_for '^perf-sql> \.schema *$'
tm send-keys -t t C-u
echo "ok: dot commands complete"

# a watched query: at least 3 windows, each a redraw; Ctrl-C back at the prompt within 1 s
tm pipe-pane -t t -o "cat >> $tmp/log"
keys '.interval 300'; tm send-keys -t t Enter
keys 'select count(*) as switches from sched_switch;'; tm send-keys -t t Enter
# (until 3 windows are drawn, however long a busy machine takes; then one snapshot of the log,
# where each window is a clear and its "-- window" line, the last perhaps only its clear yet)
for _ in $(seq 600); do
	[ "$(grep -ao -- '-- window [0-9T:.+-]*' "$tmp/log" | sort -u | wc -l)" -ge 3 ] && break
	sleep 0.05
done
cp "$tmp/log" "$tmp/log.snap"
n=$(grep -ao -- '-- window [0-9T:.+-]*' "$tmp/log.snap" | sort -u | wc -l)
[ "$n" -ge 3 ] || fail "fewer than 3 windows drawn in 30 s at .interval 300: $n"
echo "ok: $n windows drawn at .interval 300"
clears=$(grep -ao $'\e\\[2J' "$tmp/log.snap" | wc -l)
between "$clears" "$n" $((n + 1)) "screen clears (redraw in place) for $n windows"
t0=$(date +%s%N)
tm send-keys -t t C-c
wait_for '^perf-sql> *$' 3000
ms=$((($(date +%s%N) - t0) / 1000000))
between "$ms" 0 1000 "Ctrl-C to the prompt (ms)"
screen | grep -q '^switches' || fail "the last window is not shown: $(screen)"
echo "ok: the query printed what it had"

# after the watched query: the REPL still works; .save records the last query
keys '.interval off'; tm send-keys -t t Enter
keys '.save watched'; tm send-keys -t t Enter
wait_for '^saved watched '
[ -f "$tmp/config/perf-sql/profilers/watched.sql" ] || fail "no saved file"
keys 'select 40+2 as answer;'; tm send-keys -t t Enter
wait_for '^    42$'
echo "ok: a query after Ctrl-C"
# Ctrl-C ends a statement that never ends by itself (no event table: it runs at once), long
# before its --query-timeout (10 s) could: the signal's message, not the budget's, and the
# prompt back
keys 'with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c;'
tm send-keys -t t Enter
sleep 0.5
tm send-keys -t t C-c
wait_for 'statement interrupted by a signal' 5000
wait_for '^perf-sql> *$' 3000
screen | grep -q 'query took longer' && fail "the time budget stopped it, not Ctrl-C: $(screen)"
keys 'select 40+1 as answer;'; tm send-keys -t t Enter
wait_for '^    41$'
echo "ok: Ctrl-C ended a running statement, back to the prompt"
keys '.quit'; tm send-keys -t t Enter
for i in $(seq 100); do [ -s "$tmp/rc" ] && break; sleep 0.05; done
eq "$(cat "$tmp/rc" 2>/dev/null)" 0 ".quit exit status"
hist=$tmp/state/perf-sql/history
eq "$(stat -c %a "$hist")" 600 "history file mode"
eq "$(stat -c %a "$tmp/state/perf-sql")" 700 "history directory mode"
grep -qx 'select 40+2 as answer;' "$hist" || fail "history lacks the last query: $(cat "$hist")"
echo "ok: history saved"

# Ctrl-C twice at an empty prompt exits
start
tm send-keys -t t C-c
wait_for 'Ctrl-C again or \.quit to exit'
tm send-keys -t t C-c
for i in $(seq 100); do [ -s "$tmp/rc" ] && break; sleep 0.05; done
eq "$(cat "$tmp/rc" 2>/dev/null)" 0 "exit status after Ctrl-C twice"
