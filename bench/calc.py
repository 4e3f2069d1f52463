#!/usr/bin/env python3
"""
bench/calc.py - the arithmetic and the parsing for bench/run.sh, so the shell only runs things.

  calc.py parse KIND FILE...   print the numbers of one tool's output on one line
  calc.py report RESULTS       print the ratio table from the "key value..." lines run.sh wrote

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

RESULTS lines are "KEY VALUE" (repeated keys are repetitions: the report takes the median) or
"skip.TOOL.SECTION REASON..." / "note TEXT...". Every ratio is perf-sql / peer.
"""
import re
import statistics
import sys



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
    print("1M-event window: perf-sql received %s, lost %s; wall count(*) %s, GROUP BY %s; "
          "perf record received %s, lost %s"
          % (fmt_count(n), fmt_count(lost), fmt(wc, " s"), fmt(wg, " s"),
             fmt_count(R.med("win", "perf-record", "recv")),
             fmt_count(R.med("win", "perf-record", "lost"))))
    mg, mc = mb(R.med("win", "group", "rss")), mb(R.med("win", "count", "rss"))
    for t in ("perf-record", "perf-report", "perf-script"):
        row("peak RSS 1M-event window", ("%s (count(*) %s)" % (fmt(mg, " MB"), fmt(mc, " MB")), mg),
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
    for why in sorted(set(R.skips.values())):
        if ";" in why:
            print("note: " + why)
    for n in R.notes:
        print("note: " + n)


def main(argv):
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
             "reader": lambda: parse_reader(files)}[kind]()
        except (OSError, KeyError) as e:
            print("-")
            print("calc.py: %s" % e, file=sys.stderr)
        return
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
