"""Writes small Paimon tables with pypaimon 2.1.0 and pypaimon-rust 0.4.0 (the interop venv), so
the fuzz corpora also start from files other engines write: append and primary-key tables with
pypaimon, an append table and a shared-shredding MAP table with pypaimon-rust.

    .interop-venv/bin/python fuzz/seeds/make_foreign_tables.py WAREHOUSE_DIR
"""
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon_rust.datafusion import PaimonCatalog

wh = os.path.abspath(sys.argv[1])
cat = CatalogFactory.create({"warehouse": wh})
cat.create_database("py", True)


def create(ident, schema, partition_keys=(), primary_keys=(), options=None):
    cat.create_table(ident, Schema.from_pyarrow_schema(
        schema, partition_keys=list(partition_keys), primary_keys=list(primary_keys),
        options=dict(options or {})), False)


def write_py(ident, data):
    wb = cat.get_table(ident).new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def write_rust(ident, data):
    wb = PaimonCatalog({"warehouse": wh}).get_table(ident).new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    for b in data.to_batches():
        w.write_arrow(b)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


types = pa.schema([
    pa.field("id", pa.int64(), nullable=False), pa.field("dt", pa.string()),
    pa.field("i", pa.int32()), pa.field("f", pa.float32()), pa.field("d", pa.float64()),
    pa.field("b", pa.bool_()), pa.field("dec", pa.decimal128(12, 3)),
    pa.field("day", pa.date32()), pa.field("ts", pa.timestamp("us")),
    pa.field("bin", pa.binary()),
])


def typed_rows(lo, hi):
    n = hi - lo
    import datetime
    import decimal
    return pa.table({
        "id": list(range(lo, hi)),
        "dt": [None if i % 5 == 0 else f"p{i % 2}" for i in range(lo, hi)],
        "i": [None if i % 3 == 0 else i * 7 for i in range(lo, hi)],
        "f": [i / 4 for i in range(lo, hi)],
        "d": [None if i % 4 == 0 else -i * 1.5 for i in range(lo, hi)],
        "b": [i % 2 == 0 for i in range(lo, hi)],
        "dec": [decimal.Decimal(i) / 1000 for i in range(lo, hi)],
        "day": [datetime.date(2024, 1, 1 + i % 28) for i in range(lo, hi)],
        "ts": [datetime.datetime(2024, 1, 1, 0, 0, i % 60, i) for i in range(lo, hi)],
        "bin": [bytes([i % 256]) * (i % 4) for i in range(lo, hi)],
    }, schema=types)


for engine, write in (("py", write_py), ("rust", write_rust)):
    ident = f"py.append_{engine}"
    create(ident, types, partition_keys=["dt"], options={"bucket": "-1"})
    write(ident, typed_rows(0, 20))
    write(ident, typed_rows(20, 30))

pk = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
create("py.pk", pk, primary_keys=["id"], options={"bucket": "2"})
write_py("py.pk", pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}, schema=pk))
write_py("py.pk", pa.table({"id": [2, 4], "v": ["b2", None]}, schema=pk))

map_t = pa.map_(pa.field("key", pa.string(), nullable=False), pa.float64())
shredded = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("m", map_t)])
for policy in ("plain", "lru"):
    ident = f"py.shredded_{policy}"
    create(ident, shredded, options={
        "fields.m.map.storage-layout": "shared-shredding",
        "fields.m.map.shared-shredding.max-columns": "3",
        "fields.m.map.shared-shredding.column-placement-policy": policy})
    maps = [None if i % 11 == 0 else [(f"k{(i + j) % 7}", float(i * j)) for j in range(i % 5)]
            for i in range(60)]
    write_rust(ident, pa.table({"id": list(range(60)), "m": maps}, schema=shredded))
print("tables written to", wh)
