#!/usr/bin/python3
"""check_arch.py [--root DIR] [--build DIR] | --self-test: tta's architecture rules over the source tree.

The rules (docs/architecture.md, issue 13), each printed as FAIL lines naming files, lines and names:
  circles   no include circle (headers that include each other in a loop), no call circle (.c files
            that call each other in a loop: a file calls another when it calls, or takes the address
            of, a name that the other defines), inside a module or across modules; and no circle of
            modules (a module uses another when one of its files includes or calls one of the other's).
  order     each arrow between modules follows the intended order
            cli -> reports -> {db, stats, replay, ingest} -> common, with ingest -> db.
  sql       no SQL outside db/: no string literal that is SQL, no sqlite3_* name, no *.sql file, no
            CMakeLists.txt that embeds schemas/*.sql.
  size      no cli/cmd_*.c above 150 lines; no function in replay/ above 120 lines (from the line of
            its name to its closing brace).
  headers   each module has one public header (<module>/<module>.h; common: each of its headers):
            no other module includes another of its headers, nor calls a name its public header
            does not declare.
  identity  the columns that say which entry a row is (keys entry, round, division, submitter,
            system, benchmark) are defined once, in reports/builders.h: no other file of reports/
            spells one ({"round", "round", TTA_COL_TEXT, ...}, in code or in a macro); reports take
            TTA_ROUND_COLUMN and its siblings. A column that only shares a key, and says why, is
            listed in IDENTITY_OWN.
  errors    a module's public header speaks common/error.h: no char **err parameter (a malloc'd
            message) and no char *err, size_t errlen pair (a caller's buffer).
  names     the round and submitter of every replay are spelt once, in common/replay_log.h
            (TTA_REPLAY_ROUND, TTA_REPLAY_SUBMITTER): no other file has the string literal "local",
            nor SQL text quoting 'local' or 'replay'; outside cli/ (whose command is named "replay")
            no string literal "replay" either. A literal that is another thing, and says why, is
            listed in NAMES_OWN.

Calls are read from the build's object files (`nm`, under $TTA_BUILD_DIR or --build: every
<dir>/CMakeFiles/<target>.dir/.../<file>.c.o); a source file without a fresh object (no build
given, not compiled in this configuration, or edited since) is read by a small C scan instead.
Scanned: cli/ common/ db/ ingest/ stats/ replay/ reports/ (not tests/, bench/, fixtures/).
Exit status 0 when every rule holds, 1 when one does not, 2 on a usage error.

--self-test builds small trees in a temporary folder, each breaking one rule (and a clean one),
and checks that the rule, and only it, fails: by the C scan, and through cc and nm where present."""
import os, re, shutil, subprocess, sys, tempfile

MODULES = ["cli", "reports", "db", "stats", "replay", "ingest", "check", "common"]
# The arrows between modules that the intended order allows (cli may use every module).
ALLOWED = {
    "cli": {"reports", "db", "stats", "replay", "ingest", "check", "common"},
    "reports": {"db", "stats", "replay", "ingest", "check", "common"},
    "ingest": {"db", "check", "common"},
    "check": {"common"},
    "db": {"common"},
    "stats": {"common"},
    "replay": {"common"},
    "common": set(),
}
CMD_LINES = 150
# The identity columns: their keys, and the one file that defines them.
IDENTITY_KEYS = ("entry", "round", "division", "submitter", "system", "benchmark")
IDENTITY_HOME = "reports/builders.h"
# Columns outside IDENTITY_HOME whose key is an identity key but which are another column:
# (file, key, header for people) -> why.
IDENTITY_OWN = {
    ("reports/results_table.c", "system", "system name"):
        "the result summarizer's column: the description's system_name, not the results folder",
}
# The replays' round and submitter, and the one file that spells them.
REPLAY_NAMES = ("local", "replay")
REPLAY_NAMES_HOME = "common/replay_log.h"
# Literals outside REPLAY_NAMES_HOME that spell one of them but are another thing: (file, word) -> why.
NAMES_OWN = {
    ("replay/trainer.c", "local"): "the system name of a run given none (tta_replay_options.system NULL)",
    ("replay/checkpoint.c", "local"): "the system name of a run given none (tta_replay_options.system NULL)",
    ("reports/verify.c", "replay"): "the key of the comparison's column of the replay side",
}
REPLAY_FUNCTION_LINES = 120
SOURCE_EXT = (".c", ".h", ".cu")


# db/ has two contracts over its base header (docs/architecture.md): each module that reaches the
# database takes one of them, never the other.
DB_BASE = "db/db.h"
DB_CONTRACTS = {"db/reader.h": "the readers' (queries)", "db/writer.h": "the writer's (records, writer, facts)"}
DB_CONTRACT_OF = {"reports": "db/reader.h", "cli": "db/reader.h", "ingest": "db/writer.h"}
# A run's facts are worked out in one file (the writer's, at write time); nowhere else does code
# derive one from a run's raw columns: these patterns in a string literal (SQL) or in code.
FACTS_HOME = "db/facts.c"
FACTS_SQL = [
    (re.compile(r"run_stop\s*-\s*run_start"), "a duration from run_stop - run_start"),
    (re.compile(r"\bdawnbench_tta\b"), "DAWNBench's time to the threshold"),
    (re.compile(r"\bcp_(?:epoch_num|samples_count|train_samples|first_passing_\w+|status)\b"),
     "the RCP checker's convergence point candidates (runs.cp_*)"),
    (re.compile(r"1e-6\s*\*\s*abs\("), "an evaluation's verdict against its target"),
]
# ... and the writer stores the candidates it derives from (INSERT names the columns).
FACTS_RAW_OK = {"db/store.c"}
FACTS_CODE = [
    (re.compile(r"run_stop_s\s*-"), "a duration from run_stop_s - run_start_s"),
]
FACTS_CODE_MODULES = {"reports", "cli", "stats"}


