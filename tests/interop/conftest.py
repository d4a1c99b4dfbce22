"""Fixtures of the strata interop suite.

* ``strata_bin``: the built ``strata`` binary, from $STRATA_BIN (default ``target/debug/strata``
  under the repository root).  A missing binary FAILS every test that needs it; nothing is skipped.
* ``wh``: a fresh warehouse directory per test; ``strata``: a CLI driver bound to it;
  ``inputs``: a directory for the input files a test writes.

The reference engines are imported here, at collection time, and their versions checked: a missing
or wrong package stops the whole run with an error instead of skipping tests.
"""
from __future__ import annotations

import importlib
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

REQUIRED = {"pypaimon": "2.1.0", "pypaimon-rust": "0.4.0", "pyarrow": "19.0.1", "fastavro": "1.13.1"}


def _check_environment() -> None:
    problems = []
    for pkg, want in REQUIRED.items():
        try:
            got = version(pkg)
        except PackageNotFoundError:
            problems.append(f"{pkg} is not installed (need {want})")
            continue
        if got != want:
            problems.append(f"{pkg} {got} is installed, need {want}")
    if problems:
        raise pytest.UsageError("interop environment is wrong: " + "; ".join(problems) +
                                ". Install tests/interop/requirements.txt (scripts/test.sh does).")
    # import now so a broken install is an error at startup, not a failure inside one test
    for module in ("pypaimon", "pypaimon_rust.datafusion", "pyarrow.parquet"):
        importlib.import_module(module)


def pytest_configure(config):
    _check_environment()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """No skips in this suite: a skipped test is reported as a failure."""
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and not hasattr(rep, "wasxfail"):
        rep.outcome = "failed"
        rep.longrepr = f"skipped tests are not allowed in the interop suite: {rep.longrepr}"


def _strata_bin_path() -> Path:
    env = os.environ.get("STRATA_BIN")
    p = Path(env) if env else REPO_ROOT / "target" / "debug" / "strata"
    if not p.is_absolute():
        p = REPO_ROOT / p
    return p


@pytest.fixture(scope="session")
def strata_bin() -> str:
    p = _strata_bin_path()
    if not (p.is_file() and os.access(p, os.X_OK)):
        pytest.fail(f"strata binary not found at {p}: build it with `cargo build -p strata-cli` "
                    f"or set STRATA_BIN", pytrace=False)
    return str(p)


@pytest.fixture
def wh(tmp_path) -> str:
    d = tmp_path / "wh"
    d.mkdir()
    return str(d)


@pytest.fixture
def inputs(tmp_path) -> Path:
    d = tmp_path / "inputs"
    d.mkdir()
    return d


@pytest.fixture
def strata(strata_bin, wh, tmp_path):
    from interop_support.strata_cli import Strata
    return Strata(strata_bin, wh, tmp_path / "scratch")
