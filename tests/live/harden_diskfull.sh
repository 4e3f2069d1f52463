# Disk full while writing a CSV report: one error line per window that could not be written,
# no crash, the file holds whole rows only, and writing resumes when space returns.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); errf=$(mktemp); trap 'umount "$dir" 2>/dev/null; rmdir "$dir"; rm -f "$errf"' EXIT
mount -t tmpfs -o size=16k tmpfs "$dir" || skip "cannot mount a small tmpfs"
head -c 12288 /dev/zero > "$dir/filler"
# space returns once perf-sql has said it could not write a window (or after 30 s); the workload
# writes 30 rows every 150 ms while the disk is full, then 5 times more: 150 rows to write
(for _ in $(seq 600); do grep -q "not written" "$errf" && break; sleep 0.05; done
 rm -f "$dir/filler") &
"$PERF_SQL" -i 150 --csv -o "$dir/out.csv" "select _time, _cpu, comm, count from sys_enter_write" \
	-- sh -c "while [ -e $dir/filler ]; do $WL/writes 30 5; sleep 0.15; done
		for i in 1 2 3 4 5; do $WL/writes 30 5; sleep 0.15; done" 2> "$errf"
rc=$?; wait
eq "$rc" 0 "exit status with a full disk for some windows"
n=$(grep -c "not written (whole rows only" "$errf")
[ "$n" -ge 1 ] || fail "no error line for the full disk: $(cat "$errf")"
echo "ok: $n windows reported not written"
python3 - "$dir/out.csv" <<'PY' || fail "the CSV is not whole rows"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert rows[0] == ['window_start', '_time', '_cpu', 'comm', 'count'], rows[0]
assert all(len(r) == 5 for r in rows), [r for r in rows if len(r) != 5][:2]
print("ok: %d whole rows" % (len(rows) - 1))
PY
written=$(($(wc -l < "$dir/out.csv") - 1))
[ "$written" -ge 150 ] || fail "writing did not resume: $written rows"
echo "ok: writing resumed after space returned ($written rows in all)"