def public_headers(module, headers):
    """The headers of module that other modules may include: <module>/<module>.h (db: its base
    header and its two contracts), or, for common (small independent utilities, each with its
    contract), every header it has."""
    if module == "common":
        return set(headers)
    if module == "db":
        return {DB_BASE} | set(DB_CONTRACTS)
    return {"%s/%s.h" % (module, module)}


# ---- a small C lexer ----------------------------------------------------------------------------

TOKEN = re.compile(r'''
    (?P<nl>\n) | (?P<ws>[ \t\f\v\r]+) | (?P<lc>//[^\n]*) | (?P<bc>/\*.*?(?:\*/|\Z)) |
    (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*"?) | (?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*'?) |
    (?P<id>[A-Za-z_]\w*) | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*) | (?P<esc>\\\n) |
    (?P<op>->|<<=|>>=|\.\.\.|[-+*/%&|^!=<>]=|&&|\|\||<<|>>|\+\+|--|\#\#|.)''', re.X | re.S)


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line


def lex(text):
    """(tokens, includes, directives): the C tokens outside comments and preprocessor lines
    (strings kept), each `#include "..."` as (line, path), and each directive's tokens."""
    toks, includes, directives = [], [], []
    line, bol, directive = 1, True, None

    def add_include(d):
        directives.append(d)
        if len(d) > 2 and d[1].text == "include" and d[2].kind == "str":
            includes.append((d[0].line, d[2].text.strip('"')))
    for m in TOKEN.finditer(text):
        kind, s = m.lastgroup, m.group()
        if kind == "nl":
            if directive is not None:
                add_include(directive)
                directive = None
            line += 1
            bol = True
            continue
        if kind in ("ws", "lc"):
            continue
        if kind in ("bc", "esc"):
            line += s.count("\n")
            continue
        tok = Tok(kind, s, line)
        if directive is not None:
            directive.append(tok)
        elif bol and s == "#":
            directive = [tok]
        else:
            toks.append(tok)
        bol = False
    if directive is not None:
        add_include(directive)
    return toks, includes, directives


KEYWORDS = set("""auto break case char const continue default do double else enum extern float for goto
if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while _Bool _Complex _Atomic _Static_assert _Thread_local _Alignas _Alignof
_Noreturn _Generic __attribute__ __typeof__ typeof asm __asm__ bool true false NULL""".split())


class Unit:
    """What the scan reads from one file: function definitions (name, first line, last line,
    static), file-scope variables defined here (not static), and every name used."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        self.toks, self.includes, self.directives = lex(text)
        self.functions, self.globals, self.refs = [], set(), {}
        self._scan()

    def _scan(self):
        toks, depth, start, i = self.toks, 0, 0, 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.text == "{" and depth == 0:
                name = self._function_name(start, i)
                close = self._match(i, "{", "}")
                if name is not None:
                    stmt = [x.text for x in toks[start:i]]
                    self.functions.append((name.text, name.line, toks[close].line, "static" in stmt))
                    i, start = close + 1, close + 1
                    continue
                depth += 1
            elif t.text == "{":
                depth += 1
            elif t.text == "}":
                depth = max(depth - 1, 0)
            elif t.text == ";" and depth == 0:
                self._declaration(start, i)
                start = i + 1
            i += 1
        for j, t in enumerate(toks):
            if t.kind == "id" and t.text not in KEYWORDS and not (j and toks[j - 1].text in (".", "->")):
                self.refs.setdefault(t.text, t.line)

    def _match(self, i, open_, close):
        depth = 0
        for j in range(i, len(self.toks)):
            if self.toks[j].text == open_:
                depth += 1
            elif self.toks[j].text == close:
                depth -= 1
                if depth == 0:
                    return j
        return len(self.toks) - 1

    def _back_match(self, i, open_, close):
        depth = 0
        for j in range(i, -1, -1):
            if self.toks[j].text == close:
                depth += 1
            elif self.toks[j].text == open_:
                depth -= 1
                if depth == 0:
                    return j
        return -1

    def _function_name(self, start, brace):
        """The name token when toks[start:brace] is a function's declarator ( `... name(...) {` )."""
        j = brace - 1
        if j < start or self.toks[j].text != ")":
            return None
        if any(t.text == "=" for t in self.toks[start:brace]):
            return None
        while j >= start and self.toks[j].text == ")":
            o = self._back_match(j, "(", ")")
            if o <= start:
                return None
            prev = self.toks[o - 1]
            if prev.kind == "id" and prev.text in ("__attribute__", "__asm__", "asm"):
                j = o - 2
                continue
            if prev.kind == "id" and prev.text not in KEYWORDS:
                return prev
            if prev.text == ")":  # a function returning a function pointer: void (*f(int))(int)
                j = o - 1
                continue
            return None
        return None

    def _declaration(self, start, end):
        """Adds the variables a file-scope declaration toks[start:end] defines (not static, extern
        nor typedef): each name followed, outside brackets, by =, [, a comma or the end."""
        stmt = self.toks[start:end]
        if not stmt or {t.text for t in stmt} & {"typedef", "extern", "static"}:
            return
        depth, skip = 0, False
        for k, t in enumerate(stmt):
            nxt = stmt[k + 1].text if k + 1 < len(stmt) else ";"
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
            elif depth == 0 and not skip and t.kind == "id" and t.text not in KEYWORDS and nxt in ("=", "[", ",", ";"):
                if k and stmt[k - 1].text not in ("struct", "union", "enum"):
                    self.globals.add(t.text)
                skip = nxt == "="  # an initializer follows, until the next comma at depth 0
            elif depth == 0 and t.text == ",":
                skip = False

    def defined(self):
        """Names this file defines for other files: non-static functions and variables."""
        return {f[0] for f in self.functions if not f[3]} | self.globals


