# perf_sql.so, the SQLite loadable extension (docs/extension.md), over the committed captures:
# no privileges needed, so as root it all runs as nobody (uid 65534) from a copy nobody can read.
#   (1) tests/ext/host.c, a C host (under ASan with `make asan`): loading twice, two connections,
#       sqlite3_close_v2() with cursors open, bad files (a newer version, a corrupt block, not a
#       capture, missing) refused with perf-sql -r's own line, a second capture refused.
#   (2) tests/ext/captures.py in Python's sqlite3 module: each tests/sql/*.sql and
#       tests/ext/functions.sql (every function of sqlite/functions.c, checked below) through the
#       extension and through perf-sql -r: the same csv text; perf_sql_stats = perf-sql info;
#       pandas frames of every table = perf-sql -r --csv read by pandas.
#   (3) the sqlite3 shell: .load, then a query over a capture: perf-sql -r's rows.
# Before them (0): python/perfsql.py on a Python whose sqlite3 cannot load extensions (a
# stand-in sqlite3 module): perfsql.Error, one line that names the fix, no AttributeError.
. "$(dirname "$0")/lib.sh"
SO=$(dirname "$PERF_SQL")/perf_sql.so
HOST=$BUILD/ext/host
PY=/usr/bin/python3
[ -f "$SO" ] && [ -x "$HOST" ] || fail "$SO or $HOST is missing: make test builds them"
d=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$d"' EXIT

# (0) pyenv's default build: sqlite3.Connection has no enable_load_extension (a stand-in module
# first on the path: perfsql only calls sqlite3.connect() before it loads the extension)
mkdir "$d/noext" && printf '%s\n' 'class Connection: pass' \
	'def connect(database, **kwargs): return Connection()' > "$d/noext/sqlite3.py" || fail "$d/noext"
noext() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$d/noext:$PWD/python" "$PY" -c "import perfsql"$'\n'"$1" 2>&1; }
msg="perfsql: this Python's sqlite3 cannot load extensions (built without SQLITE_ENABLE_LOAD_EXTENSION / --enable-loadable-sqlite-extensions); use Debian's python3 (/usr/bin/python3) or rebuild Python with --enable-loadable-sqlite-extensions"
out=$(noext $'try:\n perfsql.connect("tests/sql/writes.cap")\nexcept perfsql.Error as e:\n print(e)')
eq "$out" "$msg" "perfsql.connect() without loadable extensions: perfsql.Error, one line"
out=$(noext 'perfsql.connect()'); rc=$?
eq "$rc" 1 "exit status of a script that does not catch it"
eq "$(printf '%s\n' "$out" | tail -n 1)" "perfsql.Error: $msg" "the last line of its traceback"
! grep -q AttributeError <<<"$out" || fail "an AttributeError shows: $out"

"$PY" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null ||
	skip "$PY cannot load SQLite extensions (Debian's python3 can: apt-get install python3)"
command -v sqlite3 >/dev/null || skip "the sqlite3 shell is not installed (make setup installs it)"

# every function of the registry is called by tests/ext/functions.sql
for f in $(sed -n 's/^[[:space:]]*\(SCALAR\|AGG\)("\([a-z0-9_]*\)".*/\2/p' sqlite/functions.c); do
	grep -q "\b$f(" tests/ext/functions.sql || fail "tests/ext/functions.sql does not call $f()"
done
echo "ok: tests/ext/functions.sql calls all $(grep -c '^[[:space:]]*\(SCALAR\|AGG\)("' sqlite/functions.c) functions of sqlite/functions.c"

mkdir -p "$d/tests" && cp -r tests/sql tests/ext "$d/tests/" && cp -r python "$d/" &&
	cp "$SO" "$HOST" "$d/" && cp "$PERF_SQL" "$d/perf-sql" || fail "copying to $d"
cp tests/sql/writes.cap "$d/v9.cap" && printf '\011' | dd of="$d/v9.cap" bs=1 seek=8 conv=notrunc 2>/dev/null
# a corrupt block in the middle: the 2nd block's LZ4 frame, past its 16-byte block header
off=$((16 + 16 + $(od -An -tu4 -j 24 -N 4 tests/sql/writes.cap) + 16 + 20))
cp tests/sql/writes.cap "$d/bad.cap" && printf '\377\377\377\377' | dd of="$d/bad.cap" bs=1 seek=$off conv=notrunc 2>/dev/null
echo "not a capture" > "$d/junk.cap"
chmod -R a+rX "$d" && chmod 0755 "$d" || fail "chmod $d"

