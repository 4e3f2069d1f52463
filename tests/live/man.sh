# The manual pages: docs/man/ is what perf-sql --help-man writes now (scripts/gen-man.sh), and
# man renders both pages without a warning, with every option of --help, every subcommand and
# every built-in profiler of `perf-sql list` in them.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v man >/dev/null || skip "man is not installed (apt-get install man-db)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
PERF_SQL=$PERF_SQL bash "$root/scripts/gen-man.sh" "$tmp" || fail "scripts/gen-man.sh"
for page in perf-sql.1 perf-sql-profilers.7; do
	diff -u "$root/docs/man/$page" "$tmp/$page" >&2 ||
		fail "docs/man/$page drifted from the registries: run scripts/gen-man.sh"
	echo "ok: docs/man/$page matches perf-sql --help-man"
	MANWIDTH=80 man --warnings -l "$tmp/$page" > "$tmp/$page.txt" 2> "$tmp/$page.err" ||
		fail "man -l $page failed: $(cat "$tmp/$page.err")"
	[ -s "$tmp/$page.err" ] && fail "man -l $page warns: $(cat "$tmp/$page.err")"
	echo "ok: man -l $page renders $(wc -l < "$tmp/$page.txt") lines, no warning"
done
diff -u "$root/docs/cli.md" "$tmp/cli.md" >&2 ||
	fail "docs/cli.md's exit statuses drifted from perf-sql(1): run scripts/gen-man.sh"
echo "ok: docs/cli.md's exit status table is perf-sql(1)'s"
"$PERF_SQL" --help-man nosuch > /dev/null 2> "$tmp/err"; eq "$?" 2 "--help-man nosuch: exit status"
eq "$(cat "$tmp/err")" "perf-sql: --help-man: no such page 'nosuch'; choices: perf-sql perf-sql-profilers; see perf-sql --help" "--help-man nosuch: message"

# every option of --help is an entry of perf-sql(1), with its short name and value
txt=$tmp/perf-sql.1.txt
n=0
while read -r entry; do
	# a tag alone on its line, or followed by its help when it is short (--csv  shorthand ...)
	awk -v e="       $entry" 'index($0, e) == 1 && (length($0) == length(e) ||
		substr($0, length(e) + 1, 1) == " ") { found = 1 } END { exit !found }' "$txt" ||
		fail "perf-sql(1) has no entry '$entry'"
	n=$((n + 1))
done < <("$PERF_SQL" --help | sed -n '/^options:/,/^$/p' | grep -E '^  (-[a-zA-Z], )?--|^      --' |
	 sed -E 's/^ +//; s/^(.*[^ ])  +.*$/\1/')
eq "$n" "$("$PERF_SQL" --help | sed -n '/^options:/,/^$/p' | grep -cE '^ +(-[a-zA-Z], )?--')" \
	"options of --help found as entries of perf-sql(1)"
n=0
for sc in $("$PERF_SQL" help | sed 's/^usage://' | awk '$2 ~ /^[a-z]+$/ { print $2 }'); do
	grep -q "^       perf-sql $sc" "$txt" || fail "perf-sql(1) has no subcommand '$sc'"
	n=$((n + 1))
done
between "$n" 6 100 "subcommands of perf-sql help found in perf-sql(1)"
n=0
for name in $(XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none "$PERF_SQL" list |
	      awk 'NR > 1 && $2 == "built-in" { print $1 }'); do
	grep -qx "   $name" "$tmp/perf-sql-profilers.7.txt" || fail "perf-sql-profilers(7) has no $name"
	n=$((n + 1))
done
between "$n" 30 1000 "built-in profilers of perf-sql list with a section in perf-sql-profilers(7)"
eq "$(grep -c '^   [a-z]' "$tmp/perf-sql-profilers.7.txt")" "$n" "sections of perf-sql-profilers(7)"
# the options of perf-sql serve --help are in serve's entry of perf-sql(1)
serve=$(awk '/^SUBCOMMANDS/ { sc = 1 } sc && /^       perf-sql serve/ { on = 1 }
	on && /^       perf-sql NAME/ { exit } on' "$txt" | perl -0pe 's/-\n\s+/-/g') # a word cut at its '-'
n=0
for o in $("$PERF_SQL" serve --help | grep -oE '^  --[a-z.-]+'); do
	[[ "$serve" == *"$o"* ]] || fail "perf-sql(1) serve entry lacks $o: $serve"
	n=$((n + 1))
done
between "$n" 3 100 "options of perf-sql serve --help in serve's entry of perf-sql(1)"