# ---- the tree -------------------------------------------------------------------------------------

def module_of(path):
    top = path.split("/", 1)[0]
    return top if top in MODULES else None


class Tree:
    def __init__(self, root, build=None):
        self.root = os.path.abspath(root)
        self.files = {}
        for m in MODULES:
            base = os.path.join(self.root, m)
            for d, dirs, names in os.walk(base):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(SOURCE_EXT):
                        rel = os.path.relpath(os.path.join(d, name), self.root)
                        with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                            self.files[rel] = Unit(rel, f.read())
        self.headers = {m: sorted(p for p in self.files if p.endswith(".h") and module_of(p) == m)
                        for m in MODULES}
        self.public = {m: public_headers(m, self.headers[m]) for m in MODULES}
        self.objects, self.how = self._read_objects(build)

    def resolve_include(self, frm, inc):
        for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(frm), inc))):
            if cand in self.files:
                return cand
        return None

    def _read_objects(self, build):
        """{source path: (defined names, undefined names)} from the build's objects, for the
        sources whose object is at least as new as the source."""
        objs = {}
        if not build or not os.path.isdir(build) or not shutil.which("nm"):
            return objs, "no build given: calls read by the C scan"
        build = os.path.abspath(build)
        stale, found = [], []
        for d, dirs, names in os.walk(build):
            dirs.sort()
            for name in sorted(names):
                if not name.endswith(".o"):
                    continue
                full = os.path.join(d, name)
                rel = os.path.relpath(full, build)
                m = re.match(r"(?:(.*)/)?CMakeFiles/[^/]+\.dir/(.+)\.o$", rel)
                if not m:
                    continue
                src = os.path.normpath(os.path.join(m.group(1) or "", m.group(2).replace("__/", "../")))
                if src not in self.files:
                    continue
                if os.path.getmtime(full) < os.path.getmtime(os.path.join(self.root, src)):
                    stale.append(src)
                    continue
                found.append((src, full))
        # one nm for every object: "<object>: <name> <type> [<value> <size>]" a line
        out = subprocess.run(["nm", "-A", "-P"] + [o for _, o in found], capture_output=True,
                             text=True).stdout if found else ""
        src_of = {o: s for s, o in found}
        for s, _ in found:
            objs.setdefault(s, (set(), set()))
        for line in out.splitlines():
            head, _, rest = line.partition(": ")
            f = rest.split()
            if head not in src_of or len(f) < 2:
                continue
            defs, undefs = objs[src_of[head]]
            if f[1] == "U":
                undefs.add(f[0])
            elif f[1] in "TDBRCWVSG":
                defs.add(f[0])
        stale = [s for s in stale if s not in objs]  # a second object of it (tta_cuda's copies) is fresh
        how = "calls read from %d object files in %s" % (len(objs), build)
        if stale:
            how += "; older than their source, read by the C scan: " + ", ".join(sorted(set(stale)))
        return objs, how

    def graphs(self):
        """(includes, calls): {file: {file: [ties]}}. includes: `#include "x.h"` between files of
        the tree (headers are files of their own); calls: between .c files, a name that one uses
        (calls, or takes the address of) and the other defines."""
        includes, calls = {}, {}
        for p, u in self.files.items():
            for line, inc in u.includes:
                q = self.resolve_include(p, inc)
                if q and q != p:
                    includes.setdefault(p, {}).setdefault(q, ['#include "%s" (line %d)' % (q, line)])
        definers = {}
        for p, u in self.files.items():
            if p.endswith(".h"):
                continue
            names = self.objects[p][0] if p in self.objects else u.defined()
            for name in names:
                definers.setdefault(name, set()).add(p)
        for p, u in self.files.items():
            if p.endswith(".h"):
                continue
            if p in self.objects:
                used = self.objects[p][1]
            else:
                mine = u.defined() | {f[0] for f in u.functions}
                used = {n for n in u.refs if n in definers and n not in mine}
            for name in sorted(used):
                for q in sorted(definers.get(name, ())):
                    if q != p:
                        calls.setdefault(p, {}).setdefault(q, []).append(name)
        return includes, calls


