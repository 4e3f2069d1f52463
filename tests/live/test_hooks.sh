# Test hooks (core/test_hook.h) are in the test build only: `make test` runs perf-sql-test
# (PERF_SQL), whose PERF_SQL_TEST_BAD_BPF makes the verifier refuse a GROUP BY's program (the
# ring answers, with one line); the release perf-sql and perf_sql.so (PERF_SQL_RELEASE, its
# directory) hold no PERF_SQL_TEST_ string and ignore the variable. (The Makefile also refuses
# to link a release binary that holds one.)
. "$(dirname "$0")/lib.sh"
[ -n "${PERF_SQL_RELEASE:-}" ] || skip "no release build named (PERF_SQL_RELEASE: make test sets it)"
command -v strings >/dev/null || skip "strings (binutils) is not installed"
for f in "$PERF_SQL_RELEASE" "$(dirname "$PERF_SQL_RELEASE")/perf_sql.so"; do
	eq "$(strings "$f" | grep -c PERF_SQL_TEST_)" 0 "PERF_SQL_TEST_ strings in the release ${f##*/}"
done
[ "$(strings "$PERF_SQL" | grep -c PERF_SQL_TEST_)" -ge 2 ] ||
	fail "the test build $PERF_SQL has no test hooks"
echo "ok: the test build ${PERF_SQL##*/} has its hooks"
need_root
sql="select comm, count(*) as n from sys_enter_getppid where comm = 'no such comm' group by comm"
PERF_SQL_TEST_BAD_BPF=1 "$PERF_SQL" --csv -d 100ms "$sql" >/dev/null 2>"$BUILD/.hooks.err"
if ! grep -q "the verifier refused the BPF program" "$BUILD/.hooks.err"; then
	why=$(cat "$BUILD/.hooks.err"); rm -f "$BUILD/.hooks.err"
	skip "no BPF aggregation here to refuse: $why"
fi
echo "ok: PERF_SQL_TEST_BAD_BPF works in the test build"
PERF_SQL_TEST_BAD_BPF=1 "$PERF_SQL_RELEASE" --csv -d 100ms "$sql" >/dev/null 2>"$BUILD/.hooks.err"
eq "$(grep -c verifier "$BUILD/.hooks.err")" 0 "verifier refusals in the release build with PERF_SQL_TEST_BAD_BPF set"
rm -f "$BUILD/.hooks.err"
