#!/usr/bin/env bash
# Builds the Java Paimon peer of the append / PK benchmark (bench/java/src, strata.bench.JavaPeer)
# against the Paimon 2.0.0 classpath of the interop suite's Java oracle, leaving
#   $ROOT/.cache/bench-java/classes/        compiled strata.bench.*
#   $ROOT/.cache/bench-java/classpath.txt   classes/ plus the Paimon 2.0.0 jars (absolute paths)
#   $ROOT/.cache/bench-java/.stamp          hash of the sources, this script, the jar list and the JDK
# The Paimon classpath is .cache/java-oracle/2.0.0/classpath.txt; when it (or a jar it names) is
# missing, tests/java-oracle/build.sh 2.0.0 resolves it with Maven (into .cache/m2). Nothing is
# rebuilt when the stamp matches.
#
# Usage: bash bench/java/build.sh        then: java -cp "$(cat .cache/bench-java/classpath.txt)" strata.bench.JavaPeer ...
# Needs `javac` (JDK 17+), and `mvn` only when the Paimon classpath is not built yet.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PAIMON=2.0.0
ORACLE_CP="$ROOT/.cache/java-oracle/$PAIMON/classpath.txt"
OUT="$ROOT/.cache/bench-java"

jars_present() {
    local jar
    [[ -f "$ORACLE_CP" ]] || return 1
    IFS=':' read -r -a jars < "$ORACLE_CP" || true   # no final newline
    [[ ${#jars[@]} -gt 0 ]] || return 1
    for jar in "${jars[@]}"; do
        [[ -f "$jar" ]] || return 1
    done
}

if ! jars_present; then
    echo "bench-java: building the Paimon $PAIMON classpath (tests/java-oracle/build.sh $PAIMON)" >&2
    bash "$ROOT/tests/java-oracle/build.sh" "$PAIMON" >&2
    jars_present || { echo "bench-java: $ORACLE_CP is missing or names missing jars" >&2; exit 1; }
fi

HASH="$( { cd "$HERE" && find . -type f \( -name '*.java' -o -name '*.sh' \) -print0 | sort -z | xargs -0 sha256sum;
    cat "$ORACLE_CP"; javac -version 2>&1; } | sha256sum | cut -d' ' -f1)"
if [[ -f "$OUT/.stamp" && "$(cat "$OUT/.stamp")" == "$HASH" && -f "$OUT/classes/strata/bench/JavaPeer.class" \
      && -f "$OUT/classpath.txt" ]]; then
    echo "bench-java: up to date ($OUT)" >&2
    exit 0
fi

echo "bench-java: compiling strata.bench.JavaPeer against Paimon $PAIMON into $OUT" >&2
rm -rf "$OUT/classes" "$OUT/.stamp"
mkdir -p "$OUT/classes"
find "$HERE/src/main/java" -name '*.java' -print0 | sort -z \
    | xargs -0 javac --release 17 -Xlint:all,-processing,-serial,-try -encoding UTF-8 \
        -cp "$(cat "$ORACLE_CP")" -d "$OUT/classes"
printf '%s:%s' "$OUT/classes" "$(cat "$ORACLE_CP")" > "$OUT/classpath.txt"
echo "$HASH" > "$OUT/.stamp"