def strongly_connected(nodes, edges):
    """Tarjan's components with more than one node, each sorted; iterative."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
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
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def ties_text(ties, most=8):
    shown = ", ".join(ties[:most])
    return shown + (", and %d more" % (len(ties) - most) if len(ties) > most else "")


# ---- the rules ------------------------------------------------------------------------------------

def check_circles(tree, fail):
    includes, calls = tree.graphs()
    for kind, edges in (("include", includes), ("call", calls)):
        nodes = set(edges) | {b for a in edges for b in edges[a]}
        for comp in strongly_connected(nodes, edges):
            mods = sorted({module_of(p) for p in comp})
            where = "inside %s" % mods[0] if len(mods) == 1 else "across modules %s" % ", ".join(mods)
            lines = ["  %s -> %s: %s" % (a, b, ties_text(edges[a][b])) for a in comp
                     for b in sorted(edges.get(a, {})) if b in comp]
            fail("circles", "%s circle of %d files %s: %s\n%s"
                 % (kind, len(comp), where, ", ".join(comp), "\n".join(lines)))
    medges = {}
    for edges in (includes, calls):
        for a in sorted(edges):
            for b, ties in sorted(edges[a].items()):
                ma, mb = module_of(a), module_of(b)
                if ma != mb:
                    medges.setdefault(ma, {}).setdefault(mb, []).append("%s -> %s (%s)" % (a, b, ties_text(ties, 4)))
    for comp in strongly_connected(set(MODULES), medges):
        lines = ["  %s -> %s: %s" % (a, b, "; ".join(medges[a][b][:6]) +
                                     ("; and %d more" % (len(medges[a][b]) - 6) if len(medges[a][b]) > 6 else ""))
                 for a in comp for b in sorted(medges.get(a, {})) if b in comp]
        fail("circles", "circle of modules: %s\n%s" % (", ".join(comp), "\n".join(lines)))
    tree.module_edges = medges
    for a in sorted(medges):
        for b in sorted(medges[a]):
            if b not in ALLOWED[a]:
                ties = medges[a][b]
                fail("order", "%s -> %s runs against the order cli -> reports -> {db, stats, replay, ingest} -> common "
                     "(ingest -> db): %s%s" % (a, b, "; ".join(ties[:6]),
                                               "; and %d more" % (len(ties) - 6) if len(ties) > 6 else ""))


SQL = re.compile(r"""\b(?:SELECT\s+\S|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|REPLACE\s+INTO\b|UPDATE\s+\w+\s+SET\b|
    DELETE\s+FROM\b|CREATE\s+(?:TEMP\w*\s+)?(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\b|DROP\s+(?:TABLE|INDEX|VIEW|TRIGGER)\b|
    ALTER\s+TABLE\b|PRAGMA\s+\w|BEGIN(?:\s+(?:IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION))?\s*;?\s*$|
    (?:COMMIT|ROLLBACK)(?:\s+TRANSACTION)?\s*;?\s*$|SAVEPOINT\s+\w|RELEASE\s+(?:SAVEPOINT\s+)?\w+\s*;?\s*$|
    ATTACH\s+DATABASE\b|VACUUM\b|WITH\s+(?:RECURSIVE\s+)?\w+(?:\s*\([^)]*\))?\s+AS\s*\(|
    (?:WHERE|AND|OR)\s+[\w.]+\s*(?:=|<|>|!=|<>|\s(?:IS|IN|LIKE|GLOB|BETWEEN)\b)|
    \b(?:LEFT\s+|INNER\s+|CROSS\s+)?JOIN\s+\w+\s+(?:\w+\s+)?(?:ON|USING)\b|ORDER\s+BY\s+\w|GROUP\s+BY\s+\w)""", re.X)


def literal_groups(toks):
    """Adjacent string literals as one (line, text), macros between them read as a space."""
    groups, cur = [], None
    for t in toks:
        if t.kind == "str":
            body = t.text[t.text.index('"') + 1:]
            body = body[:-1] if body.endswith('"') else body
            if cur is None:
                cur = [t.line, body]
            else:
                cur[1] += body
        elif cur is not None and t.kind == "id" and t.text.isupper():
            cur[1] += " "
        else:
            if cur is not None:
                groups.append(tuple(cur))
            cur = None
    if cur is not None:
        groups.append(tuple(cur))
    return groups


def check_sql(tree, fail):
    for p, u in sorted(tree.files.items()):
        if module_of(p) == "db":
            continue
        for line, text in [g for d in [u.toks] + u.directives for g in literal_groups(d)]:
            m = SQL.search(text.replace("\\n", "\n").replace("\\t", " "))
            if m:
                fail("sql", "%s:%d: SQL outside db/: \"%s\"" % (p, line, short(text)))
        uses = {}
        for t in u.toks:
            if t.kind == "id" and t.text.startswith("sqlite3_"):
                uses.setdefault(t.text, []).append(t.line)
        if uses:
            fail("sql", "%s: SQLite outside db/: %s" % (p, ", ".join(
                "%s (line %s)" % (n, ", ".join(map(str, sorted(set(ls))[:5])) + (", ..." if len(set(ls)) > 5 else ""))
                for n, ls in sorted(uses.items()))))
    for m in MODULES:
        if m == "db":
            continue
        base = os.path.join(tree.root, m)
        for d, dirs, names in os.walk(base):
            dirs.sort()
            for name in sorted(names):
                rel = os.path.relpath(os.path.join(d, name), tree.root)
                if name.endswith(".sql"):
                    fail("sql", "%s: an SQL file outside db/ and schemas/" % rel)
                if name == "CMakeLists.txt":
                    with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                        for k, line in enumerate(f, 1):
                            if re.search(r"schemas/(?:\*|[\w-]+)\.sql|schemas/embed\.cmake", line):
                                fail("sql", "%s:%d: embeds the schema's SQL outside db/: %s" % (rel, k, line.strip()))


def short(text, most=90):
    text = " ".join(text.replace("\\n", " ").split())
    return text if len(text) <= most else text[:most - 3] + "..."


def check_size(tree, fail):
    for p, u in sorted(tree.files.items()):
        if re.fullmatch(r"cli/cmd_[^/]*\.c", p) and u.lines > CMD_LINES:
            fail("size", "%s: %d lines (at most %d: a command parses its options and calls one module entry point)"
                 % (p, u.lines, CMD_LINES))
        if module_of(p) == "replay":
            for name, first, last, _ in u.functions:
                if last - first + 1 > REPLAY_FUNCTION_LINES:
                    fail("size", "%s:%d: %s: %d lines (at most %d in replay/)"
                         % (p, first, name, last - first + 1, REPLAY_FUNCTION_LINES))


def check_headers(tree, fail):
    for p, u in sorted(tree.files.items()):
        mp = module_of(p)
        for line, inc in u.includes:
            q = tree.resolve_include(p, inc)
            if not q or module_of(q) == mp:
                continue
            mq = module_of(q)
            if q not in tree.public[mq]:
                fail("headers", "%s:%d: includes %s, internal to %s/ (its public header: %s)"
                     % (p, line, q, mq, ", ".join(sorted(tree.public[mq])) or "none"))
    declared = {}
    for m in MODULES:
        names = set()
        todo, seen = sorted(h for h in tree.public[m] if h in tree.files), set()
        while todo:  # a public header's own includes inside the module are part of its contract
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            names |= {t.text for t in tree.files[h].toks if t.kind == "id"}
            for _, inc in tree.files[h].includes:
                q = tree.resolve_include(h, inc)
                if q and module_of(q) == m:
                    todo.append(q)
        declared[m] = names
    edges = tree.graphs()[1]
    for a in sorted(edges):
        for b in sorted(edges[a]):
            ma, mb = module_of(a), module_of(b)
            if ma == mb:
                continue
            hidden = [t for t in edges[a][b] if t not in declared[mb]]
            if hidden:
                fail("headers", "%s uses %s of %s, not declared in %s's public header %s"
                     % (a, ties_text(hidden), b, mb, ", ".join(sorted(tree.public[mb])) or "(none)"))


def check_identity(tree, fail):
    for p, u in sorted(tree.files.items()):
        if module_of(p) != "reports" or p == IDENTITY_HOME:
            continue
        for toks in [u.toks] + u.directives:
            for k in range(len(toks) - 5):  # a tta_column: {key, header, TTA_COL_<kind>, ...}
                a, key, comma, header, comma2, kind = toks[k:k + 6]
                if (a.text != "{" or key.kind != "str" or comma.text != "," or header.kind != "str" or
                        comma2.text != "," or not kind.text.startswith("TTA_COL_")):
                    continue
                name, head = key.text.strip('"'), header.text.strip('"')
                if name in IDENTITY_KEYS and (p, name, head) not in IDENTITY_OWN:
                    fail("identity", '%s:%d: defines the identity column "%s" again ({%s, %s, ...}): take it '
                         "from %s (TTA_%s_COLUMN)" % (p, key.line, name, key.text, header.text, IDENTITY_HOME,
                                                      name.upper()))


def check_errors(tree, fail):
    """A module's public header speaks common/error.h: no parameter char **err (a malloc'd message)
    or char *err, size_t errlen (a caller's buffer), the conventions tta_error replaced."""
    for m in MODULES:
        for h in sorted(tree.public[m]):
            if h not in tree.files:
                continue
            toks = tree.files[h].toks
            for k in range(len(toks) - 3):
                a, b, c, d = toks[k:k + 4]
                if a.text != "char" or b.text != "*":
                    continue
                if c.text == "*" and d.kind == "id" and "err" in d.text:
                    fail("errors", "%s:%d: a char **%s parameter: a public function returns a tta_status and fills "
                         "a tta_error (common/error.h)" % (h, a.line, d.text))
                elif (c.kind == "id" and "err" in c.text and d.text == "," and k + 4 < len(toks) and
                      toks[k + 4].text == "size_t"):
                    fail("errors", "%s:%d: a char *%s, size_t parameter pair: a public function returns a tta_status "
                         "and fills a tta_error (common/error.h)" % (h, a.line, c.text))


def check_contracts(tree, fail):
    """reports/ and cli/ include (and call) db/'s readers' contract only, ingest/ the writer's only;
    through another module's header too (cli includes ingest/ingest.h)."""
    names = {}
    for h in [DB_BASE] + sorted(DB_CONTRACTS):
        names[h] = {t.text for t in tree.files[h].toks if t.kind == "id"} if h in tree.files else set()
    for p, u in sorted(tree.files.items()):
        m = module_of(p)
        own = DB_CONTRACT_OF.get(m)
        if not own:
            continue
        other = [h for h in DB_CONTRACTS if h != own]
        for line, inc in u.includes:
            q = tree.resolve_include(p, inc)
            if q in other:
                fail("contracts", "%s:%d: includes %s, %s contract: %s/ takes %s, %s"
                     % (p, line, q, DB_CONTRACTS[q], m, own, DB_CONTRACTS[own]))
    edges = tree.graphs()[1]
    for a in sorted(edges):
        m = module_of(a)
        own = DB_CONTRACT_OF.get(m)
        if not own:
            continue
        for b in sorted(edges[a]):
            if module_of(b) != "db":
                continue
            wrong = [t for t in edges[a][b] if t not in names[own] and t not in names[DB_BASE]]
            if wrong:
                fail("contracts", "%s calls %s of %s, outside %s (%s contract, the one %s/ takes)"
                     % (a, ties_text(wrong), b, own, DB_CONTRACTS[own], m))


def check_facts(tree, fail):
    """No file but FACTS_HOME derives a run's facts (FACTS_SQL in string literals; FACTS_CODE in
    the code of reports/, cli/ and stats/)."""
    for p, u in sorted(tree.files.items()):
        if p == FACTS_HOME or module_of(p) not in MODULES:
            continue
        for line, text in [g for d in [u.toks] + u.directives for g in literal_groups(d)]:
            for rx, what in FACTS_SQL:
                if rx.search(text) and not (p in FACTS_RAW_OK and "cp_" in rx.pattern):
                    fail("facts", "%s:%d: derives %s (\"%s\"): a run's facts are worked out in %s and read from "
                         "run_facts" % (p, line, what, short(text), FACTS_HOME))
        if module_of(p) in FACTS_CODE_MODULES:
            code = " ".join(t.text for t in u.toks if t.kind not in ("str", "chr", "lc", "bc", "ws", "nl"))
            for rx, what in FACTS_CODE:
                if rx.search(code):
                    fail("facts", "%s: derives %s: a run's facts are read as stored (tta_run_data)" % (p, what))




def check_names(tree, fail):
    """The replays' round and submitter are the macros of common/replay_log.h, in C and in SQL."""
    for p, u in sorted(tree.files.items()):
        if p == REPLAY_NAMES_HOME:
            continue
        for toks in [u.toks] + u.directives:
            for t in toks:
                if t.kind != "str":
                    continue
                body = t.text[t.text.index('"') + 1:]
                body = body[:-1] if body.endswith('"') else body
                for word in REPLAY_NAMES:
                    exact = body == word and (word != "replay" or module_of(p) != "cli")
                    if (exact or "'%s'" % word in body) and (p, word) not in NAMES_OWN:
                        fail("names", '%s:%d: spells the replays\' %s "%s": take TTA_REPLAY_%s from %s'
                             % (p, t.line, "round" if word == "local" else "submitter", word,
                                "ROUND" if word == "local" else "SUBMITTER", REPLAY_NAMES_HOME))


RULES = ["circles", "order", "sql", "size", "headers", "identity", "errors", "names", "contracts", "facts"]


def run(root, build, out=sys.stdout, graph=False):
    tree = Tree(root, build)
    failures = []

    def fail(rule, text):
        failures.append((rule, text))

    check_circles(tree, fail)
    check_sql(tree, fail)
    check_size(tree, fail)
    check_headers(tree, fail)
    check_identity(tree, fail)
    check_errors(tree, fail)
    check_names(tree, fail)
    check_contracts(tree, fail)
    check_facts(tree, fail)
    print("check_arch: %s: %d files of %s; %s" % (tree.root, len(tree.files), " ".join(MODULES), tree.how), file=out)
    for rule, text in failures:
        print("FAIL %s: %s" % (rule, text), file=out)
    if graph:
        for a in MODULES:
            for b in MODULES:
                if b in tree.module_edges.get(a, {}):
                    print("module %s -> %s: %d file arrows" % (a, b, len(tree.module_edges[a][b])), file=out)
    counts = {r: sum(1 for f in failures if f[0] == r) for r in RULES}
    print("check_arch: %s" % ("every rule holds" if not failures else "%d failures (%s)" % (
        len(failures), ", ".join("%s %d" % (r, n) for r, n in counts.items() if n))), file=out)
    return failures


# ---- self-test --------------------------------------------------------------------------------

CLEAN = {
    "common/error.h": "#ifndef E_H\n#define E_H\nint tta_fail(int code);\n#endif\n",
    "common/error.c": '#include "common/error.h"\nint tta_fail(int code) { return code; }\n',
    "db/db.h": '#ifndef DB_H\n#define DB_H\n#include "common/error.h"\nint tta_db_count(const char *table);\n#endif\n',
    "db/query.c": '#include "db/db.h"\nstatic const char *q = "SELECT count(*) FROM runs WHERE id = ?1";\n'
                  'int tta_db_count(const char *table) { return table && q ? tta_fail(0) : 1; }\n',
    "db/CMakeLists.txt": "file(GLOB sql ${TTA_SOURCE_DIR}/schemas/*.sql)\n",
    "ingest/ingest.h": "#ifndef IN_H\n#define IN_H\nint tta_ingest(const char *path);\n#endif\n",
    "ingest/parsers.h": "#ifndef P_H\n#define P_H\nint parse_line(const char *s);\n#endif\n",
    "ingest/parse.c": '#include "ingest/parsers.h"\nint parse_line(const char *s) { return s[0] == \'S\'; }\n',
    "ingest/ingest.c": '#include "ingest/ingest.h"\n#include "ingest/parsers.h"\n#include "db/db.h"\n'
                       'int tta_ingest(const char *path) {\n    /* SELECT in a comment is no SQL */\n'
                       '    return parse_line(path) + tta_db_count("runs");\n}\n',
    "stats/stats.h": "#ifndef ST_H\n#define ST_H\ndouble tta_mean(const double *x, int n);\n#endif\n",
    "stats/mean.c": '#include "stats/stats.h"\ndouble tta_mean(const double *x, int n) {\n'
                    '    double s = 0;\n    for (int i = 0; i < n; i++) s += x[i];\n    return n ? s / n : 0;\n}\n',
    "replay/replay.h": "#ifndef R_H\n#define R_H\nint tta_replay_run(int epochs);\n#endif\n",
    "replay/trainer.c": '#include "replay/replay.h"\n#include "common/error.h"\n'
                        'int tta_replay_run(int epochs) {\n' + "    epochs += 1;\n" * 117 +
                        '    return tta_fail(epochs);\n}\n',
    "reports/reports.h": "#ifndef RE_H\n#define RE_H\nint tta_report_variance(void);\n#endif\n",
    "reports/builders.h": '#ifndef BU_H\n#define BU_H\n#define TTA_ROUND_COLUMN {"round", "round", TTA_COL_TEXT, 0, 0}\n#endif\n',
    "reports/dataset.h": "#ifndef DS_H\n#define DS_H\nint dataset_load(void);\n#endif\n",
    "reports/dataset.c": '#include "reports/dataset.h"\n#include "db/db.h"\n'
                         'int dataset_load(void) { return tta_db_count("entries"); }\n',
    "reports/variance.c": '#include "reports/reports.h"\n#include "reports/dataset.h"\n#include "stats/stats.h"\n'
                          'int tta_report_variance(void) {\n    printf_like("select the runs: %d", dataset_load());\n'
                          '    return (int)tta_mean(0, 0);\n}\nint printf_like(const char *f, int x) { return f[x]; }\n',
    "cli/cli.h": "#ifndef CLI_H\n#define CLI_H\nint cmd_ls(int argc, char **argv);\n#endif\n",
    "cli/cmd_ls.c": '#include "cli/cli.h"\n#include "reports/reports.h"\n#include "ingest/ingest.h"\n'
                    '#include "replay/replay.h"\n'
                    'int cmd_ls(int argc, char **argv) {\n    if (argc > 1) return tta_ingest(argv[1]);\n'
                    '    return tta_report_variance() + tta_replay_run(1);\n}\n' + "/* line */\n" * 142,
    "cli/main.c": '#include "cli/cli.h"\nint main(int argc, char **argv) { return cmd_ls(argc, argv); }\n',
    "tests/test_x.c": '#include "reports/dataset.h"\nint x(void) { return sqlite3_exec(0, "DELETE FROM runs", 0, 0, 0); }\n',
    "bench/bench_x.c": '#include "replay/replay.h"\nstatic const char *s = "SELECT 1";\n',
}
# Each case: (what it breaks, the rules that must fail, {file: its text in this case}).
CASES = [
    ("a call circle inside reports", "circles", {
        "reports/variance.c": CLEAN["reports/variance.c"].replace("return (int)", "return ls_rows() + (int)") +
        "int ls_rows(void);\n",
        "reports/ls.c": '#include "reports/reports.h"\nint ls_rows(void) { return tta_report_variance(); }\n'},
     ["reports/ls.c -> reports/variance.c: tta_report_variance", "reports/variance.c -> reports/ls.c: ls_rows"]),
    ("an include circle inside ingest", "circles", {
        "ingest/walk.h": '#ifndef W_H\n#define W_H\n#include "ingest/pathmeta.h"\nint walk(void);\n#endif\n',
        "ingest/pathmeta.h": '#ifndef PM_H\n#define PM_H\n#include "ingest/walk.h"\nint pathmeta(void);\n#endif\n'},
     ['ingest/walk.h -> ingest/pathmeta.h: #include "ingest/pathmeta.h" (line 3)']),
    ("a circle between modules (stats calls reports)", {"circles", "order"}, {
        "stats/mean.c": CLEAN["stats/mean.c"] + '#include "reports/reports.h"\n'
                        'int tta_mean_report(void) { return tta_report_variance(); }\n'}),
    ("an arrow against the order (replay calls db)", "order", {
        "replay/trainer.c": CLEAN["replay/trainer.c"].replace('    return tta_fail(epochs);',
                                                              '    return tta_fail(epochs) + tta_db_count("runs");')
        .replace('#include "common/error.h"\n', '#include "common/error.h"\n#include "db/db.h"\n')}),
    ("SQL in reports/", "sql", {
        "reports/dataset.c": CLEAN["reports/dataset.c"] +
        'static const char *sql = "SELECT e.id, e.round"\n    " FROM entries e WHERE" FILTER " AND e.id = ?1";\n'}),
    ("a filter's SQL in a macro of reports/", "sql", {
        "reports/dataset.c": '#define FILTER_SQL \\\n    " (?1 IS NULL OR e.round = ?1)"\n' + CLEAN["reports/dataset.c"]}),
    ("a transaction statement in ingest/", "sql", {
        "ingest/ingest.c": CLEAN["ingest/ingest.c"] + 'const char *tx = "BEGIN IMMEDIATE";\n'}),
    ("a sqlite3_ call in cli/", "sql", {
        "cli/main.c": CLEAN["cli/main.c"] + "int close_db(void *db) { return sqlite3_close(db); }\n"}),
    ("an SQL file and its embedding in ingest/", "sql", {
        "ingest/extra.sql": "CREATE TABLE x (id INTEGER);\n",
        "ingest/CMakeLists.txt": "file(GLOB sql ${TTA_SOURCE_DIR}/schemas/*.sql)\n"}),
    ("a cli/cmd_*.c of 151 lines", "size", {
        "cli/cmd_ls.c": CLEAN["cli/cmd_ls.c"] + "/* line */\n"}, ["cli/cmd_ls.c: 151 lines"]),
    ("a replay function of 121 lines", "size", {
        "replay/trainer.c": CLEAN["replay/trainer.c"].replace("    epochs += 1;\n", "    epochs += 1;\n    epochs *= 1;\n", 1)},
     ["replay/trainer.c:3: tta_replay_run: 121 lines"]),
    ("an internal header of reports included by cli", "headers", {
        "cli/cmd_ls.c": CLEAN["cli/cmd_ls.c"].replace('#include "cli/cli.h"\n',
                                                      '#include "cli/cli.h"\n#include "reports/dataset.h"\n')
        .replace("/* line */\n", "", 1)},
     ["cli/cmd_ls.c:2: includes reports/dataset.h, internal to reports/"]),
    ("an identity column defined again in a report's table", "identity", {
        "reports/variance.c": CLEAN["reports/variance.c"] +
        'enum { TTA_COL_TEXT, TTA_COL_INT };\nstatic const char *const names[] = {"round", "system"};\n'
        'static const struct { const char *key, *header; int kind; } cols[] = {\n    {"runs", "runs", TTA_COL_INT},\n'
        '    {"benchmark", "bench", TTA_COL_TEXT},\n};\n'},
     ['reports/variance.c:13: defines the identity column "benchmark" again ({"benchmark", "bench", ...})']),
    ("an identity column defined again in a macro of reports/", "identity", {
        "reports/dataset.c": '#define MY_ROUND {"round", "rnd", TTA_COL_TEXT, 0, 0}\n' + CLEAN["reports/dataset.c"]},
     ['reports/dataset.c:1: defines the identity column "round" again']),
    ("ingest includes and calls db/'s readers' contract", "contracts", {
        "db/reader.h": '#ifndef DR_H\n#define DR_H\n#include "db/db.h"\nint tta_db_runs(void);\n#endif\n',
        "db/query.c": CLEAN["db/query.c"].replace('#include "db/db.h"\n', '#include "db/reader.h"\n') +
        "int tta_db_runs(void) { return tta_db_count(\"runs\"); }\n",
        "ingest/ingest.c": CLEAN["ingest/ingest.c"].replace('#include "db/db.h"\n', '#include "db/reader.h"\n')
        .replace('tta_db_count("runs")', "tta_db_runs()")},
     ["ingest/ingest.c:3: includes db/reader.h, the readers' (queries) contract"]),
    ("a report derives a run's duration", "facts", {
        "reports/dataset.c": CLEAN["reports/dataset.c"] + "struct run { double run_start_s, run_stop_s; };\n"
        "double run_duration(const struct run *r) { return r->run_stop_s - r->run_start_s; }\n"},
     ["reports/dataset.c: derives a duration from run_stop_s - run_start_s"]),
    ("a query of db/ derives a duration in its SQL", "facts", {
        "db/query.c": CLEAN["db/query.c"] + 'static const char *d = "SELECT run_stop - run_start FROM runs";\n'
        "const char *tta_db_duration_sql(void) { return d; }\n"},
     ["db/query.c:4: derives a duration from run_stop - run_start"]),
    ("a char **err parameter in a public header", "errors", {
        "ingest/ingest.h": CLEAN["ingest/ingest.h"].replace("int tta_ingest(const char *path);",
                                                            "int tta_ingest(const char *path);\n"
                                                            "int tta_ingest_all(const char **paths, char **err);")},
     ["ingest/ingest.h:4: a char **err parameter"]),
    ("a char *err, size_t errlen pair in a public header", "errors", {
        "replay/replay.h": CLEAN["replay/replay.h"].replace("int tta_replay_run(int epochs);",
                                                            "int tta_replay_run(int epochs);\n"
                                                            "int tta_replay_load(char *errbuf, size_t errlen);")},
     ["replay/replay.h:4: a char *errbuf, size_t parameter pair"]),
    ("the replays' round spelt in db/'s SQL", "names", {
        "db/query.c": CLEAN["db/query.c"].replace("WHERE id = ?1", "WHERE id = ?1 AND round = 'local'")},
     ["db/query.c:2: spells the replays' round \"local\""]),
    ("the replays' submitter spelt in ingest/", "names", {
        "ingest/parse.c": CLEAN["ingest/parse.c"] + 'const char *org = "replay";\n'},
     ["ingest/parse.c:3: spells the replays' submitter \"replay\""]),
    ("a call from cli to a reports function its public header does not declare", "headers", {
        "cli/main.c": '#include "cli/cli.h"\nint dataset_load(void);\n'
                      'int main(int argc, char **argv) { return cmd_ls(argc, argv) + dataset_load(); }\n'}),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def compile_tree(root, build, cache):
    """Objects laid out as CMake lays them (<build>/<module>/CMakeFiles/t.dir/<file>.o), each
    compiled once per text (cache: {(file, text): object}); False when there is no cc or nm."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not shutil.which("nm"):
        return False
    for d, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(d, name), root)
            if not name.endswith(".c") or module_of(rel) is None:
                continue
            mod, inner = rel.split("/", 1)
            obj = os.path.join(build, mod, "CMakeFiles", "t.dir", inner + ".o")
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            with open(os.path.join(root, rel)) as f:
                key = (rel, f.read())
            if key not in cache:
                subprocess.run([cc, "-c", "-w", "-I", root, "-DFILTER=\" 1\"", "-o", obj, os.path.join(root, rel)],
                               check=True)
                cache[key] = obj
            else:
                shutil.copy(cache[key], obj)  # a new mtime: not older than the source
    return True


def self_test():
    import io
    passed = failed = 0

    def check(what, ok, log=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: %s\n%s" % (what, log))

    tmp = tempfile.mkdtemp(prefix="check_arch.")
    try:
        modes, cache = ["scan", "nm"], {}
        for mode in modes:
            for name, rule, change, *expect in [("the clean tree", None, {})] + CASES:
                case = os.path.join(tmp, mode, re.sub(r"\W+", "_", name))
                files = dict(CLEAN)
                for rel, text in change.items():
                    files[rel] = text
                write_tree(case, files)
                build = None
                if mode == "nm":
                    build = os.path.join(case, "build")
                    if not compile_tree(case, build, cache):
                        print("check_arch --self-test: no cc or nm: the nm reading is not tested")
                        modes.remove("nm")
                        break
                out = io.StringIO()
                failures = run(case, build, out)
                if mode == "nm":
                    check("%s [%s]: objects were read" % (name, mode), "calls read from" in out.getvalue(),
                          out.getvalue())
                rules = {r for r, _ in failures}
                if rule is None:
                    check("%s [%s] passes every rule" % (name, mode), not failures, out.getvalue())
                else:
                    want = rule if isinstance(rule, set) else {rule}
                    check("%s [%s] fails %s, and only that" % (name, mode, " and ".join(sorted(want))), rules == want,
                          out.getvalue())
                    for text in (expect[0] if expect else []):
                        check("%s [%s] prints %r" % (name, mode, text), text in out.getvalue(), out.getvalue())
    finally:
        shutil.rmtree(tmp)
    print("check_arch --self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--root", default=os.environ.get("TTA_SOURCE_DIR", here), help="the source tree (default: this one)")
    ap.add_argument("--build", default=os.environ.get("TTA_BUILD_DIR"), help="the build folder ($TTA_BUILD_DIR)")
    ap.add_argument("--self-test", action="store_true", help="check that every rule can fail")
    ap.add_argument("--graph", action="store_true", help="also print the arrows between modules")
    a = ap.parse_args(argv)
    if a.self_test:
        return self_test()
    return 1 if run(a.root, a.build, graph=a.graph) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
