# Every file perf-sql writes (core/outfile.c) is never written through a link: a symbolic link
# or a hard link planted at the target path (to a file of this test's own) is refused with one
# line and a non-zero exit, and the linked-to file is unchanged; a new file is made where none
# was (mode 0644 reports, 0600 captures, profilers, history), an existing one is replaced by a
# new file (the old inode untouched); /dev/stdout and a FIFO are written as they are.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
umask 022
victim=$dir/victim
plant() {   # plant sym|hard PATH: PATH becomes a link to $victim, which holds "victim"
	rm -f "$2"; printf 'victim\n' > "$victim"
	if [ "$1" = sym ]; then ln -s "$victim" "$2"; else ln "$victim" "$2"; fi
}
# refused sym|hard PATH WHAT CMD...: CMD exits non-zero with one line naming PATH and why
refused() {
	local kind=$1 path=$2 what=$3 err rc want; shift 3
	plant "$kind" "$path"
	err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] || fail "$what: exit 0 with a $kind link at $path"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$what: not one line: $err"
	case $kind in
	sym) want="$path: a symbolic link (to $victim): perf-sql writes no file through a link; remove the link or name another file" ;;
	hard) want="$path: a file with 2 hard links: perf-sql writes no file through a link; remove it or name another file" ;;
	esac
	# the flame graph's and heatmap's files are checked before the run, named by their option
	case $what in
	--flame-graph*) want="--flame-graph $want" ;;
	--heatmap) want="--heatmap $want" ;;
	esac
	[[ $err == "perf-sql: $want" ]] || fail "$what: message: $err"
	eq "$(cat "$victim")" victim "$what: the file the $kind link points to"
	[ "$kind" = sym ] && [ "$(readlink "$path")" != "$victim" ] && fail "$what: the link was replaced"
	rm -f "$path"
}
heat="select heatmap(t, v, 1000) from (select 1000 as t, 5 as v union all select 3000, 9)"
for kind in sym hard; do
	refused $kind "$dir/r.csv" "-o" "$PERF_SQL" -o "$dir/r.csv" --csv "select 1"
	refused $kind "$dir/out.txt" ".output" sh -c "printf '.output %s\n' '$dir/out.txt' | '$PERF_SQL'"
	refused $kind "$dir/fg.svg" "--flame-graph FILE" "$PERF_SQL" --flame-graph "$dir/fg.svg" \
		"select 'main;f 3' as s"
	refused $kind "$dir/fg.svg.folded" "--flame-graph FILE.folded" "$PERF_SQL" --flame-graph \
		"$dir/fg.svg" "select 'main;f 3' as s"
	[ -e "$dir/fg.svg" ] && fail "--flame-graph wrote FILE though FILE.folded was refused"
	refused $kind "$dir/h.svg" "--heatmap" "$PERF_SQL" --heatmap "$dir/h.svg" "$heat"
	refused $kind "$dir/w.cap" "record -o" "$PERF_SQL" record -o "$dir/w.cap" sys_enter_write -d 50ms
	mkdir -p "$dir/cfg/perf-sql/profilers"
	refused $kind "$dir/cfg/perf-sql/profilers/mine.sql" "save" env XDG_CONFIG_HOME="$dir/cfg" \
		"$PERF_SQL" save mine "select 1"
done
# the REPL history: one line, history is not saved, the session goes on (exit 0)
hist=$dir/state/perf-sql/history
repl_tty() { printf '%s\n' "$@" | XDG_STATE_HOME="$dir/state" script -qec "$PERF_SQL" /dev/null; }
mkdir -p "$dir/state/perf-sql"
for kind in sym hard; do
	plant $kind "$hist"
	out=$(repl_tty "select 41 + 1 as v;" ".quit" | tr -d '\r') || fail "history: the REPL failed"
	[[ $out == *"perf-sql: $hist: a "*"perf-sql writes no file through a link; history is not saved"* ]] ||
		fail "history $kind: $out"
	[[ $out == *$'\n42'* ]] || fail "history $kind: the query did not run: $out"
	eq "$(cat "$victim")" victim "history: the file the $kind link points to"
done
rm -f "$hist"; seq -f 'select %g;' 1003 > "$hist"
repl_tty "select 6 * 7 as v;" ".quit" > /dev/null || fail "history run"
eq "$(wc -l < "$hist")" 1000 "history lines kept at exit"
eq "$(tail -n 2 "$hist" | tr '\n' ' ')" "select 6 * 7 as v; .quit " "history's last lines"
eq "$(stat -c '%a %h' "$hist")" "600 1" "history mode and links"
# new files, and an existing file replaced: the old inode keeps its contents
"$PERF_SQL" -o "$dir/new.csv" --csv "select 1 as one" || fail "-o new"
eq "$(tr -d '\r' < "$dir/new.csv" | tr '\n' ' ')" "one 1 " "-o FILE contents"
eq "$(stat -c %a "$dir/new.csv")" 644 "-o FILE mode"
printf 'old\n' > "$dir/old.csv"; exec 7< "$dir/old.csv"
"$PERF_SQL" -o "$dir/old.csv" --csv "select 2 as two" || fail "-o over an existing file"
eq "$(cat <&7)" old "the replaced file's old inode"; exec 7<&-
eq "$(tr -d '\r' < "$dir/old.csv" | tr '\n' ' ')" "two 2 " "-o over an existing file"
"$PERF_SQL" record -o "$dir/new.cap" sys_enter_write -d 50ms 2>/dev/null || fail "record new"
eq "$(stat -c %a "$dir/new.cap")" 600 "capture mode"
# /dev/stdout (a pipe, a file) and FIFOs are written as they are
eq "$("$PERF_SQL" -o /dev/stdout --csv "select 3 as t" | tr -d '\r' | tr '\n' ' ')" "t 3 " "-o /dev/stdout to a pipe"
"$PERF_SQL" -o /dev/stdout --csv "select 4 as f" > "$dir/redir.csv" || fail "-o /dev/stdout to a file"
eq "$(tr -d '\r' < "$dir/redir.csv" | tr '\n' ' ')" "f 4 " "-o /dev/stdout to a file"
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/from_fifo" & reader=$!
"$PERF_SQL" -o "$dir/fifo" --csv "select 5 as p" || fail "-o FIFO"
wait $reader
eq "$(tr -d '\r' < "$dir/from_fifo" | tr '\n' ' ')" "p 5 " "-o FIFO"
[ -p "$dir/fifo" ] || fail "the FIFO was replaced"
cat "$dir/fifo" > "$dir/piped.cap" & reader=$!
"$PERF_SQL" record -o "$dir/fifo" sys_enter_write -d 50ms 2>/dev/null || fail "record -o FIFO"
wait $reader
"$PERF_SQL" info "$dir/piped.cap" | grep -q '^table *syscalls:sys_enter_write: ' || fail "capture through a FIFO"
"$PERF_SQL" record -o /dev/stdout sys_enter_write -d 50ms 2>/dev/null > "$dir/stdout.cap" || fail "record -o /dev/stdout"
"$PERF_SQL" info "$dir/stdout.cap" | grep -q '^table *syscalls:sys_enter_write: ' || fail "capture to /dev/stdout"
echo "ok: -o and record -o write /dev/stdout and a FIFO"
left=$(ls -A "$dir" "$dir/cfg/perf-sql/profilers" "$dir/state/perf-sql" | grep '\.tmp\.')
[ -z "$left" ] || fail "temporary files left: $left"
echo "ok: no temporary file left"
