# perf-sql list: at least 25 profilers, each with a summary and needs; help NAME for each
# (parameters, SQL); every built-in has docs/profilers/NAME.md with an Overhead section.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none
docs=$(dirname "$0")/../../docs/profilers
names=$("$PERF_SQL" list | awk 'NR > 1 && $2 == "built-in" { print $1 }')
n=$(printf '%s\n' "$names" | wc -l)
[ "$n" -ge 25 ] || fail "only $n built-in profilers"
echo "ok: $n built-in profilers"
eq "$("$PERF_SQL" --list | md5sum)" "$("$PERF_SQL" list | md5sum)" "--list = list"
for p in $names; do
	out=$("$PERF_SQL" help "$p") || fail "help $p"
	[[ "$out" == "$p - "* && "$out" == *"SQL:"* && "$out" == *"usage:"* ]] || fail "help $p: $out"
	grep -q '^## Overhead' "$docs/$p.md" 2>/dev/null || fail "docs/profilers/$p.md lacks '## Overhead'"
	grep -q '^```' "$docs/$p.md" || fail "docs/profilers/$p.md shows no output"
done
echo "ok: help and a docs page with output and Overhead for each"
