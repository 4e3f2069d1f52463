# -f pprof: `go tool pprof` (Debian's golang-go) reads the profile perf-sql wrote from a capture,
# and its per-function flat and cumulative totals are exactly what folded_stack() gives for the
# same capture (with --inline too: inlined functions are pprof's inline lines); -list shows the
# source lines of a workload built with -g, and of a stripped binary whose debug file is found
# by build ID; profile -f pprof is the same stack query. burn (static, frame pointers) and
# chain (dynamic, CFI-unwound, libc's frames).
. "$(dirname "$0")/lib.sh"; need_root
command -v go > /dev/null || skip "[skipped: no go: go tool pprof reads the profiles (apt-get install golang-go, or make setup)]"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export HOME=$dir PPROF_TMPDIR=$dir # pprof keeps nothing in root's home
pprof() { go tool pprof "$@" 2> "$dir/pprof.err" || fail "go tool pprof $*: $(cat "$dir/pprof.err")"; }

# pprof -top's flat and cum per function == folded_stack()'s leaf and per-line totals
compare() { # FOLDED TOP what
	python3 - "$1" "$2" "$3" <<'PY'
import sys
folded, top, what = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines(), sys.argv[3]
flat, cum = {}, {}
for l in folded:
    stack, n = l.rsplit(' ', 1)
    # the first element is the task's name; --inline's " (inlined)" is pprof's inline line
    frames = [f.replace(' (inlined)', '') for f in stack.split(';')[1:]]
    if not frames:
        continue
    flat[frames[-1]] = flat.get(frames[-1], 0) + int(n)
    for f in set(frames):
        cum[f] = cum.get(f, 0) + int(n)
pflat, pcum = {}, {}
rows = top[next(i for i, l in enumerate(top) if l.split()[:2] == ['flat', 'flat%']) + 1:]
for l in rows:
    f = l.split(None, 5)
    f[5] = f[5].replace(' (inline)', '')    # pprof's mark of an inline line's function
    pcum[f[5]] = int(f[3])
    if int(f[0]):
        pflat[f[5]] = int(f[0])
assert flat and pflat == flat, ("flat", sorted(set(pflat.items()) ^ set(flat.items())))
assert pcum == cum, ("cum", sorted(set(pcum.items()) ^ set(cum.items())))
print("ok: %s: %d functions, %d samples: flat and cum equal folded_stack()'s" %
      (what, len(pcum), sum(flat.values())))
PY
}

for wl in "burn 1" "chain 1"; do
	name=${wl%% *}
	"$PERF_SQL" record -o "$dir/$name.cap" "select stack from cpu_clock(999)
		where _pid = workload_pid()" -- $WL/$wl > /dev/null 2>&1 || fail "record $wl"
	"$PERF_SQL" -r "$dir/$name.cap" --flame-graph "$dir/$name.svg" \
		"select folded_stack(stack) from cpu_clock" > /dev/null || fail "folded $name"
	"$PERF_SQL" -r "$dir/$name.cap" -f pprof -o "$dir/$name.pb.gz" \
		"select stack, count(*) as samples from cpu_clock group by stack" || fail "pprof $name"
	ls "$dir" | grep -q tmp && fail "a temporary file was left"
	pprof -top -nodecount=1000000 -nodefraction=0 "$dir/$name.pb.gz" > "$dir/$name.top"
	compare "$dir/$name.svg.folded" "$dir/$name.top" "$name" || fail "$name: pprof -top != folded_stack()"
done
# --inline: chain_spin(), inlined into chain_c(), is an inline line of chain_c's locations
"$PERF_SQL" -r "$dir/chain.cap" --inline --flame-graph "$dir/inl.svg" \
	"select folded_stack(stack) from cpu_clock" > /dev/null || fail "folded --inline"
"$PERF_SQL" -r "$dir/chain.cap" --inline -f pprof -o "$dir/inl.pb.gz" \
	"select stack, count(*) as samples from cpu_clock group by stack" || fail "pprof --inline"
pprof -top -nodecount=1000000 -nodefraction=0 "$dir/inl.pb.gz" > "$dir/inl.top"
grep -qE '^ +[1-9][0-9]* .* chain_spin \(inline\)$' "$dir/inl.top" || fail "no chain_spin: $(cat "$dir/inl.top")"
compare "$dir/inl.svg.folded" "$dir/inl.top" "chain --inline" || fail "--inline: pprof -top != folded_stack()"
grep -q "^Build ID: [0-9a-f]\{40\}$" "$dir/burn.top" || fail "no build ID: $(head -3 "$dir/burn.top")"
echo "ok: the mapping of burn carries its build ID"

