#!/usr/bin/env python3
"""
bench/calc.py - the arithmetic and the parsing for bench/run.sh, so the shell only runs things.

  calc.py parse KIND FILE...   print the numbers of one tool's output on one line
  calc.py report RESULTS       print the ratio table from the "key value..." lines run.sh wrote
  calc.py stamp                copy stdin to stdout, each line prefixed with its arrival time
                               (CLOCK_MONOTONIC s) and a tab

parse KINDs (each prints space-separated fields; a missing number prints as "-"):
  workload FILE...  getppid_loop outputs "calls=N ns=T": "calls ns_per_call" (calls summed,
                    ns/call averaged over the instances, so two pinned loops give the per-CPU cost)
  perf-sql FILE     --csv output of "select count(*) as n ...; select sum(received) as received,
                    sum(lost) as lost from perf_sql_stats": "n received lost"
  perf-record FILE  `perf report --stats` output: "samples lost" of the traced event (its
                    LOST_SAMPLES: perf record reads the kernel's lost count of each event)
  perf-stat FILE    perf stat -x, output: "count"
  time FILE         /usr/bin/time -f "%e %U %S %M" output: "wall_s cpu_s maxrss_kb"
  ftrace FILE...    per_cpu/cpuN/stats of a tracefs instance (or trace-cmd report --stat):
                    "received lost" (received = read events + entries still in the buffer;
                    lost = overrun + dropped events)
  reader FILE...    ftrace_reader outputs "cpu=S bytes=N": "cpu_seconds" summed
  stamps FILE       `perf-sql --csv ... | calc.py stamp` of statements whose first column is
                    named q_NAME: one line per statement after the first, "NAME SECONDS V1 V2"
                    (SECONDS = end of its output - end of the previous statement's: perf-sql
                    flushes after each statement, so that is the statement's run time; V1 V2 the
                    first two values of its first row, "-" if none)

RESULTS lines are "KEY VALUE" (repeated keys are repetitions: the report takes the median) or
"skip.TOOL.SECTION REASON..." / "note TEXT...". Every ratio is perf-sql / peer.
"""
import csv
import re
import statistics
import sys
import time



def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def out(*vals):
    print(" ".join("-" if v is None else ("%d" % v if float(v).is_integer() else "%.6g" % v)
                   for v in vals))


# ---------------------------------------------------------------------------- parsing

def parse_workload(files):
    calls, per = 0, []
    for f in files:
        m = re.search(r"calls=(\d+) ns=(\d+)", open(f, errors="replace").read())
        if not m:
            return out(None, None)
        c, ns = int(m.group(1)), int(m.group(2))
        calls += c
        per.append(ns / c if c else None)
    if None in per or not per:
        return out(None, None)
    out(calls, sum(per) / len(per))


def parse_perf_sql(f):
    """n = sum of the last column under a header ending in "n"; then the received,lost row."""
    n = recv = lost = None
    in_n = False
    for l in (l.strip() for l in open(f, errors="replace")):
        if not l:
            continue
        if l == "n" or l.endswith(",n"):
            in_n, n = True, 0
        elif l == "received,lost":
            in_n = False
        elif in_n:
            v = num(l.split(",")[-1])
            n = None if v is None or n is None else n + v
        elif recv is None and n is not None and "," in l:
            parts = l.split(",")
            if len(parts) == 2:
                recv, lost = num(parts[0]), num(parts[1])
    out(n, recv, lost)


def parse_perf_record(f):
    """perf report --stats: the SAMPLE and LOST_SAMPLES lines of the first non-dummy event."""
    samples = lost = None
    section = None
    for l in open(f, errors="replace"):
        l = l.strip()
        if l.endswith(" stats:"):
            section = l[:-len(" stats:")]
            if samples is not None:
                break
        elif section and section != "Aggregated" and not section.startswith("dummy"):
            m = re.match(r"(SAMPLE|LOST_SAMPLES) events:\s*(\d+)", l)
            if m and m.group(1) == "SAMPLE":
                samples = int(m.group(2))
            elif m:
                lost = int(m.group(2))
    out(samples, lost if lost is not None else (0 if samples is not None else None))


def parse_perf_stat(f):
    for l in open(f, errors="replace"):
        parts = l.strip().split(",")
        if len(parts) > 2 and ":" in parts[2]:
            return out(num(parts[0]))
    out(None)


