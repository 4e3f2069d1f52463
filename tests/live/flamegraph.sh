# --flame-graph FILE: an SVG (well-formed, one rect per frame) and FILE.folded from
# folded_stack(); with -i the folded lines carry their window's start.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$PERF_SQL" --flame-graph "$dir/cpu.svg" "select folded_stack(stack) from cpu_clock(999)
	where _pid = workload_pid()" -- "$WL/burn" 1 > /dev/null || fail "run"
[ -s "$dir/cpu.svg" ] && [ -s "$dir/cpu.svg.folded" ] || fail "files missing: $(ls "$dir")"
ls "$dir" | grep -q tmp && fail "a temporary file was left"
python3 - "$dir/cpu.svg" "$dir/cpu.svg.folded" <<'PY' || fail "svg"
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(ns + 'title')]
assert any(t.startswith('burn_a (') for t in titles), titles[:5]
assert any(t.startswith('main (') for t in titles), titles[:5]
lines = open(sys.argv[2]).read().splitlines()
assert all(l.rsplit(' ', 1)[1].isdigit() for l in lines), lines[:3]
print("ok: svg has frames main and burn_a; %d folded lines" % len(lines))
PY
"$PERF_SQL" -i 300 --flame-graph "$dir/win.svg" "select folded_stack(stack) from cpu_clock(99)
	where _pid = workload_pid()" -- "$WL/burn" 1 > /dev/null || fail "run -i"
first=$(head -1 "$dir/win.svg.folded")
[[ "$first" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+[+-][0-9:]+\;burn\; ]] || fail "time prefix: $first"
echo "ok: windowed folded lines start with the window: ${first:0:40}..."
# offcpu's recipe (perf-sql help offcpu): its folded_us lines, weighted in microseconds, make
# the folded file: no CSV header, every line a stack and a weight, the same lines as the table
# the run printed (its CSV, same run). The sleeper's 5 sleeps of 20 ms, through do_nanosleep,
# each counted sleep at least 20000 us off CPU. Its switches are 5, or 4 when this kernel delivered
# one switch in after a sleep to no tracer at all (BPF, ring or bpftrace: about 1 in 1,200,
# docs/reliability.md "Almost none"); an exact count of sleeps pairs the system call's enter
# and exit instead (live/pprof_stacks)
"$PERF_SQL" offcpu --csv --flame-graph "$dir/off.svg" -- "$WL/sleeper" 5 20 > "$dir/off.csv" ||
	fail "offcpu"
"$PERF_SQL" help offcpu | grep -q -- "--flame-graph off.svg" || fail "help offcpu: no recipe"
python3 - "$dir/off.svg.folded" "$dir/off.csv" <<'PY' || fail "offcpu folded"
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and all(';' in l and l.rsplit(' ', 1)[1].isdigit() for l in lines), lines[:3]
table = list(csv.DictReader(open(sys.argv[2])))
assert [r['folded_us'] for r in table] == lines, (table, lines)
sleeps = [r for r in table if r['folded_us'].startswith('sleeper;') and 'do_nanosleep' in r['folded_us']]
assert sleeps, table
us = sum(int(r['folded_us'].rsplit(' ', 1)[1]) for r in sleeps)
n = sum(int(r['switches']) for r in sleeps)
assert n in (4, 5) and us >= 20000 * n and all(float(r['max_us']) >= 20000 for r in sleeps), sleeps
print("ok: offcpu --flame-graph: %d folded lines, the table's; sleeper %d sleeps, %d us off CPU"
      % (len(lines), n, us))
PY
err=$("$PERF_SQL" --flame-graph /nonexistent/x.svg "select folded_stack(stack) from cpu_clock(99)" \
      -d 200ms 2>&1 >/dev/null); rc=$?
eq "$rc" 1 "exit status for an unwritable flame graph"
[[ "$err" == *"--flame-graph /nonexistent/x.svg: No such file or directory"* ]] || fail "message: $err"
# --heatmap FILE: an SVG with a cell per non-empty (slot, bucket)
"$PERF_SQL" --heatmap "$dir/h.svg" "select heatmap(end_time, latency, 100000000) from
	pairs('sys_enter_clock_nanosleep', '_tid', 'sys_exit_clock_nanosleep', '_tid')
	where key = workload_pid()" -- "$WL/sleeper" 20 30 > /dev/null || fail "heatmap run"
python3 - "$dir/h.svg" <<'PY' || fail "heatmap svg"
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
titles = [t.text for t in ET.parse(sys.argv[1]).getroot().iter(ns + 'title')]
total = sum(int(t.rsplit(': ', 1)[1]) for t in titles)
assert total == 20, (total, titles)
# a 30 ms sleep lasts at least 30 ms: the 2^24 ns bucket [16M, 32M) or, on a busy machine where
# the wakeup comes late, a later one; never an earlier one
def low(t):
    label = t.rsplit('[', 1)[1].split(',')[0]
    return float(label[:-1]) * {'K': 2**10, 'M': 2**20, 'G': 2**30}[label[-1]] if label[-1] in 'KMG' else float(label)
assert all(low(t) >= 2**24 for t in titles), titles
print("ok: heatmap svg holds the 20 sleeps, none below the 16M ns bucket (%d in it)"
      % sum(int(t.rsplit(': ', 1)[1]) for t in titles if '[16M, 2x)' in t))
PY
err=$("$PERF_SQL" --heatmap "$dir/none.svg" "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status when the result has no heatmap"
[[ "$err" == *"the result has no heatmap() value"* ]] || fail "message: $err"
