//! The system tables that summarise a snapshot's manifests: `manifests` (one row per manifest
//! file), `partitions` and `buckets` (file counts, sizes, record counts and the newest file
//! creation time per partition / per bucket) — Java's `ManifestsTable`, `PartitionsTable`,
//! `BucketsTable`, each of the latest snapshot or of a given one.
//!
//! `partitions` and `buckets` add up the raw manifest entries as Java's
//! `readPartitionEntries` / `readBucketEntries` do (an ADD counts +1 file, +rows, +bytes, a
//! DELETE the opposite; the last update time is the newest creation time seen) and keep the
//! groups that still have files. Record counts are of the files, not merged rows.

use std::collections::HashMap;

use arrow_array::RecordBatch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, ManifestEntry};
use strata_spec::snapshot::Snapshot;
use strata_spec::{DataField, DataType, Datum, TypeKind};

use super::batch::{col, string, Cell, Rows};
use super::java_text::{cast_to_string, row_text};
use crate::index::{IndexManifestStore, DELETION_VECTORS_INDEX};
use crate::table::Table;
use crate::{Error, Result};

/// Columns of `manifests` (Java 2.0 `ManifestsTable.TABLE_TYPE`).
pub(super) fn manifests_fields() -> Vec<DataField> {
    vec![
        col(0, "file_name", string(), false),
        col(1, "file_size", TypeKind::BigInt, false),
        col(2, "num_added_files", TypeKind::BigInt, false),
        col(3, "num_deleted_files", TypeKind::BigInt, false),
        col(4, "schema_id", TypeKind::BigInt, false),
        col(5, "min_partition_stats", string(), true),
        col(6, "max_partition_stats", string(), true),
        col(7, "min_row_id", TypeKind::BigInt, true),
        col(8, "max_row_id", TypeKind::BigInt, true),
    ]
}

/// Columns of `partitions`.
pub(super) fn partitions_fields() -> Vec<DataField> {
    vec![
        col(0, "partition", string(), true),
        col(1, "record_count", TypeKind::BigInt, false),
        col(2, "file_size_in_bytes", TypeKind::BigInt, false),
        col(3, "file_count", TypeKind::BigInt, false),
        col(4, "last_update_time", TypeKind::Timestamp(3), true),
        col(5, "created_at", TypeKind::Timestamp(3), true),
        col(6, "created_by", string(), true),
        col(7, "updated_by", string(), true),
        col(8, "options", string(), true),
        col(9, "total_buckets", TypeKind::Int, false),
        col(10, "done", TypeKind::Boolean, false),
        col(11, "deleted_record_count", TypeKind::BigInt, true),
    ]
}

/// Columns of `buckets`.
pub(super) fn buckets_fields() -> Vec<DataField> {
    vec![
        col(0, "partition", string(), true),
        col(1, "bucket", TypeKind::Int, false),
        col(2, "record_count", TypeKind::BigInt, false),
        col(3, "file_size_in_bytes", TypeKind::BigInt, false),
        col(4, "file_count", TypeKind::BigInt, false),
        col(5, "last_update_time", TypeKind::Timestamp(3), true),
    ]
}

/// Snapshot `id`, or the latest (`None` for a table without snapshots).
async fn snapshot_of(table: &Table, id: Option<i64>) -> Result<Option<Snapshot>> {
    let sm = table.snapshot_manager();
    match id {
        Some(id) => Ok(Some(sm.snapshot(id).await?)),
        None => sm.latest().await,
    }
}

/// A row's fields decoded with `types`; fields beyond its arity are NULL. `shown` names the
/// file holding it in errors.
fn row_values(row: &BinaryRow, types: &[DataType], shown: &str) -> Result<Vec<Option<Datum>>> {
    types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            if row.is_null_at(i) {
                Ok(None)
            } else {
                row.get(i, ty)
                    .map_err(|e| Error::corrupt(shown.to_string(), e))
            }
        })
        .collect()
}

/// The `manifests` system table of the latest snapshot.
pub async fn manifests(table: &Table) -> Result<RecordBatch> {
    manifests_at(table, None).await
}

