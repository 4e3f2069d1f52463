"""tests/ext/collect.py - perf_sql_collect() against perf-sql on the same SQL and workload.

    python3 tests/ext/collect.py PERF_SQL WL_DIR            (as root: collects)
    python3 tests/ext/collect.py PERF_SQL WL_DIR --denied   (unprivileged: the errors)

As root: the writes workload (exactly 300 writes of 777 bytes and 40 of 10) run by
perf_sql.collect() and by perf-sql --json -- CMD, counted per size: the same rows, and the
rows the workload's definition gives. A command that exits non-zero (false) leaves a notice
(a Python warning); bad arguments are one-line errors.
--denied: without privileges, perf_sql_collect() fails with perf-sql's own message.
Prints "ok ..." or "FAIL ..." per check; exit 1 on any failure.
"""
import json
import sqlite3
import subprocess
import sys
import warnings

import perfsql as perf_sql

SQL = ('select count, count(*) as n, sum(count) as bytes from sys_enter_write '
       'where _pid = workload_pid() group by count order by count')
failures = 0


def check(ok, what, got):
    global failures
    print(f'{"ok" if ok else "FAIL"} {what}: {got}')
    failures += not ok


def error_of(conn, *args):
    try:
        conn.execute('select perf_sql_collect(?, ?, ?)', args).fetchone()
    except sqlite3.Error as e:
        return str(e)
    return None


def collects(perf, wl):
    conn = perf_sql.connect()
    cmd = [f'{wl}/writes', '300', '777', '40', '10']
    ext = perf_sql.collect(conn, SQL, None, cmd)
    out = subprocess.run([perf, '--json', SQL, '--', *cmd], capture_output=True, text=True)
    binary = [json.loads(line) for line in out.stdout.splitlines()]
    want = [{'count': 10, 'n': 40, 'bytes': 400}, {'count': 777, 'n': 300, 'bytes': 233100}]
    check(ext == binary == want, 'collect = perf-sql --json = the workload', ext)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        rows = perf_sql.collect(conn, SQL, '10s', 'false')
    notices = [str(w.message) for w in seen]
    check(rows == [] and notices == ["perf_sql_collect: workload 'false' exited with status 1"],
          'a failing command: no rows, a notice', (rows, notices))
    check(error_of(conn, SQL, None, None) ==
          "perf_sql_collect: DURATION must be positive without a command, e.g. "
          "perf_sql_collect(SQL, '2s')", 'no duration, no command', error_of(conn, SQL, 0, None))
    check(error_of(conn, SQL, 'soon', None) ==
          "perf_sql_collect: DURATION 'soon': expected a duration such as '2s' or '500ms'",
          'a bad duration', error_of(conn, SQL, 'soon', None))
    bad = error_of(conn, 'select nosuch from sys_enter_write', '1s', None)
    check(bad == 'perf_sql_collect: no such column: nosuch; list a table\'s columns with: '
          'perf-sql --schema TABLE', 'a bad column', bad)
    conn.close()


def denied(perf):
    conn = perf_sql.connect()
    ext = error_of(conn, 'select count(*) from sys_enter_write', '1s', None)
    out = subprocess.run([perf, '-d', '1s', 'select count(*) from sys_enter_write'],
                         capture_output=True, text=True)
    if out.returncode == 0:   # this machine lets anyone collect: nothing to refuse
        check(ext is None, 'unprivileged, where anyone may collect: no error either', ext)
        return
    want = out.stderr.strip().replace('perf-sql: ', 'perf_sql_collect: ', 1)
    check(ext is not None and ext == want and '\n' not in ext,
          'unprivileged: perf-sql\'s error, one line', ext)
    conn.close()


def main():
    perf, wl = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ['--denied']:
        denied(perf)
    else:
        collects(perf, wl)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
