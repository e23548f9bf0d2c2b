#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Include and call graph of kernel-shared/, read from the sources.

    scripts/callgraph.py [--detail] [--dot]   print the graphs and the cycles
    scripts/callgraph.py --check               layer and common/ part rules (tests/check-api.sh)
    scripts/callgraph.py --common              the graph of common/'s parts

What counts, file by file (comments and string literals removed first):
  include   #include "x.h" of a kernel-shared header (with or without the
            kernel-shared/ prefix)
  call      a function body (or a static initializer: ops tables) naming a
            function defined in another file: a non-static function of a
            .c file, a static inline function or a function-like macro of a
            header.  Names taken as values (function pointers) count too.
A function a file defines itself (even a static one of the same name as
another file's) is local.  Calls from cmds/, common/ and volctl.c into
kernel-shared/ are listed as well.

Cycles are strongly connected components of the graph of modules (x.c and
x.h are one module) over includes and calls, within kernel-shared/.

Layers come from the table under "## Layers" in kernel-shared/README.md:
one row per layer, numbered from 0 (the bottom), the files in backquotes.
A file may include or call only files of its own layer or of lower ones;
--check prints every other include and call, naming both files and the
function, and exits 1.  It also fails when a kernel-shared/ file is in no
layer, in two, or a listed file does not exist.

The parts of common/ come from the table under "## Parts" in
common/README.md: one row per part (its folder, common/NAME/, in
backquotes in the first cell) and, in the last cell, the parts it may
include and call, in backquotes (cmds/ and volctl.c have a row each too).
A part may always use itself.  --check also prints every include and call
between common/ files, and from cmds/ and volctl.c into common/, that the
table does not allow, and a common/ file outside every part folder (once
the folders exist: scripts/move-common.sh makes them).  The table under
"## Pending edges" allows one file's edge to a part for the names listed
only.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
KS = 'kernel-shared'
OUTSIDE_DIRS = ('common', 'cmds')

IDENT = re.compile(r'[A-Za-z_]\w*')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)(\()?(.*)$')
NOT_NAMES = {'if', 'for', 'while', 'switch', 'return', 'sizeof', '__attribute__',
             '__typeof__', 'typeof', 'alignof', '_Alignof', '_Static_assert',
             'static_assert', 'defined', '__builtin_offsetof', 'offsetof'}


def strip(text):
    """Comments and string/char literals out, line breaks kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j) or ' ')
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def join_continuations(text):
    return re.sub(r'\\\n', ' ', text)


class Source:
    """One file: includes, definitions, and the names each body uses."""

    def __init__(self, path):
        self.path = path
        with open(os.path.join(ROOT, path), encoding='utf-8', errors='replace') as f:
            raw = f.read()
        self.includes = []
        for m in INCLUDE.finditer(raw):
            self.includes.append(m.group(1))
        text = join_continuations(strip(raw))
        self.exported = set()	# names other files may call
        self.local = set()	# every name defined here (static too)
        self.bodies = []	# (function or '<data>', text of its body)
        code_lines = []
        for line in text.split('\n'):
            m = DEFINE.match(line)
            if m:
                if m.group(2):		# function-like macro
                    self.local.add(m.group(1))
                    if path.endswith('.h'):
                        self.exported.add(m.group(1))
                    self.bodies.append((m.group(1), m.group(3)))
                code_lines.append('')
            elif line.lstrip().startswith('#'):
                code_lines.append('')
            else:
                code_lines.append(line)
        self.scan('\n'.join(code_lines))

    def scan(self, text):
        depth, i, n = 0, 0, len(text)
        stmt_start = 0
        while i < n:
            c = text[i]
            if c == ';' and depth == 0:
                stmt_start = i + 1
            elif c == '{' and depth == 0:
                decl = text[stmt_start:i]
                end = self.matching(text, i)
                body = text[i + 1:end]
                name = self.function_name(decl)
                if name:
                    self.local.add(name)
                    static = re.search(r'\bstatic\b', decl) is not None
                    if self.path.endswith('.h') or not static:
                        self.exported.add(name)
                    self.bodies.append((name, body))
                else:
                    self.bodies.append(('<data>', body))
                i = end
                stmt_start = end + 1
            i += 1

    @staticmethod
    def matching(text, i):
        depth = 0
        for j in range(i, len(text)):
            if text[j] == '{':
                depth += 1
            elif text[j] == '}':
                depth -= 1
                if depth == 0:
                    return j
        return len(text) - 1

    @staticmethod
    def drop_attributes(decl):
        while True:
            m = re.search(r'__attribute__\s*\(', decl)
            if not m:
                return decl
            depth, j = 0, m.end() - 1
            for j in range(m.end() - 1, len(decl)):
                depth += {'(': 1, ')': -1}.get(decl[j], 0)
                if depth == 0:
                    break
            decl = decl[:m.start()] + ' ' + decl[j + 1:]

    @staticmethod
    def function_name(decl):
        decl = Source.drop_attributes(decl)
        if '=' in decl.split('(')[0]:
            return None
        for m in re.finditer(r'([A-Za-z_]\w*)\s*\(', decl):
            if m.group(1) not in NOT_NAMES:
                # a declarator, not a struct/union/enum body
                if re.search(r'\b(struct|union|enum)\s+\w*\s*$', decl.strip()):
                    return None
                return m.group(1)
        return None

    def uses(self):
        """(function, name) for every identifier in a body"""
        for fn, body in self.bodies:
            for m in IDENT.finditer(body):
                before = body[max(0, m.start() - 8):m.start()]
                # a struct tag or a member, not a function
                if re.search(r'(\b(struct|union|enum)\s+|\.\s*|->\s*)$', before):
                    continue
                yield fn, m.group(0)


def list_files():
    ks = sorted(os.path.join(KS, f) for f in os.listdir(os.path.join(ROOT, KS))
                if f.endswith(('.c', '.h')) and not f.startswith('gen-'))
    outside = []
    for d in OUTSIDE_DIRS:
        for sub, _dirs, names in sorted(os.walk(os.path.join(ROOT, d))):
            rel = os.path.relpath(sub, ROOT)
            outside += sorted(os.path.join(rel, f) for f in names if f.endswith(('.c', '.h')))
    outside.append('volctl.c')
    return ks, outside


LAYER_OF = {}		# file -> layer, filled by main() when the README has them


def module(path):
    """x.c and x.h are one module, unless the layer table puts them apart"""
    stem = re.sub(r'\.[ch]$', '', path)
    other = stem + ('.h' if path.endswith('.c') else '.c')
    if other in LAYER_OF and path in LAYER_OF and LAYER_OF[other] != LAYER_OF[path]:
        return os.path.basename(path)
    return os.path.basename(stem)


def resolve_include(inc, ks_set):
    for cand in (inc, os.path.join(KS, inc)):
        cand = os.path.normpath(cand)
        if cand in ks_set:
            return cand
    return None


def build():
    ks, outside = list_files()
    ks_set = set(ks)
    srcs = {p: Source(p) for p in ks + outside}
    owner = {}		# exported name -> kernel-shared file defining it
    for p in ks:
        for name in srcs[p].exported:
            # a .c definition wins over a header prototype-like macro
            if name not in owner or owner[name].endswith('.h') and p.endswith('.c'):
                owner[name] = p
    inc = {}		# file -> set of kernel-shared headers
    calls = {}		# file -> {target file -> set of 'caller -> callee'}
    for p, s in srcs.items():
        inc[p] = set()
        for i in s.includes:
            r = resolve_include(i, ks_set)
            if r and r != p:
                inc[p].add(r)
        calls[p] = {}
        for fn, name in s.uses():
            t = owner.get(name)
            if not t or t == p or name in s.local:
                continue
            calls[p].setdefault(t, set()).add('%s -> %s' % (fn, name))
    return ks, outside, inc, calls


def sccs(nodes, edges):
    """Tarjan, iterative; components of more than one node, sorted"""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        onstack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


def short_cycle(comp, edges):
    """One shortest cycle through the first node of @comp, for the report"""
    start = comp[0]
    members = set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def read_layers():
    """[(number, name, [files])] from the Layers table of the README"""
    path = os.path.join(ROOT, KS, 'README.md')
    layers = []
    in_section = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('## '):
                in_section = line.strip() == '## Layers'
                continue
            if not in_section or not line.startswith('|'):
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if len(cells) < 3 or not cells[0].isdigit():
                continue
            files = [os.path.join(KS, f) for f in re.findall(r'`([^`]+\.[ch])`', cells[2])]
            layers.append((int(cells[0]), cells[1], files))
    return layers


def layer_map(ks, layers, problems):
    where = {}
    for num, name, files in layers:
        for f in files:
            if f in where:
                problems.append('%s: in layer %d and layer %d' % (f, where[f], num))
            if not os.path.exists(os.path.join(ROOT, f)):
                problems.append('%s: in layer %d but no such file' % (f, num))
            where[f] = num
    for f in ks:
        if f not in where:
            problems.append('%s: in no layer of kernel-shared/README.md' % f)
    return where


def violations(ks, inc, calls, where):
    out = []
    for p in ks:
        lp = where.get(p)
        if lp is None:
            continue
        for h in sorted(inc[p]):
            if where.get(h, -1) > lp:
                out.append('%s (layer %d) includes %s (layer %d)' % (p, lp, h, where[h]))
        for t in sorted(calls[p]):
            if where.get(t, -1) > lp:
                for c in sorted(calls[p][t]):
                    out.append('%s (layer %d) calls %s (layer %d): %s' % (p, lp, t, where[t], c))
    return out


COMMON = 'common'


def read_table(path, title):
    """rows of the table under the heading @title: a list of cell lists"""
    rows, inside = [], False
    try:
        lines = open(os.path.join(ROOT, path)).read().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith('#'):
            inside = line.strip() == title
            continue
        if inside and line.startswith('|'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if cells and not set(cells[0]) <= set('-: '):
                rows.append(cells)
    return rows[1:] if rows else rows


def ticks(cell):
    return re.findall(r'`([^`]+)`', cell)


def common_part(path, parts):
    """the part of a common/ file, cmds/ or volctl.c; None outside them all"""
    if path.startswith(COMMON + '/'):
        d = path.split('/')
        return d[1] if len(d) > 2 and d[1] in parts else None
    if path.startswith('cmds/'):
        return 'cmds'
    if path == 'volctl.c':
        return 'volctl.c'
    return None


def common_graph(outside):
    """includes and calls between common/ files and from cmds/, volctl.c"""
    srcs = {p: Source(p) for p in outside}
    cfiles = [p for p in outside if p.startswith(COMMON + '/')]
    cset = set(cfiles)
    owner = {}
    for p in cfiles:
        for name in srcs[p].exported:
            if name not in owner or owner[name].endswith('.h') and p.endswith('.c'):
                owner[name] = p
    edges = {}		# file -> {target file -> set of names ('#include' for includes)}
    for p, s in srcs.items():
        e = edges.setdefault(p, {})
        for i in s.includes:
            r = os.path.normpath(i)
            if r in cset and r != p:
                e.setdefault(r, set()).add('#include')
        for fn, name in s.uses():
            t = owner.get(name)
            if not t or t == p or name in s.local:
                continue
            e.setdefault(t, set()).add('%s -> %s' % (fn, name))
    return cfiles, edges


def common_rules():
    """({part: set of allowed parts}, {(file, part): set of names}, problems)"""
    problems = []
    rows = read_table(os.path.join(COMMON, 'README.md'), '## Parts')
    if not rows:
        return {}, {}, ['common/README.md: no "## Parts" table']
    allowed = {}
    for cells in rows:
        first = ticks(cells[0])
        if not first:
            problems.append('common/README.md: a Parts row names no part: %s' % cells[0])
            continue
        name = first[0].rstrip('/')
        name = name[len(COMMON) + 1:] if name.startswith(COMMON + '/') else name
        allowed[name] = set(t.rstrip('/') for t in ticks(cells[-1])) | {name}
    for name, may in allowed.items():
        for m in sorted(may - set(allowed)):
            problems.append('common/README.md: part %s may use %s, no such part' % (name, m))
    pending = {}
    for cells in read_table(os.path.join(COMMON, 'README.md'), '## Pending edges') or []:
        t = ticks(cells[0]) + ticks(cells[1]) if len(cells) > 2 else []
        if len(t) < 2:
            continue
        pending[(t[0], t[1].rstrip('/'))] = set(ticks(cells[2]))
    return allowed, pending, problems


def common_violations(outside):
    allowed, pending, problems = common_rules()
    if not allowed:
        return problems
    parts = set(allowed) - {'cmds', 'volctl.c'}
    cfiles, edges = common_graph(outside)
    foldered = any(common_part(p, parts) for p in cfiles)
    out = list(problems)
    for p in cfiles:
        if foldered and common_part(p, parts) is None:
            out.append('%s: in no part of common/README.md (scripts/move-common.sh)' % p)
    for p in sorted(edges):
        a = common_part(p, parts)
        if a is None:
            continue
        for t in sorted(edges[p]):
            b = common_part(t, parts)
            if b is None or b in allowed.get(a, ()):
                continue
            names = edges[p][t] - pending.get((p, b), set())
            for c in sorted(names):
                if c == '#include':
                    out.append('%s (%s) includes %s (%s)' % (p, a, t, b))
                else:
                    out.append('%s (%s) calls %s (%s): %s' % (p, a, t, b, c))
    return out


def common_summary(outside):
    """part -> part: number of files edges, for the report"""
    allowed, _pending, _problems = common_rules()
    parts = set(allowed) - {'cmds', 'volctl.c'}
    _cfiles, edges = common_graph(outside)
    count = {}
    for p in edges:
        a = common_part(p, parts) or (p if p.startswith(COMMON + '/') else None)
        if a is None:
            continue
        for t in edges[p]:
            b = common_part(t, parts) or t
            if a != b:
                k = count.setdefault((a, b), [0, 0])
                k[0] += '#include' in edges[p][t]
                k[1] += len(edges[p][t] - {'#include'})
    return count


def main(argv):
    detail = '--detail' in argv
    ks, outside, inc, calls = build()
    layers = read_layers()
    problems = []
    where = layer_map(ks, layers, problems) if layers else {}
    LAYER_OF.update(where)

    if '--check' in argv:
        if not layers:
            problems.append('kernel-shared/README.md: no "## Layers" table')
        bad = problems + violations(ks, inc, calls, where) + common_violations(outside)
        for b in bad:
            print(b)
        return 1 if bad else 0

    if '--common' in argv:
        print('# common/ parts: part -> part: file pairs including, calls')
        for (a, b), (ni, nc) in sorted(common_summary(outside).items()):
            print('%s -> %s: %d includes, %d calls' % (a, b, ni, nc))
        for v in common_violations(outside):
            print('  not allowed: %s' % v)
        return 0

    if '--dot' in argv:
        print('digraph kernel_shared {')
        mods = {}
        for p in ks:
            for t in list(inc[p]) + list(calls[p]):
                if module(t) != module(p):
                    mods.setdefault((module(p), module(t)), set()).add(
                        'call' if t in calls[p] else 'include')
        for (a, b), kinds in sorted(mods.items()):
            style = '' if 'call' in kinds else ' [style=dashed]'
            print('  "%s" -> "%s"%s;' % (a, b, style))
        print('}')
        return 0

    print('# kernel-shared/ include graph (file: kernel-shared headers it includes)')
    for p in ks:
        if inc[p]:
            print('%s: %s' % (p, ' '.join(sorted(os.path.basename(h) for h in inc[p]))))
    print()
    print('# kernel-shared/ call graph (file -> file it calls: number of distinct calls)')
    ncalls = 0
    for p in ks:
        for t in sorted(calls[p]):
            ncalls += len(calls[p][t])
            print('%s -> %s: %d' % (p, t, len(calls[p][t])))
            if detail:
                for c in sorted(calls[p][t]):
                    print('    %s' % c)
    print()
    print('# cmds/, common/, volctl.c -> kernel-shared/ (files called; headers included)')
    for p in outside:
        called = sorted(os.path.basename(t) for t in calls[p] if t.startswith(KS + '/'))
        hdrs = sorted(os.path.basename(h) for h in inc[p])
        if called or hdrs:
            print('%s: calls %s; includes %s' % (p, ' '.join(called) or '-', ' '.join(hdrs) or '-'))
    print()

    medges = {}
    for p in ks:
        for t in list(inc[p]) + list(calls[p]):
            if module(t) != module(p):
                medges.setdefault(module(p), set()).add(module(t))
    mods = sorted({module(p) for p in ks})
    comps = sccs(mods, medges)
    print('# cycles (modules that reach each other by includes and calls)')
    mlayers = {}
    for p in ks:
        if p in where:
            mlayers.setdefault(module(p), set()).add(where[p])

    def layers_of(c):
        return sorted(set().union(*(mlayers.get(m, set()) for m in c)))

    def layer_note(c):
        ls = layers_of(c)
        if len(ls) > 1:
            return ' (ACROSS layers %s)' % ', '.join(str(x) for x in ls)
        return ' (layer %d)' % ls[0] if ls else ''

    for c in comps:
        print('cycle of %d%s: %s' % (len(c), layer_note(c), ' '.join(c)))
        print('    e.g. %s' % ' -> '.join(short_cycle(c, medges)))
    cedges = {}
    for p in ks:
        for t in calls[p]:
            if module(t) != module(p):
                cedges.setdefault(module(p), set()).add(module(t))
    ccomps = sccs(mods, cedges)
    print('# call cycles (calls only)')
    for c in ccomps:
        print('cycle of %d%s: %s' % (len(c), layer_note(c), ' '.join(c)))
        print('    e.g. %s' % ' -> '.join(short_cycle(c, cedges)))
    print()

    nfiles = len(ks)
    nlines = sum(sum(1 for _ in open(os.path.join(ROOT, p), encoding='utf-8',
                                     errors='replace')) for p in ks)
    print('# summary')
    print('files %d, lines %d, include edges %d, call edges (file pairs) %d, distinct calls %d'
          % (nfiles, nlines, sum(len(inc[p]) for p in ks), sum(len(calls[p]) for p in ks), ncalls))
    print('cycles %d (largest %d modules), call cycles %d (largest %d modules)'
          % (len(comps), max([len(c) for c in comps] or [0]),
             len(ccomps), max([len(c) for c in ccomps] or [0])))
    if layers:
        print('cycles across layers: %d (includes and calls), %d (calls only)'
              % (sum(len(layers_of(c)) > 1 for c in comps),
                 sum(len(layers_of(c)) > 1 for c in ccomps)))
    if layers:
        for pr in problems:
            print('layer table: %s' % pr)
        up = violations(ks, inc, calls, where)
        down = same = 0
        for p in ks:
            for t in calls[p]:
                if p in where and t in where:
                    if where[t] < where[p]:
                        down += len(calls[p][t])
                    elif where[t] == where[p]:
                        same += len(calls[p][t])
        print('calls within a layer %d, down a layer or more %d; upward includes and calls %d'
              % (same, down, len(up)))
        for u in up:
            print('  upward: %s' % u)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
