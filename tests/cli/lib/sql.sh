# tests/cli/lib/sql.sh, sourced by the CLI tests: sql DB QUERY prints the rows as the sqlite3 shell does
# ("|" between columns, empty for NULL), through that shell or, where it is not installed (a GPU
# machine's image), Python's sqlite3.
sql() {
    if command -v sqlite3 >/dev/null; then sqlite3 "$@"; else
        python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join("" if v is None else str(v) for v in r))' "$@"
    fi
}
