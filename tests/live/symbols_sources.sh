# Where names come from besides .symtab: C++ demangling and MiniDebugInfo (.gnu_debugdata).
. "$(dirname "$0")/lib.sh"; need_root
for t in g++ objcopy xz strip nm; do command -v $t >/dev/null || skip "needs $t (make setup installs it)"; done
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat > "$dir/cpp.cc" <<'CC'
#include <ctime>
namespace ns { __attribute__((noinline)) long burn_cpp(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i; return x; } }
int main() { time_t end = time(nullptr) + 1; long s = 0; while (time(nullptr) < end) s += ns::burn_cpp(100000); return s == 42; }
CC
g++ -O1 -fno-omit-frame-pointer -o "$dir/cpp" "$dir/cpp.cc" || fail "g++"
out=$("$PERF_SQL" "select folded_stack(stack) from cpu_clock(999) where _pid = workload_pid()" -- "$dir/cpp")
grep -q ';ns::burn_cpp(long) [0-9]*$' <<<"$out" || fail "no demangled C++ frame: $(head -3 <<<"$out")"
echo "ok: C++ frames are demangled (ns::burn_cpp(long))"
# MiniDebugInfo, as distributions make it: function symbols in an xz'd ELF section, the rest stripped
cat > "$dir/mini.c" <<'C'
#include <time.h>
static __attribute__((noinline)) long local_burn(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i; return x; }
int main(void) { time_t end = time(0) + 1; long s = 0; while (time(0) < end) s += local_burn(100000); return s == 42; }
C
gcc -O1 -fno-omit-frame-pointer -o "$dir/mini" "$dir/mini.c" || fail "gcc"
nm "$dir/mini" --format=posix --defined-only | awk '$2 ~ /[tT]/ { print $1 }' | sort > "$dir/funcs"
objcopy --only-keep-debug "$dir/mini" "$dir/mini.debug"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$dir/funcs" "$dir/mini.debug" "$dir/minidebug"
xz -f "$dir/minidebug"
strip --strip-all -R .comment -R .note.gnu.build-id "$dir/mini"
objcopy --add-section .gnu_debugdata="$dir/minidebug.xz" "$dir/mini"
nm "$dir/mini" 2>&1 | grep -q local_burn && fail "the stripped binary still has .symtab"
out=$("$PERF_SQL" "select folded_stack(stack) from cpu_clock(999) where _pid = workload_pid()" -- "$dir/mini")
grep -q ';local_burn [0-9]*$' <<<"$out" || fail "no local_burn from .gnu_debugdata: $(head -3 <<<"$out")"
echo "ok: a stripped binary's local functions come from its MiniDebugInfo"
