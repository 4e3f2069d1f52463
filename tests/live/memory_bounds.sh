# --max-memory bounds SQLite's memory and the output too, and nothing spills to disk:
# (1) a sort and a temp table (DISTINCT's) that need more than --max-memory 16M fail with one line naming
#     --max-memory, exit 1, and open no temporary file (strace: nothing in TMPDIR);
# (2) a large result (300,000 rows) at --max-memory 16M is printed whole in table, CSV and
#     JSON, to a pipe and to a file, and perf-sql's peak RSS stays within 16 MiB of a run that
#     prints one row (same build, same run; not under ASan, whose shadow memory is its own).
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
rows="with recursive c(x) as (select 1 union all select x + 1 from c limit 1000000)"

# (1)
# nospill WHAT SQL: exit 1, one line naming --max-memory, no file opened in TMPDIR
nospill() {
	local what=$1 sql=$2 rc tracer=()
	command -v strace >/dev/null && tracer=(strace -f -qq -e trace=openat,open,creat -o "$dir/trace")
	TMPDIR=$dir/tmp SQLITE_TMPDIR=$dir/tmp "${tracer[@]}" "$PERF_SQL" --query-timeout 0 \
		--max-memory 16M --csv "$sql" >"$dir/out" 2>"$dir/err"; rc=$?
	eq "$rc" 1 "$what: exit status"
	eq "$(grep -c . "$dir/err")" 1 "$what: lines on stderr"
	grep -q "needed more than --max-memory (16 MiB) of SQLite's memory" "$dir/err" ||
		fail "$what: the line does not name --max-memory: $(cat "$dir/err")"
	if [ ${#tracer[@]} -gt 0 ]; then
		grep -F "$dir/tmp" "$dir/trace" && fail "$what: a temporary file was opened"
		echo "ok: $what: no file opened in TMPDIR (strace)"
	fi
	[ -z "$(ls -A "$dir/tmp")" ] || fail "$what: files left in TMPDIR: $(ls -A "$dir/tmp")"
}
nospill "ORDER BY of 100 MB" "$rows select count(*) from
	(select x, randomblob(100) as b from c order by b)"
# (the statements are all prepared before any runs: a TEMP table made by one cannot be read
# by the next; DISTINCT's ephemeral table is temp storage too)
nospill "DISTINCT (a temp table) of 100 MB" "$rows select count(distinct randomblob(100)) from c"

# (2)
large="with recursive c(x) as (select 1 union all select x + 1 from c limit 300000)
	select x, printf('%050d', x) as pad, x * 2 as y from c"
asan=0
grep -qa __asan_init "$PERF_SQL" && asan=1
# peak CMD...: CMD's peak RSS in KiB (its output to /dev/null)
peak() { /usr/bin/time -f %M -o "$dir/rss" "$@" >/dev/null || fail "$*: exit $?"; cat "$dir/rss"; }
command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time (GNU time) to read the peak RSS"
for fmt in table csv json; do
	base=$(peak "$PERF_SQL" -f $fmt "select 1 as x, '0' as pad, 2 as y")
	for to in pipe file; do
		if [ $to = pipe ]; then
			rss=$(peak sh -c '"$@" | wc -l > "$0"' "$dir/n" "$PERF_SQL" --query-timeout 0 \
				--max-memory 16M -f $fmt "$large")
			n=$(cat "$dir/n")
		else
			rss=$(peak "$PERF_SQL" --query-timeout 0 --max-memory 16M -f $fmt -o "$dir/o" \
				"$large")
			n=$(wc -l < "$dir/o")
		fi
		# rows, plus the header lines (table: 2, csv: 1, json: 0)
		want=$((300000 + $([ $fmt = table ] && echo 2 || ([ $fmt = csv ] && echo 1 || echo 0))))
		eq "$n" "$want" "-f $fmt to a $to: lines"
		if [ $asan = 0 ]; then
			between "$rss" 0 $((base + 16384)) "-f $fmt to a $to: peak RSS (KiB; one row: $base)"
		fi
	done
done
tail -n 1 "$dir/o" | grep -q '"x":300000' || fail "the JSON file's last row: $(tail -n 1 "$dir/o")"