# -list: burn_a's source lines from burn.c (built -g), their counts adding up to its flat total
pprof -list '^burn_a$' "$dir/burn.pb.gz" > "$dir/list"
python3 - "$dir/list" "$dir/burn.top" <<'PY' || fail "pprof -list burn_a: $(head -20 "$dir/list")"
import sys
lst, top = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
assert lst[1].startswith('ROUTINE ======================== burn_a in /') and lst[1].endswith('tests/workloads/burn.c'), lst[1]
src = [l.split(None, 3) for l in lst[3:] if l.split() and l.split()[0] != '.']
flat = next(int(l.split()[0]) for l in top if l.split()[-1:] == ['burn_a'])
assert any('sink += i;' in s[3] for s in src), src
assert sum(int(s[0]) for s in src) == flat, (src, flat)
print("ok: pprof -list burn_a: %d source lines with samples, %d in all = its flat" % (len(src), flat))
PY

# a stripped binary (no symbols, no .gnu_debuglink) whose debug file is found by its build ID
# (the debuginfod client's cache): named functions, and -list shows chain.c's lines
objcopy --remove-section .gnu_debuglink "$WL/chain.stripped" "$dir/nolink" || fail "objcopy"
id=$(readelf -n "$dir/nolink" | awk '/Build ID/ { print $3 }')
mkdir -p "$dir/cache/$id" && cp "$WL/chain.debug" "$dir/cache/$id/debuginfo"
DEBUGINFOD_CACHE_PATH=$dir/cache "$PERF_SQL" -F 999 -f pprof -o "$dir/nolink.pb.gz" "select stack,
	count(*) as samples from cpu_clock where _pid = workload_pid() group by stack" -- \
	"$dir/nolink" 1 > /dev/null || fail "pprof of the stripped binary"
pprof -top "$dir/nolink.pb.gz" > "$dir/nolink.top"
grep -qx "Build ID: $id" "$dir/nolink.top" || fail "build ID: $(head -3 "$dir/nolink.top")"
grep -qE '^ +[1-9].* chain_c$' "$dir/nolink.top" || fail "chain_c unnamed: $(cat "$dir/nolink.top")"
pprof -list '^chain_c$' "$dir/nolink.pb.gz" > "$dir/nolink.list"
grep -q "^ROUTINE =* chain_c in .*tests/workloads/chain.c$" "$dir/nolink.list" &&
	grep -qE '^ +[0-9.]+[a-z]* +[0-9.]+[a-z]* +[0-9]+:.*chain_spin' "$dir/nolink.list" ||
	fail "pprof -list chain_c: $(head -20 "$dir/nolink.list")"
echo "ok: a stripped binary, its debug file by build ID: chain_c named, its lines listed"

# perf-sql profile -f pprof: the profiler's stack query (its -- pprof: line), Go's CPU period
"$PERF_SQL" profile -F 999 -f pprof -o "$dir/cpu.pb.gz" -- "$WL/burn" 1 > /dev/null || fail "profile"
pprof -raw "$dir/cpu.pb.gz" > "$dir/raw"
grep -qx "PeriodType: cpu nanoseconds" "$dir/raw" && grep -qx "Period: 1001001" "$dir/raw" ||
	fail "period: $(head -3 "$dir/raw")"
grep -qx "samples/count cpu/nanoseconds\[dflt\]" "$dir/raw" || fail "types: $(sed -n 5,6p "$dir/raw")"
pprof -top "$dir/cpu.pb.gz" | grep -q " burn_a$" || fail "profile -f pprof: no burn_a"
echo "ok: profile -f pprof: period 1001001 ns (999 Hz), samples and cpu (shown first), burn_a on top"
"$PERF_SQL" help profile | grep -A1 -x "SQL with -f pprof:" |
	grep -qx "  SELECT stack, count(\*) AS samples FROM cpu_clock GROUP BY stack" ||
	fail "help profile does not show its pprof SQL"
echo "ok: perf-sql help profile shows the SQL -f pprof runs"

# a terminal, a result without stacks: one line, exit 1, nothing written
err=$("$PERF_SQL" -f pprof -o "$dir/none.pb.gz" "select count(*) from cpu_clock" -d 200ms 2>&1)
[ $? = 1 ] && [[ $err == *"no row of the result has a stack"* ]] || fail "no stack: $err"
[ -e "$dir/none.pb.gz" ] && fail "a profile without samples was written"
ln -s "$dir/burn.top" "$dir/link.pb.gz"
err=$("$PERF_SQL" -r "$dir/burn.cap" -f pprof -o "$dir/link.pb.gz" \
	"select stack, count(*) from cpu_clock group by stack" 2>&1)
[ $? = 1 ] && [[ $err == *"a symbolic link"* ]] || fail "link: $err"
echo "ok: no stack, a link: one line each, exit 1, nothing written"
