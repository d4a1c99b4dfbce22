//! INSERT OVERWRITE: which live data and index files an OVERWRITE commit deletes.
//!
//! Paimon's rules (`dynamic-partition-overwrite`, default true): a dynamic overwrite replaces
//! only the partitions that receive new rows (the whole table when it is unpartitioned); a
//! static overwrite replaces the partitions matching a (possibly partial) partition spec; a
//! whole-table overwrite replaces everything. Index files (HASH, deletion vectors, ...) of the
//! replaced partitions are deleted with them, as Java's `OverwriteChangesProvider` does.

use std::collections::HashSet;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use strata_spec::{DataType, Datum};

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::{Error, Result};

/// What an OVERWRITE commit replaces.
#[derive(Clone, Debug, PartialEq)]
pub enum OverwriteScope {
    /// Every live file.
    WholeTable,
    /// The partitions present in the new files; the whole table if unpartitioned.
    Dynamic,
    /// Partitions whose named partition columns equal these values (`None` = NULL, i.e. the
    /// default partition). New files must lie inside the spec.
    Static(Vec<(String, Option<Datum>)>),
}

impl OverwriteScope {
    /// DELETE entries for the live files this scope replaces; validates that `adds` fit a
    /// static spec.
    pub(crate) fn select_deletes(
        &self,
        table: &Table,
        adds: &[ManifestEntry],
        live: Vec<ManifestEntry>,
    ) -> Result<Vec<ManifestEntry>> {
        let m = self.matcher(table, adds)?;
        let mut out = Vec::new();
        for mut e in live {
            if m.matches(&e.partition)? {
                e.kind = FileKind::Delete;
                out.push(e);
            }
        }
        Ok(out)
    }

    /// DELETE entries for the live index files (every index type, as Java's
    /// `OverwriteChangesProvider`) of the partitions this scope replaces.
    pub(crate) fn select_index_deletes(
        &self,
        table: &Table,
        adds: &[ManifestEntry],
        live: Vec<IndexManifestEntry>,
    ) -> Result<Vec<IndexManifestEntry>> {
        let m = self.matcher(table, adds)?;
        let mut out = Vec::new();
        for mut e in live {
            if m.matches(&e.partition)? {
                e.kind = FileKind::Delete;
                out.push(e);
            }
        }
        Ok(out)
    }

    /// Which partitions this scope replaces; validates that `adds` fit a static spec.
    fn matcher(&self, table: &Table, adds: &[ManifestEntry]) -> Result<Matcher> {
        let partition_type = table.schema().partition_type();
        let m = match self {
            OverwriteScope::WholeTable => Matcher::All,
            OverwriteScope::Dynamic if partition_type.is_empty() => Matcher::All,
            OverwriteScope::Dynamic => {
                Matcher::Set(adds.iter().map(|e| e.partition.clone()).collect())
            }
            OverwriteScope::Static(spec) => {
                let types = partition_type.types();
                let mut idx = Vec::with_capacity(spec.len());
                for (name, value) in spec {
                    let i = partition_type.index_of(name).ok_or_else(|| {
                        Error::from(ErrorDetail::InvalidArgument(format!(
                            "{name} is not a partition column of {} (partition keys: {})",
                            table.identifier(),
                            partition_type.names().join(", ")
                        )))
                    })?;
                    idx.push((i, value.clone()));
                }
                let m = Matcher::Spec(types, idx);
                for a in adds {
                    if !m.matches(&a.partition)? {
                        return Err(ErrorDetail::InvalidArgument(format!(
                            "new file {} lies in partition {} which is outside the overwritten \
                             partition",
                            a.file.file_name,
                            table.partition_text(&a.partition)?
                        ))
                        .into());
                    }
                }
                m
            }
        };
        Ok(m)
    }
}

enum Matcher {
    All,
    Set(HashSet<BinaryRow>),
    Spec(Vec<DataType>, Vec<(usize, Option<Datum>)>),
}

impl Matcher {
    fn matches(&self, row: &BinaryRow) -> Result<bool> {
        Ok(match self {
            Matcher::All => true,
            Matcher::Set(set) => set.contains(row),
            Matcher::Spec(types, idx) => {
                let values = row.to_datums(types)?;
                idx.iter().all(|(i, v)| values[*i] == *v)
            }
        })
    }
}
