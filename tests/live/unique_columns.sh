# Every output names its columns once: the CSV header of every built-in profiler, the JSON keys
# and table header of trace (SELECT ts(_time) AS time, * has two "time"s) and of a sample of
# tables read with * twice; a repeated name is printed "name:1", as SQLite names a view's.
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp PERF_SQL_SYSTEM_PROFILERS=$tmp/none
# unique FILE WHAT: the names of the first line (CSV) or of every object (JSON Lines) are unique
unique() {
	python3 - "$1" "$2" <<'PY' || fail "$2: no rows, or a name repeats (above)"
import csv, json, sys
path, what = sys.argv[1], sys.argv[2]
def once(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"{what}: repeated JSON keys {keys}"
    return dict(pairs)
text = open(path).read()
if what.startswith("json"):
    rows = [json.loads(l, object_pairs_hook=once) for l in text.splitlines()]
    assert rows, f"{what}: no rows"
elif what.startswith("table"):
    head = text.splitlines()[0].split()
    assert len(head) == len(set(head)), f"{what}: repeated headers {head}"
else:
    head = next(csv.reader(text.splitlines()))
    assert len(head) == len(set(head)), f"{what}: repeated CSV headers {head}"
PY
}
n=0
for p in $("$PERF_SQL" list | awk 'NR > 1 && $2 == "built-in" { print $1 }'); do
	[ "$p" = memleak ] && continue # its tables are uprobes of a binary: prof_memleak.sh
	# shellcheck disable=SC2046
	"$PERF_SQL" "$p" $(profiler_args "$p") --csv -d 100ms > "$tmp/out" 2> "$tmp/err" || {
		grep -q 'not supported by this CPU/VM' "$tmp/err" && continue
		fail "$p: $(cat "$tmp/err")"
	}
	unique "$tmp/out" "csv $p"
	n=$((n + 1))
done
between "$n" 20 100 "profilers whose CSV header has each name once"
"$PERF_SQL" trace table=sched_switch limit=5 --json -d 200ms > "$tmp/out" || fail "trace --json"
unique "$tmp/out" "json trace"
grep -q '"time":"[0-9-]*T.*"time:1":[0-9]' "$tmp/out" || fail "trace: time then time:1: $(head -1 "$tmp/out")"
"$PERF_SQL" trace table=sched_switch limit=5 -d 200ms > "$tmp/out" || fail "trace"
unique "$tmp/out" "table trace"
# (the writes workload for sys_enter_write and page_faults; the others fire system-wide)
for t in sched_switch sys_enter_write cpu_clock page_faults; do
	cmd=(); [ $t = sys_enter_write ] || [ $t = page_faults ] && cmd=(-a -- "$WL/writes" 300 10)
	for f in json csv; do
		"$PERF_SQL" --$f -i 100 -d 300ms "select 1 as window_start, *, * from $t limit 1" \
			"${cmd[@]}" > "$tmp/out" || fail "$t --$f"
		unique "$tmp/out" "$f $t"
	done
done
echo "ok: trace and 4 tables read with * twice: JSON keys, table and CSV headers unique"
