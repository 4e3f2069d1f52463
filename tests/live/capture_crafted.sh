# Crafted and damaged captures through perf-sql -r and perf_sql_open() (perf_sql.so in Python),
# as nobody (uid 65534) when root: a capture is anyone's file, replaying needs no privileges.
# The captures come from build/tests/test_capture_craft --write (tests/unit/t_capture.h).
#   (1) every field type of a good capture decodes as written (every column of one row);
#   (2) every field (integers of 1, 2, 4, 8 bytes signed and not, char[], u32[], u8[], a
#       struct, __data_loc char[] and u8[], __rel_loc char[]) x 9 offsets or sizes that are
#       negative, wrap in 32 or 64 bits or lie past 64 KiB: one line naming the table, the
#       field and the value, exit 1, nothing else on stdout or stderr (a sanitizer report
#       fails); perf_sql_open() raises the same line;
#   (3) a capture whose MAPS block names a FIFO: both return at once with the rows;
#   (4) writes.cap with --max-memory 4K: the rows kept = received, received + lost = 120 (the
#       events recorded), and one warning naming --max-memory;
#   (5) a block header damaged mid-file: one line, exit 1 (both); the same file cut at that
#       header: a warning, exit 0, the rows before it (both);
#   (6) -r of a directory and of a FIFO: one line saying which, exit 1;
#   (7) streaming: the peak RSS of replaying a capture of 20 windows (-i) is within 1.5x of
#       replaying its first window alone (the same file cut after it); replay read the whole
#       file into memory before (81 MB against 13 MB).
. "$(dirname "$0")/lib.sh"
CRAFT=$BUILD/tests/test_capture_craft
SO=$(dirname "$PERF_SQL")/perf_sql.so
PY=/usr/bin/python3
[ -x "$CRAFT" ] && [ -f "$SO" ] || fail "$CRAFT or $SO is missing: make test builds them"
command -v /usr/bin/time >/dev/null || skip "/usr/bin/time is not installed (apt-get install time)"
d=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$d"' EXIT
"$CRAFT" --write "$d" 20 20000 || fail "writing the crafted captures"
cp "$PERF_SQL" "$d/perf-sql" && cp "$SO" tests/sql/writes.cap "$d/" && cp -r python "$d/" ||
	fail "copying"
chmod -R a+rX "$d" && chmod 0755 "$d" || fail "chmod $d"
cd "$d" || fail "cd $d"

as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$@"
	else
		"$@"
	fi
}
preload=
ldd "$SO" | grep -q libasan &&
	preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
# perf_sql_open(FILE) in Python: its result and stderr, or "ERROR: <the exception's line>"
popen() {
	as_user env LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
		PERF_SQL_SO="$d/perf_sql.so" PYTHONPATH="$d/python" timeout 30 "$PY" -c '
import sqlite3, sys, perfsql
try:
    c = perfsql.connect(sys.argv[1])
    print(c.execute(sys.argv[2]).fetchall())
except sqlite3.Error as e:
    print("ERROR: " + str(e))' "$@" 2>&1
}
r() { as_user timeout 30 ./perf-sql -r "$@" 2>&1 | tr -d '\r'; return "${PIPESTATUS[0]}"; }

# (1)
eq "$(r good.cap --csv "select f_u8, f_s8, f_u16, f_s16, f_u32, f_s32, f_u64, f_s64, f_str,
	hex(f_arr), hex(f_blob), f_dstr, hex(f_dblob), f_rstr, hex(f_pair) from every_type limit 1" |
	tail -n 1)" "200,-56,65534,-2,4294967293,-2,-4,-5,crafted,01000000020000000300000004000000,0102030405,hello,070809,rel,AABBCCDDEEFF112233445566" \
	"every field type of good.cap"

# (2)
n=0
while IFS=$'\t' read -r f line; do
	out=$(r "$f" "select * from every_type"); rc=$?
	[ "$rc" = 1 ] || fail "$f: exit $rc, expected 1: $out"
	[ "$out" = "perf-sql: $f: $line" ] || fail "$f: got '$out', expected 'perf-sql: $f: $line'"
	out=$(popen "$f" "select * from every_type")
	[ "$out" = "ERROR: perf_sql_open: $f: $line" ] ||
		fail "$f through perf_sql_open: got '$out', expected 'ERROR: perf_sql_open: $f: $line'"
	n=$((n + 1))
done < expected
[ "$n" -ge 135 ] || fail "only $n crafted captures"
echo "ok: $n crafted formats refused by -r and perf_sql_open with one line each, e.g."
echo "    $(r bad-f_str-0.cap "select f_str from every_type")"

