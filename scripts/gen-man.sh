#!/usr/bin/env bash
# scripts/gen-man.sh [DIR] - the manual pages perf-sql.1 and perf-sql-profilers.7 into DIR
# (default docs/man), written by perf-sql itself (--help-man, cli/man.c) from the registries
# --help is made from, so they cannot drift: tests/live/man.sh regenerates them and diffs.
# PERF_SQL: the binary (default ./perf-sql). Saved profilers are kept out: the pages describe
# the built-in ones only.
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