/// The `manifests` system table of snapshot `snapshot_id` (default: the latest): its base,
/// delta and changelog manifests, in that order.
pub async fn manifests_at(table: &Table, snapshot_id: Option<i64>) -> Result<RecordBatch> {
    let mut rows = Rows::new(
        format!("{}$manifests", table.identifier()),
        manifests_fields(),
    );
    let Some(snapshot) = snapshot_of(table, snapshot_id).await? else {
        return rows.finish();
    };
    let store = table.manifest_store();
    let mut metas = store.data_manifests(&snapshot).await?;
    if let Some(list) = &snapshot.changelog_manifest_list {
        metas.extend(store.read_list(list).await?);
    }
    let ptypes = table.schema().partition_type().types();
    let io = table.file_io();
    for m in metas {
        let shown = io.display(&table.paths().manifest_file(&m.file_name));
        let stats = &m.partition_stats;
        let min = row_values(&stats.min_values, &ptypes, &shown)?;
        let max = row_values(&stats.max_values, &ptypes, &shown)?;
        rows.push(vec![
            Cell::Str(m.file_name),
            Cell::Long(m.file_size),
            Cell::Long(m.num_added_files),
            Cell::Long(m.num_deleted_files),
            Cell::Long(m.schema_id),
            Cell::Str(row_text(&min, &ptypes)),
            Cell::Str(row_text(&max, &ptypes)),
            m.min_row_id.into(),
            m.max_row_id.into(),
        ])?;
    }
    rows.finish()
}

/// File counts of one partition or bucket, summed over raw manifest entries.
#[derive(Clone, Debug, Default)]
struct Totals {
    record_count: i64,
    file_size: i64,
    file_count: i64,
    last_creation: Option<i64>,
    total_buckets: i32,
}

impl Totals {
    fn add(&mut self, e: &ManifestEntry) {
        let sign = if e.kind == FileKind::Delete { -1 } else { 1 };
        self.record_count += sign * e.file.row_count;
        self.file_size += sign * e.file.file_size;
        self.file_count += sign;
        if let Some(t) = e.file.creation_time {
            self.last_creation = Some(self.last_creation.map_or(t, |l| l.max(t)));
        }
        self.total_buckets = e.total_buckets;
    }
}

/// Every entry of the snapshot's data manifests, ADD and DELETE, in manifest order.
async fn raw_entries(table: &Table, snapshot: &Snapshot) -> Result<Vec<ManifestEntry>> {
    let store = table.manifest_store();
    let metas = store.data_manifests(snapshot).await?;
    Ok(store
        .read_manifests(&metas)
        .await?
        .into_iter()
        .flatten()
        .collect())
}

/// The `partitions` system table of the latest snapshot.
pub async fn partitions(table: &Table) -> Result<RecordBatch> {
    partitions_at(table, None).await
}

/// The `partitions` system table of snapshot `snapshot_id` (default: the latest), ordered by
/// the partition text (`k=v/k2=v2`, NULL as the default partition name). strata's catalog
/// keeps no partition metadata, so `created_at`, `created_by`, `updated_by` and `options` are
/// NULL and `done` is false, as Java shows them for a filesystem catalog.
///
/// A table with `scan.fallback-branch` / `scan.primary-branch` lists its partitions as its
/// reads see them (Java's `FallbackReadScan.listPartitionEntries`): the first branch's, then
/// the other's partitions the first lacks; at a given snapshot the other branch's partitions
/// are those of its snapshot at or before that snapshot's time (Java's `rewriteOtherOptions`,
/// `crate::scan::fallback_travel`).
pub async fn partitions_at(table: &Table, snapshot_id: Option<i64>) -> Result<RecordBatch> {
    let mut rows = Rows::new(
        format!("{}$partitions", table.identifier()),
        partitions_fields(),
    );
    let mut out = partition_rows(table, snapshot_id).await?;
    if let Some((_, name, own_first)) = crate::scan::fallback::other_branch(table) {
        if name != table.branch() {
            if let Some(other) = crate::scan::fallback::other_table(table, &name).await? {
                let other_id = match snapshot_id {
                    None => None,
                    Some(id) => {
                        use crate::scan::fallback_travel::{other_side, BranchTravel};
                        let travel = BranchTravel::Target(
                            crate::scan::time_travel::TravelTarget::Snapshot(id),
                        );
                        Some(other_side(table, None, &other, &travel).await?.0.id)
                    }
                };
                let other_rows = partition_rows(&other, other_id).await?;
                let (first, second) = match own_first {
                    true => (out, other_rows),
                    false => (other_rows, out),
                };
                let have: std::collections::HashSet<String> =
                    first.iter().map(|(text, _)| text.clone()).collect();
                out = first;
                out.extend(second.into_iter().filter(|(text, _)| !have.contains(text)));
                out.sort_by(|a, b| a.0.cmp(&b.0));
            }
        }
    }
    for (_, row) in out {
        rows.push(row)?;
    }
    rows.finish()
}

