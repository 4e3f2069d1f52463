"""scripts/doc_pages.py - the examples of a page, and how a run's output is compared with the
output the page shows, for scripts/doc-examples.py (which runs them). `python3
scripts/doc_pages.py` checks the comparison on made-up outputs, with no kernel (the first thing
tests/live/doc_examples.sh does).

An example is a `$ COMMAND` line of a fenced block (with its continuation lines: a trailing
backslash, an open quote or parenthesis) and the lines after it up to the next `$ `, its
output; `<!-- doc-test: ... -->` lines right before the fence are the block's directives
(skip, setup, needs, rows vary: scripts/doc-examples.py).

Comparison, after masking numbers with their units (`#`), hex, build ids, month names, the
directories of absolute paths and histogram bars, runs of blanks as one (digits after "exit",
as `echo "[exit $?]"` prints them, are kept):
  - a table (a header line over a line of dashes): the header exactly, the number of columns,
    each row's shape (each cell a number N, a text T or empty _, cut at the dashes' columns),
    and the lines under a row saying "(histogram below)" or "(N lines below)" as text. Bounded
    examples (a workload, -- CMD; a capture; no events) have their rows compared as a multiset,
    so their number too; open ones (-a, -C, -p, -t, --cgroup, -d, serve: what others do) may
    have any rows, each of a shape the page shows;
  - a `perf-sql: ...` line (an error, a warning, a note) is matched wherever it comes (stderr
    interleaves): each the page shows must be in the run, a warning of lost events too (its
    number masked; or said at more length: "... for the ones the ring had no room for; ...",
    "...; raise -m for the rest the ring had no room for"); the run may print no other, but a
    warning of lost events (losses vary from run to run) and, where the page cuts the output
    with `...`, one the page shows said again;
  - any other line exactly, in order; a line `...` stands for any lines, none included;
  - a block marked `rows vary` (scripts/doc-examples.py) as sets: every kind of masked line
    and message and every table's columns on each side must be on the other, every row of a
    shape the page shows.
"""
import collections
import re
import sys

FENCE = re.compile(r'^(\s*)(```+|~~~+)(.*)$')
DIRECTIVE = re.compile(r'^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$')
DASHES = re.compile(r'^-+(  +-+)*$')
MSG = re.compile(r'^perf-sql: ')
NUMBER = re.compile(r'^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$')
BELOW = re.compile(r'\((histogram|\d+ lines?) below\)')
LOST = re.compile(r'\blost # events\b|of this window were lost\b|'
                  r'events of this window (found|were not|had a call chain)')


def mask(line):
    """A line as it is compared: what varies from run to run masked, blanks squeezed."""
    line = re.sub(r'(?:(?<=^)|(?<=[\s\'"(=:\[]))(?:/[^\s/\'"(),:;<>|]+)+/', '.../', line)
    line = re.sub(r'0x[0-9a-fA-F]+', '0x#', line)
    line = re.sub(r'\b[0-9a-f]{12,}\b', '#', line)
    line = re.sub(r'(?<!exit )(?<!\d)\d+(\.\d+)?', '#', line)
    line = re.sub(r'(?<=#)(ns|us|ms|s|m|h|am|pm)\b', '', line)
    line = re.sub(r'#\s+[KMGT]?/sec\b', '# /sec', line)
    line = re.sub(r'\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b', 'Mon', line)
    line = re.sub(r'\|[ .:=+*#%@-]*[ =+*%@][ .:=+*#%@-]*\|', '|bars|', line)
    return ' '.join(line.split())


class Example:
    def __init__(self, doc, line, cmd, out, blank):
        self.doc, self.line, self.cmd, self.out, self.blank = doc, line, cmd, out, blank
        self.skip = None

    def where(self):
        return '%s:%d' % (self.doc, self.line)


class Block:
    def __init__(self, doc, line, indent, directives):
        self.doc, self.line, self.indent = doc, line, indent
        self.examples, self.setup, self.skip, self.vary, self.needs = [], [], None, None, []
        for d in directives:
            if d.startswith('skip'):
                self.skip = d[4:].strip(' :()') or 'marked skip'
            elif d.startswith('setup'):
                self.setup.append(d[5:].strip(' :'))
            elif d.startswith('rows vary'):
                self.vary = d[9:].strip(' :()') or 'rows vary'
            elif d.startswith('needs'):
                m = re.match(r'needs:?\s*(.*)\s+\(([^()]*)\)$', d)
                if not m:
                    raise SystemExit('%s:%d: "needs" wants PROBE (WHAT)' % (doc, line))
                self.needs.append((m.group(1), m.group(2)))

            else:
                raise SystemExit('%s:%d: unknown doc-test directive "%s"' % (doc, line, d))


