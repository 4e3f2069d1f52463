# docs/profilers/README.md is generated from the registry: it fails when the index drifts.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none PERF_SQL=$PERF_SQL \
	bash "$root/scripts/gen-profiler-docs.sh" > "$tmp/README.md" || fail "gen-profiler-docs.sh"
diff -u "$root/docs/profilers/README.md" "$tmp/README.md" >&2 ||
	fail "docs/profilers/README.md drifted from the registry: run scripts/gen-profiler-docs.sh > docs/profilers/README.md"
echo "ok: docs/profilers/README.md matches the registry"
