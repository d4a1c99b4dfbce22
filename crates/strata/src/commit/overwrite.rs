//! INSERT OVERWRITE: which live files an OVERWRITE commit deletes.
//!
//! Paimon's rules (`dynamic-partition-overwrite`, default true): a dynamic overwrite replaces
//! only the partitions that receive new rows (the whole table when it is unpartitioned); a
//! static overwrite replaces the partitions matching a (possibly partial) partition spec; a
//! whole-table overwrite replaces everything.

use std::collections::HashSet;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, ManifestEntry};
use strata_spec::Datum;

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
        let partition_type = table.schema().partition_type();
        let selected: Vec<ManifestEntry> = match self {
            OverwriteScope::WholeTable => live,
            OverwriteScope::Dynamic if partition_type.is_empty() => live,
            OverwriteScope::Dynamic => {
                let touched: HashSet<&BinaryRow> = adds.iter().map(|e| &e.partition).collect();
                live.into_iter()
                    .filter(|e| touched.contains(&e.partition))
                    .collect()
            }
            OverwriteScope::Static(spec) => {
                let types = partition_type.types();
                let mut idx = Vec::with_capacity(spec.len());
                for (name, value) in spec {
                    let i = partition_type.index_of(name).ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "{name} is not a partition column of {} (partition keys: {})",
                            table.identifier(),
                            partition_type.names().join(", ")
                        ))
                    })?;
                    idx.push((i, value.clone()));
                }
                let matches = |row: &BinaryRow| -> Result<bool> {
                    let values = row.to_datums(&types)?;
                    Ok(idx.iter().all(|(i, v)| values[*i] == *v))
                };
                for a in adds {
                    if !matches(&a.partition)? {
                        return Err(Error::InvalidArgument(format!(
                            "new file {} lies in partition {} which is outside the overwritten \
                             partition",
                            a.file.file_name,
                            table.partition_text(&a.partition)?
                        )));
                    }
                }
                let mut out = Vec::new();
                for e in live {
                    if matches(&e.partition)? {
                        out.push(e);
                    }
                }
                out
            }
        };
        Ok(selected
            .into_iter()
            .map(|mut e| {
                e.kind = FileKind::Delete;
                e
            })
            .collect())
    }
}
