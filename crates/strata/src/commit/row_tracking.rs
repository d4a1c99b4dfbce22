//! Row tracking at commit (Java `RowTrackingCommitUtils.assignRowTracking`, called by
//! `FileStoreCommitImpl.tryCommitOnce` on tables with `row-tracking.enabled`).
//!
//! Two stamps on the commit's delta entries, in this order:
//!
//! 1. **Sequence numbers** (`assignSnapshotId`): a file whose `minSequenceNumber` is 0 (a new
//!    file; Java's unaware-bucket writers start counting at 0) gets the new snapshot id as its
//!    min and max; one whose `maxSequenceNumber` is 0 (some rows without a sequence number)
//!    keeps its min and gets the snapshot id as max; any other file is kept. A row's
//!    `_SEQUENCE_NUMBER` is its file's `maxSequenceNumber` unless the file stores the column.
//! 2. **Row ids** (`assignRowTrackingMeta`): every `APPEND` file without a `firstRowId`, in
//!    delta order, gets the next free id (`nextRowId` of the latest snapshot, 0 on a new
//!    table) and advances it by its row count; the new snapshot's `nextRowId` is what is left.
//!    Compaction files keep their rows' ids in a stored `_ROW_ID` column and get none. A row's
//!    `_ROW_ID` is `firstRowId` + its position in the file unless the file stores the column.
//!
//! A `.blob` file (a BLOB column's values, `writeCols` = that column) shares the row ids of the
//! data file before it: each BLOB column's files take consecutive ids from that data file's
//! `firstRowId` (Java's `blobStarts`). Vector-store files are never written by strata; a
//! commit carrying one is refused.

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileSource, ManifestEntry};

use crate::error::ErrorDetail;
use crate::Result;

use strata_spec::kv::ROW_ID;

/// `row-tracking.partition-group-on-commit` (default true): the delta entries grouped by
/// partition before ids are assigned, so a partition's new rows get contiguous ids. Java
/// collects them with `Collectors.groupingBy` into a `HashMap` (`computeIfAbsent` per entry)
/// and walks its values, so the groups come in that map's iteration order
/// ([`java_hash_map_order`]); the hash is `BinaryRow.hashCode()`.
pub(crate) fn group_by_partition(delta: Vec<ManifestEntry>) -> Vec<ManifestEntry> {
    let calls: Vec<&BinaryRow> = delta.iter().map(|e| &e.partition).collect();
    let order = java_hash_map_order(&calls, |p| p.hash_code() as u32, Insert::ComputeIfAbsent);
    let mut groups: Vec<(BinaryRow, Vec<ManifestEntry>)> =
        order.into_iter().map(|p| (p.clone(), Vec::new())).collect();
    for e in delta {
        if let Some((_, g)) = groups.iter_mut().find(|(p, _)| *p == e.partition) {
            g.push(e);
        }
    }
    groups.into_iter().flat_map(|(_, g)| g).collect()
}

/// How keys enter a Java `java.util.HashMap` (JDK 8+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Insert {
    /// `put` of keys not yet present: appended to their bin; the table doubles after an
    /// insertion leaves it more than 3/4 full.
    Put,
    /// `computeIfAbsent` for every call (present or not): the table doubles *before* a call
    /// finds it more than 3/4 full, and a new key goes to the head of its bin.
    ComputeIfAbsent,
}

/// The iteration order of a Java `HashMap` that received `calls` (keys, repeated or not) in
/// this order: bins ascending (`hash ^ hash >>> 16` masked by the table size, 16 at first),
/// each bin in its list order (a resize splits a bin keeping its order). Bins never turn into
/// trees here (that needs 8 keys in one bin of a table of 64 or more).
pub(crate) fn java_hash_map_order<K: PartialEq + Clone>(
    calls: &[K],
    hash: impl Fn(&K) -> u32,
    insert: Insert,
) -> Vec<K> {
    let spread = |k: &K| {
        let h = hash(k);
        (h ^ (h >> 16)) as usize
    };
    let mut table: Vec<Vec<K>> = vec![Vec::new(); 16];
    let mut size = 0usize;
    let resize = |table: &mut Vec<Vec<K>>| {
        let old = table.len();
        let mut next: Vec<Vec<K>> = vec![Vec::new(); old * 2];
        for bin in table.drain(..) {
            for k in bin {
                let i = spread(&k) & (old * 2 - 1);
                next[i].push(k);
            }
        }
        *table = next;
    };
    for k in calls {
        if insert == Insert::ComputeIfAbsent && size * 4 > table.len() * 3 {
            resize(&mut table);
        }
        let i = spread(k) & (table.len() - 1);
        if table[i].contains(k) {
            continue;
        }
        match insert {
            Insert::Put => table[i].push(k.clone()),
            Insert::ComputeIfAbsent => table[i].insert(0, k.clone()),
        }
        size += 1;
        if insert == Insert::Put && size * 4 > table.len() * 3 {
            resize(&mut table);
        }
    }
    table.into_iter().flatten().collect()
}

