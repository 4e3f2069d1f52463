#!/usr/bin/env bash
# scripts/setup.sh - install what perf-sql needs from Debian's archive and build libperf
# from Debian's linux-source-6.1 package into build/libperf (nothing third-party is committed).
#
#   scripts/setup.sh [BUILD_DIR]      (run by `make setup`; idempotent, ~1 s when all is present)
set -euo pipefail
BUILD=${1:-build}
PKGS="gcc make pkg-config libsqlite3-dev libtraceevent-dev libtraceevent1-plugin libtracefs-dev
      libbpf-dev libelf-dev libdw-dev zlib1g-dev liblz4-dev liblzma-dev bpftool clang clang-format libreadline-dev
      linux-source-6.1 xz-utils python3 g++ binutils libclang-rt-14-dev tmux time linux-perf
      systemtap-sdt-dev valgrind sqlite3 python3-pandas libmicrohttpd-dev prometheus
      man-db bash-completion zsh dpkg-dev debhelper lintian bpftrace bpfcc-tools
      libprotobuf-c-dev protobuf-c-compiler libgnutls28-dev libyaml-dev libcrypt-dev openssl curl"
missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages: ${missing[*]}; run: sudo make setup" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# go (Debian's golang-go) only for the tests that read -f pprof's profiles with `go tool pprof`
# (tests/live/pprof*.sh): installed if no go is on PATH; those tests skip without it
if ! command -v go >/dev/null && ! dpkg-query -W -f='${Status}' golang-go 2>/dev/null | grep -q 'ok installed'; then
	if [ "$(id -u)" = 0 ]; then
		echo "setup: installing golang-go (tests only: go tool pprof)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null ||
			echo "setup: golang-go not installed: the pprof tests will skip" >&2
	fi
fi

# libperf: extract only tools/lib/perf and what it needs, then build it (O= keeps objects out).
LP="$BUILD/libperf"
if [ ! -f "$LP/out/libperf.a" ] || [ ! -f "$LP/out/libapi.a" ]; then
	src=/usr/src/linux-source-6.1.tar.xz
	[ -f "$src" ] || { echo "setup: $src is missing; run: apt-get install linux-source-6.1" >&2; exit 1; }
	rm -rf "$LP"; mkdir -p "$LP/src" "$LP/out"
	echo "setup: extracting tools/lib/perf from $src (~10 s)"
	tar -xJf "$src" -C "$LP/src" --strip-components=1 --wildcards --no-wildcards-match-slash \
		linux-source-6.1/tools/lib/perf linux-source-6.1/tools/lib/api \
		'linux-source-6.1/tools/lib/*.c' linux-source-6.1/tools/include \
		linux-source-6.1/tools/build linux-source-6.1/tools/scripts \
		linux-source-6.1/tools/arch/x86/include
	echo "setup: building libperf"
	make -s -C "$LP/src/tools/lib/perf" O="$PWD/$LP/out/" -j"$(nproc)" >/dev/null
	mkdir -p "$LP/include"
	cp -r "$LP/src/tools/lib/perf/include/perf" "$LP/include/"
fi
echo "setup: ok"
