"""tests/ext/captures.py - the same SQL over the same capture, through perf-sql -r and through
perf_sql.so in Python's sqlite3 module: the same text, line for line.

    python3 tests/ext/captures.py PERF_SQL SQL_DIR [--capture PATH] FILE.sql...

Each FILE.sql is a golden test (tests/sql/run.sh's layout): its first line names the capture
("-- capture: NAME", looked up in SQL_DIR unless --capture gives a path) and perhaps perf-sql
options ("args: -i 200"). perf-sql -r CAPTURE --csv runs the file's statements as one query;
the extension runs them one by one on a connection that opened the capture, and its values are
written as perf-sql's csv writes them (a header per statement, RFC 4180 quoting, histograms as
JSON). An error is compared by SQLite's message (perf-sql adds a hint after it).
Options of a file ("args: -i 200") are left out: the extension has the whole capture as one
window, as perf-sql -r has it without -i. perf_sql_stats is not compared: in the extension it
lists every table of the capture (perf-sql -r: the tables named), and check_stats() compares it
with perf-sql info instead.
With writes.cap and another capture: check_lifetimes() (two connections, a close with a cursor
open, a statement cached across perf_sql_open()).
Prints "ok NAME ..." or "FAIL NAME" with a diff per file; exit 1 on any failure.
"""
import difflib
import os
import re
import sqlite3
import subprocess
import sys

import perfsql as perf_sql


def statements(sql):
    out, buf = [], ''
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ''
    if buf.strip():
        out.append(buf.strip())
    return out


def csv_field(s):
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def through_extension(capture, sql):
    conn = perf_sql.connect(capture)
    lines = []
    try:
        for st in statements(sql):
            cur = conn.execute(st)
            lines.append(','.join(csv_field(d[0]) for d in cur.description))
            for row in cur.fetchall():
                lines.append(','.join(csv_field(perf_sql.text(conn, v)) for v in row))
    except sqlite3.Error as e:
        lines.append('perf-sql: ' + str(e))
    finally:
        conn.close()
    return '\n'.join(lines).replace('\r', '').splitlines()


def through_binary(perf, capture, sql, args=()):
    p = subprocess.run([perf, '-r', capture, '--csv', *args, sql], capture_output=True, text=True)
    # the binary's notices of events lost when the capture was recorded (a loaded machine) are
    # no rows: the extension says them through perf_sql_notices(), not in its results
    err = [l for l in p.stderr.splitlines() if ' when it was recorded' not in l]
    return (p.stdout + ''.join(l + '\n' for l in err)).replace('\r', '').splitlines()


def same(ext, binary):
    """Equal, but an error line of ext need only start the binary's (which adds a hint)."""
    if len(ext) != len(binary):
        return False
    for a, b in zip(ext, binary):
        if a != b and not (a.startswith('perf-sql: ') and b.startswith(a + '; ')):
            return False
    return True


def check_file(perf, path, capture):
    text = open(path).read()
    head = text.splitlines()[0]
    name = os.path.basename(path)
    sql = '\n'.join(l for l in text.splitlines() if not l.startswith('--'))
    note = ''
    if 'args:' in head:   # -i: the extension has the capture as one window, so both run without
        note = f' (without {head.split("args:")[1].split("(")[0].strip()}: one window)'
    if re.search(r'\bperf_sql_stats\b', sql):
        print(f'skip {name}: perf_sql_stats lists every table of the capture in the extension;'
              ' compared with perf-sql info instead')
        return True
    ext, binary = through_extension(capture, sql), through_binary(perf, capture, sql)
    if same(ext, binary):
        print(f'ok {name}: {len(ext)} lines equal{note}')
        return True
    print(f'FAIL {name}: perf_sql.so (-) and perf-sql -r (+) differ')
    for line in difflib.unified_diff(ext, binary, lineterm='', n=1):
        print('    ' + line)
    return False


def check_stats(perf, capture):
    """perf_sql_stats of the extension: per table, what perf-sql info says was recorded."""
    info = subprocess.run([perf, 'info', capture], capture_output=True, text=True).stdout
    want = sorted((m.group(1).split(':')[-1], int(m.group(2)), int(m.group(3)))
                  for m in re.finditer(r'^table +(\S+): (\d+) events, (\d+) lost', info, re.M))
    conn = perf_sql.connect(capture)
    got = sorted(conn.execute('select "table", sum(received), sum(lost) from perf_sql_stats '
                              'where cpu is not null group by 1').fetchall())
    conn.close()
    name = os.path.basename(capture)
    if got == want and want:
        print(f'ok {name}: perf_sql_stats = perf-sql info: {want}')
        return True
    print(f'FAIL {name}: perf_sql_stats {got}, perf-sql info {want}')
    return False