def parse_time(f):
    lines = [l.split() for l in open(f, errors="replace") if l.strip()]
    for parts in reversed(lines):
        if len(parts) == 4 and all(num(p) is not None for p in parts):
            e, u, s, m = map(float, parts)
            return out(e, u + s, m)
    out(None, None, None)


def parse_ftrace(files):
    recv = lost = 0
    for f in files:
        for l in open(f, errors="replace"):
            k, _, v = l.partition(":")
            k, v = k.strip(), num(v.strip())
            if v is None:
                continue
            if k in ("read events", "entries"):
                recv += v
            elif k in ("overrun", "dropped events"):
                lost += v
    out(recv, lost)


def parse_reader(files):
    cpu = 0.0
    for f in files:
        m = re.search(r"cpu=([0-9.]+)", open(f, errors="replace").read())
        if not m:
            return out(None)
        cpu += float(m.group(1))
    out(cpu)


def stamp():
    for line in sys.stdin.buffer:
        t = time.monotonic()
        sys.stdout.write("%.6f\t%s\n" % (t, line.decode(errors="replace").rstrip("\r\n")))
        sys.stdout.flush()


def parse_stamps(f):
    blocks = []   # [name, time of its last line, its first row]
    for l in open(f, errors="replace"):
        t, _, text = l.rstrip("\n").partition("\t")
        if text.startswith("q_"):
            blocks.append([text.split(",")[0][2:], float(t), None])
        elif blocks:
            blocks[-1][1] = float(t)
            if blocks[-1][2] is None:
                blocks[-1][2] = next(csv.reader([text]), [])
    for prev, b in zip(blocks, blocks[1:]):
        row = [num(v) for v in (b[2] or [])[:2]] + [None, None]
        sys.stdout.write(b[0] + " ")
        out(b[1] - prev[1], row[0], row[1])


# ---------------------------------------------------------------------------- report

PEERS = ["perf-record", "perf-stat", "trace-cmd", "ftrace"]


class Results:
    def __init__(self, path):
        self.vals, self.skips, self.notes = {}, {}, []
        for line in open(path, errors="replace"):
            key, _, rest = line.rstrip("\n").partition(" ")
            if key == "note":
                self.notes.append(rest)
            elif key.startswith("skip."):
                self.skips[key[5:]] = rest
            elif num(rest) is not None:
                self.vals.setdefault(key, []).append(float(rest))

    def med(self, *parts):
        v = self.vals.get(".".join(parts))
        return statistics.median(v) if v else None

    def min(self, *parts):
        v = self.vals.get(".".join(parts))
        return min(v) if v else None

    def count(self, *parts):
        return len(self.vals.get(".".join(parts), []))

    def skip(self, tool, sec):
        """the reason TOOL has no number in SEC, shortened for a row; None if it has one"""
        why = self.skips.get("%s.%s" % (tool, sec)) or self.skips.get(tool)
        return why.split(";")[0] if why else None


def fmt(v, unit=""):
    if v is None:
        return "n/a"
    return ("%.3g" % v if abs(v) < 1000 else "%.0f" % v) + unit


def fmt_pct(v):
    if v is None:
        return "n/a"
    return "0%" if v == 0 else ("%.2g%%" % v if v < 1 else "%.1f%%" % v)


def fmt_count(v):
    if v is None:
        return "n/a"
    return "%.2fM" % (v / 1e6) if v >= 1e5 else "%d" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    r = a / b
    return "%.2f" % r if r < 100 else "%.0f" % r


def row(label, mine, peer_name, peer, better, skip=None):
    """one comparison line; mine and peer are already formatted strings or None"""
    if skip:
        print("%s: [skipped: %s]" % (label, skip))
        return
    print("%s: perf-sql %s  %s %s  ratio %s (%s is better)"
          % (label, mine[0], peer_name, peer[0], ratio(mine[1], peer[1]), better))


def val(v, f=fmt, unit=""):
    return (f(v, unit) if f is fmt else f(v), v)


