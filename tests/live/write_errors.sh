# A result that could not be written is one line on stderr and exit status 1, in every output
# format, to stdout and to -o: /dev/full (a device: every write fails), a full tmpfs (a regular
# file: the rows are written whole or not at all), subcommands' output too; a reader that
# closes the pipe early ends perf-sql quietly, status 0. (With -i, a window not written is said
# and the next one tries again: tests/live/harden_diskfull.sh.)
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'umount "$dir/full" 2>/dev/null; rm -rf "$dir"' EXIT
small="select 1 as one, 'two' as two"
# 20,000 rows: past any stdio buffer, so writes fail before the last flush too
large="with recursive c(x) as (select 1 union all select x + 1 from c limit 20000)
	select x, printf('%040d', x) as pad from c"

# failed WHAT WANT_STATUS PART CMD...: CMD exits WANT_STATUS with one line holding PART on stderr
failed() {
	local what=$1 want=$2 part=$3 rc
	shift 3
	"$@" 2>"$dir/err"; rc=$?
	eq "$rc" "$want" "$what: exit status"
	eq "$(grep -c . "$dir/err")" 1 "$what: lines on stderr"
	grep -qF -- "$part" "$dir/err" || fail "$what: stderr does not say '$part': $(cat "$dir/err")"
}

for fmt in table csv json; do
	for sql in "$small" "$large"; do
		n=$([ "$sql" = "$small" ] && echo small || echo large)
		failed "-f $fmt -o /dev/full ($n)" 1 "/dev/full: No space left on device" \
			"$PERF_SQL" -f $fmt -o /dev/full "$sql"
		failed "-f $fmt > /dev/full ($n)" 1 "stdout: No space left on device" \
			sh -c '"$@" > /dev/full' sh "$PERF_SQL" -f $fmt "$sql"
	done
done
failed "perf-sql list > /dev/full" 1 "stdout: No space left on device" \
	sh -c '"$@" > /dev/full' sh "$PERF_SQL" list
failed "perf-sql --help > /dev/full" 1 "stdout: No space left on device" \
	sh -c '"$@" > /dev/full' sh "$PERF_SQL" --help

# a full disk: the one-shot result to -o and to stdout redirected to a file
mkdir "$dir/full"
mount -t tmpfs -o size=16k tmpfs "$dir/full" || skip "cannot mount a small tmpfs"
head -c 16384 /dev/zero > "$dir/full/filler" 2>/dev/null
for fmt in table csv json; do
	failed "-f $fmt -o on a full disk" 1 "$dir/full/out: No space left on device" \
		"$PERF_SQL" -f $fmt -o "$dir/full/out" "$large"
	eq "$(stat -c %s "$dir/full/out")" 0 "-f $fmt -o on a full disk: bytes in the file (no partial row)"
	failed "-f $fmt > a file on a full disk" 1 "stdout: No space left on device" \
		sh -c '"$@" > "$0"' "$dir/full/out2" "$PERF_SQL" -f $fmt "$large"
done
umount "$dir/full"

# EPIPE: quiet, status 0, for a subcommand and a query (the reader is gone before perf-sql
# starts: its first write meets the closed pipe)
for what in list query; do
	args=(list)
	[ $what = query ] && args=(--csv "$large")
	{ sleep 0.3; "$PERF_SQL" "${args[@]}"; echo $? > "$dir/rc"; } 2>"$dir/err" | true
	eq "$(cat "$dir/rc")" 0 "perf-sql $what into a closed pipe: exit status"
	eq "$(cat "$dir/err")" "" "perf-sql $what into a closed pipe: stderr"
done
