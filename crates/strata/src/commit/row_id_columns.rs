//! Per-column row-id conflicts of a data-evolution commit against the commits that landed
//! since its row-id check base snapshot, as Java 2.0's `ConflictDetection.
//! checkForRowIdFromSnapshot` with `RowIdColumnConflictChecker` checks them.
//!
//! A column update writes the file of a row-id range whole: every row of the range, the values
//! of the rows it does not change read at its base snapshot. Two concurrent updates of the same
//! column over the same range therefore cannot both land: the later file would silently undo
//! the earlier one's changes to the rows it did not touch (a lost update). The row-id range
//! check (`row_id_conflicts`) does not see it, since both files have the same range.
//!
//! The rule (Java's, exactly): for a commit carrying a row-id check base snapshot `B`
//! (`TableCommit::with_row_id_check_from`) on a data-evolution table, the commit's files with a
//! first row id are merged into groups of overlapping row-id ranges, each with the field ids it
//! writes (`writeCols`, all fields of the file's schema when absent). Every entry (ADD or DELETE)
//! of the delta of each snapshot after `B` up to the latest, COMPACT snapshots skipped, of the
//! partitions the commit changes, whose file has a first row id below `B`'s `nextRowId`,
//! overlaps a group's range and writes one of its fields (a file without `writeCols` writes
//! all), makes the commit fail as a `CommitConflict` with Java's
//! `ErrorMessages.DATA_EVOLUTION_ROW_ID_CONFLICT_MESSAGE`. Updates of different columns, or of
//! disjoint ranges, both land.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use strata_spec::binary_row::BinaryRow;
use strata_spec::error::SpecError;
use strata_spec::manifest::{DataFileMeta, IndexManifestEntry, ManifestEntry};
use strata_spec::snapshot::{CommitKind, Snapshot};

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::Result;

/// Java `ErrorMessages.DATA_EVOLUTION_ROW_ID_CONFLICT_MESSAGE`.
pub(super) const ROW_ID_COLUMN_CONFLICT_MESSAGE: &str =
    "For Data Evolution table, multiple 'MERGE INTO' operations have encountered conflicts, \
     updating the same file, which can render some updates ineffective.";

/// Java `SpecialFields.isSystemField(String)`: system columns a `writeCols` may name that have
/// no field id in the schema.
fn system_field(name: &str) -> bool {
    name.starts_with("_KEY_")
        || matches!(
            name,
            "_SEQUENCE_NUMBER" | "_VALUE_KIND" | "_LEVEL" | "rowkind" | "_ROW_ID"
        )
}

/// Field id by name, per schema id (Java `logicalRowType().getFields()`).
pub(super) type FieldIds = HashMap<i64, HashMap<String, i32>>;

/// Loads the field ids of `schema_id` into `ids` unless present.
async fn load_fields(table: &Table, ids: &mut FieldIds, schema_id: i64) -> Result<()> {
    if let Entry::Vacant(slot) = ids.entry(schema_id) {
        let schema = table.schema_manager().schema(schema_id).await?;
        slot.insert(
            schema
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.id))
                .collect(),
        );
    }
    Ok(())
}

/// Java `RowIdColumnConflictChecker.fieldId`: `None` for a system column; an unknown column is
/// an error (`Cannot find write column ...`).
fn field_id(ids: &FieldIds, file: &DataFileMeta, col: &str) -> Result<Option<i32>> {
    match ids.get(&file.schema_id).and_then(|m| m.get(col)) {
        Some(id) => Ok(Some(*id)),
        None if system_field(col) => Ok(None),
        None => Err(SpecError::invalid(
            format!("write columns of data file {}", file.file_name),
            format!(
                "Cannot find write column '{col}' in schema {}.",
                file.schema_id
            ),
        )
        .into()),
    }
}

/// One merged row-id range of the commit's files and the field ids they write (Java
/// `RowIdColumnConflictChecker.WriteRange`).
#[derive(Debug)]
struct WriteRange {
    from: i64,
    to: i64,
    fields: Vec<i32>,
}

/// Java `RowIdColumnConflictChecker`: the commit's write ranges, sorted by range.
#[derive(Debug)]
pub(super) struct ColumnChecker {
    ranges: Vec<WriteRange>,
}

/// The inclusive row-id range of a file with a first row id (Java `nonNullRowIdRange`).
fn range(file: &DataFileMeta) -> Option<(i64, i64)> {
    let first = file.first_row_id?;
    Some((first, first + file.row_count - 1))
}