def report_slowdown(R, sec, label):
    base = R.med(sec, "base", "nspc")
    if base is None:
        print("slowdown %s: [no data: %s]" % (label, R.skip("base", sec) or "baseline failed"))
        return
    rate = sec == "pp"   # round trips per second: slowdown = untraced rate / traced rate
    print("baseline %s: %s %s untraced" % (label, fmt(base), "round trips/s" if rate else "ns/call"))

    def factor(v):
        if v is None or v == 0:
            return None
        return base / v if rate else v / base
    mine = factor(R.med(sec, "perf-sql", "nspc"))
    for t in PEERS:
        sk = R.skip(t, sec)
        if not sk and not R.count(sec, t, "nspc"):
            continue   # not a peer in this section
        if not sk and mine is None:
            sk = "perf-sql run failed (see anomalies)"
        row("slowdown " + label, val(mine, fmt, "x"), t, val(factor(R.med(sec, t, "nspc")), fmt, "x"),
            "lower", sk)


def pct(R, sec, tool):
    lost, recv = R.med(sec, tool, "lost"), R.med(sec, tool, "recv")
    if lost is None or recv is None or lost + recv == 0:
        return None, None
    return 100.0 * lost / (lost + recv), lost + recv


def report_lost(R, sec, label):
    def cell(t):
        p, n = pct(R, sec, t)
        return ("%s (%s of %s)" % (fmt_pct(p), fmt_count(R.med(sec, t, "lost")), fmt_count(n)),
                p)
    for t in ("perf-record", "trace-cmd", "ftrace"):
        row("lost " + label, cell("perf-sql"), t, cell(t), "lower", R.skip(t, sec))


def report_cpu(R, sec, label):
    def per_event(t):
        cpu, recv = R.med(sec, t, "cpu"), R.med(sec, t, "recv")
        return 1e6 * cpu / recv if cpu is not None and recv else None
    m = per_event("perf-sql")
    for t in ("perf-record", "trace-cmd", "ftrace"):
        row("cpu/event " + label, val(m, fmt, " us"), t + (" readers" if t == "ftrace" else ""),
            val(per_event(t), fmt, " us"), "lower", R.skip(t, sec))


def mb(kb):
    return None if kb is None else kb / 1024.0


def report_rss(R, sec, label):
    m, n = R.med(sec, "perf-sql", "rss"), R.med(sec, "perf-sql", "recv")
    if m is None:
        return
    per = " (%.0f B/event)" % (m * 1024 / n) if n else ""
    row("peak RSS " + label, ("%s for %s events%s" % (fmt(mb(m), " MB"), fmt_count(n), per), mb(m)),
        "perf-record", val(mb(R.med(sec, "perf-record", "rss")), fmt, " MB"), "lower",
        R.skip("perf-record", sec))


def report_startup(R):
    n = R.count("start", "perf-sql", "wall")
    m = R.med("start", "perf-sql", "wall")
    for t in ("perf-stat", "perf-record", "perf-record-nobpf"):
        p = R.med("start", t, "wall")
        name = "perf-record --no-bpf-event" if t == "perf-record-nobpf" else t
        row("start-up+tear-down sched_switch -- true, median of %d" % n,
            val(m * 1e3 if m else None, fmt, " ms"), name, val(p * 1e3 if p else None, fmt, " ms"),
            "lower", R.skip(t.replace("-nobpf", ""), "start"))
    for suffix, how in (("", "ring, counting (--no-bpf)"),
                        ("-bpf", "perf-sql's path: tp_btf programs")):
        m20 = R.med("start20", "perf-sql-20" + suffix, "wall")
        m1 = R.med("start20", "perf-sql-1" + suffix, "wall")
        if m20 is None:
            continue
        per = " (1 table %s, %s per added table; target <= 5 ms)" % (
            fmt(m1 * 1e3 if m1 else None, " ms"),
            fmt((m20 - m1) / 19 * 1e3 if m1 is not None else None, " ms"))
        p = R.med("start20", "perf-stat-20", "wall")
        row("start-up+tear-down 20 tracepoint tables -- true (%s), median of %d"
            % (how, R.count("start20", "perf-sql-20" + suffix, "wall")),
            ("%s%s" % (fmt(m20 * 1e3, " ms"), per), m20 * 1e3), "perf-stat -e (same 20)",
            val(p * 1e3 if p else None, fmt, " ms"), "lower", R.skip("perf-stat", "start"))
    for t in ("perf-stat", "perf-record"):
        row("peak RSS sched_switch -- true", val(mb(R.med("start", "perf-sql", "rss")), fmt, " MB"),
            t, val(mb(R.med("start", t, "rss")), fmt, " MB"), "lower", R.skip(t, "start"))


