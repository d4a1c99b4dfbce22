//! Row-level changes of a data-evolution table by row id: what Paimon's Spark connector writes
//! for `MERGE INTO` (`MergeIntoPaimonDataEvolutionTable`) and `DELETE`
//! (`DeleteFromPaimonTableCommand` with `dataEvolutionEnabled`) on tables with
//! `data-evolution.enabled`, committed in one snapshot ([`Table::apply_row_id_changes`]):
//!
//! * **updates** of matched rows write only the changed columns, one file per row-id range
//!   touched, its `firstRowId` the range's (`Table::update_columns`'s files; no data file is
//!   rewritten, every row keeps its `_ROW_ID`);
//! * **inserts** of unmatched source rows are appended as new files; the commit gives them new
//!   row ids from the snapshot's `nextRowId`;
//! * **deletes** mark rows deleted in deletion vectors, which Java allows only with
//!   `deletion-vectors.enabled` ("Can only perform deletion operation on data evolution tables
//!   with DeletionVector enabled."). The vector of a row-id range belongs to its *anchor file*
//!   (Java's `DataEvolutionUtils.retrieveAnchorFile`: the data file of the range with the
//!   smallest `maxSequenceNumber`, then name; `.blob` files never), and a row's position in it
//!   is `_ROW_ID - firstRowId` (Java's `PaimonRowLevelCommand.dataEvolutionDeletionTargets`).
//!   The partition's vectors are kept as Java's `AppendDeleteFileMaintainer` keeps them: a
//!   vector that grows is merged with its previous one into a new index file, and an index file
//!   that held a changed vector is rewritten without it (its other vectors into a new file) and
//!   removed.
//!
//! Reads apply the anchor file's vector to the stitched rows of its range
//! (`crate::read::data_evolution`, Java's `DataEvolutionSplitRead.readDeletionVector`).

use std::collections::{BTreeMap, HashMap, HashSet};

use arrow_array::RecordBatch;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry};

use crate::commit::{CommitMessage, SnapshotOperation};
use crate::error::ErrorDetail;
use crate::format::deletion_vector::DeletionVector;
use crate::index::deletion_vectors::DeletionVectorIndexWriter;
use crate::index::{IndexManifestStore, DELETION_VECTORS_INDEX};
use crate::read::data_evolution::{anchor_file, group_by_row_ranges};
use crate::table::Table;
use crate::{Error, Result};

/// The row-level changes of one statement on a data-evolution table, applied in one commit by
/// [`Table::apply_row_id_changes`] (Java's `MergeIntoPaimonDataEvolutionTable`: matched
/// `UPDATE` as column updates by `_ROW_ID`, matched or not-matched-by-source `DELETE` as
/// deletion vectors, not-matched `INSERT` as new rows).
#[derive(Debug, Clone, Default)]
pub struct RowIdChanges {
    updates: Option<RecordBatch>,
    inserts: Vec<RecordBatch>,
    deletes: Vec<i64>,
    operation: Option<SnapshotOperation>,
}

impl RowIdChanges {
    /// No changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// New values of some columns of existing rows: a `_ROW_ID` column and the updated
    /// columns, as [`Table::update_columns`] takes them (only those columns are written).
    pub fn with_updates(mut self, batch: RecordBatch) -> Self {
        self.updates = Some(batch);
        self
    }

    /// New rows (all the table's columns, as a write takes them); they get new row ids.
    pub fn with_inserts(mut self, batch: RecordBatch) -> Self {
        self.inserts.push(batch);
        self
    }

    /// Rows to delete, by `_ROW_ID` (needs `deletion-vectors.enabled`).
    pub fn with_deletes(mut self, row_ids: impl IntoIterator<Item = i64>) -> Self {
        self.deletes.extend(row_ids);
        self
    }

    /// The logical operation written into the snapshot (Java 2.0 `Snapshot.operation`; see
    /// [`crate::commit::TableCommit::with_operation`]): Spark's MERGE INTO on a
    /// data-evolution table writes MERGE, its UPDATE writes UPDATE. Default: none.
    pub fn with_operation(mut self, operation: SnapshotOperation) -> Self {
        self.operation = Some(operation);
        self
    }

    fn is_empty(&self) -> bool {
        self.deletes.is_empty()
            && self.inserts.iter().all(|b| b.num_rows() == 0)
            && self.updates.as_ref().is_none_or(|b| b.num_rows() == 0)
    }
}

