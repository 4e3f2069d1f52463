# CSV (RFC 4180, one header) and JSON Lines parse, with the same values.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
sql="select count, count(*) n, 'a,\"b\"' odd from sys_enter_write where _pid = workload_pid() group by count order by count"
"$PERF_SQL" --csv -i 1000 "$sql" -- "$WL/writes" 7 5 3 9 > "$dir/fmt.csv" || fail "csv run"
"$PERF_SQL" -f json "$sql" -- "$WL/writes" 7 5 3 9 > "$dir/fmt.json" || fail "json run"
python3 - "$dir/fmt.csv" "$dir/fmt.json" <<'PY' || fail "parse"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert rows[0] == ['window_start', 'count', 'n', 'odd'], rows[0]
assert [r[1:] for r in rows[1:]] == [['5', '7', 'a,"b"'], ['9', '3', 'a,"b"']], rows
js = [json.loads(l) for l in open(sys.argv[2])]
assert js == [{'count': 5, 'n': 7, 'odd': 'a,"b"'}, {'count': 9, 'n': 3, 'odd': 'a,"b"'}], js
print("ok: csv and json parse and agree")
PY
# lines end in LF, so awk -F, and cut see no \r in the last field; --csv-crlf writes RFC 4180's
# CRLF, with the same fields
eq "$("$PERF_SQL" --csv "select 1 a, 'z' b" | cut -d, -f2 | od -An -c | tr -s ' \n' ' ')" \
	' b \n z \n ' "--csv | cut: no \\r in the last field"
grep -q $'\r' "$dir/fmt.csv" && fail "--csv wrote a CR"
"$PERF_SQL" --csv-crlf "select 1 a, 'x,y' b union all select 2, 'z'" > "$dir/crlf.csv" || fail "--csv-crlf"
eq "$(od -An -c "$dir/crlf.csv" | tr -s ' \n' ' ')" ' a , b \r \n 1 , " x , y " \r \n 2 , z \r \n ' \
	"--csv-crlf: every line ends in CRLF"
"$PERF_SQL" "$sql" -- "$WL/writes" 7 5 3 9 > "$dir/fmt.txt" || fail "table run"
head -2 "$dir/fmt.txt" | grep -q '^count  n  odd' || fail "table header: $(head -1 "$dir/fmt.txt")"
echo "ok: table header"
# table mode: a multi-line cell (folded_stack(), stack_text(), histograms) says how many lines
# follow its row, and that many do
"$PERF_SQL" "select count(*) n, stack_text(stack) from sys_enter_write where _pid = workload_pid()
	group by 2" -- "$WL/writes" 100 5 > "$dir/ml.txt" || fail "stack_text in table mode"
cell=$(sed -n 3p "$dir/ml.txt")
[[ "$cell" =~ ^\ *100\ +\(([0-9]+)\ lines?\ below\)$ ]] || fail "row: '$cell'"
eq "$(tail -n +4 "$dir/ml.txt" | grep -c .)" "${BASH_REMATCH[1]}" "lines below the row, as its cell says"