impl ColumnChecker {
    /// Java `RowIdColumnConflictChecker.fromDataFiles` over the commit's files (every entry,
    /// ADD or DELETE); `ids` holds the schemas of the files with a first row id.
    pub(super) fn new(ids: &FieldIds, files: &[&DataFileMeta]) -> Result<Self> {
        let mut with_ids: Vec<(i64, i64, &DataFileMeta)> = files
            .iter()
            .filter_map(|f| range(f).map(|(from, to)| (from, to, *f)))
            .collect();
        // Java `RangeHelper.mergeOverlappingRanges`: groups of transitively overlapping ranges.
        with_ids.sort_by_key(|&(from, to, _)| (from, to));
        let mut ranges: Vec<WriteRange> = Vec::new();
        let mut i = 0;
        while i < with_ids.len() {
            let (from, mut to, _) = with_ids[i];
            let mut j = i + 1;
            while j < with_ids.len() && with_ids[j].0 <= to {
                to = to.max(with_ids[j].1);
                j += 1;
            }
            let mut fields: Vec<i32> = Vec::new();
            for &(_, _, file) in &with_ids[i..j] {
                match &file.write_cols {
                    None => {
                        if let Some(all) = ids.get(&file.schema_id) {
                            fields.extend(all.values().copied());
                        }
                    }
                    Some(cols) => {
                        for col in cols {
                            fields.extend(field_id(ids, file, col)?);
                        }
                    }
                }
            }
            fields.sort_unstable();
            fields.dedup();
            ranges.push(WriteRange { from, to, fields });
            i = j;
        }
        Ok(ColumnChecker { ranges })
    }