/// The `partitions` rows of `table`'s own branch at `snapshot_id` (default: the latest),
/// sorted by partition text.
async fn partition_rows(
    table: &Table,
    snapshot_id: Option<i64>,
) -> Result<Vec<(String, Vec<Cell>)>> {
    let Some(snapshot) = snapshot_of(table, snapshot_id).await? else {
        return Ok(Vec::new());
    };
    let mut groups: Vec<(BinaryRow, Totals)> = Vec::new();
    let mut index: HashMap<BinaryRow, usize> = HashMap::new();
    for e in raw_entries(table, &snapshot).await? {
        let i = *index.entry(e.partition.clone()).or_insert_with(|| {
            groups.push((e.partition.clone(), Totals::default()));
            groups.len() - 1
        });
        groups[i].1.add(&e);
    }
    let deleted = deleted_record_counts(table, &snapshot).await?;
    let ptype = table.schema().partition_type();
    let default_name = table.options().partition_default_name().to_string();
    let mut out: Vec<(String, Vec<Cell>)> = Vec::new();
    for (partition, t) in groups {
        if t.file_count <= 0 {
            continue;
        }
        let values = partition.to_datums(&ptype.types())?;
        let text: Vec<String> = ptype
            .fields
            .iter()
            .zip(&values)
            .map(|(f, v)| {
                let v = v
                    .as_ref()
                    .map_or(default_name.clone(), |d| cast_to_string(d, &f.data_type));
                format!("{}={v}", f.name)
            })
            .collect();
        let text = text.join("/");
        let deleted_rows = match &deleted {
            None => Cell::Long(0),
            Some(map) => match map.get(&partition) {
                None => Cell::Long(0),
                Some(n) => (*n).into(),
            },
        };
        out.push((
            text.clone(),
            vec![
                Cell::Str(text),
                Cell::Long(t.record_count),
                Cell::Long(t.file_size),
                Cell::Long(t.file_count),
                t.last_creation.map_or(Cell::Null, Cell::Millis),
                Cell::Null,
                Cell::Null,
                Cell::Null,
                Cell::Null,
                Cell::Int(t.total_buckets),
                Cell::Bool(false),
                deleted_rows,
            ],
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Rows deleted by deletion vectors per partition (`None` per partition when a vector's
/// cardinality is unknown); `None` when the table has no deletion vectors.
async fn deleted_record_counts(
    table: &Table,
    snapshot: &Snapshot,
) -> Result<Option<HashMap<BinaryRow, Option<i64>>>> {
    if !table.options().deletion_vectors_enabled()? {
        return Ok(None);
    }
    let mut out: HashMap<BinaryRow, Option<i64>> = HashMap::new();
    for e in IndexManifestStore::new(table)?
        .read_snapshot(snapshot)
        .await?
    {
        if e.index_file.index_type != DELETION_VECTORS_INDEX {
            continue;
        }
        let Some(ranges) = e.index_file.dv_ranges.as_ref().filter(|r| !r.is_empty()) else {
            continue;
        };
        let slot = out.entry(e.partition.clone()).or_insert(Some(0));
        for r in ranges {
            *slot = match (*slot, r.cardinality) {
                (Some(n), Some(c)) => Some(n + c),
                _ => None,
            };
        }
    }
    Ok(Some(out))
}

/// The `buckets` system table of the latest snapshot.
pub async fn buckets(table: &Table) -> Result<RecordBatch> {
    buckets_at(table, None).await
}

/// The `buckets` system table of snapshot `snapshot_id` (default: the latest), ordered by
/// partition text (`{v1, v2}`) and bucket.
pub async fn buckets_at(table: &Table, snapshot_id: Option<i64>) -> Result<RecordBatch> {
    let mut rows = Rows::new(format!("{}$buckets", table.identifier()), buckets_fields());
    let Some(snapshot) = snapshot_of(table, snapshot_id).await? else {
        return rows.finish();
    };
    let mut groups: Vec<((BinaryRow, i32), Totals)> = Vec::new();
    let mut index: HashMap<(BinaryRow, i32), usize> = HashMap::new();
    for e in raw_entries(table, &snapshot).await? {
        let key = (e.partition.clone(), e.bucket);
        let i = *index.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Totals::default()));
            groups.len() - 1
        });
        groups[i].1.add(&e);
    }
    let ptypes = table.schema().partition_type().types();
    let mut out: Vec<(String, i32, Totals)> = Vec::new();
    for ((partition, bucket), t) in groups {
        if t.file_count > 0 {
            out.push((row_text(&partition.to_datums(&ptypes)?, &ptypes), bucket, t));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    for (partition, bucket, t) in out {
        rows.push(vec![
            Cell::Str(partition),
            Cell::Int(bucket),
            Cell::Long(t.record_count),
            Cell::Long(t.file_size),
            Cell::Long(t.file_count),
            t.last_creation.map_or(Cell::Null, Cell::Millis),
        ])?;
    }
    rows.finish()
}
