#!/usr/bin/env bash
# Builds the Java Paimon oracle (this folder) for each Paimon version the interop suite uses,
# resolving Maven dependencies into $ROOT/.cache/m2 and leaving, per version,
#   $ROOT/.cache/java-oracle/<version>/classes/        compiled strata.oracle.*
#   $ROOT/.cache/java-oracle/<version>/classpath.txt   the resolved jars (absolute paths)
#   $ROOT/.cache/java-oracle/<version>/.stamp          hash of the sources, pom and JDK
# A version whose stamp matches and whose jars are all present is not rebuilt.
#
# Usage: bash tests/java-oracle/build.sh [VERSION...]     (default: 1.0.1 1.4.2 2.0.0)
# Needs `java` (JDK 17+) and `mvn` (scripts/test.sh checks them first).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
M2="$ROOT/.cache/m2"
VERSIONS=("$@")
[[ ${#VERSIONS[@]} -gt 0 ]] || VERSIONS=(1.0.1 1.4.2 2.0.0)

HASH="$( { cd "$HERE" && find . -type f \( -name '*.java' -o -name '*.xml' -o -name '*.pom' -o -name '*.sh' \) \
    -print0 | sort -z | xargs -0 sha256sum; java -version 2>&1; } | sha256sum | cut -d' ' -f1)"

fresh() {  # fresh OUT: the stamp matches and every classpath entry exists
    local out="$1" jar
    [[ -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$HASH" && -f "$out/classpath.txt" \
        && -f "$out/classes/strata/oracle/Main.class" ]] || return 1
    IFS=':' read -r -a jars < "$out/classpath.txt" || true   # no final newline
    for jar in "${jars[@]}"; do
        [[ -f "$jar" ]] || return 1
    done
}

for v in "${VERSIONS[@]}"; do
    OUT="$ROOT/.cache/java-oracle/$v"
    if fresh "$OUT"; then
        echo "java-oracle: Paimon $v is up to date ($OUT)"
        continue
    fi
    echo "java-oracle: building for Paimon $v (Maven repository $M2)"
    # Built beside the old output and swapped in by renames, so an oracle JVM already running
    # from $OUT (another test run) never finds its classes directory gone.
    NEW="$OUT.new.$$"
    rm -rf "$NEW"
    mvn -q -B -Dstyle.color=never -f "$HERE/pom.xml" -Dmaven.repo.local="$M2" -Dpaimon="$v" -Doracle.out="$NEW" \
        process-classes
    echo "$HASH" > "$NEW/.stamp"
    fresh "$NEW" || { echo "java-oracle: the build of Paimon $v left no usable output in $NEW" >&2; exit 1; }
    rm -rf "$OUT.old.$$"
    [[ ! -e "$OUT" ]] || mv "$OUT" "$OUT.old.$$"
    mv "$NEW" "$OUT"
    rm -rf "$OUT.old.$$"
done
