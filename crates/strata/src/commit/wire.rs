//! A stable, versioned serialized form of [`CommitMessage`] and [`DataSplit`], so that
//! planning, reading, writing and committing can happen in different processes or machines
//! (a driver plans splits and commits; workers read splits or write and send their messages
//! back), as Java ships `CommitMessage`s and `DataSplit`s between Flink/Spark tasks.
//!
//! Both implement serde's `Serialize`/`Deserialize`, for any serde format (JSON, bincode,
//! ...). The form is a small record whose file metadata is **Paimon's own manifest Avro**
//! (base64 of an Avro object container of `ManifestEntry` records, schema version
//! `MANIFEST_ENTRY_VERSION`; index changes as an index manifest), so every field of a
//! `DataFileMeta` travels exactly as Java writes it into manifests and nothing is lost as the
//! metadata grows. Partitions are `BinaryRow` bytes (base64).
//!
//! `"version"` is [`WIRE_VERSION`]; a reader refuses any other version with an error that says
//! which it found, rather than guessing.

use base64::Engine;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    decode_index_manifest, decode_manifest_entries, encode_index_manifest, encode_manifest_entries,
    DataFileMeta, FileKind, ManifestCompression, ManifestEntry,
};

use super::message::CommitMessage;
use crate::scan::DataSplit;

/// Version of the serialized form written by this build.
pub const WIRE_VERSION: u32 = 1;

/// Version of a serialized [`DataSplit`] with a row range ([`DataSplit::row_range`]): a reader
/// that knows only version 1 would read the whole file, so it must refuse such a split.
pub const SPLIT_ROW_RANGE_VERSION: u32 = 2;

/// Version of a serialized [`CommitMessage`] with changelog files or compaction index changes:
/// a reader that knows only version 1 would drop them silently (streaming readers would miss
/// the commit, deletion vectors would be lost), so it must refuse such a message.
pub const COMMIT_CHANGELOG_VERSION: u32 = 2;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommitMessageWire {
    version: u32,
    partition: String,
    bucket: i32,
    total_buckets: i32,
    new_files: String,
    /// Added after version 1 was first written; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deleted_files: Option<String>,
    compact_before: String,
    compact_after: String,
    index_changes: String,
    index_base: Option<i64>,
    /// Version [`COMMIT_CHANGELOG_VERSION`]: changelog files of the new data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    new_changelog: Option<String>,
    /// Version [`COMMIT_CHANGELOG_VERSION`]: changelog files of the compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compact_changelog: Option<String>,
    /// Version [`COMMIT_CHANGELOG_VERSION`]: index changes of the compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compact_index_changes: Option<String>,
    /// The snapshot the compaction was planned on (`CommitMessage::compact_base`); absent
    /// means unknown. An older reader that ignores it commits without the lookup-compaction
    /// checks, as it always did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compact_base: Option<i64>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DataSplitWire {
    version: u32,
    snapshot_id: i64,
    partition: String,
    bucket: i32,
    total_buckets: i32,
    files: String,
    raw_convertible: bool,
    /// `[start, end)` rows of the one file (version [`SPLIT_ROW_RANGE_VERSION`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    row_range: Option<[u64; 2]>,
    /// [`DataSplit::branch`], when set (a split of a `scan.fallback-branch` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
}

fn encode_files(
    partition: &BinaryRow,
    bucket: i32,
    total_buckets: i32,
    files: &[DataFileMeta],
) -> Result<String, String> {
    let entries: Vec<ManifestEntry> = files
        .iter()
        .map(|f| ManifestEntry {
            kind: FileKind::Add,
            partition: partition.clone(),
            bucket,
            total_buckets,
            file: f.clone(),
        })
        .collect();
    let bytes = encode_manifest_entries(&entries, ManifestCompression::Null)
        .map_err(|e| format!("encoding data file metadata: {e}"))?;
    Ok(B64.encode(bytes))
}

fn decode_files(text: &str, what: &str) -> Result<Vec<DataFileMeta>, String> {
    let bytes = B64
        .decode(text)
        .map_err(|e| format!("{what}: not base64: {e}"))?;
    let entries = decode_manifest_entries(&bytes).map_err(|e| format!("{what}: {e}"))?;
    Ok(entries.into_iter().map(|e| e.file).collect())
}

fn decode_partition(text: &str) -> Result<BinaryRow, String> {
    let bytes = B64
        .decode(text)
        .map_err(|e| format!("partition: not base64: {e}"))?;
    BinaryRow::from_serialized(&bytes).map_err(|e| format!("partition: {e}"))
}

fn check_version(found: u32, what: &str) -> Result<(), String> {
    if found == WIRE_VERSION {
        Ok(())
    } else {
        Err(format!(
            "serialized {what} has version {found}; this strata reads version {WIRE_VERSION}"
        ))
    }
}