/// One row-id range of the latest snapshot: where its deletion vector goes.
struct AnchorRange {
    row_count: i64,
    partition: BinaryRow,
    bucket: i32,
    total_buckets: i32,
    anchor: String,
}

impl Table {
    /// Applies `changes` to a table with `data-evolution.enabled` in one APPEND snapshot:
    /// updated columns written by row id, deletions as deletion vectors of the rows' anchor
    /// files, inserted rows appended with new row ids (see the module doc of
    /// `write::data_evolution_dml`). Every updated or deleted `_ROW_ID` must be a live row of
    /// the latest snapshot, and no row may be both updated and deleted. Returns the new
    /// snapshot id (`None` when there was nothing to change).
    pub async fn apply_row_id_changes(&self, changes: RowIdChanges) -> Result<Option<i64>> {
        if !self.options().data_evolution_enabled()? {
            return Err(invalid(format!(
                "changing rows of {} by row id needs data-evolution.enabled = true",
                self.identifier()
            )));
        }
        if !changes.deletes.is_empty() && !self.options().deletion_vectors_enabled()? {
            return Err(ErrorDetail::Unsupported(format!(
                "deleting rows of data-evolution table {}: Java Paimon deletes rows of \
                 data-evolution tables only with deletion vectors (\"Can only perform deletion \
                 operation on data evolution tables with DeletionVector enabled.\"); set \
                 'deletion-vectors.enabled' = 'true'",
                self.identifier()
            ))
            .into());
        }
        if changes.is_empty() {
            return Ok(None);
        }
        if let Some(updates) = &changes.updates {
            let deleted: HashSet<i64> = changes.deletes.iter().copied().collect();
            if !deleted.is_empty() {
                for id in row_ids(updates)? {
                    if deleted.contains(&id) {
                        return Err(invalid(format!(
                            "_ROW_ID {id} of {} is both updated and deleted",
                            self.identifier()
                        )));
                    }
                }
            }
        }
        // The live data files the changes are computed against, and their snapshot: the
        // commit's row-id check base (see `check_unchanged`).
        let (base_snapshot, base_files) = self.live_data_files().await?;
        let mut messages = Vec::new();
        let mut written_index = Vec::new();
        let prepared = async {
            if self.options().deletion_vectors_enabled()? {
                let mut live = changes.deletes.clone();
                if let Some(updates) = &changes.updates {
                    live.extend(row_ids(updates)?);
                }
                self.refuse_deleted_rows(&live).await?;
            }
            if !changes.deletes.is_empty() {
                let (m, paths) = self.deletion_messages(&changes.deletes).await?;
                written_index = paths;
                messages.extend(m);
            }
            if let Some(updates) = &changes.updates {
                messages.extend(self.column_update_messages(updates).await?);
            }
            if changes.inserts.iter().any(|b| b.num_rows() > 0) {
                let mut write = self.new_write()?;
                let result = async {
                    for b in changes.inserts.iter().filter(|b| b.num_rows() > 0) {
                        write.write(b).await?;
                    }
                    write.prepare_commit().await
                }
                .await;
                match result {
                    Ok(m) => messages.extend(m),
                    Err(e) => {
                        write.abort().await;
                        return Err(e);
                    }
                }
            }
            Ok(())
        }
        .await;
        if let Err(e) = prepared {
            for p in &written_index {
                let _ = self.file_io().delete(p).await;
            }
            return Err(e);
        }
        if messages.is_empty() {
            return Ok(None);
        }
        if let Err(e) = self.check_unchanged(&base_files).await {
            for p in &written_index {
                let _ = self.file_io().delete(p).await;
            }
            return Err(e);
        }
        self.new_commit()?
            .with_operation(changes.operation)
            .with_row_id_check_from(base_snapshot)
            .commit(messages)
            .await
    }

