#!/usr/bin/env bash
# The whole test suite: formatting, clippy, the Rust tests, then the interop tests that round-trip
# tables between strata and pypaimon 2.1.0 / pypaimon-rust 0.4.0, Java Paimon 1.0.1 / 1.4.2 / 2.0.0 (the
# oracle in tests/java-oracle), Spark 3.5 (paimon-spark-3.5 0.9.0) and Flink 2.0 (paimon-flink-2.0
# 2.0.0).  The reference engines are installed in the background while the Rust build runs.
#
# Then the Python package (crates/strata-python) is built as a wheel with maturin, installed into
# its own venv (.python-venv, from crates/strata-python/tests/requirements.txt: pyarrow, pandas,
# Polars, DuckDB, DataFusion, Ray, pypaimon, pypaimon-rust) and tested with pytest.
#
# Usage: bash scripts/test.sh [--interop-only] [PYTEST_ARGS...]
#   --interop-only   skip fmt/clippy/cargo test (still builds the strata binary)
#   PYTEST_ARGS      passed to pytest, e.g. -k overwrite, -x, -m cli_read
# Env:   PYTHON=python3.11   interpreter for the venv (CPython >= 3.11; default python3)
#        CARGO_TARGET_DIR    honoured (the binary is taken from there)
#        INTEROP_VENV=DIR    venv location (default .interop-venv at the repository root)
#
# Needs a Rust toolchain (cargo with rustfmt and clippy), CPython >= 3.11 with venv and pip, and a
# JDK 17+ with Maven (the Java Paimon oracle); crates come from crates.io, Python packages from
# PyPI, Java artifacts from Maven Central (cached in .cache/m2, connector jars in .cache/jars).
# The venvs (.interop-venv from tests/interop/requirements.txt, .flink-venv from
# tests/interop/requirements-flink.txt) are created on first use and rebuilt whenever their
# requirements file (or the interpreter) changes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

REQ="tests/interop/requirements.txt"
VENV="${INTEROP_VENV:-$ROOT/.interop-venv}"
REQ_FLINK="tests/interop/requirements-flink.txt"
REQ_PYTHON="crates/strata-python/tests/requirements.txt"
PYTHON_VENV="${PYTHON_VENV:-$ROOT/.python-venv}"
FLINK_VENV="${FLINK_VENV:-$ROOT/.flink-venv}"
export FLINK_VENV
PY="${PYTHON:-python3}"
INTEROP_ONLY=0
if [[ "${1:-}" == "--interop-only" ]]; then
    INTEROP_ONLY=1
    shift
fi

T0=$SECONDS
step() { printf '\n==> [%4ds] %s\n' "$((SECONDS - T0))" "$*"; }
disk() { df -h "$ROOT" 2>/dev/null | tail -1 | awk '{print "disk: " $4 " free of " $2}' || true; }
die() { printf '\ntest.sh: FAILED: %s\n' "$*" >&2; exit 1; }

# -- preflight: fail before any long build when a tool is missing -------------------------------
command -v cargo >/dev/null || die "cargo not found: install a Rust toolchain (rustup)"
command -v "$PY" >/dev/null || die "$PY not found: install CPython >= 3.11 or set PYTHON=..."
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
    || die "$PY is $("$PY" -V 2>&1); the interop tests need CPython >= 3.11 (set PYTHON=...)"
"$PY" -c 'import venv, ensurepip' 2>/dev/null \
    || die "$PY lacks the venv/ensurepip modules (Debian: apt-get install python3-venv)"
[[ -f "$REQ" ]] || die "$REQ is missing"
[[ -f "$REQ_FLINK" ]] || die "$REQ_FLINK is missing"
[[ -f "$REQ_PYTHON" ]] || die "$REQ_PYTHON is missing"
command -v curl >/dev/null || die "curl not found: the Spark/Flink connector jars are downloaded with it"
command -v java >/dev/null || die "java not found: the Java Paimon interop tests need a JDK 17+ (apt-get install openjdk-17-jdk-headless)"
JAVA_MAJOR="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
[[ "${JAVA_MAJOR:-0}" =~ ^[0-9]+$ && "$JAVA_MAJOR" -ge 17 ]] \
    || die "java is version '${JAVA_MAJOR:-unknown}'; the Java Paimon oracle needs JDK 17+"
command -v mvn >/dev/null || die "mvn not found: the Java Paimon oracle is built with Maven 3.8+ (apt-get install maven)"
# The JDBC catalog's tests start a PostgreSQL server of their own (initdb + pg_ctl on a free
# loopback port): install Debian's server package when no server binaries are there.
if [[ -z "${STRATA_PG_BIN:-}" ]] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        step "installing PostgreSQL (the JDBC catalog tests start a server)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null \
            || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; } \
            || die "installing PostgreSQL failed (apt-get install postgresql)"
    else
        die "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): apt-get install postgresql, or set STRATA_PG_BIN"
    fi