def incomplete(text):
    """Does the shell need more lines: an open quote or parenthesis, a trailing \\ | && ||?"""
    quote, depth, i = None, 0, 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif c == '\\':
            i += 1
        elif quote == '"':
            if c == '"':
                quote = None
        elif c in '\'"':
            quote = c
        elif c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
        elif c == '#' and (i == 0 or text[i - 1] in ' \t\n'):
            while i < len(text) and text[i] != '\n':
                i += 1
            continue
        i += 1
    s = text.rstrip()
    return quote is not None or depth > 0 or s.endswith(('\\', '|', '&&'))


def parse(root, doc):
    """The example blocks of page DOC (a path from ROOT)."""
    lines = open(root + '/' + doc).read().split('\n')
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, start = m.group(1), m.group(2), i
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j]]
        i = j + 1
        first = next((l for l in body if l.strip()), '')
        if not first.startswith('$ '):
            continue
        directives, k = [], start - 1
        while k >= 0 and DIRECTIVE.match(lines[k]):
            directives.insert(0, DIRECTIVE.match(lines[k]).group(1))
            k -= 1
        block = Block(doc, start + 1, indent, directives)
        n = 0
        while n < len(body):
            if not body[n].startswith('$ '):
                n += 1
                continue
            at, cmd = n, body[n][2:]
            n += 1
            while incomplete(cmd) and n < len(body):
                cmd += '\n' + body[n]
                n += 1
            out = []
            while n < len(body) and not body[n].startswith('$ '):
                out.append(body[n])
                n += 1
            blank = 0
            while out and not out[-1].strip():
                out.pop()
                blank += 1
            ex = Example(doc, start + 2 + at, cmd, out, blank)
            ex.cmd_lines = cmd.count('\n') + 1
            ex.body_at = start + 1 + at  # 0-based index in the page of the $ line
            block.examples.append(ex)
        blocks.append(block)
    return blocks


# -- the output, as items to compare -----------------------------------------------------------

class Table:
    def __init__(self, header, dash):
        self.header = mask(header)
        self.spans = [m.start() for m in re.finditer(r'-+', dash)]
        self.rows = []      # [shape, sub-lines, histogram below]
        self.cut = False

    def row(self, line):
        cells = [line[a:b] for a, b in zip(self.spans, self.spans[1:] + [None])]
        shape = ''.join('_' if not c.strip() else 'N' if NUMBER.match(c.strip()) else 'T'
                        for c in cells)
        self.rows.append([shape, [], bool(BELOW.search(line))])


def items(lines):
    """Output lines -> ('text', masked) | ('table', Table) | ('gap',); and the messages."""
    out, msgs, i, n = [], [], 0, len(lines)
    lines = [l.rstrip() for l in lines]
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.strip() == '...':
            out.append(('gap',))
            i += 1
        elif MSG.match(line):
            msgs.append(mask(line))
            i += 1
        elif i + 1 < n and DASHES.match(lines[i + 1].strip()) and lines[i + 1].startswith('-'):
            t = Table(line, lines[i + 1])
            i += 2
            while i < n:
                line = lines[i]
                if not line.strip():
                    j = i
                    while j < n and not lines[j].strip():
                        j += 1
                    if t.rows and t.rows[-1][2] and j < n and BELOW.search(lines[j]):
                        i = j
                        continue
                    break
                if (line.strip() == '...' or MSG.match(line) or line.startswith('-- window') or
                        (i + 1 < n and DASHES.match(lines[i + 1].strip()))):
                    break
                if t.rows and t.rows[-1][2]:
                    t.rows[-1][1].append(mask(line))
                else:
                    t.row(line)
                i += 1
            out.append(('table', t))
        else:
            out.append(('text', mask(line)))
            i += 1
    for k, it in enumerate(out):
        if it[0] == 'table' and k + 1 < len(out) and out[k + 1][0] == 'gap':
            it[1].cut = True
    return out, msgs


