"""Direct looks at a filesystem warehouse on disk (``WH/<db>.db/<table>/...``).

Used to check strata's metadata commands against the files every engine writes: snapshot JSON,
schema JSON and the data files themselves.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import List, Optional


def table_dir(wh: str, ident: str) -> Path:
    db, name = ident.split(".", 1)
    return Path(wh) / f"{db}.db" / name


def snapshot_ids(wh: str, ident: str) -> List[int]:
    d = table_dir(wh, ident) / "snapshot"
    if not d.is_dir():
        return []
    return sorted(int(m.group(1)) for p in d.iterdir() if (m := re.fullmatch(r"snapshot-(\d+)", p.name)))


def snapshot_json(wh: str, ident: str, sid: int) -> dict:
    return json.loads((table_dir(wh, ident) / "snapshot" / f"snapshot-{sid}").read_text())


def schema_ids(wh: str, ident: str) -> List[int]:
    d = table_dir(wh, ident) / "schema"
    return sorted(int(m.group(1)) for p in d.iterdir() if (m := re.fullmatch(r"schema-(\d+)", p.name)))


def schema_json(wh: str, ident: str, sid: Optional[int] = None) -> dict:
    if sid is None:
        sid = schema_ids(wh, ident)[-1]
    return json.loads((table_dir(wh, ident) / "schema" / f"schema-{sid}").read_text())


def find_data_file(wh: str, ident: str, file_name: str) -> List[Path]:
    """Every path under the table directory with this file name."""
    return sorted(table_dir(wh, ident).rglob(file_name))


def data_files_on_disk(wh: str, ident: str) -> List[Path]:
    return sorted(p for p in table_dir(wh, ident).rglob("*")
                  if p.is_file() and p.parent.name.startswith("bucket-"))
