# --flame-graph and --heatmap take their column by its value, whatever its name: one capture
# replayed with folded_stack(stack), "AS f" and "AS \"my col\"" (next to a text column that looks
# like one folded line, "x 3") gives the same frames; heatmap() with and without an alias the
# same cells.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$PERF_SQL" record -o "$dir/cpu.cap" "select folded_stack(stack) from cpu_clock(999)
	where _pid = workload_pid()" -- "$WL/burn" 1 2>/dev/null || fail "record cpu_clock"
samples=$(q -r "$dir/cpu.cap" "select count(*) from cpu_clock") || fail "count"
[ "$samples" -gt 0 ] || fail "no samples recorded"
frames() {   # frames FILE: the SVG's frame tooltips, sorted
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
print('\n'.join(sorted(t.text for t in ET.parse(sys.argv[1]).getroot().iter(ns + 'title'))))
PY
}
n=0
for alias in "" "as f" 'as "my col"'; do
	n=$((n + 1))
	"$PERF_SQL" -r "$dir/cpu.cap" --flame-graph "$dir/f$n.svg" "select 'x 3' as t,
		folded_stack(stack) $alias from cpu_clock" > /dev/null || fail "flame graph '$alias'"
	frames "$dir/f$n.svg" > "$dir/f$n.frames" || fail "svg '$alias'"
done
total=$(awk '{ s += $NF } END { print s + 0 }' "$dir/f1.svg.folded")
eq "$total" "$samples" "samples in the folded lines (no alias)"
grep -q "^all ($samples samples, 100.00%)$" "$dir/f1.frames" || fail "root frame: $(head -1 "$dir/f1.frames")"
for n in 2 3; do
	cmp -s "$dir/f1.svg.folded" "$dir/f$n.svg.folded" || fail "folded lines differ with alias $n"
	cmp -s "$dir/f1.frames" "$dir/f$n.frames" || fail "frames differ with alias $n"
done
echo "ok: $(wc -l < "$dir/f1.frames") frames, $samples samples: the same with AS f and AS \"my col\""
grep -q '^x 3$' "$dir/f1.svg.folded" && fail "the text column 'x 3' was taken for a stack"
# heatmap(): the blob is found in any column
from="from pairs('sys_enter_clock_nanosleep', '_tid', 'sys_exit_clock_nanosleep', '_tid')
	where key = (select _pid from sys_enter_clock_nanosleep limit 1)"
"$PERF_SQL" record -o "$dir/sleep.cap" "select heatmap(end_time, latency, 100000000) $from" \
	-- "$WL/sleeper" 20 30 2>/dev/null || fail "record sleeps"
"$PERF_SQL" -r "$dir/sleep.cap" --heatmap "$dir/h1.svg" "select heatmap(end_time, latency,
	100000000) $from" > /dev/null || fail "heatmap"
"$PERF_SQL" -r "$dir/sleep.cap" --heatmap "$dir/h2.svg" "select 'x' as a, heatmap(end_time,
	latency, 100000000) as h $from" > /dev/null || fail "heatmap as h"
frames "$dir/h1.svg" > "$dir/h1.cells"; frames "$dir/h2.svg" > "$dir/h2.cells"
eq "$(awk -F': ' '{ s += $NF } END { print s + 0 }' "$dir/h1.cells")" 20 "sleeps in the heatmap"
cmp -s "$dir/h1.cells" "$dir/h2.cells" || fail "heatmap cells differ with an alias"
echo "ok: heatmap AS h has the same $(wc -l < "$dir/h1.cells") cells"
