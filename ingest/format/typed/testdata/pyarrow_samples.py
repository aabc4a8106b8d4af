"""Writes the typed formats' real samples with pyarrow (Apache Arrow's
Python library, not arrow-go or DuckDB, which rewind reads them with):

  parquet/real/checkout-pyarrow/input.parquet     pyarrow.parquet.write_table
  arrow/real/checkout-pyarrow-file/input.arrow    pyarrow.ipc.new_file
  arrow/real/checkout-pyarrow-stream/input.arrows pyarrow.ipc.new_stream

from 16 requests of fixtures/hypotheses/checkout.ndjson (each run's first
six and its requests that were not ok), as a pyarrow user writes a table:
in its own types (the start as a timestamp in microseconds with a zone
instead of t_ms, a 16-bit status, a text column the canonical schema does
not name, which goes to attrs), with the writers' defaults (Parquet: Snappy,
dictionary pages, format 2.6, the Arrow schema in the metadata) but for
row groups and batches of 8 rows, so each file holds two.

Run from this folder, with pyarrow 26.0.1 (parquet/real/README.md says how it
was installed): python3 pyarrow_samples.py
"""
import json
import pathlib

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

here = pathlib.Path(__file__).resolve().parent
fixture = here.parents[3] / "fixtures" / "hypotheses" / "checkout.ndjson"

rows = [json.loads(line) for line in fixture.open()]
rows = [r for r in rows if "record" not in r and (r["req"] < 6 or r["outcome"] != "ok")]
rows.sort(key=lambda r: (r["run"], r["req"]))
rows = rows[:16]

schema = pa.schema([
    ("run", pa.string()),
    ("req", pa.int64()),
    ("ts", pa.timestamp("us", tz="UTC")),
    ("latency_ms", pa.float64()),
    ("outcome", pa.string()),
    ("status", pa.int16()),
    ("name", pa.string()),
])
start_us = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z, the runs' start
table = pa.table({
    "run": [r["run"] for r in rows],
    "req": [r["req"] for r in rows],
    "ts": [start_us + round(r["t_ms"] * 1000) for r in rows],  # t_ms has 3 decimals: exact
    "latency_ms": [r["latency_ms"] for r in rows],
    "outcome": [r["outcome"] for r in rows],
    "status": [r["status"] for r in rows],
    "name": [r["name"] for r in rows],
}, schema=schema)


def out(path):
    p = here / path
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


pq.write_table(table, out("parquet/real/checkout-pyarrow/input.parquet"), row_group_size=8)
with ipc.new_file(out("arrow/real/checkout-pyarrow-file/input.arrow"), schema) as w:
    w.write_table(table, max_chunksize=8)
with ipc.new_stream(out("arrow/real/checkout-pyarrow-stream/input.arrows"), schema) as w:
    w.write_table(table, max_chunksize=8)