def check_pandas(perf, capture):
    """Every column of every table, as pandas.read_sql_query() over the extension reads it and
    as pandas.read_csv() reads perf-sql -r --csv: equal frames."""
    try:
        import io
        import pandas
    except ImportError:
        print('skip pandas: python3-pandas is not installed (make setup installs it)')
        return True
    conn = perf_sql.connect(capture)
    tables = [r[0] for r in conn.execute('select name from perf_sql_events order by name')]
    ok = True
    for table in tables:
        sql = f'select * from "{table}" order by _time, _cpu'
        ext = perf_sql.dataframe(conn, sql)
        for col in ext.columns:   # BLOB fields: hex, as the csv has them
            ext[col] = [v.hex() if isinstance(v, bytes) else v for v in ext[col]]
        out = subprocess.run([perf, '-r', capture, '--csv', sql], capture_output=True, text=True)
        binary = pandas.read_csv(io.StringIO(out.stdout))
        try:
            pandas.testing.assert_frame_equal(ext, binary)
            print(f'ok pandas {os.path.basename(capture)} {table}: {ext.shape[0]} rows x '
                  f'{ext.shape[1]} columns equal')
        except AssertionError as e:
            print(f'FAIL pandas {os.path.basename(capture)} {table}: {e}')
            ok = False
    conn.close()
    return ok


def check_lifetimes(capture, other):
    """Python's side of tests/ext/host.c: two connections stepped in turn, a connection closed
    with its cursor open, and a statement Python cached before perf_sql_open()."""
    a, b = perf_sql.connect(), perf_sql.connect(other)
    q = 'select count(*) from perf_sql_events'
    try:
        before = a.execute(q).fetchone()[0]
    except sqlite3.Error as e:   # no machine catalog without privileges
        before = str(e).split(':')[0]
    opened = perf_sql.open_capture(a, capture)
    after = a.execute(q).fetchone()[0]   # the same text: Python's cached statement
    ca = a.execute('select _time from sys_enter_write order by _time')
    cb = b.execute('select name from perf_sql_events order by name')
    na = nb = 0
    while True:   # in turn
        ra, rb = ca.fetchone(), cb.fetchone()
        na, nb = na + (ra is not None), nb + (rb is not None)
        if ra is None and rb is None:
            break
    ca = a.execute('select _time from sys_enter_write')
    ca.fetchone()
    a.close()
    try:
        ca.fetchone()
        closed = 'a row'
    except sqlite3.ProgrammingError as e:
        closed = str(e)
    still = b.execute('select count(*) from perf_sql_events').fetchone()[0]
    b.close()
    conn = perf_sql.connect(capture)
    a_rows = conn.execute('select count(*) from sys_enter_write').fetchone()[0]
    want_a = conn.execute('select count(*) from perf_sql_events').fetchone()[0]
    conn.close()
    got = (int(opened.split()[0]), after, na, nb, closed, still)
    want = (want_a, want_a, a_rows, still, 'Cannot operate on a closed database.', nb)
    ok = got == want and before != want_a
    print(f'{"ok" if ok else "FAIL"} python lifetimes: perf_sql_events {before} then {after}, '
          f'{na} and {nb} rows in turn, after close: {closed!r}' + ('' if ok else f'; want {want}'))
    return ok


def main():
    perf, sql_dir, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    override = None
    if args[:1] == ['--capture']:
        override, args = args[1], args[2:]
    ok, captures = True, set()
    for path in args:
        name = re.search(r'capture: (\S+)', open(path).readline()).group(1)
        capture = override or os.path.join(sql_dir, name)
        captures.add(capture)
        ok &= check_file(perf, path, capture)
    for capture in sorted(captures):
        ok &= check_stats(perf, capture)
        ok &= check_pandas(perf, capture)
    if 'writes.cap' in [os.path.basename(c) for c in captures] and len(captures) > 1:
        writes = [c for c in sorted(captures) if c.endswith('writes.cap')][0]
        ok &= check_lifetimes(writes, [c for c in sorted(captures) if c != writes][0])
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