def report_window(R):
    n, lost = R.med("win", "group", "recv"), R.med("win", "group", "lost")
    wc, wg = R.med("win", "count", "wall"), R.med("win", "group", "wall")
    sk = R.skip("perf-record", "win")
    if n is None:
        print("1M-event window: [no data: perf-sql failed, see anomalies]")
        return
    print("1M-event window: perf-sql received %s, lost %s; wall count(_cpu) %s, GROUP BY %s; "
          "perf record received %s, lost %s"
          % (fmt_count(n), fmt_count(lost), fmt(wc, " s"), fmt(wg, " s"),
             fmt_count(R.med("win", "perf-record", "recv")),
             fmt_count(R.med("win", "perf-record", "lost"))))
    mg, mc = mb(R.med("win", "group", "rss")), mb(R.med("win", "count", "rss"))
    for t in ("perf-record", "perf-report", "perf-script"):
        row("peak RSS 1M-event window", ("%s (count(_cpu) %s)" % (fmt(mg, " MB"), fmt(mc, " MB")), mg),
            t, val(mb(R.med("win", t, "rss")), fmt, " MB"), "lower", sk)
    q = wg - wc if wc is not None and wg is not None else None
    if q is not None and q <= 0:
        print("GROUP BY comm 1M events: perf-sql's query cost is below run-to-run noise (%.3f s)" % q)
        q = None
    mine = n / q if q else None
    samples = R.med("win", "perf-record", "recv")
    for t in ("perf-report", "perf-script"):
        w = R.med("win", t, "wall")
        peer = samples / w if samples and w else None
        row("GROUP BY comm 1M events, query only",
            ("%s ev/s (%s)" % (fmt(mine / 1e6 if mine else None, "M"), fmt(q, " s")), mine), t,
            ("%s ev/s (%s)" % (fmt(peer / 1e6 if peer else None, "M"), fmt(w, " s")), peer),
            "higher", sk)
    rw, rep = R.med("win", "perf-record", "wall"), R.med("win", "perf-report", "wall")
    both = rw + rep if rw is not None and rep is not None else None
    row("GROUP BY comm 1M events, record+answer wall", val(wg, fmt, " s"), "perf record+report",
        val(both, fmt, " s"), "lower", sk)


def factor_of(R, sec, tool, base):
    v = R.med(sec, tool, "nspc")
    return v / base if v is not None and base else None


def report_count(R):
    base = R.med("count", "base", "nspc")
    if base is None:
        print("slowdown getppid 1cpu counting: [no data: %s]" % (R.skip("base", "count") or "baseline failed"))
        return
    mine, peer = factor_of(R, "count", "perf-sql-count", base), factor_of(R, "count", "perf-stat", base)
    print("baseline getppid 1cpu counting: %s ns/call untraced" % fmt(base))
    row("slowdown getppid 1cpu, count(*) counting mode (target <= 1.1x perf stat's)",
        val(mine, fmt, "x"), "perf-stat", val(peer, fmt, "x"), "lower", R.skip("perf-stat", "count"))
    n, recv = R.med("count", "perf-sql-count", "recv"), R.med("count", "perf-stat", "recv")
    print("events counted getppid 1cpu: perf-sql %s  perf-stat %s (each counts its own run)"
          % (fmt_count(n), fmt_count(recv)))