def show(it):
    if it[0] == 'text':
        return '"%s"' % it[1]
    if it[0] == 'table':
        return 'a table "%s"' % it[1].header
    return '...'


def cmp_table(e, a, bounded):
    if e.header != a.header:
        return 'columns "%s", the page shows "%s"' % (a.header, e.header)
    if len(e.spans) != len(a.spans):
        return '%d columns, the page shows %d' % (len(a.spans), len(e.spans))
    er = sorted((r[0], tuple(r[1])) for r in e.rows)
    ar = sorted((r[0], tuple(r[1])) for r in a.rows)
    if bounded and not e.cut:
        if len(er) != len(ar):
            return 'table "%s": %d rows, the page shows %d' % (a.header, len(ar), len(er))
        for x, y in zip(er, ar):
            if x[0] != y[0]:
                return 'table "%s": rows of shapes %s, the page shows %s (N number, T text, ' \
                    '_ empty)' % (a.header, [r[0] for r in ar], [r[0] for r in er])
            if x[1] != y[1]:
                d = next((p, q) for p, q in zip(x[1] + ('(none)',) * len(y[1]),
                                                y[1] + ('(none)',) * len(x[1])) if p != q)
                return 'table "%s": the lines under a row: "%s", the page shows "%s"' % (
                    a.header, d[1], d[0])
        return None
    shapes = set(r[0] for r in er)
    for r in ar:
        if shapes and r[0] not in shapes:
            return 'table "%s": a row of shape %s, the page shows only %s' % (
                a.header, r[0], sorted(shapes))
    return None


def same(e, a, bounded):
    if e[0] != a[0]:
        return 'got %s, the page shows %s' % (show(a), show(e))
    if e[0] == 'text':
        return None if e[1] == a[1] else 'got "%s", the page shows "%s"' % (a[1], e[1])
    return cmp_table(e[1], a[1], bounded)


def compare_sets(E, A):
    """Windows and rows that vary in number: every kind of line on one side is on the other."""
    def kinds(X):
        return (set(x[1] for x in X if x[0] == 'text'),
                set(x[1].header for x in X if x[0] == 'table'))
    (et, eh), (at, ah) = kinds(E), kinds(A)
    for x in sorted(at - et) + sorted(ah - eh):
        return 'got "%s", which the page does not show' % x
    for x in sorted(et - at) + sorted(eh - ah):
        return 'the page shows "%s", which the run does not' % x
    shapes = collections.defaultdict(set)
    for x in E:
        if x[0] == 'table':
            shapes[x[1].header].update(r[0] for r in x[1].rows)
    for x in A:
        for r in x[1].rows if x[0] == 'table' else []:
            if shapes[x[1].header] and r[0] not in shapes[x[1].header]:
                return 'table "%s": a row of shape %s, the page shows only %s' % (
                    x[1].header, r[0], sorted(shapes[x[1].header]))
    return None


def compare(expected, actual, bounded, vary=False):
    """None when the run gives what the page shows, else the first difference."""
    E, emsg = items(expected)
    A, amsg = items(actual)
    if vary:
        # windows that vary in number say a message as often as they come: once is enough
        emsg, amsg = sorted(set(emsg)), sorted(set(amsg))
    left = collections.Counter(amsg)
    unmatched = []
    for m in emsg:
        if left[m] > 0:
            left[m] -= 1
        else:
            unmatched.append(m)
    for m in unmatched:
        # a loss the page shows may come with the part the kernel never wrote said too
        longer = next((x for x in left if left[x] > 0 and LOST.search(m) and
                       x.startswith((m + ' for the ones the ring had no room for;',
                                     m + '; raise -m for the rest'))), None)
        if not longer:
            return 'the page shows "%s"; the run printed %s' % (
                m, '; '.join('"%s"' % x for x in amsg) or 'no perf-sql: line')
        left[longer] -= 1
    cut = any(x[0] == 'gap' for x in E)
    for m, k in left.items():
        if k > 0 and not LOST.search(m) and not (cut and m in emsg):
            return 'the run printed "%s", which the page does not show' % m
    if vary:
        return compare_sets([x for x in E if x[0] != 'gap'], A)
    i = j = 0
    while i < len(E):
        if E[i][0] == 'gap':
            i += 1
            if i == len(E):
                return None
            k = j
            while k < len(A) and same(E[i], A[k], bounded) is not None:
                k += 1
            if k == len(A):
                return 'no %s after the "..."' % show(E[i])
            j = k
            continue
        if j >= len(A):
            return 'the run ends where the page shows %s' % show(E[i])
        diff = same(E[i], A[j], bounded)
        if diff:
            return diff
        i += 1
        j += 1
    if j < len(A):
        return 'the run goes on: %s' % show(A[j])
    return None


