# _cgroup and _cgroup_id (core/cgroup.c): two cgroups of the v2 hierarchy, `writes 300` in one
# and `writes 700` in the other, each write of a size no one else writes; GROUP BY _cgroup
# answers 300 and 700 with the two paths, on the kernel path, on the ring (--no-bpf), and from
# a capture replayed as nobody. The second cgroup is made after the query started (named by
# the walk an unknown id starts, or its PERF_RECORD_CGROUP); a third, made and removed within
# the window, is named too (PERF_RECORD_CGROUP: no walk finds it); a WHERE on _cgroup matching both, planned before either
# existed, keeps them (the kernel lets ids made since through, engine/bpf_cgroup.c), one on
# only the new one keeps only it.
. "$(dirname "$0")/lib.sh"; need_root
base=$(cgroup_v2) || skip "no cgroup v2 hierarchy mounted"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
size=$((3001 + $$ % 997)) # no other task writes this many bytes at once
a=perfsql-cgcol-$$-a b=perfsql-cgcol-$$-b c=perfsql-cgcol-$$-c
dir=$(mktemp -d) || fail "mktemp"
pq=
trap '[ -n "$pq" ] && kill $pq 2>/dev/null; wait; rmdir "$base/$a" "$base/$b" "$base/$c" 2>/dev/null;
	rm -rf "$dir"' EXIT
chmod 755 "$dir"

# run_in CG N: writes N SIZE in cgroup CG (made if it is not there), waited for
run_in() {
	mkdir -p "$base/$1" || fail "cannot make $base/$1"
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" "$2" "$3"' "$base/$1" "$WL/writes" "$2" \
		"$size" >/dev/null || fail "writes $2 in $1"
}

# collect NAME OPTIONS... -- SQL: perf-sql (or record, with OPTIONS) started, cgroup a made
# and its workload run, then b made and its workload run, then stopped: rows into NAME
collect() {
	local name=$1 opts=() fmt=(--csv)
	[ -n "${PPROF:-}" ] && fmt=(-f pprof -o "$PPROF")
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	rmdir "$base/$a" "$base/$b" 2>/dev/null
	mkdir "$base/$a" || fail "cannot make $base/$a"
	: >"$dir/$name.err"
	"$PERF_SQL" "${opts[@]}" "${fmt[@]}" -v "$2" >"$dir/$name" 2>"$dir/$name.err" & pq=$!
	wait_plan $pq "$dir/$name.err"
	run_in "$a" 300
	run_in "$b" 700 # made after the query started: a cgroup id the walk at planning missed
	if [ -n "${GONE:-}" ]; then # made and removed before the window ends
		run_in "$c" 200
		rmdir "$base/$c" || fail "rmdir $c"
	fi
	kill -INT $pq
	wait $pq || fail "perf-sql ${opts[*]}: $(cat "$dir/$name.err")"
	pq=
	tail -n +2 "$dir/$name" | tr -d '\r' | sort >"$dir/$name.rows"
}

sql="select _cgroup, count(*) from sys_enter_write where count = $size group by _cgroup"
want=$(printf '%s,300\n%s,700' "$a" "$b")

collect kernel -- "$sql"
grep -q "aggregated in the kernel" "$dir/kernel.err" ||
	fail "not in the kernel: $(grep path "$dir/kernel.err")"
grep -q "cgroup       v2 ids (bpf_get_current_cgroup_id())" "$dir/kernel.err" ||
	fail "--explain's cgroup line: $(cat "$dir/kernel.err")"
eq "$(cat "$dir/kernel.rows")" "$want" "kernel path: writes per cgroup"

collect ring --no-bpf -- "$sql"
grep -q "sample_type  .*CGROUP" "$dir/ring.err" || fail "no PERF_SAMPLE_CGROUP: $(cat "$dir/ring.err")"
eq "$(cat "$dir/ring.rows")" "$want" "ring path (--no-bpf): writes per cgroup"

# ids and paths agree: _cgroup_id is the inode of the cgroup's directory
ids="select _cgroup_id, count(*) from sys_enter_write where count = $size group by 1"
collect ids -- "$ids"
eq "$(cat "$dir/ids.rows")" "$(printf '%s,300\n%s,700' "$(stat -c %i "$base/$a")" \
	"$(stat -c %i "$base/$b")" | sort)" "kernel path: _cgroup_id is the directory's inode"

# a capture keeps the id -> path map: replayed as nobody, once the cgroups are gone
collect record record -o "$dir/c.cap" -- "$sql"
rmdir "$base/$a" "$base/$b" || fail "rmdir"
cp "$PERF_SQL" "$dir/perf-sql" && chmod -R a+rX "$dir" || fail "copy"
out=$(cd "$dir" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
	./perf-sql --csv -r c.cap "$sql" 2>&1) || fail "replay as nobody: $out"
