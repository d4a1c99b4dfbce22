"""Concurrent commits to one table through a REST catalog server: ``bench/rest_load.py`` with a
small count, as a correctness test (issue 32; the 8 x 200 run and its numbers are in
BENCHMARKS.md).

4 strata clients x 8 commits each to one append table, through ``strata serve`` and through Java
Paimon 2.0's ``RESTCatalogServer``: no lost or duplicated commit (rows = the commits the clients
saw succeed, one APPEND snapshot each), every conflict answered ``200 {"success": false}`` (the
clients re-plan), no 5xx, and a client that gives up names the conflict.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from interop_support.java_oracle import REPO_ROOT

pytestmark = pytest.mark.java

_spec = importlib.util.spec_from_file_location("rest_load", REPO_ROOT / "bench" / "rest_load.py")
rest_load = importlib.util.module_from_spec(_spec)
sys.modules["rest_load"] = rest_load
_spec.loader.exec_module(rest_load)

CLIENTS, COMMITS = 4, 8


@pytest.mark.parametrize("kind", ["strata", "java"])
def test_concurrent_commits_lose_nothing(kind, strata_bin, tmp_path: Path):
    res = rest_load.bench_one(kind, strata_bin, CLIENTS, COMMITS, tmp_path)
    assert not res["problems"], res["problems"]
    # the clients retry conflicts until they land (commit.max-retries = 200): all commit
    assert res["succeeded"] == CLIENTS * COMMITS, res["failed"][:3]
    # the server's own count (Java's request log; strata's /metrics commits_total): every
    # commit answered, successes = the commits, no error answer, no 5xx on any call
    sc = res["server_commits"]
    assert sc is not None, "the server reported no commit counts"
    assert sc["success"] == CLIENTS * COMMITS and not sc.get("error") and sc["5xx_any_call"] == 0, sc
