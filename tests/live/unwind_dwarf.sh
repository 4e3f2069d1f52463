# CFI unwinding of a program built without frame pointers (build/workloads/chain: -O2
# -fomit-frame-pointer, main -> chain_a -> chain_b -> chain_c), against perf record
# --call-graph dwarf + perf script on the same execution (perf records perf-sql and the workload
# it starts); then the stripped copy, named through its .gnu_debuglink debug file, and without
# it, as FILE+0xOFFSET.
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
WANT="_start;__libc_start_main;__libc_start_call_main;main;chain_a;chain_b;chain_c"

# one execution of chain, sampled by both: held before its exec, perf record -p and perf-sql -p
# attach, then it runs (a single exec: perf script loses libc's CFI after a second one, as when
# perf-sql starts `env ... chain` under perf record). PAD: 6 KiB of environment above main's
# frame, so the kernel copies whole 8 KiB stacks (with a small environment the copy ends at the
# top of the stack, ~1.5 KiB up, and perf's unwinder stops at __libc_start_call_main there)
export PAD=$(head -c 6000 /dev/zero | tr '\0' x)
hold "$dir" "$WL/chain" 1
unset PAD
perf record -q -F 999 --call-graph dwarf -o "$dir/perf.data" -p "$HELD" 2>"$dir/perf.err" &
BG+=($!)
# -m 16: 64 KiB rings, so about one 8 KiB sample in eight wraps around a ring's end (read whole:
# core/perf_glue.c mmap__whole_event)
"$PERF_SQL" -m 16 --call-graph dwarf -p "$HELD" "select folded_stack(stack) from cpu_clock(999)
	where ip > 0" > "$dir/ours" 2>"$dir/ours.err" &
BG+=($!)
wait_perf_fds "${BG[1]}"
wait_perf_fds "${BG[2]}"
release "$dir"
# perf script: the chain's samples in chain_c, outermost first; perf lists the functions
# inlined at an address first, each "(inlined)", then the one holding it: one frame per address
perf script -i "$dir/perf.data" --comms chain -F ip,sym 2>/dev/null | awk '
	/^$/ { if (n) { s = f[n]; for (i = n - 1; i > 0; i--) s = s ";" f[i]; print s }; n = 0; last = ""; next }
	{ if ($1 != last) n++; f[n] = $2; last = $1 }
	END { if (n) { s = f[n]; for (i = n - 1; i > 0; i--) s = s ";" f[i]; print s } }' |
	sed 's/__libc_start_main_impl/__libc_start_main/' | grep ';chain_c$' | sort | uniq -c |
	sort -rn > "$dir/perf"
[ -s "$dir/perf" ] || fail "perf script gave no stack in chain_c"
# perf's unwinder reaches _start on most runs; on some (attached with -p before an exec) it
# stops at __libc_start_call_main for every sample: its stacks must then be ours, cut there
perf_n=$(awk -v w="$WANT" '$2 == w { s += $1 } END { print s + 0 }' "$dir/perf")
perf_all=$(awk '{ s += $1 } END { print s + 0 }' "$dir/perf")
perf_cut=$(awk -v w="${WANT#_start;__libc_start_main;}" '$2 == w { s += $1 } END { print s + 0 }' "$dir/perf")
[ "$perf_n" -gt 0 ] || [ "$perf_cut" -ge $((perf_all * 9 / 10)) ] ||
	fail "perf's stacks in chain_c are neither $WANT nor it from __libc_start_call_main: $(head -3 "$dir/perf")"