# as nobody when root (the extension needs no privileges for captures); ASan: python3 and sqlite3
# are not instrumented, so the sanitizer runtimes are preloaded into them
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$@"
	else
		"$@"
	fi
}
preload=
if ldd "$SO" | grep -q libasan; then
	preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
host_env() {
	as_user env LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" "$@"
}
py() {
	(cd "$d" && host_env PERF_SQL_SO="$d/perf_sql.so" PYTHONPATH="$d/python" "$PY" "$@")
}
r() { (cd "$d" && as_user ./perf-sql -r "$@" 2>&1); }

# (1) the C host; what it should print comes from perf-sql -r on the same files
cd "$d" || fail "cd $d"
tables() { r "tests/sql/$1" --csv "select name from perf_sql_events order by name" | tail -n +2 | tr -d '\r'; }
listed() { tables "$1" | paste -sd, - | sed 's/,/, /g'; }
joined() { tables "$1" | paste -sd' ' -; }
opens() { echo "$(tables "$1" | wc -l) tables: $(listed "$1")"; }
w=tests/sql/writes.cap s=tests/sql/sleeps.cap
pairs="pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid')"
{
	echo "load twice (SQL): NULL"
	echo "load twice: version: 1"
	echo "two connections: A opens: $(opens writes.cap)"
	echo "two connections: B opens: $(opens sleeps.cap)"
	echo "two connections: perf_sql_events A $(tables writes.cap | wc -l) rows, B $(tables sleeps.cap | wc -l) rows"
	echo "two connections: A: $(joined writes.cap)"
	echo "two connections: B: $(joined sleeps.cap)"
	echo "close with cursors: opens: $(opens writes.cap)"
	echo "close with cursors: sqlite3_close SQLITE_BUSY"
	echo "close with cursors: sqlite3_close_v2 SQLITE_OK"
	echo "close with cursors: rows $(r $w --csv "select count(*) from sys_enter_write;
		select count(*) from $pairs; select count(*) from perf_sql_events" | grep -v count | tr -d "\r" | paste -sd, - | sed 's/,/, /g')"
	for f in v9.cap bad.cap junk.cap missing.cap; do
		echo "bad file: $(r $f "select 1" | sed 's/^perf-sql: /perf_sql_open: /')"
		echo "bad file, then the capture: $(opens writes.cap)"
	done
	echo "open twice: first: $(opens writes.cap)"
	echo "open twice: second: perf_sql_open: $w is open on this connection already; open $s on another connection"
	echo "open twice: still: $(joined writes.cap)"
} > expected
as_user ./host ./perf_sql.so $w $s v9.cap bad.cap junk.cap missing.cap > host.out 2> host.err ||
	fail "host exited $?: $(cat host.out host.err)"
[ ! -s host.err ] || fail "host: sanitizer or other reports: $(head -20 host.err)"
diff host.out expected || fail "host: the lines above differ (< host, > perf-sql -r)"
echo "ok: host: $(wc -l < host.out) lines as perf-sql -r says; v9 $(grep -c 'version 9' host.out), corrupt $(grep -c corrupt host.out)"
for f in v9.cap bad.cap junk.cap missing.cap; do
	[ "$(r $f "select 1" | wc -l)" = 1 ] || fail "perf-sql -r $f: not one line"
done

# (2) Python's sqlite3 module and pandas
py tests/ext/captures.py ./perf-sql tests/sql tests/sql/*.sql tests/ext/functions.sql > py.out 2>&1
rc=$?
cat py.out
[ $rc = 0 ] || fail "tests/ext/captures.py exited $rc"
! grep -q 'runtime error:\|Sanitizer' py.out || fail "sanitizer reports in python3 (above)"
grep -q '^ok pandas' py.out || fail "pandas did not run: $PY has no pandas (make setup installs python3-pandas)"

# (3) the sqlite3 shell, as docs/extension.md shows it
got=$(host_env sqlite3 :memory: ".load ./perf_sql" "select perf_sql_open('$w');" \
	"select count, count(*) n from sys_enter_write group by count order by count;" 2>&1)
want=$(opens writes.cap; r $w --csv "select count, count(*) n from sys_enter_write group by count
	order by count" | tail -n +2 | tr -d '\r' | tr , '|')
eq "$got" "$want" "the sqlite3 shell: .load ./perf_sql, a capture's rows"
