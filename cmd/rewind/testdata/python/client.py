"""A DuckDB client that knows nothing of rewind: opens a rewind file
read-only and runs the queries it reads from standard input (a JSON list of
SQL strings), printing a JSON list with each query's rows as objects keyed by
column name. Values are written the way `rewind sql --format json` writes
them: numbers as numbers (DECIMAL and HUGEINT as exact decimal strings, which
the Go test compares as numbers), times as RFC 3339, NULL as null.

Used by cmd/rewind's TestPythonClients; argv[1] is the database file."""
import datetime
import decimal
import json
import sys

import duckdb


def value(v):
    if isinstance(v, decimal.Decimal):
        return {"decimal": str(v)}
    if isinstance(v, bool) or v is None or isinstance(v, (str, float)):
        return v
    if isinstance(v, int):
        return {"decimal": str(v)}
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return {"time": v.isoformat()}
    if isinstance(v, (list, tuple)):
        return [value(x) for x in v]
    if isinstance(v, dict):
        return {k: value(x) for k, x in v.items()}
    return {"other": repr(v)}


def main():
    con = duckdb.connect(sys.argv[1], read_only=True)
    out = []
    for q in json.load(sys.stdin):
        try:
            cur = con.execute(q)
            cols = [d[0] for d in cur.description]
            out.append({"rows": [dict(zip(cols, map(value, r))) for r in cur.fetchall()]})
        except duckdb.Error as e:
            out.append({"error": str(e)})
    con.close()
    json.dump({"version": duckdb.__version__, "results": out}, sys.stdout)


main()