perf_stack=$WANT
[ "$perf_n" -gt 0 ] || { perf_stack=${WANT#_start;__libc_start_main;}; perf_n=$perf_cut; }
# ours: "chain;STACK COUNT" lines
ok=$(awk -v w="chain;$WANT" '$1 == w { s += $2 } END { print s + 0 }' "$dir/ours")
in_c=$(awk '$1 ~ /;chain_c$/ { s += $2 } END { print s + 0 }' "$dir/ours")
shallow=$(awk '$1 == "chain;chain_c" { s += $2 } END { print s + 0 }' "$dir/ours")
other=$((in_c - ok - shallow))
echo "ok: perf-sql: $ok of $in_c samples in chain_c unwound to $WANT; perf: $perf_n of $perf_all to $perf_stack"
[ "$ok" -gt 100 ] || fail "too few full stacks: $ok of $in_c: $(cat "$dir/ours")"
eq "$((other + shallow))" 0 "samples in chain_c with any other stack"
depth_ours=$(echo "$WANT" | tr ';' '\n' | wc -l)
depth_perf=$(echo "$perf_stack" | tr ';' '\n' | wc -l)
[ "$depth_ours" -ge "$depth_perf" ] || fail "perf is deeper: $depth_perf > $depth_ours"
echo "ok: depth of the stack: perf-sql $depth_ours, perf $depth_perf (same frames from chain_c out)"

# --call-graph fp on the same binary: the kernel's walk cannot get past chain_c
fp=$(q --call-graph fp "select count(*) from cpu_clock(999) where _pid = workload_pid()
	and ip > 0 and stack_text(stack, ';') like '%chain_b%'" -- "$WL/chain" 1)
eq "$fp" 0 "samples whose frame-pointer stack reaches chain_b"

# the stripped copy: named through chain.debug (.gnu_debuglink, same directory)
cnt=$(q "select count(*) from cpu_clock(999) where _pid = workload_pid() and ip > 0 and
	stack_text(stack, ';') like 'chain_c+0x%(chain.stripped);chain_b+0x%(chain.stripped);chain_a+0x%;main+0x%'" \
	-- "$WL/chain.stripped" 1)
[ "$cnt" -gt 100 ] || fail "stripped copy: $cnt samples named chain_c;chain_b;chain_a;main"
echo "ok: chain.stripped resolves through chain.debug ($cnt samples)"
# ... and without it: FILE+0xOFFSET, the offset of chain_c in the file
cp "$WL/chain.stripped" "$dir/"
read -r c_addr c_size < <(nm -S "$WL/chain.debug" | awk '$4 == "chain_c" { print $1, $2 }')
leaf=$(q "select stack_text(stack, ';') from cpu_clock(999) where _pid = workload_pid() and
	ip > 0 group by 1 order by count(*) desc limit 1" -- "$dir/chain.stripped" 1)
[[ "$leaf" =~ ^chain\.stripped\+0x([0-9a-f]+)\; ]] || fail "unresolved leaf: $leaf"
off=$((16#${BASH_REMATCH[1]})); lo=$((16#$c_addr)); hi=$((lo + 16#$c_size))
# a PIE's text is mapped at offset = vaddr here (the first PT_LOAD with code: p_vaddr == p_offset)
[ "$off" -ge "$lo" ] && [ "$off" -lt "$hi" ] || fail "offset $off outside chain_c [$lo, $hi): $leaf"
[[ "$leaf" == *"__libc_start_call_main+0x"*"(libc.so.6)"* ]] || fail "libc frames lost: $leaf"
[[ "$leaf" != *";0x"* ]] || fail "a bare run-time address: $leaf"
echo "ok: without its debug file: $leaf"
# the debuginfod client's cache: a copy without .gnu_debuglink, its debug file only in
# $DEBUGINFOD_CACHE_PATH/BUILDID/debuginfo (where debuginfod-find would have put it)
objcopy --remove-section .gnu_debuglink "$WL/chain.stripped" "$dir/nolink" || fail "objcopy"
id=$(readelf -n "$dir/nolink" | awk '/Build ID/ { print $3 }')
mkdir -p "$dir/cache/$id" && cp "$WL/chain.debug" "$dir/cache/$id/debuginfo"
top=$(DEBUGINFOD_CACHE_PATH=$dir/cache q "select stack_text(stack, ';') from cpu_clock(999) where
	_pid = workload_pid() and ip > 0 group by 1 order by count(*) desc limit 1" -- "$dir/nolink" 1)
[[ "$top" == "chain_c+0x"*"(nolink);chain_b+0x"*"(nolink);chain_a+0x"*";main+0x"* ]] ||
	fail "through the debuginfod cache: $top"
echo "ok: a build-id in the debuginfod cache names the frames: ${top:0:60}..."
# bad values: one line naming what is wanted, exit 2
err=$("$PERF_SQL" --call-graph lbr "select 1" 2>&1); rc=$?
eq "$rc" 2 "exit status of --call-graph lbr"
[[ "$err" == *"no such call graph 'lbr'; choices: auto fp dwarf"* ]] || fail "message: $err"
err=$("$PERF_SQL" --stack-size 70000 "select 1" 2>&1); rc=$?
eq "$rc" 2 "exit status of --stack-size 70000"
[[ "$err" == *"--stack-size '70000': expected a size from 8 to 65528 bytes"* ]] || fail "message: $err"
# --stack-size reaches the kernel: a 64-byte copy is too short for chain's 7 frames
short=$(q --call-graph dwarf --stack-size 64 "select max(stack_depth(stack)) from cpu_clock(999)
	where _pid = workload_pid() and ip > 0" -- "$WL/chain" 1)
[ "$short" -ge 1 ] && [ "$short" -lt 7 ] || fail "--stack-size 64: depth $short"
echo "ok: --stack-size 64 gives stacks of at most $short frames"