    /// What a column update of `fields` in `partitions` does to the global indexes covering
    /// those columns (Java's `MergeIntoPaimonDataEvolutionTable.checkUpdateResult`, by
    /// `global-index.column-update-action`): `THROW_ERROR` (the default) refuses the update
    /// with Java's message, `DROP_PARTITION_INDEX` removes those partitions' index files (the
    /// messages returned), `IGNORE` leaves them (possibly stale, as Java says).
    pub(crate) async fn global_index_changes(
        &self,
        fields: &[strata_spec::DataField],
        partitions: &[BinaryRow],
    ) -> Result<Vec<CommitMessage>> {
        let action = self
            .options()
            .get("global-index.column-update-action")
            .unwrap_or("THROW_ERROR")
            .to_ascii_uppercase();
        if action == "IGNORE" {
            return Ok(Vec::new());
        }
        if action != "THROW_ERROR" && action != "DROP_PARTITION_INDEX" {
            return Err(invalid(format!(
                "global-index.column-update-action = {action}: Java takes THROW_ERROR, \
                 DROP_PARTITION_INDEX or IGNORE"
            )));
        }
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Ok(Vec::new());
        };
        let updated: HashSet<i32> = fields.iter().map(|f| f.id).collect();
        let name_of = |id: i32| {
            self.schema()
                .fields
                .iter()
                .find(|f| f.id == id)
                .map_or_else(|| id.to_string(), |f| f.name.clone())
        };
        let mut affected: Vec<IndexManifestEntry> = Vec::new();
        for e in IndexManifestStore::new(self)?
            .read_snapshot(&snapshot)
            .await?
        {
            let Some(meta) = &e.index_file.global_index else {
                continue;
            };
            let mut ids = vec![meta.index_field_id];
            ids.extend(meta.extra_field_ids.iter().flatten().copied());
            if partitions.contains(&e.partition) && ids.iter().any(|id| updated.contains(id)) {
                affected.push(e);
            }
        }
        if affected.is_empty() {
            return Ok(Vec::new());
        }
        if action == "THROW_ERROR" {
            let mut updated_names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
            updated_names.sort();
            let mut conflicted: Vec<String> = affected
                .iter()
                .filter_map(|e| e.index_file.global_index.as_ref())
                .flat_map(|m| {
                    std::iter::once(m.index_field_id)
                        .chain(m.extra_field_ids.iter().flatten().copied())
                        .map(name_of)
                        .collect::<Vec<_>>()
                })
                .collect();
            conflicted.sort();
            conflicted.dedup();
            return Err(ErrorDetail::Unsupported(format!(
                "MergeInto: update columns contain globally indexed columns, not supported now.\n\
                 Updated columns: [{}]\nConflicted columns: [{}]\n(table {}; set \
                 'global-index.column-update-action' to DROP_PARTITION_INDEX or IGNORE)",
                updated_names.join(", "),
                conflicted.join(", "),
                self.identifier()
            ))
            .into());
        }
        let mut by_partition: BTreeMap<Vec<u8>, CommitMessage> = BTreeMap::new();
        for mut e in affected {
            e.kind = FileKind::Delete;
            by_partition
                .entry(e.partition.as_bytes().to_vec())
                .or_insert_with(|| CommitMessage::new(e.partition.clone(), 0, -1))
                .index_changes
                .push(e);
        }
        Ok(by_partition.into_values().collect())
    }

    /// The latest snapshot's id and the names of its live data files.
    async fn live_data_files(&self) -> Result<(Option<i64>, HashSet<String>)> {
        let plan = self.new_scan().own_branch().plan().await?;
        let files = plan
            .splits
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.file_name.clone()))
            .collect();
        Ok((plan.snapshot.map(|s| s.id), files))
    }

    /// Refuses the commit early when a file the changes were computed against is gone (a
    /// concurrent compaction or overwrite rewrote its rows): a deletion vector or column file
    /// of a range whose files changed would not apply to the rows it names. This is only an
    /// early exit before committing: a rewrite landing after it is refused by the commit
    /// itself, on the latest snapshot of every attempt — column files by Java's
    /// `ConflictDetection.checkRowIdRangeConflicts` (`rowIdCheckConflict`, set from the base
    /// snapshot), deletion vectors of removed files by the deletion-vector pairing.
    async fn check_unchanged(&self, base: &HashSet<String>) -> Result<()> {
        let (_, now) = self.live_data_files().await?;
        if let Some(gone) = base.iter().find(|f| !now.contains(*f)) {
            return Err(ErrorDetail::CommitConflict {
                table: self.identifier().to_string(),
                message: format!(
                    "data file {gone} was rewritten by a concurrent commit while rows of {} \
                     were changed by row id; nothing was committed, run the statement again",
                    self.identifier()
                ),
            }
            .into());
        }
        Ok(())
    }

    /// Deletes the rows with these `_ROW_ID`s from a data-evolution table with deletion
    /// vectors (Java's `DELETE FROM` there), in one snapshot; see
    /// [`Table::apply_row_id_changes`]. The snapshot's operation is DELETE, as Java's
    /// `DataEvolutionDelete` writes it.
    pub async fn delete_row_ids(&self, row_ids: &[i64]) -> Result<Option<i64>> {
        self.apply_row_id_changes(
            RowIdChanges::new()
                .with_deletes(row_ids.iter().copied())
                .with_operation(SnapshotOperation::Delete),
        )
        .await
    }

    /// The anchor ranges of the latest snapshot, by first row id, and that snapshot.
    async fn anchor_ranges(
        &self,
    ) -> Result<(
        Option<strata_spec::snapshot::Snapshot>,
        BTreeMap<i64, AnchorRange>,
    )> {
        let plan = self.new_scan().own_branch().plan().await?;
        let mut ranges = BTreeMap::new();
        for split in plan.splits {
            for group in group_by_row_ranges(self, split.files)? {
                let anchor = anchor_file(&group).ok_or_else(|| {
                    invalid(format!(
                        "a row-id range of {} has no data file to anchor its deletion vector",
                        self.identifier()
                    ))
                })?;
                let first = anchor.first_row_id.unwrap_or_default();
                ranges.insert(
                    first,
                    AnchorRange {
                        row_count: anchor.row_count,
                        partition: split.partition.clone(),
                        bucket: split.bucket,
                        total_buckets: split.total_buckets,
                        anchor: anchor.file_name.clone(),
                    },
                );
            }
        }
        Ok((plan.snapshot, ranges))
    }

    /// Refuses row ids a deletion vector of the latest snapshot already deleted.
    async fn refuse_deleted_rows(&self, ids: &[i64]) -> Result<()> {
        let (Some(snapshot), ranges) = self.anchor_ranges().await? else {
            return Ok(());
        };
        let mut vectors: HashMap<(BinaryRow, i32), HashMap<String, _>> = HashMap::new();
        for &id in ids {
            let Some((first, range)) = find_range(&ranges, id) else {
                continue; // update_columns names it
            };
            let key = (range.partition.clone(), range.bucket);
            if !vectors.contains_key(&key) {
                let loaded = crate::read::deletion_vectors::load_deletion_vectors(
                    self, &snapshot, &key.0, key.1,
                )
                .await?;
                vectors.insert(key.clone(), loaded);
            }
            if vectors[&key]
                .get(&range.anchor)
                .is_some_and(|dv| dv.is_deleted((id - first) as u64))
            {
                return Err(invalid(format!(
                    "_ROW_ID {id} of {} is deleted (deletion vector of {})",
                    self.identifier(),
                    range.anchor
                )));
            }
        }
        Ok(())
    }

    /// The index changes deleting `ids` (one message per (partition, bucket)) and the index
    /// files written for them.
    async fn deletion_messages(
        &self,
        ids: &[i64],
    ) -> Result<(Vec<CommitMessage>, Vec<object_store::path::Path>)> {
        let (snapshot, ranges) = self.anchor_ranges().await?;
        let Some(snapshot) = snapshot else {
            return Err(invalid(format!(
                "_ROW_ID {} is not a row of {}: the table has no snapshot",
                ids[0],
                self.identifier()
            )));
        };
        let writer = DeletionVectorIndexWriter::new(self)?;
        let bitmap64 = self
            .options()
            .get_bool(crate::index::deletion_vectors::DELETION_VECTORS_BITMAP64)?
            .unwrap_or(false);
        // New deletions per (partition, bucket) and anchor file.
        type Bucket = (BinaryRow, i32, i32);
        let mut fresh: BTreeMap<Vec<u8>, (Bucket, HashMap<String, DeletionVector>)> =
            BTreeMap::new();
        for &id in ids {
            let Some((first, range)) = find_range(&ranges, id) else {
                return Err(invalid(format!(
                    "_ROW_ID {id} is not a row of {} (snapshot {})",
                    self.identifier(),
                    snapshot.id
                )));
            };
            let mut key = range.partition.as_bytes().to_vec();
            key.extend_from_slice(&range.bucket.to_be_bytes());
            let (_, vectors) = fresh.entry(key).or_insert_with(|| {
                (
                    (range.partition.clone(), range.bucket, range.total_buckets),
                    HashMap::new(),
                )
            });
            let dv = vectors
                .entry(range.anchor.clone())
                .or_insert_with(|| DeletionVector::new_empty(bitmap64));
            let added = dv.delete((id - first) as u64).map_err(|e| {
                invalid(format!(
                    "deleting _ROW_ID {id} of {}: {e}",
                    self.identifier()
                ))
            })?;
            if !added {
                return Err(invalid(format!(
                    "_ROW_ID {id} of {} is given more than once",
                    self.identifier()
                )));
            }
        }
        let index_entries: Vec<IndexManifestEntry> = IndexManifestStore::new(self)?
            .read_snapshot(&snapshot)
            .await?
            .into_iter()
            .filter(|e| e.index_file.index_type == DELETION_VECTORS_INDEX)
            .collect();
        let mut messages = Vec::new();
        let mut written = Vec::new();
        let result = async {
            for ((partition, bucket, total_buckets), mut changed) in fresh.into_values() {
                let previous = crate::read::deletion_vectors::load_deletion_vectors(
                    self, &snapshot, &partition, bucket,
                )
                .await?;
                let mut changes = Vec::new();
                // Java `AppendDeleteFileMaintainer.writeUnchangedDeletionVector`: an index file
                // holding a changed vector is removed, its other vectors rewritten.
                for entry in index_entries
                    .iter()
                    .filter(|e| e.partition == partition && e.bucket == bucket)
                {
                    let held: Vec<&str> = entry
                        .index_file
                        .dv_ranges
                        .iter()
                        .flatten()
                        .map(|r| r.data_file_name.as_str())
                        .collect();
                    if !held.iter().any(|f| changed.contains_key(*f)) {
                        continue;
                    }
                    let mut kept: Vec<(String, DeletionVector)> = held
                        .iter()
                        .filter(|f| !changed.contains_key(**f))
                        .filter_map(|f| previous.get(*f).map(|dv| (f.to_string(), (**dv).clone())))
                        .collect();
                    if !kept.is_empty() {
                        kept.sort_by(|a, b| a.0.cmp(&b.0));
                        let (added, path) = writer.write(&partition, bucket, &kept).await?;
                        written.push(path);
                        changes.push(added);
                    }
                    let mut removed = entry.clone();
                    removed.kind = FileKind::Delete;
                    changes.push(removed);
                }
                // The changed vectors, each merged with its previous one.
                let mut list: Vec<(String, DeletionVector)> = Vec::new();
                for (file, mut dv) in changed.drain() {
                    if let Some(old) = previous.get(&file) {
                        dv = merge(old, dv).map_err(|e| {
                            invalid(format!(
                                "deletion vector of {file} of {}: {e}",
                                self.identifier()
                            ))
                        })?;
                    }
                    list.push((file, dv));
                }
                list.sort_by(|a, b| a.0.cmp(&b.0));
                let (added, path) = writer.write(&partition, bucket, &list).await?;
                written.push(path);
                changes.push(added);
                let mut message = CommitMessage::new(partition, bucket, total_buckets);
                message.index_changes = changes;
                message.index_base = Some(snapshot.id);
                messages.push(message);
            }
            Ok::<_, Error>(())
        }
        .await;
        if let Err(e) = result {
            writer.delete_quietly(&written).await;
            return Err(e);
        }
        Ok((messages, written))
    }
}

