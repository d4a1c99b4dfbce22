#!/usr/bin/env bash
# Downloads the connector jars of the Spark and Flink reference engines from Maven Central into
# $ROOT/.cache/jars, each pinned by version and SHA-256 (a jar already there with the right hash is
# kept; a wrong one is replaced; a download with the wrong hash is an error).
#
#   paimon-spark-3.5 0.9.0        Paimon's Spark 3.5 runtime (SparkCatalog, procedures).  The newest
#                                 paimon-spark-3.5 Maven Central serves to this suite's machines
#                                 (its maven-metadata lists 0.7.0, 0.8.2, 0.9.0); no 1.x/2.x Spark
#                                 runtime is served under any name tried: paimon-spark-3.5_2.12,
#                                 paimon-spark-3.5_2.13, paimon-spark-4.0, paimon-spark-4.0_2.13,
#                                 paimon-spark-3.4_2.12, paimon-spark-common_2.12.
#   paimon-flink-2.0 2.0.0        Paimon 2.0.0 for Flink 2.0 (the whole Paimon bundle, shaded)
#   hadoop-client-api/runtime     Hadoop classes the Flink jar needs (Spark ships its own)
#
# Usage: bash tests/engines/fetch-jars.sh        (prints the jar directory)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="$ROOT/.cache/jars"
REPO="${MAVEN_CENTRAL:-https://repo1.maven.org/maven2}"
mkdir -p "$DIR"

# group path | artifact | version | sha256
JARS=(
    "org/apache/paimon|paimon-spark-3.5|0.9.0|e9e8a90a630a1440dfd869bb568c8fc916d6de23bc162922cc0c2684ed6fa15b"
    "org/apache/paimon|paimon-flink-2.0|2.0.0|f9999454cd1827da1a96556a6ef0525a98fddcfa4370837a51119fecc181f5f0"
    "org/apache/hadoop|hadoop-client-api|3.3.6|f3d2347a6e1c6885d5bcfd4f60c3ac3810ec11068fc161e04329baabf412d963"
    "org/apache/hadoop|hadoop-client-runtime|3.3.6|15f01bc804294df06d2effc87de363a83cf589f50558bdbf48f72541ad8de854"
)

for entry in "${JARS[@]}"; do
    IFS='|' read -r group artifact version sha <<< "$entry"
    jar="$DIR/$artifact-$version.jar"
    if [[ -f "$jar" ]] && [[ "$(sha256sum "$jar" | cut -d' ' -f1)" == "$sha" ]]; then
        continue
    fi
    url="$REPO/$group/$artifact/$version/$artifact-$version.jar"
    echo "fetch-jars: downloading $url"
    curl -sSfL --retry 3 -o "$jar.part" "$url" || { echo "fetch-jars: cannot download $url" >&2; exit 1; }
    got="$(sha256sum "$jar.part" | cut -d' ' -f1)"
    if [[ "$got" != "$sha" ]]; then
        rm -f "$jar.part"
        echo "fetch-jars: $artifact-$version.jar has SHA-256 $got, expected $sha" >&2
        exit 1
    fi
    mv "$jar.part" "$jar"
done
echo "$DIR"