eq "$(printf '%s\n' "$out" | tail -n +2 | tr -d '\r' | sort)" "$want" \
	"a capture replayed as nobody: writes per cgroup"
# the extension answers the same over the capture (docs/extension.md), as nobody
SO=$(dirname "$PERF_SQL")/perf_sql.so
if command -v sqlite3 >/dev/null && [ -f "$SO" ]; then
	cp "$SO" "$dir/perf_sql.so" && chmod a+r "$dir/perf_sql.so" || fail "copy $SO"
	preload= # make asan: sqlite3 is not instrumented, the sanitizers' runtimes are preloaded
	ldd "$SO" | grep -q libasan &&
		preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
	out=$(cd "$dir" && printf '.load ./perf_sql\n.mode csv\nselect perf_sql_open('"'c.cap'"');\n%s;\n' \
		"$sql" | setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
		LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
		sqlite3 2>&1) || fail "the extension as nobody: $out"
	eq "$(printf '%s\n' "$out" | tail -n +2 | tr -d '\r' | sort)" "$want" \
		"the extension over the capture, as nobody: writes per cgroup"
fi

# WHERE on _cgroup, planned before either cgroup exists: the kernel keeps ids made since
where="select _cgroup, count(*) from sys_enter_write where count = $size and _cgroup glob
	'perfsql-cgcol-$$-*' group by 1"
collect where -- "$where"
grep -q "or made since" "$dir/where.err" || fail "WHERE _cgroup not in the kernel: $(grep path "$dir/where.err")"
eq "$(cat "$dir/where.rows")" "$want" "kernel path: WHERE _cgroup GLOB, cgroups made since"
only="select count(*) from sys_enter_write where count = $size and _cgroup = '$b'"
collect only -- "$only"
eq "$(cat "$dir/only.rows")" "700" "kernel path: WHERE _cgroup = the cgroup made after the start"
collect only_ring --no-bpf -- "$only"
eq "$(cat "$dir/only_ring.rows")" "700" "ring path: WHERE _cgroup = the cgroup made after the start"

# a profile by cgroup (docs/pprof.md): _cgroup labels each sample, so that go tool pprof splits
# the writes' stacks by container, on both paths
if command -v go >/dev/null; then
	for path in kernel ring; do
		opt=() && [ $path = ring ] && opt=(--no-bpf)
		PPROF=$dir/cg.pb.gz collect pprof_$path "${opt[@]}" -- "select stack, _cgroup,
			count(*) as writes from sys_enter_write where count = $size group by stack, _cgroup"
		tags=$(go tool pprof -tags "$dir/cg.pb.gz" 2>&1) || fail "go tool pprof -tags: $tags"
		eq "$(printf '%s\n' "$tags" | awk '$3 ~ /^perfsql-cgcol-/ { printf "%s,%d\n", $3, $1 }' | sort)" \
			"$want" "-f pprof ($path path): the label _cgroup splits the writes"
	done
fi

# a cgroup made and removed within the window: named by its PERF_RECORD_CGROUP, on both paths
want3=$(printf '%s,300\n%s,700\n%s,200' "$a" "$b" "$c" | sort)
GONE=1 collect gone_kernel -- "$sql"
eq "$(cat "$dir/gone_kernel.rows")" "$want3" "kernel path: a cgroup removed before the window ended"
GONE=1 collect gone_ring --no-bpf -- "$sql"
eq "$(cat "$dir/gone_ring.rows")" "$want3" "ring path: a cgroup removed before the window ended"

# without cgroup v2 (unmounted in a mount namespace of its own): NULL on both paths, and
# --explain says why
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	nov2=$(unshare -m sh -c 'umount -l "$0" || exit 9
		"$1" --explain "$2" 2>&1
		"$1" --csv "$2" -- "$3" 30 "$4"
		"$1" --csv --no-bpf "$2" -- "$3" 30 "$4"' "$base" "$PERF_SQL" \
		"select _cgroup, _cgroup_id, count(*) from sys_enter_write where count = $size group by 1" \
		"$WL/writes" "$size") || fail "without v2: $nov2"
	eq "$(printf '%s\n' "$nov2" | grep -c '^  cgroup       _cgroup and _cgroup_id are NULL: no cgroup v2 hierarchy is mounted')" 1 \
		"without v2: --explain's cgroup line says why"
	eq "$(printf '%s\n' "$nov2" | grep -c '^,,30')" 2 "without v2: NULL on the kernel path and the ring"
fi