# -- the comparison's own check ----------------------------------------------------------------

def self_test():
    """Made-up outputs against a page's: what must fail fails, what may vary passes."""
    page = ['count  count(*)', '-----  --------', '  777      1000', ' 4096        20']
    other = ['count  count(*)', '-----  --------', '  777       999', ' 4096        21']
    lost = ('perf-sql: warning: syscalls:sys_enter_getppid lost 181850 events in this window; '
            'raise -m (now 1 pages) or filter more in WHERE')
    hist = ['n  h', '-  -', '3  (histogram below)', '  0 -> 1 : 0  |     |',
            '  2 -> 3 : 3  |*****|']
    win = ['window_start,n', '2026-11-22T13:24:24.528+00:00,100']
    cases = [   # what, the page's, the run's, bounded, rows vary, passes
        ('the same run, other numbers', page, other, True, False, True),
        ('a row missing, bounded', page, page[:3], True, False, False),
        ('a row missing, open', page, page[:3], False, False, True),
        ('a column renamed', page, ['count  calls', '-----  -----', '  777   1000'], True,
         False, False),
        ('a number where a text was', ['comm  n', '----  -', 'sh    1'],
         ['comm  n', '----  -', '7     1'], True, False, False),
        ('a lost warning gone', [lost] + page, page, True, False, False),
        ('a lost warning, other numbers', [lost] + page, [lost.replace('181850', '5')] + other,
         True, False, True),
        ('a lost warning cut short', [lost[:lost.index(' or filter')]] + page, [lost] + page,
         True, False, False),
        ('an extra lost warning', page, page + [lost], True, False, True),
        ('an extra error', page, page + ['perf-sql: no such table: x'], True, False, False),
        ('a message reworded', ['perf-sql: no such table: x'],
         ['perf-sql: table x does not exist'], True, False, False),
        ('a plan line changed', ['  path         perf ring: --no-bpf'],
         ['  path         aggregated in the kernel'], True, False, False),
        ('... stands for lines', ['a 1', '...', 'b 2'], ['a 5', 'x', 'y', 'b 7'], True, False,
         True),
        ('a line after ... missing', ['a 1', '...', 'b 2'], ['a 5', 'x'], True, False, False),
        ('an exit status', ['[exit 1]'], ['[exit 2]'], True, False, False),
        ('a histogram, other counts', hist, hist[:3] + ['  0 -> 1 : 1  |*    |',
                                                         '  2 -> 3 : 9  |*****|'], True, False,
         True),
        ('a histogram one bucket longer', hist, hist + ['  4 -> 7 : 1  |*    |'], True, False,
         False),
        ('windows that vary in number', win, win + win[1:], True, True, True),
        ('windows with a new kind of line', win, win + ['2026-11-22T13:24:24.528+00:00,,'],
         True, True, False),
    ]
    nr_bad = 0
    for what, e, a, bounded, vary, passes in cases:
        diff = compare(e, a, bounded, vary)
        if (diff is None) != passes:
            nr_bad += 1
            print('doc_pages: %s: %s' % (what, diff or 'passed, and must not'))
    for text, more in (('x "a', True), ("x 'a' b", False), ('x \\', True), ('(sleep 1; x &', True),
                       ('x | y', False), ('x |', True), ("a # it's", False)):
        if incomplete(text) != more:
            nr_bad += 1
            print('doc_pages: incomplete(%r) is %s' % (text, not more))
    print('doc_pages: %d checks passed, %d failed' % (len(cases) + 7 - nr_bad, nr_bad))
    return 1 if nr_bad else 0


if __name__ == '__main__':
    sys.exit(self_test())
