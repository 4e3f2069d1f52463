# record then replay: the same answers as live; damaged and foreign files are one clear error,
# a cut file is read up to its last whole block. (The golden SQL tests over committed captures
# run from tests/run.sh, as an unprivileged user.)
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
sql="select count, count(*) from sys_enter_write where _pid = workload_pid() group by count order by count"
live=$(q "$sql" -- "$WL/writes" 300 777 40 10) || fail "live run"
"$PERF_SQL" record -o "$dir/w.cap" sys_enter_write -- "$WL/writes" 300 777 40 10 2>"$dir/rec.err" || fail "record: $(cat "$dir/rec.err")"
grep -q "recorded 340 events (0 lost) of 1 tables in $dir/w.cap" "$dir/rec.err" || fail "record summary: $(cat "$dir/rec.err")"
# workload_pid() is the live run's own: in a capture, select the writer by size instead
replayed=$(q -r "$dir/w.cap" "select count, count(*) from sys_enter_write where _pid = (select _pid
	from sys_enter_write where count = 777 limit 1) group by count order by count") || fail "replay"
eq "$replayed" "$live" "replayed answer = live answer"
info=$("$PERF_SQL" info "$dir/w.cap") || fail "info"
[[ "$info" == *"table       syscalls:sys_enter_write: 340 events, 0 lost, 1 windows"* ]] || fail "info: $info"
echo "ok: info lists the table and its counts"
# damaged files
size=$(stat -c %s "$dir/w.cap")
head -c $((size - 100)) "$dir/w.cap" > "$dir/cut.cap"
out=$("$PERF_SQL" info "$dir/cut.cap") || fail "a cut file should still read"
[[ "$out" == *"cut short: read up to its last whole block"* ]] || fail "cut: $out"
echo "ok: a cut capture reads up to its last whole block"
echo "hello" > "$dir/foreign.cap"
err=$("$PERF_SQL" -r "$dir/foreign.cap" "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status for a foreign file"
[[ "$err" == "perf-sql: $dir/foreign.cap: not a perf-sql capture; make one with: perf-sql record -o FILE TABLE -d 5s" ]] || fail "foreign: $err"
printf 'PSQLCAP1\x09\x00\x00\x00\x00\x00\x00\x00' > "$dir/v9.cap"
err=$("$PERF_SQL" info "$dir/v9.cap" 2>&1) && fail "version 9 accepted"
[[ "$err" == *"capture version 9, this perf-sql reads version 1"* ]] || fail "version: $err"
echo "ok: unknown version refused"
python3 - "$dir/w.cap" "$dir/bad.cap" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[16 + 16 + 20] ^= 0xff            # inside the first block's frame
open(sys.argv[2], 'wb').write(bytes(b))
PY
err=$("$PERF_SQL" info "$dir/bad.cap" 2>&1) && fail "a corrupt block accepted"
[[ "$err" == *"corrupt block at offset 16"* ]] || fail "corrupt: $err"
echo "ok: a corrupt block is one clear error"
# a short-lived task's stacks, its binary deleted before the capture ends: the replay names its
# functions as the live run did (the capture keeps the symbols read while it lived, CAP_SYMS)
cp "$WL/chain" "$dir/ch" || fail "copy chain"
"$PERF_SQL" record -o "$dir/s.cap" "select _comm, stack from cpu_clock(999)" \
	-- sh -c "$dir/ch 1; rm $dir/ch; sleep 0.2" 2>"$dir/rec.err" || fail "record: $(cat "$dir/rec.err")"
[ ! -e "$dir/ch" ] || fail "the workload's binary was not removed"
stacks="select stack_text(stack) from cpu_clock where _comm = 'ch' order by _time, _cpu"
gone=$(q -r "$dir/s.cap" "$stacks") || fail "replay"
n=$(q -r "$dir/s.cap" "select count(*) from cpu_clock where _comm = 'ch' and
	stack_text(stack) glob 'chain_c+*chain_b+*chain_a+*main+*'") || fail "replay"
[ "$n" -gt 100 ] || fail "too few samples of ch named chain_c<-chain_b<-chain_a<-main: $n"
echo "ok: $n samples of the deleted ch named chain_c<-chain_b<-chain_a<-main"
# the reference: the same capture replayed with the binary back in place, named from the file
cp "$WL/chain" "$dir/ch" || fail "copy chain"
back=$(q -r "$dir/s.cap" "$stacks") || fail "replay"
[ "$gone" = "$back" ] || fail "the replay names ch's frames otherwise once the file is gone: $(
	diff <(echo "$back") <(echo "$gone") | head -20)"
echo "ok: every stack of ch replays the same with its binary gone as with it there"
