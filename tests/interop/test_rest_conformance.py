"""REST conformance of ``strata serve`` (issue 32): ``tests/rest/conformance.py`` -- schemathesis
over Paimon 2.0.0's OpenAPI file, every operation, valid and invalid inputs, every check, on a
seeded warehouse -- must pass: no 5xx, and every other failing check allow-listed with its
reason in ``tests/rest/conformance-allowlist.toml`` (spec bugs where Java is the contract)."""
from __future__ import annotations

import subprocess
import sys

from interop_support.java_oracle import REPO_ROOT

BUDGET_S = 240


def test_schemathesis_against_strata_serve(strata_bin, tmp_path):
    p = subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "rest" / "conformance.py"),
                        "--strata-bin", strata_bin, "--keep", str(tmp_path / "conformance")],
                       capture_output=True, text=True, timeout=BUDGET_S)
    assert p.returncode == 0, f"conformance failures (exit {p.returncode}):\n{p.stdout[-12000:]}\n{p.stderr[-3000:]}"
    assert "5xx answers: 0" in p.stdout, p.stdout[-3000:]
