//! Skipping data files by their file indexes before opening them (Java's
//! `FileIndexEvaluator`): the index container embedded in the manifest entry
//! (`_EMBEDDED_FILE_INDEX`) or the data file's `<name>.index` extra file, evaluated against the
//! read's filter by [`crate::format::file_index::evaluate`]; a test of a MAP key `m['k']` asks
//! the index of the column `m[k]` (Java's MAP-key indexes). Honours `file-index.read.enabled`
//! (default true).

use object_store::path::Path;
use strata_spec::manifest::DataFileMeta;
use strata_spec::schema::TableSchema;
use strata_spec::TypeKind;

use super::plan::ReadPlan;
use super::ReadMetrics;
use crate::expr::BoundLeafPredicate;
use crate::format::file_index::{self, IndexedColumn, INDEX_PATH_SUFFIX};
use crate::io::FileIO;
use crate::table::Table;
use crate::{Error, Result};

/// Whether the table's reads use file indexes (`file-index.read.enabled`, default true).
pub(crate) fn read_enabled(table: &Table) -> Result<bool> {
    Ok(table
        .options()
        .get_bool("file-index.read.enabled")?
        .unwrap_or(true))
}

/// Whether `file` may hold a row matching `plan`'s filter by its file indexes (true when it
/// has none, or the filter tests no indexed column). `data_path` is where the data file is
/// read from (its `.index` file sits beside it); the bytes of a `.index` file count in
/// `metrics`' `bytes_read`.
pub(crate) async fn may_match(
    plan: &ReadPlan,
    file: &DataFileMeta,
    io: &FileIO,
    data_path: &Path,
    data_schema: &TableSchema,
    metrics: Option<&ReadMetrics>,
) -> Result<bool> {
    let Some(filter) = &plan.bound else {
        return Ok(true);
    };
    let fetched;
    let blob: &[u8] = match &file.embedded_index {
        Some(b) => b,
        None => {
            let mut names = file
                .extra_files
                .iter()
                .filter(|n| n.ends_with(INDEX_PATH_SUFFIX));
            let Some(name) = names.next() else {
                return Ok(true);
            };
            if let Some(other) = names.next() {
                return Err(Error::invalid_argument(format!(
                    "data file {} lists more than one index file: {name} and {other}",
                    file.file_name
                )));
            }
            let path = sibling(data_path, name);
            fetched = io.get(&path).await?;
            if let Some(m) = metrics {
                ReadMetrics::add(&m.bytes_read, fetched.len() as u64);
            }
            &fetched
        }
    };
    let column = |leaf: &BoundLeafPredicate| -> Option<IndexedColumn> {
        if let Some(k) = leaf
            .index
            .checked_sub(plan.read_fields.len())
            .and_then(|i| plan.keys.get(i))
        {
            // A key access `m['k']`: Java's MAP-key index of the column `m[k]`
            // (`FileIndexCommon.toMapKey`), keyed by the map's name in the file.
            let field = data_schema.fields.iter().find(|f| f.id == k.map_field.id)?;
            let TypeKind::Map { value, .. } = &field.data_type.kind else {
                return None;
            };
            return (field.data_type.kind == k.map_field.data_type.kind
                && value.kind == leaf.data_type.kind)
                .then(|| IndexedColumn {
                    name: format!("{}[{}]", field.name, k.key),
                    kind: value.kind.clone(),
                });
        }
        let read = plan.read_fields.get(leaf.index)?;
        let field = data_schema.fields.iter().find(|f| f.id == read.id)?;
        // A column whose type changed since the file was written: its index holds old values.
        (field.data_type.kind == leaf.data_type.kind).then(|| IndexedColumn {
            name: field.name.clone(),
            kind: field.data_type.kind.clone(),
        })
    };
    file_index::evaluate(blob, filter, &column)
        .map_err(|e| Error::corrupt(format!("file index of {}", file.file_name), e))
}

/// `name` in the directory of `path`.
fn sibling(path: &Path, name: &str) -> Path {
    let mut parts: Vec<_> = path.parts().collect();
    parts.pop();
    parts.push(name.into());
    Path::from_iter(parts)
}
