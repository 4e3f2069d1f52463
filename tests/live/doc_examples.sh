# Every command example of README.md and docs/ runs and shows what the page shows
# (scripts/doc-examples.py: numbers, times, ids and paths masked; tables by columns and row
# shape; every perf-sql: message; what this machine lacks probed and skipped with the reason).
# First the comparison itself, on made-up outputs (scripts/doc_pages.py). A page that drifted
# fails naming the example and the first difference; `python3 scripts/doc-examples.py --update
# PAGE.md` rewrites its output from a run.
. "$(dirname "$0")/lib.sh"; need_root
command -v python3 >/dev/null || skip "python3 is not installed"
root=$(cd "$(dirname "$0")/../.." && pwd)
python3 -B "$root/scripts/doc_pages.py" || fail "scripts/doc_pages.py: the comparison is wrong"
PERF_SQL=$PERF_SQL BUILD=$BUILD python3 -B "$root/scripts/doc-examples.py"
