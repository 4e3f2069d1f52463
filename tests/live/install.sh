# make install into a staging root (DESTDIR), then the installed perf-sql with the source tree
# hidden (a tmpfs over it, in a mount namespace): a query from /, its man pages by name, its
# bash completion loaded by bash-completion's own loader; make uninstall leaves no file.
. "$(dirname "$0")/lib.sh"; need_root
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
# (under `make asan`, MAKEFLAGS carries SANITIZE and OPT: the sanitized binary is installed)
make -s -C "$root" install DESTDIR="$dest" PREFIX=/usr > "$tmp/make.out" 2>&1 ||
	fail "make install: $(cat "$tmp/make.out")"
for f in usr/bin/perf-sql usr/lib/perf-sql/perf_sql.so usr/share/man/man1/perf-sql.1 \
	 usr/share/man/man7/perf-sql-profilers.7 usr/share/bash-completion/completions/perf-sql \
	 usr/share/zsh/vendor-completions/_perf-sql usr/share/doc/perf-sql/cli.md \
	 usr/share/doc/perf-sql/profilers/syscalls.md; do
	[ -f "$dest/$f" ] || fail "make install: no /$f"
done
eq "$(stat -c %a "$dest/usr/bin/perf-sql")" 755 "mode of /usr/bin/perf-sql"
echo "ok: make install DESTDIR=... PREFIX=/usr: $(find "$dest" -type f | wc -l) files"
cp "$WL/writes" "$tmp/writes"

# run: COMMAND in a mount namespace where the source tree is an empty tmpfs, from /, with only
# the installed files on PATH, MANPATH and XDG_DATA_DIRS
run() {
	unshare -m sh -c 'mount -t tmpfs none "$1" && shift && cd / && exec "$@"' _ "$root" \
		env -i PATH="$dest/usr/bin:/usr/bin:/bin" MANPATH="$dest/usr/share/man" \
		XDG_DATA_DIRS="$dest/usr/share" HOME="$tmp" TERM=dumb "$@"
}
eq "$(run sh -c "ls -A $root | wc -l")" 0 "files of the source tree seen in the namespace"
eq "$(run perf-sql --version | cut -d' ' -f1-2)" "perf-sql $(sed -n '1s/.*(\(.*\)-.*).*/\1/p' "$root/debian/changelog" 2>/dev/null ||
	"$PERF_SQL" --version | cut -d' ' -f2)" "installed perf-sql --version"
out=$(run perf-sql --csv "select count(*) from sys_enter_write where count = 777" -- "$tmp/writes" 300 777 | tail -n +2 | tr -d '\r')
eq "$out" 300 "a query by the installed perf-sql from / (the tree hidden)"
out=$(run perf-sql help syscalls | head -n 1)
eq "$out" "syscalls - $("$PERF_SQL" help syscalls | head -n 1 | sed 's/^syscalls - //')" \
	"a built-in profiler, embedded in the binary"
run man -w perf-sql > "$tmp/where" || fail "man -w perf-sql: not found on the installed MANPATH"
eq "$(cat "$tmp/where")" "$dest/usr/share/man/man1/perf-sql.1" "man -w perf-sql"
run man -w 7 perf-sql-profilers > "$tmp/where" || fail "man -w 7 perf-sql-profilers"
eq "$(cat "$tmp/where")" "$dest/usr/share/man/man7/perf-sql-profilers.7" "man -w 7 perf-sql-profilers"
run env MANWIDTH=80 man perf-sql > "$tmp/man.txt" 2>&1 || fail "man perf-sql: $(cat "$tmp/man.txt")"
grep -q '^       -q, --quiet$' "$tmp/man.txt" || fail "man perf-sql: no -q entry: $(head "$tmp/man.txt")"
echo "ok: man perf-sql renders the installed page ($(wc -l < "$tmp/man.txt") lines)"

# bash-completion's loader finds the installed file (XDG_DATA_DIRS) on the first Tab
if [ -f /usr/share/bash-completion/bash_completion ]; then
	out=$(run bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader perf-sql; complete -p perf-sql
		COMP_WORDS=(perf-sql -f ""); COMP_CWORD=2; _perf_sql; echo "${COMPREPLY[*]}"')
	eq "$out" "complete -F _perf_sql perf-sql
table csv json" "bash-completion loads the installed completion; perf-sql -f <Tab>"
else
	echo "(bash-completion is not installed: its loader not tried)"
fi

make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr > "$tmp/make.out" 2>&1 ||
	fail "make uninstall: $(cat "$tmp/make.out")"
eq "$(find "$dest" -type f | wc -l)" 0 "files left by make uninstall"