impl TryFrom<&CommitMessage> for CommitMessageWire {
    type Error = String;
    fn try_from(m: &CommitMessage) -> Result<Self, String> {
        let files = |fs: &[DataFileMeta]| encode_files(&m.partition, m.bucket, m.total_buckets, fs);
        let index = encode_index_manifest(&m.index_changes, ManifestCompression::Null)
            .map_err(|e| format!("encoding index changes: {e}"))?;
        let optional = |fs: &[DataFileMeta]| -> Result<Option<String>, String> {
            if fs.is_empty() {
                Ok(None)
            } else {
                files(fs).map(Some)
            }
        };
        let has_changelog = !m.new_changelog.is_empty()
            || !m.compact_changelog.is_empty()
            || !m.compact_index_changes.is_empty();
        Ok(CommitMessageWire {
            version: if has_changelog {
                COMMIT_CHANGELOG_VERSION
            } else {
                WIRE_VERSION
            },
            partition: B64.encode(m.partition.to_serialized()),
            bucket: m.bucket,
            total_buckets: m.total_buckets,
            new_files: files(&m.new_files)?,
            deleted_files: optional(&m.deleted_files)?,
            compact_before: files(&m.compact_before)?,
            compact_after: files(&m.compact_after)?,
            index_changes: B64.encode(index),
            index_base: m.index_base,
            compact_base: m.compact_base,
            new_changelog: optional(&m.new_changelog)?,
            compact_changelog: optional(&m.compact_changelog)?,
            compact_index_changes: if m.compact_index_changes.is_empty() {
                None
            } else {
                Some(
                    B64.encode(
                        encode_index_manifest(&m.compact_index_changes, ManifestCompression::Null)
                            .map_err(|e| format!("encoding compaction index changes: {e}"))?,
                    ),
                )
            },
        })
    }
}

impl TryFrom<CommitMessageWire> for CommitMessage {
    type Error = String;
    fn try_from(w: CommitMessageWire) -> Result<Self, String> {
        if w.version != COMMIT_CHANGELOG_VERSION {
            check_version(w.version, "commit message")?;
        }
        let optional = |text: &Option<String>, what: &str| match text {
            Some(text) => decode_files(text, what),
            None => Ok(Vec::new()),
        };
        let index = B64
            .decode(&w.index_changes)
            .map_err(|e| format!("indexChanges: not base64: {e}"))?;
        Ok(CommitMessage {
            partition: decode_partition(&w.partition)?,
            bucket: w.bucket,
            total_buckets: w.total_buckets,
            new_files: decode_files(&w.new_files, "newFiles")?,
            deleted_files: optional(&w.deleted_files, "deletedFiles")?,
            new_changelog: optional(&w.new_changelog, "newChangelog")?,
            compact_index_changes: match &w.compact_index_changes {
                Some(text) => decode_index_manifest(
                    &B64.decode(text)
                        .map_err(|e| format!("compactIndexChanges: not base64: {e}"))?,
                )
                .map_err(|e| format!("compactIndexChanges: {e}"))?,
                None => Vec::new(),
            },
            compact_changelog: optional(&w.compact_changelog, "compactChangelog")?,
            compact_before: decode_files(&w.compact_before, "compactBefore")?,
            compact_after: decode_files(&w.compact_after, "compactAfter")?,
            index_changes: decode_index_manifest(&index)
                .map_err(|e| format!("indexChanges: {e}"))?,
            index_base: w.index_base,
            compact_base: w.compact_base,
        })
    }
}

impl Serialize for CommitMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        CommitMessageWire::try_from(self)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

impl<'de> Deserialize<'de> for CommitMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        CommitMessage::try_from(CommitMessageWire::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl Serialize for DataSplit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        DataSplitWire {
            version: match self.row_range {
                Some(_) => SPLIT_ROW_RANGE_VERSION,
                None => WIRE_VERSION,
            },
            snapshot_id: self.snapshot_id,
            partition: B64.encode(self.partition.to_serialized()),
            bucket: self.bucket,
            total_buckets: self.total_buckets,
            files: encode_files(
                &self.partition,
                self.bucket,
                self.total_buckets,
                &self.files,
            )
            .map_err(serde::ser::Error::custom)?,
            raw_convertible: self.raw_convertible,
            row_range: self.row_range.as_ref().map(|r| [r.start, r.end]),
            branch: self.branch.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for DataSplit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = DataSplitWire::deserialize(d)?;
        let split = (|| -> Result<DataSplit, String> {
            if w.version != SPLIT_ROW_RANGE_VERSION {
                check_version(w.version, "data split")?;
            }
            let row_range = match (w.version, w.row_range) {
                (SPLIT_ROW_RANGE_VERSION, Some([start, end])) if start <= end => Some(start..end),
                (SPLIT_ROW_RANGE_VERSION, other) => {
                    return Err(format!(
                        "serialized data split of version {SPLIT_ROW_RANGE_VERSION} needs a row \
                         range [start, end] with start <= end, found {other:?}"
                    ))
                }
                (_, Some(_)) => {
                    return Err(format!(
                        "serialized data split has a row range but version {}; a row range \
                         needs version {SPLIT_ROW_RANGE_VERSION}",
                        w.version
                    ))
                }
                (_, None) => None,
            };
            let files = decode_files(&w.files, "files")?;
            if row_range.is_some() && files.len() != 1 {
                return Err(format!(
                    "serialized data split has a row range over {} files; a range needs one file",
                    files.len()
                ));
            }
            Ok(DataSplit {
                snapshot_id: w.snapshot_id,
                partition: decode_partition(&w.partition)?,
                bucket: w.bucket,
                total_buckets: w.total_buckets,
                files,
                raw_convertible: w.raw_convertible,
                row_range,
                branch: w.branch,
            })
        })();
        split.map_err(D::Error::custom)
    }
}
