#!/usr/bin/env bash
# scripts/gen-man.sh [DIR] - the manual pages perf-sql.1 and perf-sql-profilers.7 into DIR
# (default docs/man), written by perf-sql itself (--help-man, cli/man.c) from the registries
# --help is made from, so they cannot drift: tests/live/man.sh regenerates them and diffs.
# PERF_SQL: the binary (default ./perf-sql). Saved profilers are kept out: the pages describe
# the built-in ones only. The exit status table of docs/cli.md (between its two
# "exit-statuses" comments; with DIR, DIR/cli.md) is rewritten from the page's EXIT STATUS.
set -euo pipefail
: "${PERF_SQL:=./perf-sql}"
dir=${1:-docs/man}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in perf-sql.1 perf-sql-profilers.7; do
	XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none \
		"$PERF_SQL" --help-man "${page%.*}" > "$tmp/$page"
	mv "$tmp/$page" "$dir/$page"
done
# docs/cli.md's table: each ".TP / \fBN\fR / MEANING: EXAMPLES" of EXIT STATUS, a row
cli=docs/cli.md
[ $# -ge 1 ] && { cp "$cli" "$dir/cli.md"; cli=$dir/cli.md; }
awk '/^\.SH EXIT STATUS/ { on = 1; print "| status | meaning | examples |"; print "|---|---|---|"; next }
	on && /^\.SH/ { exit }
	on && /^\\fB[0-9]+\\fR$/ { code = $0; gsub(/\\f[BR]/, "", code); getline
		gsub(/\\-/, "-"); gsub(/\\e/, "\\"); gsub(/\\&/, "")
		i = index($0, ": "); printf "| %s | %s | %s |\n", code, substr($0, 1, i - 1), substr($0, i + 2) }' \
	"$dir/perf-sql.1" > "$tmp/exit.md"
awk -v table="$tmp/exit.md" '/<!-- exit-statuses: / { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/<!-- end of exit-statuses -->/ { skip = 0 } !skip' "$cli" > "$tmp/cli.md"
grep -q '^| 2 | bad usage |' "$tmp/cli.md" || { echo "gen-man.sh: no exit status table in $cli" >&2; exit 1; }
cat "$tmp/cli.md" > "$cli"