/// The range holding `id`, with its first row id.
fn find_range(ranges: &BTreeMap<i64, AnchorRange>, id: i64) -> Option<(i64, &AnchorRange)> {
    ranges
        .range(..=id)
        .next_back()
        .filter(|(first, r)| id < **first + r.row_count)
        .map(|(first, r)| (*first, r))
}

/// `old` with the positions of `new` deleted too (Java `DeletionVector.merge`); the previous
/// vector's form is kept.
fn merge(
    old: &DeletionVector,
    new: DeletionVector,
) -> std::result::Result<DeletionVector, strata_spec::SpecError> {
    let mut out = old.clone();
    let positions: Box<dyn Iterator<Item = u64>> = match &new {
        DeletionVector::Bitmap32(b) => Box::new(b.iter().map(u64::from)),
        DeletionVector::Bitmap64(b) => Box::new(b.iter()),
    };
    for p in positions {
        out.delete(p)?;
    }
    Ok(out)
}

/// The `_ROW_ID` values of an update batch.
fn row_ids(batch: &RecordBatch) -> Result<Vec<i64>> {
    let at = batch
        .schema()
        .index_of(strata_spec::kv::ROW_ID)
        .map_err(|_| invalid("the batch has no _ROW_ID column".to_string()))?;
    let ids = arrow::compute::cast(batch.column(at), &arrow_schema::DataType::Int64)
        .map_err(|e| Error::arrow("reading _ROW_ID", e))?;
    let ids = ids
        .as_any()
        .downcast_ref::<arrow_array::Int64Array>()
        .ok_or_else(|| invalid("_ROW_ID is not BIGINT".to_string()))?;
    Ok(ids.iter().flatten().collect())
}

fn invalid(message: String) -> Error {
    ErrorDetail::InvalidArgument(message).into()
}
