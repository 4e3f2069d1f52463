# make install into a staging root (DESTDIR), then the installed perf-sql with the source tree
# hidden (a tmpfs over it, in a mount namespace): a query from /, its man pages by name, its
# bash completion loaded by bash-completion's own loader; make uninstall leaves no file.
# Then make deb: lintian finds nothing, dpkg -i installs it into a throwaway root (its
# dependencies checked against this machine's installed packages), and the same checks pass
# for the package's perf-sql; dpkg -r removes every file.
. "$(dirname "$0")/lib.sh"; need_root
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
# (under `make asan`, MAKEFLAGS carries SANITIZE and OPT: the sanitized binary is installed;
# BUILD, set for the tests to the build directory, would be taken as the top of it)
env -u BUILD make -s -C "$root" install DESTDIR="$dest" PREFIX=/usr > "$tmp/make.out" 2>&1 ||
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
version=$(cd "$root" && dpkg-parsechangelog -S Version 2>/dev/null ||
	  sed -n '1s/^perf-sql (\([^)]*\)).*/\1/p' debian/changelog)
# installed WHAT MAN: the installed perf-sql works from / with the tree hidden
installed() {
	local what=$1 man=$2 out
	eq "$(run perf-sql --version | cut -d' ' -f1-2)" "perf-sql $version" \
		"$what: perf-sql --version (debian/changelog's version)"
	out=$(run perf-sql --csv "select count(*) from sys_enter_write where count = 777" \
	      -- "$tmp/writes" 300 777 | tail -n +2 | tr -d '\r')
	eq "$out" 300 "$what: a query from / (the source tree hidden)"
	out=$(run perf-sql help syscalls | head -n 1)
	eq "$out" "$("$PERF_SQL" help syscalls | head -n 1)" "$what: a built-in profiler (embedded)"
	run man -w perf-sql > "$tmp/where" || fail "$what: man -w perf-sql: not on the MANPATH"
	eq "$(cat "$tmp/where")" "$dest/usr/share/man/man1/perf-sql.1$man" "$what: man -w perf-sql"
	run man -w 7 perf-sql-profilers > "$tmp/where" || fail "$what: man -w 7 perf-sql-profilers"
	eq "$(cat "$tmp/where")" "$dest/usr/share/man/man7/perf-sql-profilers.7$man" \
		"$what: man -w 7 perf-sql-profilers"
	run env MANWIDTH=80 man perf-sql > "$tmp/man.txt" 2>&1 || fail "man perf-sql: $(cat "$tmp/man.txt")"
	grep -q '^       -q, --quiet$' "$tmp/man.txt" || fail "man perf-sql: no -q: $(head "$tmp/man.txt")"
	echo "ok: $what: man perf-sql renders the installed page ($(wc -l < "$tmp/man.txt") lines)"
	# bash-completion's loader finds the installed file (XDG_DATA_DIRS) on the first Tab
	[ -f /usr/share/bash-completion/bash_completion ] ||
		{ echo "(bash-completion is not installed: its loader not tried)"; return; }
	out=$(run bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader perf-sql; complete -p perf-sql
		COMP_WORDS=(perf-sql -f ""); COMP_CWORD=2; _perf_sql; echo "${COMPREPLY[*]}"')
	eq "$out" "complete -F _perf_sql perf-sql
table csv json pprof" "$what: bash-completion loads the completion; perf-sql -f <Tab>"
}
installed "make install" ""

env -u BUILD make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr > "$tmp/make.out" 2>&1 ||
	fail "make uninstall: $(cat "$tmp/make.out")"
eq "$(find "$dest" -type f | wc -l)" 0 "files left by make uninstall"

# the Debian package (MAKEFLAGS of a make asan run stay out of it: make deb clears them)
command -v dpkg-buildpackage >/dev/null && command -v lintian >/dev/null ||
	skip "dpkg-buildpackage or lintian is not installed (make setup installs both); make install passed"
env -u BUILD make -s -C "$root" deb > "$tmp/deb.out" 2>&1 || fail "make deb: $(tail -n 30 "$tmp/deb.out")"
deb=$root/build/debs/perf-sql_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "make deb: no $deb"
echo "ok: make deb: ${deb#$root/} ($(stat -c %s "$deb") bytes)"
depends=$(dpkg-deb -f "$deb" Depends)
# every library perf-sql and perf_sql.so name (DT_NEEDED) is in a package of Depends
n=0
for elf in perf-sql perf_sql.so; do
	for soname in $(readelf -d "$root/build/deb/$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		lib=$(ldd "$root/build/deb/$elf" | awk -v s="$soname" '$1 == s { print $3 }')
		real=$(readlink -f "$lib")   # dpkg may know it under /lib (merged /usr)
		pkg=$({ dpkg -S "$real" || dpkg -S "${real#/usr}"; } 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$pkg" ] || fail "$elf: $soname ($lib) belongs to no package"
		[[ ", $depends," == *", $pkg "* || ", $depends," == *", $pkg,"* ]] || fail "Depends lacks $pkg ($soname of $elf): $depends"
		n=$((n + 1))
	done
done
between "$n" 10 100 "libraries named by perf-sql and perf_sql.so, each in a package of Depends"
cp "$deb" "$tmp/p.deb" && chmod 0644 "$tmp/p.deb" && chmod 0711 "$tmp"
# lintian as nobody (it warns when run as root); every tag, pedantic and info included; from
# $tmp, since nobody may not enter the checkout (a clone in root's 0700 home)
(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp" \
	lintian --pedantic --display-info --display-experimental "$tmp/p.deb") > "$tmp/lintian" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/lintian" ] || fail "lintian (exit $rc): $(cat "$tmp/lintian")"
echo "ok: lintian --pedantic --display-info: no tag"

# dpkg -i into a throwaway root whose package database is a copy of this machine's, so the
# Depends are checked against what is installed here (and what the binary will link)
dest=$tmp/dpkgroot
mkdir -p "$dest/var/lib/dpkg/info" "$dest/var/lib/dpkg/updates"
cp /var/lib/dpkg/status "$dest/var/lib/dpkg/status"
touch "$dest/var/lib/dpkg/available"
dpkg --root="$dest" -i "$tmp/p.deb" > "$tmp/dpkg.out" 2>&1 ||
	fail "dpkg -i: $(grep -v 'files list file' "$tmp/dpkg.out")"
eq "$(dpkg --root="$dest" -s perf-sql 2>/dev/null | sed -n 's/^Status: //p')" "install ok installed" \
	"dpkg --root -i: perf-sql's status"
eq "$(dpkg-deb -f "$tmp/p.deb" Version)" "$version" "the package's version"
installed "dpkg -i" ".gz"
dpkg --root="$dest" -r perf-sql > "$tmp/dpkg.out" 2>&1 || fail "dpkg -r: $(grep -v 'files list file' "$tmp/dpkg.out")"
eq "$(find "$dest/usr" -type f 2>/dev/null | wc -l)" 0 "files left by dpkg -r"