    /// Java `isEmpty`: the commit has no file with a first row id.
    pub(super) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Java `conflictsWith`: whether a file committed since the base overlaps a write range of
    /// this commit and writes one of its fields (a file without `writeCols` writes all).
    pub(super) fn conflicts_with(&self, ids: &FieldIds, file: &DataFileMeta) -> Result<bool> {
        let Some((from, to)) = range(file) else {
            return Ok(false);
        };
        // The first range whose end reaches `from` (ranges are disjoint and sorted).
        let start = self.ranges.partition_point(|r| r.to < from);
        for r in &self.ranges[start..] {
            if r.from > to {
                break;
            }
            let writes_a_field = match &file.write_cols {
                None => true,
                Some(cols) => {
                    let mut any = false;
                    for col in cols {
                        if let Some(id) = field_id(ids, file, col)? {
                            if r.fields.binary_search(&id).is_ok() {
                                any = true;
                                break;
                            }
                        }
                    }
                    any
                }
            };
            if writes_a_field {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Java `ConflictDetection.checkForRowIdFromSnapshot`: fails the commit of `delta` (and `index`
/// changes, for the partitions) as a `CommitConflict` when a non-COMPACT snapshot after `base`
/// up to `latest` added or removed a file over the same row ids and columns.
pub(super) async fn check_row_id_column_conflicts(
    table: &Table,
    base: i64,
    latest: &Snapshot,
    delta: &[ManifestEntry],
    index: &[IndexManifestEntry],
) -> Result<()> {
    if latest.id <= base {
        return Ok(());
    }
    let mut ids = FieldIds::new();
    for e in delta.iter().filter(|e| e.file.first_row_id.is_some()) {
        load_fields(table, &mut ids, e.file.schema_id).await?;
    }
    let files: Vec<&DataFileMeta> = delta.iter().map(|e| &e.file).collect();
    let checker = ColumnChecker::new(&ids, &files)?;
    if checker.is_empty() {
        return Ok(());
    }
    // Java `changedPartitions` of the delta and index entries.
    let mut changed: Vec<&BinaryRow> = delta
        .iter()
        .map(|e| &e.partition)
        .chain(index.iter().map(|e| &e.partition))
        .collect();
    changed.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    changed.dedup();
    let sm = table.snapshot_manager();
    let base_snapshot = sm.snapshot(base).await?;
    let Some(check_next_row_id) = base_snapshot.next_row_id else {
        return Err(SpecError::invalid(
            format!("snapshot {base}"),
            format!("Next row id cannot be null for snapshot {base}."),
        )
        .into());
    };
    let store = table.manifest_store();
    for id in base + 1..=latest.id {
        let snapshot = if id == latest.id {
            latest.clone()
        } else {
            sm.snapshot(id).await?
        };
        if snapshot.commit_kind == CommitKind::Compact {
            continue;
        }
        let metas = store.read_list(&snapshot.delta_manifest_list).await?;
        for entries in store.read_manifests(&metas).await? {
            for e in entries {
                let file = &e.file;
                let Some(first) = file.first_row_id else {
                    continue;
                };
                if first >= check_next_row_id
                    || changed
                        .binary_search_by(|p| p.as_bytes().cmp(e.partition.as_bytes()))
                        .is_err()
                {
                    continue;
                }
                load_fields(table, &mut ids, file.schema_id).await?;
                if checker.conflicts_with(&ids, file)? {
                    return Err(ErrorDetail::CommitConflict {
                        table: table.identifier().to_string(),
                        message: format!(
                            "{ROW_ID_COLUMN_CONFLICT_MESSAGE} (snapshot {} wrote file {} over \
                             the row ids and columns this commit writes since its base snapshot \
                             {base}; nothing was committed, run it again)",
                            snapshot.id, file.file_name
                        ),
                    }
                    .into());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::stats::SimpleStats;

    fn file(name: &str, first: Option<i64>, rows: i64, cols: Option<&[&str]>) -> DataFileMeta {
        DataFileMeta {
            file_name: name.to_string(),
            file_size: 1024,
            row_count: rows,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: first,
            write_cols: cols.map(|c| c.iter().map(|s| s.to_string()).collect()),
        }
    }

    /// Schema 0: id (0), v (1), w (2).
    fn ids() -> FieldIds {
        let fields = [("id", 0), ("v", 1), ("w", 2)]
            .into_iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect();
        HashMap::from([(0, fields)])
    }

    fn checker(files: &[DataFileMeta]) -> ColumnChecker {
        let refs: Vec<&DataFileMeta> = files.iter().collect();
        ColumnChecker::new(&ids(), &refs).unwrap()
    }

    #[test]
    fn same_column_over_overlapping_rows_conflicts() {
        let c = checker(&[file("u.parquet", Some(0), 10, Some(&["v"]))]);
        let ids = ids();
        let hit = |f: DataFileMeta| c.conflicts_with(&ids, &f).unwrap();
        assert!(hit(file("o.parquet", Some(0), 10, Some(&["v"]))));
        assert!(hit(file("o.parquet", Some(9), 5, Some(&["w", "v"]))));
        // A file without write columns writes every column.
        assert!(hit(file("o.parquet", Some(5), 1, None)));
        // Another column, or rows outside [0, 9], or no row ids: no conflict.
        assert!(!hit(file("o.parquet", Some(0), 10, Some(&["w"]))));
        assert!(!hit(file("o.parquet", Some(10), 10, Some(&["v"]))));
        assert!(!hit(file("o.parquet", None, 10, Some(&["v"]))));
        // System columns have no field id and never conflict.
        assert!(!hit(file("o.parquet", Some(0), 10, Some(&["_ROW_ID"]))));
    }

    #[test]
    fn ranges_merge_and_full_schema_files_write_every_field() {
        // [0,9] w and [5,14] v merge into [0,14] writing v and w; [20,29] with all fields.
        let c = checker(&[
            file("a.parquet", Some(0), 10, Some(&["w"])),
            file("b.parquet", Some(5), 10, Some(&["v", "_ROW_ID"])),
            file("n.parquet", None, 3, None),
            file("f.parquet", Some(20), 10, None),
        ]);
        assert!(!c.is_empty());
        assert_eq!(c.ranges.len(), 2);
        assert_eq!((c.ranges[0].from, c.ranges[0].to), (0, 14));
        assert_eq!(c.ranges[0].fields, vec![1, 2]);
        assert_eq!(c.ranges[1].fields, vec![0, 1, 2]);
        let ids = ids();
        assert!(c
            .conflicts_with(&ids, &file("o.parquet", Some(1), 1, Some(&["v"])))
            .unwrap());
        assert!(c
            .conflicts_with(&ids, &file("o.parquet", Some(15), 10, Some(&["id"])))
            .unwrap());
        assert!(!c
            .conflicts_with(&ids, &file("o.parquet", Some(15), 5, Some(&["v"])))
            .unwrap());
        // Only files without row ids: nothing to check.
        assert!(checker(&[file("n.parquet", None, 3, None)]).is_empty());
    }

    #[test]
    fn unknown_write_column_is_an_error() {
        let refs = [&file("u.parquet", Some(0), 10, Some(&["gone"]))];
        let err = ColumnChecker::new(&ids(), &refs).unwrap_err();
        assert!(
            err.to_string()
                .contains("Cannot find write column 'gone' in schema 0."),
            "{err}"
        );
    }
}
