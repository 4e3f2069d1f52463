# Messages quote what the person gave as printable UTF-8: a non-UTF-8 byte or a control byte
# of an option's value, a path, SQL or a capture's name reads \xNN, so the line decodes as
# UTF-8 (Python's sqlite3 decodes an extension's error so: UnicodeDecodeError otherwise) and a
# terminal gets no escape sequence. Usage errors, runtime errors, SQL errors and the extension.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
bad=$'\xff\x1b[31m\xc2\x9b'          # not UTF-8, ESC (a colour), a C1 CSI
quoted='\xff\x1b[31m\xc2\x9b'
# said WHAT STATUS CMD...: CMD exits STATUS; stderr decodes as strict UTF-8, holds no control
# byte but the newlines, and quotes the bad bytes
said() {
	local what=$1 want=$2 rc
	shift 2
	"$@" >/dev/null 2>"$dir/err"; rc=$?
	eq "$rc" "$want" "$what: exit status"
	python3 - "$dir/err" <<'PY' || fail "$what: stderr is not printable UTF-8: $(od -c "$dir/err" | head -5)"
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")       # strict: raises on a bad byte
assert not any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in t), repr(t)
PY
	grep -qF -- "$quoted" "$dir/err" || fail "$what: the bytes are not quoted as $quoted: $(cat -A "$dir/err")"
	echo "ok: $what: $(head -c 100 "$dir/err")"
}
said "a usage error (-d)" 2 "$PERF_SQL" -d "$bad" "select 1"
said "a usage error (unknown option)" 2 "$PERF_SQL" "--x$bad" "select 1"
said "a runtime error (-r PATH)" 1 "$PERF_SQL" -r "/nonexistent/$bad" "select 1"
said "an SQL error" 2 "$PERF_SQL" "select * from \"t$bad\""
said "an output file" 1 "$PERF_SQL" -o "/nonexistent/$bad" "select 1"
if [ -x "$BUILD/ext/host" ] && [ -f "$(dirname "$PERF_SQL")/perf_sql.so" ]; then
	cap=$(dirname "$0")/../sql/writes.cap
	"$BUILD/ext/host" "$(dirname "$PERF_SQL")/perf_sql.so" "$cap" "$cap" "/nonexistent/$bad" \
		> "$dir/host" 2>&1
	grep -a '^bad file:' "$dir/host" > "$dir/hostline" || fail "host: $(cat "$dir/host")"
	said "the extension's perf_sql_open()" 0 sh -c 'cat "$0" >&2' "$dir/hostline"
fi