# (3)
eq "$(r fifo.cap --csv "select count(*) from every_type" | tail -n 1)" 4 "-r of a capture naming a FIFO"
eq "$(popen fifo.cap "select count(*) from every_type")" "[(4,)]" "perf_sql_open of a capture naming a FIFO"

# (4)
out=$(r writes.cap --max-memory 4K --csv "select count(*) from sys_enter_write;
	select sum(received), sum(lost) from perf_sql_stats where \"table\" = 'sys_enter_write'")
rows=$(printf '%s\n' "$out" | grep -v '^perf-sql: ')
kept=$(printf '%s\n' "$rows" | sed -n 2p) counts=$(printf '%s\n' "$rows" | sed -n 4p)
recv=${counts%,*} lost=${counts#*,}
eq "$recv" "$kept" "--max-memory 4K: rows kept = received"
eq "$((recv + lost))" 120 "--max-memory 4K: received + lost = the 120 recorded"
between "$lost" 1 119 "--max-memory 4K: rows not kept"
eq "$(printf '%s\n' "$out" | grep -c "^perf-sql: warning: syscalls:sys_enter_write: $lost rows of this window were past --max-memory (4 KiB)")" 1 "the warning naming --max-memory"

# (5) the first RECORDS block's header damaged (blocks follow it); the file cut at its WINDOW
# block's header (every row before the cut)
blocks() { # FILE: "offset type" of each block
	local off=16 size; size=$(stat -c %s "$1")
	while [ "$off" -lt "$size" ]; do
		echo "$off $(od -An -tu4 -j $((off + 4)) -N 4 "$1" | tr -d ' ')"
		off=$((off + 16 + $(od -An -tu4 -j $((off + 8)) -N 4 "$1")))
	done
}
rec=$(blocks writes.cap | awk '$2 == 3 { print $1; exit }')
win=$(blocks writes.cap | awk '$2 == 4 { print $1; exit }')
[ -n "$rec" ] && [ -n "$win" ] || fail "no RECORDS or WINDOW block in writes.cap"
cp writes.cap hdr.cap && printf 'XXXX' | dd of=hdr.cap bs=1 seek="$rec" conv=notrunc 2>/dev/null
head -c "$((win + 8))" writes.cap > cut.cap
chmod a+r hdr.cap cut.cap
damaged="hdr.cap: corrupt block header at offset $rec (no block starts there): the capture is damaged"
eq "$(r hdr.cap "select count(*) from sys_enter_write"; echo "[exit $?]")" "perf-sql: $damaged
[exit 1]" "-r: a damaged header mid-file"
eq "$(popen hdr.cap "select 1")" "ERROR: perf_sql_open: $damaged" "perf_sql_open: a damaged header mid-file"
cut="cut.cap: cut short: read up to its last whole block ($win of its $((win + 8)) bytes; the recording was killed or its disk filled)"
eq "$(r cut.cap --csv "select count(*) from sys_enter_write"; echo "[exit $?]")" "perf-sql: warning: $cut
count(*)
120
[exit 0]" "-r: a file cut at its WINDOW block"
eq "$(popen cut.cap "select count(*) from sys_enter_write")" "perf_sql_open: warning: $cut
[(120,)]" "perf_sql_open: a file cut at its WINDOW block"

# (6)
mkdir adir && mkfifo afifo && chmod a+rwx adir afifo
eq "$(r adir "select 1"; echo "[exit $?]")" "perf-sql: adir: a directory, not a capture file; name the file perf-sql record -o FILE wrote (a piped capture: save it to a file first)
[exit 1]" "-r of a directory"
eq "$(r afifo "select 1" | cut -d';' -f1; echo "[exit ${PIPESTATUS[0]}]")" "perf-sql: afifo: a FIFO, not a capture file
[exit 1]" "-r of a FIFO"

# (7) ASan keeps freed memory in quarantine (256 MB): without one, RSS is what is held
head -c "$(cat one_window)" many.cap > one.cap && chmod a+r one.cap
peak() {
	as_user env ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=0:${ASAN_OPTIONS:-}" \
		/usr/bin/time -f "peak %M" ./perf-sql -r "$1" -i 1 --csv "select count(*) from every_type" 2>&1 |
		sed -n 's/^peak //p'
}
one=$(peak one.cap) many=$(peak many.cap)
[ -n "$one" ] && [ -n "$many" ] || fail "no peak RSS from /usr/bin/time"
eq "$(r many.cap -i 1 --csv "select count(*) from every_type" | tail -n +2 | cut -d, -f2 | sort -u | paste -sd' ')" "20000" "each of the 20 windows: 20000 rows"
[ $((many * 2)) -le $((one * 3)) ] || fail "replaying 20 windows peaked at $many KiB, its first window alone at $one KiB: more than 1.5x"
echo "ok: peak RSS of 20 windows $many KiB, of its first window alone $one KiB (<= 1.5x)"
