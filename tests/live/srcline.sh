# Source lines: srcline(PID, ADDR) and stack_text(stack, SEP, 'srcline inline') on the chain
# workload (-O2 -g, chain_spin() inlined into chain_c()) against addr2line -i on the same
# addresses; the stripped copy gets the same lines from chain.debug (.gnu_debuglink).
. "$(dirname "$0")/lib.sh"; need_root
command -v addr2line >/dev/null || skip "addr2line is not installed (apt-get install binutils)"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
c_addr=$(nm "$WL/chain" | awk '$3 == "chain_c" { print $1 }')
[ -n "$c_addr" ] || fail "nm: no chain_c in $WL/chain"

for bin in chain chain.stripped; do
	# the four commonest sampled addresses: their srcline(), and their vaddr via usym()
	q "select usym(_pid, ip), srcline(_pid, ip), stack_text(stack, ' <- ', 'srcline inline')
		from cpu_clock(999) where _pid = workload_pid() and ip > 0 group by 1
		order by count(*) desc limit 4" -- "$WL/$bin" 1 > "$dir/$bin"
	[ "$(wc -l < "$dir/$bin")" -ge 2 ] || fail "$bin: too few addresses: $(cat "$dir/$bin")"
	nr=0
	while IFS=, read -r sym line text; do
		[[ "$sym" =~ ^chain_c\+0x([0-9a-f]+)\ \( ]] || continue
		text=${text#\"}   # CSV quotes it: it holds commas
		vaddr=$(printf '%x' $((16#$c_addr + 16#${BASH_REMATCH[1]})))
		want=$(addr2line -e "$WL/chain" "$vaddr")
		eq "$line" "$want" "$bin: srcline of chain_c+0x${BASH_REMATCH[1]} (addr2line $vaddr)"
		# addr2line -i -f: the inlined function, its line, then chain_c at the call site
		mapfile -t inl < <(addr2line -i -f -e "$WL/chain" "$vaddr")
		want="${inl[0]} (inlined, ${inl[1]##*/}) <- ${inl[2]} (${inl[3]##*/}) <- "
		[[ "$text" == "$want"* ]] || fail "$bin: inline frames: '$text', expected '$want...'"
		nr=$((nr + 1))
	done < "$dir/$bin"
	[ "$nr" -ge 2 ] || fail "$bin: fewer than 2 addresses in chain_c: $(cat "$dir/$bin")"
	echo "ok: $bin: $nr addresses, srcline and inline frames as addr2line -i"
done
# the callers' lines: a return address is looked up one byte back, at the call
text=$(q "select stack_text(stack, ';', 'srcline') from cpu_clock(999) where _pid = workload_pid()
	and ip > 0 group by 1 order by count(*) desc limit 1" -- "$WL/chain" 1)
[[ "$text" =~ \;chain_b\ \(chain\.c:([0-9]+)\)\; ]] || fail "chain_b's line: $text"
grep -n 'int r = chain_c(' tests/workloads/chain.c | cut -d: -f1 | grep -qx "${BASH_REMATCH[1]}" ||
	fail "chain_b's frame is not at its call of chain_c: line ${BASH_REMATCH[1]}"
echo "ok: chain_b's frame is the line calling chain_c (${BASH_REMATCH[1]})"
err=$("$PERF_SQL" "select stack_text(stack, ';', 'srclines') from cpu_clock(99)" -d 100ms 2>&1)
[[ "$err" == *"stack_text: no such option 'srclines'; choices: srcline inline noinline"* ]] ||
	fail "bad option: $err"
echo "ok: an unknown option is one line naming the choices"
# a capture keeps the frames and the mappings: its replay names them, with the same lines
"$PERF_SQL" record -o "$dir/c.cap" "select stack from cpu_clock(999) where _pid = workload_pid()" \
	-- "$WL/chain" 1 2>/dev/null || fail "perf-sql record"
rep=$(q -r "$dir/c.cap" "select stack_text(stack, ';', 'srcline') from cpu_clock
	group by 1 order by count(*) desc limit 1")
line_of() { grep -n "$1" tests/workloads/chain.c | head -1 | cut -d: -f1; }
want="chain_b (chain.c:$(line_of 'int r = chain_c('));chain_a (chain.c:$(line_of 'int r = chain_b('));main (chain.c:$(line_of 'chain_a((int)secs)'));"
[[ "$rep" == "chain_c (chain.c:"*");$want"* ]] || fail "replayed stack: $rep, expected chain_c (...);$want.."
echo "ok: a replayed capture names its stacks with source lines: ${rep:0:70}..."
# --inline: every stack function lists inlined frames (folded: outermost first)
fold=$(q --inline "select folded_stack(stack) from cpu_clock(999) where _pid = workload_pid()
	and ip > 0" -- "$WL/chain" 1 | tr -d '"')
[[ "$fold" == *";main;chain_a;chain_b;chain_c;chain_spin (inlined) "* ]] ||
	fail "--inline folded lines: ${fold:0:300}"
echo "ok: --inline folds chain_spin (inlined) under chain_c"