/// Stamps `delta` for snapshot `snapshot_id` (see the module docs); returns the snapshot's
/// `nextRowId`.
pub(crate) fn assign_row_tracking(
    snapshot_id: i64,
    first_row_id_start: i64,
    delta: &mut [ManifestEntry],
) -> Result<i64> {
    for e in delta.iter_mut() {
        let f = &mut e.file;
        if f.min_sequence_number == 0 {
            f.min_sequence_number = snapshot_id;
            f.max_sequence_number = snapshot_id;
        } else if f.max_sequence_number == 0 {
            f.max_sequence_number = snapshot_id;
        }
    }
    let mut next = first_row_id_start;
    // Java's `blobStartDefault` / `blobStarts`: where the next .blob file of each BLOB column
    // starts, from the data file before it.
    let mut blob_start_default = first_row_id_start;
    let mut blob_starts: std::collections::HashMap<String, i64> = Default::default();
    for e in delta.iter_mut() {
        let f = &mut e.file;
        let Some(source) = f.file_source else {
            return Err(ErrorDetail::InvalidArgument(format!(
                "committing data file {} to a row-tracking table: its file source is unknown \
                 (Java requires one for row tracking)",
                f.file_name
            ))
            .into());
        };
        let stores_row_ids = f
            .write_cols
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == ROW_ID));
        if source != FileSource::Append || f.first_row_id.is_some() || stores_row_ids {
            continue;
        }
        let lower = f.file_name.to_ascii_lowercase();
        if lower.ends_with(".blob") {
            let Some(field) = f.write_cols.as_ref().and_then(|c| c.first()).cloned() else {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "committing BLOB file {} to a row-tracking table: it names no BLOB column \
                     (writeCols)",
                    f.file_name
                ))
                .into());
            };
            let start = blob_starts
                .get(&field)
                .copied()
                .unwrap_or(blob_start_default);
            if start >= next {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "committing BLOB file {} to a row-tracking table: it starts at row id \
                     {start}, not before the next data file's {next} (a .blob file must follow \
                     the data file of its rows; Java: \"blobStart should be less than start\")",
                    f.file_name
                ))
                .into());
            }
            f.first_row_id = Some(start);
            blob_starts.insert(field, start + f.row_count);
            continue;
        }
        if lower.contains(".vector") {
            return Err(ErrorDetail::Unsupported(format!(
                "committing {} to a row-tracking table: vector-store files share the row ids \
                 of their data file (Java's vector-store row-id rules); strata does not assign \
                 them",
                f.file_name
            ))
            .into());
        }
        f.first_row_id = Some(next);
        blob_start_default = next;
        blob_starts.clear();
        next = next.checked_add(f.row_count).ok_or_else(|| {
            crate::Error::from(ErrorDetail::InvalidArgument(format!(
                "row ids overflow at data file {}",
                f.file_name
            )))
        })?;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{DataFileMeta, FileKind};
    use strata_spec::stats::SimpleStats;

    fn entry(name: &str, rows: i64, min: i64, max: i64, source: FileSource) -> ManifestEntry {
        ManifestEntry {
            kind: FileKind::Add,
            partition: BinaryRow::empty(),
            bucket: 0,
            total_buckets: -1,
            file: DataFileMeta {
                file_name: name.into(),
                file_size: 1024,
                row_count: rows,
                min_key: BinaryRow::empty(),
                max_key: BinaryRow::empty(),
                key_stats: SimpleStats::empty(),
                value_stats: SimpleStats::empty(),
                min_sequence_number: min,
                max_sequence_number: max,
                schema_id: 0,
                level: 0,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: Some(0),
                embedded_index: None,
                file_source: Some(source),
                value_stats_cols: None,
                external_path: None,
                first_row_id: None,
                write_cols: None,
            },
        }
    }

    #[test]
    fn new_files_get_ids_and_the_snapshot_as_sequence() {
        let mut delta = vec![
            entry("a.parquet", 3, 0, 2, FileSource::Append),
            entry("b.parquet", 5, 3, 7, FileSource::Append),
            entry("c.parquet", 4, 10, 0, FileSource::Append),
            entry("d.parquet", 9, 4, 8, FileSource::Compact),
        ];
        let next = assign_row_tracking(7, 100, &mut delta).unwrap();
        assert_eq!(next, 112);
        let got: Vec<_> = delta
            .iter()
            .map(|e| {
                (
                    e.file.first_row_id,
                    e.file.min_sequence_number,
                    e.file.max_sequence_number,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(100), 7, 7),
                (Some(103), 3, 7),
                (Some(108), 10, 7),
                (None, 4, 8)
            ]
        );
    }

    #[test]
    fn files_with_ids_or_stored_row_ids_keep_them() {
        let mut with_id = entry("a.parquet", 3, 5, 6, FileSource::Append);
        with_id.file.first_row_id = Some(40);
        let mut stored = entry("b.parquet", 3, 5, 6, FileSource::Append);
        stored.file.write_cols = Some(vec!["a".into(), ROW_ID.into()]);
        let mut delta = vec![with_id, stored];
        assert_eq!(assign_row_tracking(2, 50, &mut delta).unwrap(), 50);
        assert_eq!(delta[0].file.first_row_id, Some(40));
        assert_eq!(delta[1].file.first_row_id, None);
        // a .blob file before any data file has no rows to share
        let mut blob = vec![entry("x.blob", 1, 0, 0, FileSource::Append)];
        blob[0].file.write_cols = Some(vec!["b".into()]);
        assert!(assign_row_tracking(2, 0, &mut blob).is_err());
    }

    #[test]
    fn blob_files_share_the_ids_of_their_data_file() {
        let blob = |name: &str, rows: i64, col: &str| {
            let mut e = entry(name, rows, 0, rows - 1, FileSource::Append);
            e.file.write_cols = Some(vec![col.into()]);
            e
        };
        // Java's order: a data file, then each BLOB column's files; then the next data file
        let mut delta = vec![
            entry("d1.parquet", 5, 0, 4, FileSource::Append),
            blob("b1.blob", 2, "p"),
            blob("b2.blob", 3, "p"),
            blob("c1.blob", 5, "q"),
            entry("d2.parquet", 4, 0, 3, FileSource::Append),
            blob("b3.blob", 4, "p"),
            blob("c2.blob", 4, "q"),
        ];
        assert_eq!(assign_row_tracking(3, 10, &mut delta).unwrap(), 19);
        let ids: Vec<_> = delta.iter().map(|e| e.file.first_row_id).collect();
        assert_eq!(
            ids,
            [10, 10, 12, 10, 15, 15, 15].map(Some).to_vec(),
            "{delta:?}"
        );
        assert!(delta.iter().all(|e| e.file.min_sequence_number == 3));
        // more BLOB rows than the data file has: refused (Java's "blobStart should be less")
        let mut bad = vec![
            entry("d.parquet", 2, 0, 1, FileSource::Append),
            blob("b1.blob", 2, "p"),
            blob("b2.blob", 1, "p"),
        ];
        assert!(assign_row_tracking(3, 0, &mut bad).is_err());
    }

    #[test]
    fn partitions_are_grouped_in_java_hash_map_order() {
        use strata_spec::{DataType, Datum, TypeKind};
        let part = |v: &str| {
            BinaryRow::from_datums(
                &[Some(Datum::String(v.into()))],
                &[DataType::new(TypeKind::VarChar(i32::MAX as u32), false)],
            )
            .unwrap()
        };
        // Java 17: `Stream.of(x, y, z, w, a).collect(groupingBy(row))` iterates
        // [x, a, w, z, y] ("y", "z" and "w" share bin 13 and enter it at its head), while a
        // `HashMap.put` of the same keys iterates [x, a, y, z, w].
        let keys: Vec<BinaryRow> = ["x", "y", "z", "w", "a"].into_iter().map(part).collect();
        let name = |p: &BinaryRow| {
            ["x", "y", "z", "w", "a"]
                .into_iter()
                .find(|n| part(n) == *p)
                .unwrap()
        };
        let order = |insert| -> Vec<&str> {
            java_hash_map_order(&keys, |p| p.hash_code() as u32, insert)
                .iter()
                .map(name)
                .collect()
        };
        assert_eq!(order(Insert::ComputeIfAbsent), ["x", "a", "w", "z", "y"]);
        assert_eq!(order(Insert::Put), ["x", "a", "y", "z", "w"]);
        let mut delta = Vec::new();
        for (i, p) in ["y", "x", "y", "w"].into_iter().enumerate() {
            let mut e = entry(&format!("f{i}.parquet"), 1, 0, 0, FileSource::Append);
            e.partition = part(p);
            delta.push(e);
        }
        let names: Vec<_> = group_by_partition(delta)
            .into_iter()
            .map(|e| e.file.file_name)
            .collect();
        assert_eq!(
            names,
            ["f1.parquet", "f3.parquet", "f0.parquet", "f2.parquet"]
        );
    }

    #[test]
    fn tables_grow_as_javas() {
        // 13 keys in one bin each: `put` doubles after the 13th, `computeIfAbsent` only
        // before a 14th call.
        let keys: Vec<u32> = (0..13).collect();
        let put = java_hash_map_order(&keys, |k| *k * 16 + 1, Insert::Put);
        let cia = java_hash_map_order(&keys, |k| *k * 16 + 1, Insert::ComputeIfAbsent);
        // Doubled to 32: even keys stay in bin 1, odd ones move to bin 17.
        let evens_then_odds: Vec<u32> = (0..13).step_by(2).chain((1..13).step_by(2)).collect();
        assert_eq!(put, evens_then_odds);
        // In a table of 16 all share bin 1, newest first.
        assert_eq!(cia, (0..13).rev().collect::<Vec<_>>());
    }
}
