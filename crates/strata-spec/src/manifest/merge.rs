//! Merging manifest entries into the live file set (§5.6 of the format reference; Java
//! `FileEntry.mergeEntries`).
//!
//! Entries are applied in order (base list then delta list, each manifest in file order):
//! an ADD inserts its [`FileEntryIdentifier`] — adding an identity that is already present
//! (as an ADD or a remembered DELETE) is an error; a DELETE removes a present identity, or is
//! remembered as an *orphan* when its ADD lies outside the merged batch. As in Java, a DELETE
//! whose identity is held by a remembered DELETE removes that DELETE.
//!
//! The result keeps live ADDs in insertion order (a file removed and re-added moves to the end,
//! like Java's `LinkedHashMap`) and returns orphan DELETEs separately: a reader applying a full
//! base+delta chain can ignore them, while commit conflict detection treats them as errors.

use std::collections::HashMap;

use super::model::{FileKind, ManifestEntry};
use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};

/// Identity of a data file across manifest entries (Java `FileEntry.Identifier`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileEntryIdentifier {
    pub partition: BinaryRow,
    pub bucket: i32,
    pub level: i32,
    pub file_name: String,
    pub extra_files: Vec<String>,
    pub embedded_index: Option<Vec<u8>>,
    pub external_path: Option<String>,
}

impl FileEntryIdentifier {
    /// The identity of `entry`'s file.
    pub fn of(entry: &ManifestEntry) -> FileEntryIdentifier {
        FileEntryIdentifier {
            partition: entry.partition.clone(),
            bucket: entry.bucket,
            level: entry.file.level,
            file_name: entry.file.file_name.clone(),
            extra_files: entry.file.extra_files.clone(),
            embedded_index: entry.file.embedded_index.clone(),
            external_path: entry.file.external_path.clone(),
        }
    }
}

impl ManifestEntry {
    /// The identity used when merging entries.
    pub fn identifier(&self) -> FileEntryIdentifier {
        FileEntryIdentifier::of(self)
    }
}

/// An entry the merger can apply: its kind and its file identity. Implemented by decoded
/// [`ManifestEntry`]s and by the still-encoded entries of lazy decoding
/// ([`super::lazy::RawEntry`]), so both follow exactly the same rules.
pub trait MergeItem {
    /// The identity; two entries refer to the same file iff their ids are equal.
    type Id: std::hash::Hash + Eq;
    fn merge_id(&self) -> Self::Id;
    fn file_kind(&self) -> FileKind;
    /// (file name, bucket, level) for error messages.
    fn describe(&self) -> (&str, i32, i32);
}

impl MergeItem for ManifestEntry {
    type Id = FileEntryIdentifier;
    fn merge_id(&self) -> FileEntryIdentifier {
        self.identifier()
    }
    fn file_kind(&self) -> FileKind {
        self.kind
    }
    fn describe(&self) -> (&str, i32, i32) {
        (&self.file.file_name, self.bucket, self.file.level)
    }
}

/// Result of merging: live files and DELETEs without a matching ADD.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged<E> {
    /// Live ADD entries, in insertion order.
    pub adds: Vec<E>,
    /// DELETE entries whose ADD was not among the merged entries, in order.
    pub orphan_deletes: Vec<E>,
}

impl<E> Default for Merged<E> {
    fn default() -> Self {
        Merged {
            adds: Vec::new(),
            orphan_deletes: Vec::new(),
        }
    }
}

/// Merged decoded entries.
pub type MergedEntries = Merged<ManifestEntry>;

/// Incremental form of [`merge_entries`], for feeding manifests one at a time.
pub struct GenericMerger<E: MergeItem> {
    /// Slot per inserted entry; `None` once removed.
    slots: Vec<Option<E>>,
    index: HashMap<E::Id, usize>,
    live: usize,
}

/// The merger of decoded entries.
pub type EntryMerger = GenericMerger<ManifestEntry>;

impl<E: MergeItem> Default for GenericMerger<E> {
    fn default() -> Self {
        GenericMerger {
            slots: Vec::new(),
            index: HashMap::new(),
            live: 0,
        }
    }
}

impl<E: MergeItem> GenericMerger<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one entry.
    pub fn push(&mut self, entry: E) -> Result<()> {
        let id = entry.merge_id();
        match entry.file_kind() {
            FileKind::Add => {
                if let Some(&slot) = self.index.get(&id) {
                    let old =
                        self.slots[slot]
                            .as_ref()
                            .map_or("an entry", |e| match e.file_kind() {
                                FileKind::Add => "an ADD",
                                FileKind::Delete => "a DELETE",
                            });
                    let (name, bucket, level) = entry.describe();
                    return Err(SpecError::invalid(
                        "manifest entries",
                        format!(
                            "trying to add file {name} (bucket {bucket}, level {level}) which is \
                             already recorded by {old}"
                        ),
                    ));
                }
                self.index.insert(id, self.slots.len());
                self.slots.push(Some(entry));
                self.live += 1;
            }
            FileKind::Delete => match self.index.remove(&id) {
                Some(slot) => {
                    self.slots[slot] = None;
                    self.live -= 1;
                }
                None => {
                    self.index.insert(id, self.slots.len());
                    self.slots.push(Some(entry));
                    self.live += 1;
                }
            },
        }
        // Keep removed slots from piling up during long chains.
        if self.slots.len() > 64 && self.live * 2 < self.slots.len() {
            self.compact();
        }
        Ok(())
    }

    fn compact(&mut self) {
        let slots = std::mem::take(&mut self.slots);
        self.index.clear();
        for entry in slots.into_iter().flatten() {
            self.index.insert(entry.merge_id(), self.slots.len());
            self.slots.push(Some(entry));
        }
    }

    /// Live ADDs and orphan DELETEs.
    pub fn finish(self) -> Merged<E> {
        let mut out = Merged::default();
        for entry in self.slots.into_iter().flatten() {
            match entry.file_kind() {
                FileKind::Add => out.adds.push(entry),
                FileKind::Delete => out.orphan_deletes.push(entry),
            }
        }
        out
    }
}

