# Shell completion: contrib/completion/perf-sql.bash driven through bash's own machinery
# (COMP_WORDS/COMP_CWORD in, COMPREPLY out) against what perf-sql itself lists (--help, help,
# list, help NAME, perf_sql_events, the choices of its errors); then bash and zsh on a real
# terminal (tmux): Tab on an option and on a table inside the quoted SQL.
. "$(dirname "$0")/lib.sh"; need_root
root=$(cd "$(dirname "$0")/../.." && pwd)
bashfile=$root/contrib/completion/perf-sql.bash
tmp=$(mktemp -d)
sock=$tmp/sock.bash
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
bin=$tmp/bin; mkdir -p "$bin"; ln -s "$PERF_SQL" "$bin/perf-sql"
export PATH="$bin:$PATH" XDG_CONFIG_HOME=$tmp/config PERF_SQL_SYSTEM_PROFILERS=$tmp/none

# comp WORD...: the completions of the last WORD after "perf-sql WORD...", sorted, one a line
comp() {
	bash -c '. "$1"; shift; COMP_WORDS=(perf-sql "$@"); COMP_CWORD=$#
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_perf_sql; printf "%s\n" "${COMPREPLY[@]}"' _ "$bashfile" "$@" | sort
}
set -f   # completions hold '*'
# same LIST EXPECTED WHAT: two lists of words are equal, in any order
same() { eq "$(printf '%s\n' $1 | sort | tr '\n' ' ')" "$(printf '%s\n' $2 | sort | tr '\n' ' ')" "$3"; }

complete -p perf-sql 2>/dev/null; bash -c ". $bashfile; complete -p perf-sql" | grep -qx 'complete -F _perf_sql perf-sql' ||
	fail "the file does not register _perf_sql for perf-sql"
subs=$(perf-sql help | sed 's/^usage://' | awk '$2 ~ /^[a-z]+$/ { print $2 }')
profs=$(perf-sql list | awk 'NR > 1 && NF == 0 { exit } NR > 1 { print $1 }')
between "$(echo "$profs" | wc -l)" 30 1000 "profilers listed"
same "$(comp '')" "$subs $profs" "first word: the subcommands and the profilers"
same "$(comp he)" "help" "he<Tab>"

# options: every one of --help, and only those
opts=$(perf-sql --help | sed -n '/^options:/,/^$/p' | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' |
       grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,')
between "$(echo "$opts" | wc -l)" 40 200 "option names in --help"
same "$(comp -)" "$opts" "-<Tab>: the options of --help"
same "$(comp --for)" "--format" "--for<Tab>"
same "$(comp -d 5s --js)" "--json" "--js<Tab> after -d 5s"
# values: the choices perf-sql's own errors list
same "$(comp -f '')" "table csv json pprof" "-f <Tab>"
same "$(comp --format c)" "csv" "--format c<Tab>"
same "$(comp --call-graph '')" "$(perf-sql --call-graph '?' 2>&1 | sed 's/.*choices: \([^;]*\);.*/\1/')" \
	"--call-graph <Tab>: the choices of its error"
same "$(comp --help-man '')" "perf-sql perf-sql-profilers" "--help-man <Tab>"

# profilers: names after help, PARAM= after a profiler (options before it or between)
same "$(comp help sysc)" "syscalls" "help sysc<Tab>"
same "$(comp syscalls '')" "than= syscall=" "syscalls <Tab>: its parameters"
same "$(comp -d 5s syscalls -i 100 th)" "than=" "-d 5s syscalls -i 100 th<Tab>"
same "$(comp hrcount '')" "$(perf-sql help hrcount | sed -n '/^usage:/{n;p}' |
	grep -oE '\[[a-z_]+=' | tr -d '[')" "hrcount <Tab>: the parameters of its usage line"
same "$(comp hrcount table=sched_swi)" "table=sched_switch" "hrcount table=sched_swi<Tab> (a table parameter)"

