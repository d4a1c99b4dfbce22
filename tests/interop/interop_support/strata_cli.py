"""Driving the ``strata`` binary from tests.

``Strata(bin, warehouse, scratch)`` runs ``strata --warehouse WH ...`` and turns a non-zero exit
into an AssertionError that shows the command, exit code, stdout and stderr.  Reads go through
``read --format parquet --output F`` by default: the Parquet file is canonicalized with exactly the
same pyarrow code as the reference engines' output, so no text encoding is involved.
"""
from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from .canonical import canonical_lines

TIMEOUT_S = 300
_SHOWN = 4000


class StrataError(AssertionError):
    pass


def _clip(s: str) -> str:
    return s if len(s) <= _SHOWN else s[:_SHOWN] + f"\n... ({len(s) - _SHOWN} more chars)"


class Strata:
    def __init__(self, binary: str, warehouse: str, scratch: Path):
        self.binary = binary
        self.warehouse = os.path.abspath(warehouse)
        self.scratch = Path(scratch)
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._n = itertools.count()

    # -- raw ------------------------------------------------------------------------------------
    def run(self, *args: str, check: bool = True, warehouse: bool = True, cwd=None,
            env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        cmd = [self.binary] + (["--warehouse", self.warehouse] if warehouse else []) + [str(a) for a in args]
        full_env = dict(os.environ)
        full_env.pop("STRATA_WAREHOUSE", None)
        full_env.setdefault("RUST_BACKTRACE", "1")
        if env:
            full_env.update(env)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=cwd, env=full_env)
        except subprocess.TimeoutExpired as e:
            raise StrataError(f"timed out after {TIMEOUT_S}s: {' '.join(cmd)}") from e
        if check and p.returncode != 0:
            raise StrataError(f"strata exited {p.returncode}: {' '.join(cmd)}\n--- stdout ---\n"
                              f"{_clip(p.stdout)}\n--- stderr ---\n{_clip(p.stderr)}")
        return p

    def _tmp(self, suffix: str) -> Path:
        return self.scratch / f"strata-{next(self._n)}{suffix}"

    # -- commands -------------------------------------------------------------------------------
    def create_table(self, ident: str, schema: dict, if_not_exists: bool = False, check: bool = True):
        f = self._tmp(".schema.json")
        f.write_text(json.dumps(schema, indent=2))
        args = ["create-table", ident, "--schema", str(f)] + (["--if-not-exists"] if if_not_exists else [])
        return self.run(*args, check=check)

    def write(self, ident: str, files: Sequence[str], overwrite: bool = False,
              partition: Optional[Dict[str, str]] = None, check: bool = True):
        args = ["write", ident] + [str(f) for f in files]
        if overwrite:
            args.append("--overwrite")
        for k, v in (partition or {}).items():
            args += ["--partition", f"{k}={v}"]
        return self.run(*args, check=check)

    def _read_args(self, ident, columns, where, snapshot, limit) -> List[str]:
        args = ["read", ident]
        if columns:
            args += ["--columns", ",".join(columns)]
        if where is not None:
            args += ["--where", where]
        if snapshot is not None:
            args += ["--snapshot", str(snapshot)]
        if limit is not None:
            args += ["--limit", str(limit)]
        return args

    def read_arrow(self, ident: str, columns: Optional[Sequence[str]] = None, where: Optional[str] = None,
                   snapshot: Optional[int] = None, limit: Optional[int] = None) -> pa.Table:
        """``strata read ... --format parquet --output F`` loaded with pyarrow."""
        out = self._tmp(".parquet")
        self.run(*self._read_args(ident, columns, where, snapshot, limit), "--format", "parquet",
                 "--output", str(out))
        if not out.exists():
            raise StrataError(f"strata read --format parquet did not create {out}")
        return pq.ParquetFile(out).read()

    def read_lines(self, ident: str, **kw) -> List[str]:
        return canonical_lines(self.read_arrow(ident, **kw))

    def read_text(self, ident: str, fmt: str, **kw) -> str:
        """``strata read --format FMT`` printed to stdout."""
        args = self._read_args(ident, kw.get("columns"), kw.get("where"), kw.get("snapshot"), kw.get("limit"))
        return self.run(*args, "--format", fmt).stdout

    def json_lines(self, *args: str) -> List[dict]:
        """Run a metadata command whose output is one JSON object per line."""
        p = self.run(*args)
        out = []
        for n, line in enumerate(p.stdout.splitlines()):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise StrataError(f"`strata {' '.join(args)}` line {n + 1} is not JSON: {line!r}") from e
            if not isinstance(obj, dict):
                raise StrataError(f"`strata {' '.join(args)}` line {n + 1} is not a JSON object: {line!r}")
            out.append(obj)
        return out

    def snapshots(self, ident: str) -> List[dict]:
        return self.json_lines("snapshots", ident)

    def files(self, ident: str, snapshot: Optional[int] = None) -> List[dict]:
        return self.json_lines("files", ident, *(["--snapshot", str(snapshot)] if snapshot is not None else []))

    def schema(self, ident: str) -> List[dict]:
        return self.json_lines("schema", ident)

    def list(self, db: Optional[str] = None) -> List[dict]:
        return self.json_lines("list", *([db] if db else []))