def report_pushdown(R):
    base = R.med("pushdown", "base", "nspc")
    if base is None:
        print("pushdown: [no data: %s]" % (R.skip("base", "pushdown") or "baseline failed"))
        return
    on, off = (factor_of(R, "pushdown", t, base) for t in ("perf-sql-pd", "perf-sql-nopd"))
    print("baseline writes (WHERE count = %d matches %d): %s ns/write untraced"
          % (int(R.med("pushdown", "size") or 0), int(R.med("pushdown", "n") or 0), fmt(base)))
    row("slowdown writes, kernel filter on vs off", val(on, fmt, "x"), "perf-sql --no-pushdown",
        val(off, fmt, "x"), "lower")
    con, coff = (R.med("pushdown", t, "cpu") for t in ("perf-sql-pd", "perf-sql-nopd"))

    def cpu(v):
        # /usr/bin/time counts in 10 ms steps: 0 means under 10 ms (ratio taken at 5 ms)
        return ("<0.01 s", 0.005) if v == 0 else val(v, fmt, " s")
    row("perf-sql CPU (user+sys) writes, kernel filter on vs off", cpu(con),
        "perf-sql --no-pushdown", cpu(coff), "lower")
    print("events to user space: pushdown %s (lost %s), --no-pushdown %s (lost %s)"
          % tuple(fmt_count(R.med("pushdown", t, k)) for t in ("perf-sql-pd", "perf-sql-nopd")
                  for k in ("recv", "lost")))
    sk = R.skip("perf-record-filter", "pushdown")
    row("slowdown writes, kernel filter", val(on, fmt, "x"), "perf-record --filter",
        val(factor_of(R, "pushdown", "perf-record-filter", base), fmt, "x"), "lower", sk)
    row("tracer CPU (user+sys) writes, kernel filter", cpu(con), "perf-record --filter",
        cpu(R.med("pushdown", "perf-record-filter", "cpu")), "lower", sk)


def report_sym(R):
    text, base = R.min("sym", "text", "secs"), R.min("sym", "base", "secs")
    frames, copies = R.med("sym", "text", "frames"), int(R.med("sym", "copies") or 0)
    rows = R.med("sym", "text", "rows")
    if text is None or base is None or not frames:
        print("symbol resolution: [no data: perf-sql failed, see anomalies]")
        return
    dt = text - base
    mine = frames / dt if dt > 0 else None
    print("symbol resolution: perf-sql %s stacks (%s samples x %d), %s frames: statement %s with "
          "stack_text, %s without (fastest of %d); %s per 1M frames (target < 0.5 s)"
          % (fmt_count(rows), fmt_count(rows / copies if copies and rows else None), copies,
             fmt_count(frames), fmt(text, " s"), fmt(base, " s"), R.count("sym", "text", "secs"),
             fmt(dt * 1e6 / frames if dt > 0 else None, " s")))
    lo, hi = R.med("sym", "perf", "frames999"), R.med("sym", "perf", "frames9999")
    sk = R.skip("perf-record", "sym")

    def rate(v):
        return ("%s/s" % fmt(v / 1e6 if v else None, "M"), v)
    for t in ("perf-script", "perf-report"):
        wl, wh = R.med("sym", t, "wall999"), R.med("sym", t, "wall9999")
        whole = lo / wl if lo and wl else None
        marg = (hi - lo) / (wh - wl) if lo and hi and wl and wh and wh > wl else None
        name = "perf script" if t == "perf-script" else "perf report -g none --sort sym"
        row("frames/s symbolized, warm", rate(mine),
            name + " whole run (-F 999 file: %s frames in %s)" % (fmt_count(lo), fmt(wl, " s")),
            rate(whole), "higher", sk)
        row("frames/s symbolized, warm", rate(mine),
            name + " marginal ((-F 9999 file - -F 999 file) / time difference, %s frames)"
            % fmt_count(hi - lo if hi and lo else None), rate(marg), "higher", sk)


def report_burn(R):
    base, cbase = R.med("burn", "base", "sink"), R.med("burn", "base", "cpurate")
    secs, unit = R.med("burn", "secs"), R.med("burn", "unit")
    if base is None:
        print("sampling overhead: [no data: %s]" % (R.skip("base", "burn") or "baseline failed"))
        return
    per_round = unit * (2 * unit - 1) + unit * (unit - 1) / 2 if unit else None
    rate = "%s rounds/s" % fmt(base / per_round / secs) if per_round and secs else "-"
    crate = ("%s rounds per CPU s" % fmt(cbase * 1e9 / per_round)) if per_round and cbase else "-"
    print("baseline burn %d on CPU 0, untraced: %s of wall time, %s (work read from its `sink` at "
          "exit, %d runs)" % (secs or 0, rate, crate, R.count("burn", "base", "sink")))

    def slow(key, b):
        def f(t):
            v = R.med("burn", t, key)
            return b / v if v and b else None
        return f

    def cell(f):
        return ("%.3fx (%+.2f%%)" % (f, 100 * (f - 1)), f) if f is not None else ("n/a", None)
    sk = R.skip("perf-record", "burn")
    for key, b, what in (("sink", base, "work per wall s"), ("cpurate", cbase, "work per CPU s")):
        s = slow(key, b)
        row("slowdown burn, 999 Hz stacks, %s (target <= 2%%)" % what, cell(s("perf-sql")),
            "perf-record -F 999 -g", cell(s("perf-record")), "lower", sk)
    # the floor: 999 Hz samples with no call chain, what any tool pays for the interrupts
    s = slow("cpurate", cbase)
    fl, pg, ps = s("perf-record-nog"), s("perf-record"), s("perf-sql")
    if fl is not None and pg is not None and ps is not None:
        print("sampling floor, 999 Hz, no call chain (perf record -F 999), work per CPU s: "
              "%.3fx (%+.2f%%); above the floor: perf-sql %+.2f%%, perf record -g %+.2f%%"
              % (fl, 100 * (fl - 1), 100 * (ps - fl), 100 * (pg - fl)))


