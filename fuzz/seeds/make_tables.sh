#!/usr/bin/env bash
# Writes small Paimon tables with the strata CLI, covering every metadata file kind strata
# reads (snapshots and hints, schemas, manifest lists, manifests, index manifests with HASH
# and deletion-vector entries, data files with every column type and shredded MAPs), with
# uncompressed and compressed manifests and data files, so the fuzzers start from real bytes.
#
#   bash fuzz/seeds/make_tables.sh WAREHOUSE_DIR      (STRATA_BIN defaults to target/debug/strata)
set -euo pipefail
WH=${1:?usage: make_tables.sh WAREHOUSE_DIR}
BIN=${STRATA_BIN:-target/debug/strata}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
s() { "$BIN" --warehouse "$WH" "$@" > /dev/null; }

# Append tables: every primitive type plus ARRAY, MAP and ROW, partitioned; one per manifest
# codec, the first with uncompressed data files too.
for codec in none zstd deflate snappy; do
  fc=zstd; [ "$codec" = none ] && fc=none
  cat > "$TMP/events.json" <<JSON
{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING"},
 {"name": "v", "type": "INT"}, {"name": "small", "type": "SMALLINT"}, {"name": "tiny", "type": "TINYINT"},
 {"name": "flag", "type": "BOOLEAN"}, {"name": "f", "type": "FLOAT"}, {"name": "d", "type": "DOUBLE"},
 {"name": "amount", "type": "DECIMAL(10, 2)"}, {"name": "big", "type": "DECIMAL(30, 4)"},
 {"name": "day", "type": "DATE"}, {"name": "ts", "type": "TIMESTAMP(3)"}, {"name": "ts9", "type": "TIMESTAMP(9)"},
 {"name": "tags", "type": "ARRAY<STRING>"}, {"name": "attrs", "type": "MAP<STRING, INT>"},
 {"name": "c", "type": "CHAR(3)"}, {"name": "bin", "type": "BYTES"}],
 "partitionKeys": ["dt"],
 "options": {"bucket": "-1", "manifest.compression": "$codec", "file.compression": "$fc"}}
JSON
  s create-table "db.events_$codec" --schema "$TMP/events.json"
  cat > "$TMP/e1.jsonl" <<'JSON'
{"id": 1, "dt": "2024-01-01", "v": 10, "small": 3, "tiny": -1, "flag": true, "f": 1.5, "d": -2.25, "amount": "12.34", "big": "12345678901234567890.1234", "day": "2024-01-01", "ts": "2024-01-01T10:00:00.123", "ts9": "2024-01-01T10:00:00.123456789", "tags": ["a", "bb"], "attrs": {"k": 1, "l": null}, "c": "abc", "bin": "000102"}
{"id": 2, "dt": "2024-01-02", "v": null, "small": null, "tiny": 7, "flag": false, "f": null, "d": 1e300, "amount": "-0.01", "big": null, "day": null, "ts": null, "ts9": null, "tags": [], "attrs": {}, "c": null, "bin": null}
{"id": 3, "dt": null, "v": 30, "small": -300, "tiny": null, "flag": null, "f": -0.0, "d": null, "amount": null, "big": "-1.0000", "day": "1970-01-01", "ts": "1969-12-31T23:59:59.999", "ts9": null, "tags": null, "attrs": null, "c": "x", "bin": "ff"}
JSON
  cat > "$TMP/e2.jsonl" <<'JSON'
{"id": 4, "dt": "2024-01-01", "v": 40, "small": 1, "tiny": 1, "flag": true, "f": 2.5, "d": 4.5, "amount": "99.99", "big": "0.0001", "day": "2024-02-29", "ts": "2024-02-29T00:00:00.000", "ts9": "2024-02-29T00:00:00.000000001", "tags": ["z"], "attrs": {"k": 4}, "c": "def", "bin": "01"}
JSON
  s write "db.events_$codec" "$TMP/e1.jsonl"
  s write "db.events_$codec" "$TMP/e2.jsonl"
  s write "db.events_$codec" "$TMP/e2.jsonl" --overwrite --partition dt=2024-01-01
done

# Primary-key tables: fixed buckets with row kinds (APPEND and COMPACT snapshots), dynamic
# buckets (HASH index manifests), deletion vectors (DV index manifests), partial-update.
cat > "$TMP/rows.jsonl" <<'JSON'
{"id": 1, "dt": "a", "balance": 10, "note": "x", "op": "+I"}
{"id": 2, "dt": "a", "balance": 20, "note": null, "op": "+I"}
{"id": 3, "dt": "b", "balance": 30, "note": "y", "op": "+I"}
{"id": 4, "dt": "b", "balance": 40, "note": "z", "op": "+I"}
JSON
cat > "$TMP/changes.jsonl" <<'JSON'
{"id": 1, "dt": "a", "balance": 10, "note": "x", "op": "-U"}
{"id": 1, "dt": "a", "balance": 11, "note": "x2", "op": "+U"}
{"id": 3, "dt": "b", "balance": 30, "note": "y", "op": "-D"}
{"id": 5, "dt": "b", "balance": 50, "note": null, "op": "+I"}
JSON
pk() {
  local name=$1 opts=$2
  cat > "$TMP/pk.json" <<JSON
{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"},
 {"name": "balance", "type": "BIGINT"}, {"name": "note", "type": "STRING"}, {"name": "op", "type": "STRING"}],
 "partitionKeys": ["dt"], "primaryKeys": ["id", "dt"],
 "options": {"rowkind.field": "op", "manifest.compression": "none", "file.compression": "none", $opts}}
JSON
  s create-table "db.$name" --schema "$TMP/pk.json"
  s write "db.$name" "$TMP/rows.jsonl"
  s write "db.$name" "$TMP/changes.jsonl"
}
pk pk_fixed '"bucket": "2"'
pk pk_dynamic '"bucket": "-1"'
pk pk_dv '"bucket": "1", "deletion-vectors.enabled": "true"'
pk pk_partial '"bucket": "1", "merge-engine": "partial-update", "ignore-delete": "true"'
s compact db.pk_fixed --full

# Shared-shredding MAP columns (PIP-43), with strata's dedicated columns and Java's placement.
for ded in 32 0; do
  cat > "$TMP/m.json" <<JSON
{"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "m", "type": "MAP<STRING NOT NULL, INT>"}],
 "options": {"bucket": "-1", "file.compression": "none", "manifest.compression": "none",
  "fields.m.map.storage-layout": "shared-shredding",
  "fields.m.map.shared-shredding.max-columns": "4",
  "fields.m.map.shared-shredding.max-dedicated-columns": "$ded"}}
JSON
  s create-table "db.shredded_$ded" --schema "$TMP/m.json"
  python3 - "$TMP/m.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(40):
        m = {"hot": i, f"k{i % 7}": i * 2}
        if i % 5 == 0:
            m.update({f"x{j}": j for j in range(6)})
        if i % 9 == 0:
            m = None
        f.write(json.dumps({"id": i, "m": m}) + "\n")
PY
  s write "db.shredded_$ded" "$TMP/m.jsonl"
done
echo "tables written to $WH"
