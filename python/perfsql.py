"""perfsql - perf-sql's SQLite extension (perf_sql.so) from Python's own sqlite3 module.

    import perfsql
    conn = perfsql.connect('writes.cap')       # sqlite3 connection with the capture's tables
    perfsql.rows(conn, 'select count, log2_hist(count) from sys_enter_write group by 1')
    perfsql.dataframe(conn, 'select _time, count from sys_enter_write')      # pandas
    perfsql.collect(conn, 'select comm, count(*) n from sched_switch group by comm', '2s')

Histograms (log2_hist(), lin_hist()) come back as lists of {"low", "high", "count"} dicts,
as perf-sql --json prints them; other BLOBs stay bytes. docs/extension.md has the details.
The extension is found at $PERF_SQL_SO, else ../perf_sql.so from this file (a built checkout).
(Not named perf_sql.py: Python started next to perf_sql.so would import that file instead.)
A Python whose sqlite3 cannot load extensions (pyenv's default build) gets perfsql.Error with
one line that says how to get one that can.
"""
import json
import os
import sqlite3
import warnings

SO = os.environ.get('PERF_SQL_SO') or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'perf_sql.so')
HIST_MAGIC = b'PSQLHIST'
NO_LOAD_EXTENSION = (
    "perfsql: this Python's sqlite3 cannot load extensions (built without "
    "SQLITE_ENABLE_LOAD_EXTENSION / --enable-loadable-sqlite-extensions); use Debian's "
    "python3 (/usr/bin/python3) or rebuild Python with --enable-loadable-sqlite-extensions")


class Error(Exception):
    """What perfsql itself refuses, in one line that says what to do."""


def load(conn, so=None):
    """Loads perf_sql.so into conn (an sqlite3.Connection); returns conn."""
    # CPython leaves the method out when built without loadable extensions
    if not hasattr(conn, 'enable_load_extension'):
        raise Error(NO_LOAD_EXTENSION)
    conn.enable_load_extension(True)
    try:
        conn.load_extension(os.fspath(so or SO))
    finally:
        conn.enable_load_extension(False)
    return conn


def connect(capture=None, database=':memory:', so=None, **kwargs):
    """A new connection with the extension loaded and, if given, the capture opened."""
    conn = load(sqlite3.connect(database, **kwargs), so)
    if capture is not None:
        open_capture(conn, capture)
    return conn


def open_capture(conn, path):
    """perf_sql_open(path): the capture's tables on conn; returns '3 tables: a, b, c'."""
    return conn.execute('select perf_sql_open(?)', (os.fspath(path),)).fetchone()[0]


def value(conn, v):
    """A value as Python wants it: histograms decoded, everything else as is."""
    if isinstance(v, bytes) and v.startswith(HIST_MAGIC):
        return json.loads(conn.execute('select perf_sql_text(?)', (v,)).fetchone()[0])
    return v


def text(conn, v):
    """A value as perf-sql --csv prints it (SQLite's own text of numbers, '' for NULL)."""
    if v is None:
        return ''
    if isinstance(v, str):
        return v
    return conn.execute('select cast(perf_sql_text(?) as text)', (v,)).fetchone()[0]


def rows(conn, sql, params=()):
    """The rows of sql as tuples, histograms decoded."""
    return [tuple(value(conn, v) for v in r) for r in conn.execute(sql, params)]


def dataframe(conn, sql, params=()):
    """The rows of sql as a pandas DataFrame (pandas.read_sql_query), histograms decoded."""
    import pandas
    df = pandas.read_sql_query(sql, conn, params=params)
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = [value(conn, v) for v in df[col]]
    return df


def collect(conn, sql, duration='2s', command=None):
    """perf_sql_collect(): one window of live events (needs perf-sql's privileges).

    duration as perf-sql -d takes it; command (a string or a list, no shell) runs as
    perf-sql -- CMD does, and duration None means until it exits. Returns the rows as
    dicts; notices (lost events, the command's exit status) become warnings."""
    if isinstance(command, (list, tuple)):
        command = ' '.join(command)
    out = conn.execute('select perf_sql_collect(?, ?, ?)', (sql, duration, command)).fetchone()[0]
    notices = conn.execute('select perf_sql_notices()').fetchone()[0]
    for line in (notices or '').splitlines():
        warnings.warn('perf_sql_collect: ' + line, stacklevel=2)
    return json.loads(out)