def report_agg(R):
    k, rows = R.med("agg", "copies"), R.med("agg", "rows")
    base = R.min("agg", "count", "secs")
    if base is None or not k or not rows:
        print("aggregates: [no data: perf-sql failed, see anomalies]")
        return
    n = k * rows
    print("aggregates over one %s-row window of sys_enter_write (writes 1000000 8), each statement "
          "%d copies of the aggregate, timed per statement, fastest of %d: count(count) %s "
          "(%.1f ns/row per copy); cost = (statement - count statement) / (%d x rows)"
          % (fmt_count(rows), k, R.count("agg", "count", "secs"), fmt(base, " s"),
             base * 1e9 / n, k))

    def per_row(f):
        w = R.min("agg", f, "secs")
        return (w - base) * 1e9 / n if w is not None else None
    ref = per_row("sum")
    for f in ("log2_hist", "p99", "stats", "heatmap"):
        arg = "_time, count" if f == "heatmap" else "count"
        row("aggregate %s(%s) cost" % (f, arg), val(per_row(f), fmt, " ns/row"),
            "SQLite sum(count)", val(ref, fmt, " ns/row"), "lower")


def report(path):
    R = Results(path)
    pages = int(R.med("pages") or 0)
    secs = (("slow1", "getppid 1cpu"), ("slow2", "getppid 2cpu"))
    for sec, label in secs + (("pp", "pingpong"),):
        if R.count(sec, "base", "nspc"):
            report_slowdown(R, sec, label)
    for sec, label in secs + (("pp", "pingpong sched_switch"),):
        if R.count(sec, "perf-sql", "recv"):
            report_lost(R, sec, "%s, %d pages/CPU" % (label, pages))
    for sec, label in secs:
        if R.count(sec, "perf-sql", "cpu"):
            report_cpu(R, sec, label)
    for sec, label in secs:
        report_rss(R, sec, label + " window")
    if R.count("start", "perf-sql", "wall"):
        report_startup(R)
    if any(k.startswith("win.") for k in R.vals):
        report_window(R)
    if R.count("count", "base", "nspc"):
        report_count(R)
    if R.count("sym", "text", "secs") or R.count("sym", "base", "secs"):
        report_sym(R)
    if R.count("burn", "base", "sink"):
        report_burn(R)
    if R.count("pushdown", "base", "nspc"):
        report_pushdown(R)
    if R.count("agg", "count", "secs"):
        report_agg(R)
    for why in sorted(set(R.skips.values())):
        if ";" in why:
            print("note: " + why)
    for n in R.notes:
        print("note: " + n)


def main(argv):
    if len(argv) == 2 and argv[1] == "stamp":
        return stamp()
    if len(argv) >= 3 and argv[1] == "report":
        return report(argv[2])
    if len(argv) >= 4 and argv[1] == "parse":
        kind, files = argv[2], argv[3:]
        try:
            {"workload": lambda: parse_workload(files),
             "perf-sql": lambda: parse_perf_sql(files[0]),
             "perf-record": lambda: parse_perf_record(files[0]),
             "perf-stat": lambda: parse_perf_stat(files[0]),
             "time": lambda: parse_time(files[0]),
             "ftrace": lambda: parse_ftrace(files),
             "reader": lambda: parse_reader(files),
             "stamps": lambda: parse_stamps(files[0])}[kind]()
        except (OSError, KeyError) as e:
            print("-")
            print("calc.py: %s" % e, file=sys.stderr)
        return
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
