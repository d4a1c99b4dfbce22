"""Column default values (issue 31 item 8) between strata and Java Paimon 2.0.0.

strata's ``ALTER TABLE … ALTER COLUMN c SET DEFAULT v`` / ``DROP DEFAULT`` (``strata sql``) and
Java's ``SchemaChange.updateColumnDefaultValue`` write the same ``defaultValue`` into the schema;
each engine reads the other's, and both writers store the default wherever a row lacks the column
or holds NULL (Java's ``DefaultValueRow``; strata's CLI ``write`` of JSON lines without the
column, and SQL ``INSERT`` with a column list).
"""
from __future__ import annotations

import json

import pytest

from interop_support.java_oracle import _abs, java_fixture

pytestmark = pytest.mark.java

java = java_fixture(("2.0.0",))

SCHEMA = {
    "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
               {"id": 1, "name": "v", "type": "INT"},
               {"id": 2, "name": "s", "type": "STRING"}],
    "partitionKeys": [], "primaryKeys": ["id"], "options": {"bucket": "1"},
}


def _line(i, v, s):
    return json.dumps({"id": i, "v": v, "s": s}, separators=(",", ":"))


def _defaults(java, wh, ident):
    return java.call("Paimon2ColumnDefaults.get", warehouse=_abs(wh), table=ident)


def test_defaults_set_by_either_engine_apply_to_both_writers(java, strata, wh, tmp_path):
    ident = "db.defaults"
    strata.create_table(ident, SCHEMA)
    strata.run("sql", "-e", f"ALTER TABLE {ident} ALTER COLUMN v SET DEFAULT 7; "
                            f"ALTER TABLE {ident} ALTER COLUMN s SET DEFAULT 'it''s'")
    # Java reads strata's schema change as Spark writes it.
    assert _defaults(java, wh, ident) == {"v": "7", "s": "'it's'"}
    java.write(wh, ident, [{"id": 1}, {"id": 2, "v": None, "s": "j"}])
    f = tmp_path / "rows.jsonl"
    f.write_text('{"id": 3}\n{"id": 4, "v": 40}\n')
    strata.write(ident, [str(f)])
    strata.run("sql", "-e", f"INSERT INTO {ident} (id, s) VALUES (5, 'q')")
    want = sorted([_line(1, 7, "it's"), _line(2, 7, "j"), _line(3, 7, "it's"),
                   _line(4, 40, "it's"), _line(5, 7, "q")])
    assert java.read(wh, ident) == want
    assert sorted(strata.read_lines(ident)) == want

    # Java changes one default and drops the other; strata's writes follow Java's schema.
    java.call("Paimon2ColumnDefaults.set", warehouse=_abs(wh), table=ident, column="v", value="-2")
    java.call("Paimon2ColumnDefaults.set", warehouse=_abs(wh), table=ident, column="s")
    assert _defaults(java, wh, ident) == {"v": "-2"}
    f.write_text('{"id": 6}\n')
    strata.write(ident, [str(f)])
    # strata drops Java's default; Java's next write stores NULL.
    strata.run("sql", "-e", f"ALTER TABLE {ident} ALTER COLUMN v DROP DEFAULT")
    assert _defaults(java, wh, ident) == {}
    java.write(wh, ident, [{"id": 7}])
    want = sorted(want + [_line(6, -2, None), _line(7, None, None)])
    assert java.read(wh, ident) == want
    assert sorted(strata.read_lines(ident)) == want