fi

# -- reference engines: venvs, connector jars, Java oracle (in the background) ----------------------
venv_from() {  # venv_from DIR REQUIREMENTS: (re)create DIR unless its stamp matches
    local dir="$1" req="$2" stamp="$1/.requirements.sha256" want
    want="$( { sha256sum "$req" | cut -d' ' -f1; "$PY" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
    if [[ -x "$dir/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        echo "reusing $dir ($req unchanged)"
        return 0
    fi
    echo "creating $dir from $req"
    rm -rf "$dir"
    "$PY" -m venv "$dir" || { echo "could not create the venv at $dir"; return 1; }
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" \
        || { echo "pip install -r $req failed (PyPI reachable?)"; return 1; }
    echo "$want" > "$stamp"
}
prepare_engines() {
    venv_from "$VENV" "$REQ" || return 1
    venv_from "$FLINK_VENV" "$REQ_FLINK" || return 1
    venv_from "$PYTHON_VENV" "$REQ_PYTHON" || return 1
    echo "connector jars (tests/engines/fetch-jars.sh)"
    bash tests/engines/fetch-jars.sh || { echo "fetching the connector jars failed (Maven Central reachable?)"; return 1; }
    echo "Java Paimon oracle (tests/java-oracle/build.sh: Paimon 1.0.1, 1.4.2 and 2.0.0)"
    bash tests/java-oracle/build.sh || { echo "building the Java oracle failed (Maven Central reachable?)"; return 1; }
}
mkdir -p "$ROOT/.cache"
ENGINES_LOG="$ROOT/.cache/prepare-engines.log"
disk
step "installing the reference engines in the background (log: $ENGINES_LOG)"
prepare_engines > "$ENGINES_LOG" 2>&1 &
ENGINES_PID=$!
trap 'pkill -TERM -P $ENGINES_PID 2>/dev/null; kill $ENGINES_PID 2>/dev/null || true' EXIT

# -- Rust ------------------------------------------------------------------------------------------
if [[ $INTEROP_ONLY == 0 ]]; then
    step "cargo fmt --all -- --check"
    cargo fmt --all -- --check || die "formatting differs: run 'cargo fmt --all'"

    step "cargo clippy --workspace --all-targets -- -D warnings"
    cargo clippy --workspace --all-targets -- -D warnings || die "clippy reported problems"

    step "cargo clippy -p strata --no-default-features (the slim embedder build: no S3, no SQL)"
    cargo clippy -p strata --no-default-features -- -D warnings \
        || die "strata does not build without its default features"

    step "cargo test --workspace"
    cargo test --workspace || die "cargo test failed"
fi

# The interop tests use the debug binary: the profile cargo test just built.  After a full run the
# build selects the same packages and targets as `cargo test --workspace` (so the same feature
# unification: every dependency is already fresh and only the binary links); --interop-only builds
# just the binaries the interop tests run (strata, strata-workload, strata-s3-test-server).
if [[ $INTEROP_ONLY == 0 ]]; then
    BUILD=(cargo build --workspace --bins --tests)
else
    BUILD=(cargo build -p strata-cli --bins -p strata-s3-test-server)
fi
step "${BUILD[*]}"
"${BUILD[@]}" || die "building the strata binary failed"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET_DIR" = /* ]] || TARGET_DIR="$ROOT/$TARGET_DIR"
STRATA_BIN="$TARGET_DIR/debug/strata"
[[ -x "$STRATA_BIN" ]] || die "no binary at $STRATA_BIN after the build"

disk
step "waiting for the reference engines"
if ! wait "$ENGINES_PID"; then
    cat "$ENGINES_LOG" >&2
    die "installing the reference engines failed (log above)"
fi
trap - EXIT
cat "$ENGINES_LOG"

# -- interop ---------------------------------------------------------------------------------------
step "pytest tests/interop (STRATA_BIN=$STRATA_BIN)"
set +e
STRATA_BIN="$STRATA_BIN" "$VENV/bin/python" -m pytest tests/interop -p no:cacheprovider "$@"
rc=$?
set -e
case $rc in
    0) ;;
    5) die "pytest collected no interop tests" ;;
    *) die "interop tests failed (pytest exit $rc)" ;;
esac

# -- the Python package -----------------------------------------------------------------------------
step "building the strata Python wheel into $PYTHON_VENV (scripts/build-python.sh)"
bash scripts/build-python.sh "$PYTHON_VENV" || die "building or installing the Python wheel failed"
step "pytest crates/strata-python/tests"
set +e
"$PYTHON_VENV/bin/python" -m pytest crates/strata-python/tests -p no:cacheprovider
rc=$?
set -e
case $rc in
    0) ;;
    5) die "pytest collected no Python package tests" ;;
    *) die "Python package tests failed (pytest exit $rc)" ;;
esac

disk
step "all tests passed"