/// Merges entries in order into live ADDs plus orphan DELETEs (see the module docs).
/// Adding a file identity twice is an error naming the file.
pub fn merge_entries<E: MergeItem>(entries: impl IntoIterator<Item = E>) -> Result<Merged<E>> {
    let mut merger = GenericMerger::new();
    for entry in entries {
        merger.push(entry)?;
    }
    Ok(merger.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::testkit::entry;
    use FileKind::{Add, Delete};

    fn names(entries: &[ManifestEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.file.file_name.as_str()).collect()
    }

    #[test]
    fn adds_minus_deletes_in_insertion_order() {
        let merged = merge_entries([
            entry(Add, 1, 0, "a"),
            entry(Add, 1, 0, "b"),
            entry(Add, 2, 0, "c"),
            entry(Delete, 1, 0, "b"),
            entry(Add, 1, 1, "d"),
        ])
        .unwrap();
        assert_eq!(names(&merged.adds), ["a", "c", "d"]);
        assert!(merged.orphan_deletes.is_empty());
    }

    #[test]
    fn unmatched_deletes_are_returned_separately() {
        let merged = merge_entries([
            entry(Delete, 1, 0, "old"),
            entry(Add, 1, 0, "new"),
            // Same name, different partition: a different identity.
            entry(Delete, 2, 0, "new"),
        ])
        .unwrap();
        assert_eq!(names(&merged.adds), ["new"]);
        assert_eq!(names(&merged.orphan_deletes), ["old", "new"]);
        assert_eq!(
            merged.orphan_deletes[1].partition,
            entry(Add, 2, 0, "x").partition
        );
    }

    #[test]
    fn level_upgrade_is_delete_plus_add() {
        let mut upgraded = entry(Add, 1, 0, "f");
        upgraded.file.level = 5;
        let merged = merge_entries([
            entry(Add, 1, 0, "f"),
            entry(Add, 1, 0, "g"),
            entry(Delete, 1, 0, "f"),
            upgraded.clone(),
        ])
        .unwrap();
        assert_eq!(merged.adds, vec![entry(Add, 1, 0, "g"), upgraded]);
    }

    #[test]
    fn re_added_file_moves_to_the_end() {
        let merged = merge_entries([
            entry(Add, 1, 0, "a"),
            entry(Add, 1, 0, "b"),
            entry(Delete, 1, 0, "a"),
            entry(Add, 1, 0, "a"),
        ])
        .unwrap();
        assert_eq!(names(&merged.adds), ["b", "a"]);
    }

    #[test]
    fn adding_twice_is_an_error_naming_the_file() {
        let err = merge_entries([
            entry(Add, 1, 0, "dup.parquet"),
            entry(Add, 1, 0, "dup.parquet"),
        ])
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("dup.parquet") && msg.contains("already"),
            "{msg}"
        );
        // ADD after an orphan DELETE of the same identity is rejected too (as in Java).
        let err = merge_entries([entry(Delete, 1, 0, "x"), entry(Add, 1, 0, "x")]).unwrap_err();
        assert!(err.to_string().contains("a DELETE"), "{err}");
    }

    #[test]
    fn second_delete_cancels_a_remembered_delete_like_java() {
        let merged = merge_entries([entry(Delete, 1, 0, "x"), entry(Delete, 1, 0, "x")]).unwrap();
        assert!(merged.adds.is_empty() && merged.orphan_deletes.is_empty());
    }

    #[test]
    fn identity_includes_extra_files_embedded_index_and_external_path() {
        let base = entry(Add, 1, 0, "f");
        let mut other = base.clone();
        other.file.extra_files = vec!["f.index".into()];
        assert_ne!(base.identifier(), other.identifier());
        let mut other = base.clone();
        other.file.embedded_index = Some(vec![1]);
        assert_ne!(base.identifier(), other.identifier());
        let mut other = base.clone();
        other.file.external_path = Some("s3://x/f".into());
        assert_ne!(base.identifier(), other.identifier());
        // Not part of the identity: sizes, stats, sequence numbers, total buckets.
        let mut other = base.clone();
        other.file.file_size = 1;
        other.total_buckets = 9;
        assert_eq!(base.identifier(), other.identifier());
    }

    #[test]
    fn long_chains_compact_without_losing_order() {
        let mut merger = EntryMerger::new();
        for i in 0..500 {
            merger.push(entry(Add, 1, 0, &format!("f{i}"))).unwrap();
            if i % 3 != 0 {
                merger.push(entry(Delete, 1, 0, &format!("f{i}"))).unwrap();
            }
        }
        let merged = merger.finish();
        let want: Vec<String> = (0..500)
            .filter(|i| i % 3 == 0)
            .map(|i| format!("f{i}"))
            .collect();
        assert_eq!(names(&merged.adds), want);
    }
}
