#!/usr/bin/python3
"""db_fingerprint.py DB: one line per table of a tta database: name, row count, SHA-256 of its rows.

Rows are hashed in a stable order (every column, ascending) so that the same content stored in another
order gives the same hash. Columns that record when something was stored (`*_at`) are left out: they
differ between any two ingests. Used to show that a refactor kept the database content (issue 13)."""
import hashlib, sqlite3, sys

def main(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for t in tables:
        cols = [r[1] for r in db.execute('PRAGMA table_info("%s")' % t) if not r[1].endswith("_at")]
        sel = ", ".join('"%s"' % c for c in cols)
        h = hashlib.sha256()
        n = 0
        for row in db.execute('SELECT %s FROM "%s" ORDER BY %s' % (sel, t, sel)):
            h.update(repr(row).encode())
            n += 1
        print("%s\t%d\t%s" % (t, n, h.hexdigest()[:16]))

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: db_fingerprint.py DB")
    main(sys.argv[1])