# serve: its options (its own, and the query options it takes), profilers and their PARAM=
serve_opts=$(perf-sql serve --help | awk '/^  --[a-z]/ { print $1 } /^  OPTIONS/ { on = 1 }
	on && NF == 0 { exit } on' | grep -oE '(^| )--?[a-zA-Z][a-z-]*')
between "$(echo $serve_opts | wc -w)" 10 100 "options in perf-sql serve --help"
same "$(comp serve -)" "$serve_opts --help" "serve -<Tab>: the options of serve --help"
same "$(comp serve --ma)" "--max-series --max-per-client --max-label-bytes --max-exposition-bytes --max-memory --max-groups" "serve --ma<Tab>"
same "$(comp serve --listen '')" "" "serve --listen <Tab>: a value of its own, nothing offered"
same "$(comp serve --pprof '')" "" "serve --pprof <Tab>: a name of its own, nothing offered"
same "$(comp serve --pprof cpu prof)" "profile" "serve --pprof cpu prof<Tab>: a profiler"
same "$(comp serve --pprof-m)" "--pprof-max-seconds" "serve --pprof-m<Tab>"
same "$(comp serve sysc)" "syscalls" "serve sysc<Tab>"
same "$(comp serve -i 500 syscalls than=1ms sy)" "syscalls syscall=" \
	"serve -i 500 syscalls than=1ms sy<Tab>: a profiler, or the last one's parameter"
same "$(comp serve --name w hrcount table=sched_swi)" "table=sched_switch" \
	"serve hrcount table=sched_swi<Tab>"

# tables after FROM/JOIN inside the quoted SQL; elsewhere in the SQL, nothing
want=$(perf-sql --csv "select name from perf_sql_events where name like 'sched_wak%'" | tail -n +2 | tr -d '\r')
between "$(echo "$want" | wc -l)" 2 100 "sched_wak* tables in the catalog"
same "$(comp '"select * from sched_switch s join sched_wak' | sed 's/.* join //')" "$want" \
	"join sched_wak<Tab> inside the quoted SQL: every sched_wak* table"
eq "$(comp '"select count(*) FROM sched_swi')" "select count(*) FROM sched_switch" \
	"FROM sched_swi<Tab>: the whole SQL so far, the table completed"
same "$(comp '"select sched_swi')" "" "a column position: no table offered"
same "$(comp --schema sys_enter_wri)" "sys_enter_write sys_enter_writev" "--schema sys_enter_wri<Tab>"
same "$(comp record -o x sched_switch,sys_enter_wri)" \
	"sched_switch,sys_enter_write sched_switch,sys_enter_writev" "record TABLE,TABLE<Tab>"
eq "$(comp '"select * from syscal')" "select * from syscalls" "a profiler as a table"

# files and commands
touch "$tmp/cap.psql" "$tmp/capture2"
same "$(comp -o "$tmp/cap")" "$tmp/cap.psql $tmp/capture2" "-o FILE<Tab>"
same "$(comp -r "$tmp/cap.")" "$tmp/cap.psql" "-r FILE<Tab>"
same "$(comp info "$tmp/capt")" "$tmp/capture2" "info FILE<Tab>"
comp "select 1" -- ech | grep -qx echo || fail "-- ech<Tab>: no echo"
echo "ok: a command after --"

# a real terminal: bash, then zsh (screen lines lose their trailing blanks)
tm() { tmux -S "$sock" "$@"; }
screen() { tm capture-pane -p -t t | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
wait_for() {
	local end=$(( $(date +%s%N) / 1000000 + 10000 ))
	until screen | grep -qE -- "$1"; do
		[ $(( $(date +%s%N) / 1000000 )) -lt $end ] || fail "waited for '$1'; screen:
$(screen)"
		sleep 0.05
	done
}
tab_test() {   # SHELL PROMPT-REGEX: --form<Tab> c<Tab>, FROM sched_swi<Tab>, serve ... at its prompt
	tm send-keys -t t -l 'perf-sql --form'; tm send-keys -t t Tab
	wait_for 'perf-sql --format ?$'
	tm send-keys -t t -l 'c'; tm send-keys -t t Tab
	wait_for 'perf-sql --format csv ?$'
	tm send-keys -t t -l '"select count(*) from sched_swi'; tm send-keys -t t Tab
	wait_for 'perf-sql --format csv "select count\(\*\) from sched_switch"?$'
	echo "ok: $1 on a terminal: $(screen | tail -n 1)"
	# a new line (Ctrl-C: wait for the empty prompt, $2), then serve's option, a profiler, its
	# parameter
	tm send-keys -t t C-c
	wait_for "$2"
	tm send-keys -t t -l 'perf-sql serve --max-s'; tm send-keys -t t Tab
	wait_for 'perf-sql serve --max-series ?$'
	tm send-keys -t t -l '10 syscal'; tm send-keys -t t Tab
	wait_for 'perf-sql serve --max-series 10 syscalls ?$'
	tm send-keys -t t -l 'th'; tm send-keys -t t Tab
	wait_for 'perf-sql serve --max-series 10 syscalls than=$'
	echo "ok: $1 on a terminal: $(screen | tail -n 1)"
}
tm new-session -d -s t -x 150 -y 20 "env PATH=$PATH TERM=xterm HOME=$tmp HISTFILE=/dev/null bash --norc --noprofile -i"
tm send-keys -t t -l ". $bashfile; PS1='$ '"; tm send-keys -t t Enter
wait_for '^\$ ?$'
tab_test bash '^\$ ?$'
tm kill-server
sock=$tmp/sock.zsh   # a server of its own: one on the socket of an exiting one may exit too
command -v zsh >/dev/null || skip "zsh is not installed (apt-get install zsh); bash passed"
tm new-session -d -s t -x 150 -y 20 "env PATH=$PATH TERM=xterm HOME=$tmp zsh -f"
tm send-keys -t t -l "fpath=($root/contrib/completion \$fpath); autoload -U compinit; compinit -u -D; PS1='%% '"
tm send-keys -t t Enter
wait_for '^% ?$'
tab_test zsh '^% ?$'
