//! `rewrite_file_index`: (re)builds the file indexes of existing data files from the table's
//! current `file-index.*` options, as Java's `RewriteFileIndexProcedure` / `FileIndexProcessor`
//! do — after `ALTER TABLE … SET ('file-index.bloom-filter.columns' = …)` the files written
//! before get their indexes too. What the CLI's `rewrite-file-index` and SQL's
//! `CALL sys.rewrite_file_index` run.
//!
//! Each selected live file is read whole (its own rows, in order, no deletion vector applied:
//! bitmap row numbers are file positions), its index built under the file's own column names
//! (columns added since the file was written are not indexed), then embedded in the new
//! manifest entry (at most `file-index.in-manifest-threshold` bytes) or written beside the data
//! file: `<file>.index`, or when the file already had one Java's next name
//! (`<file>.index` → `<file>-1.index`, `-1` → `-2`: `DataFilePathFactory
//! .createNewFileIndexFilePath`). The data files stay; one COMPACT snapshot replaces each
//! entry by its re-indexed copy (Java's `CompactIncrement(before, after)`). A table without
//! file-index options gets its indexes removed.
//!
//! Primary-key tables as Java's `RewriteFileIndexSource` does them: every live data file of
//! every level, its value columns indexed over all its records in file order (DELETE records
//! too, as `KeyValueDataFileWriter` indexes them when it writes the file: Java reads the file
//! as one raw-convertible split, without deletion vectors).

use futures::TryStreamExt;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{merge_entries, DataFileMeta};

use super::compact_table::CompactRequest;
use crate::commit::CommitMessage;
use crate::error::ErrorDetail;
use crate::format::data_file_reader::read_data_file;
use crate::format::file_index::writer::{DataFileIndexWriter, FileIndexOptions, FileIndexOutput};
use crate::format::file_index::INDEX_PATH_SUFFIX;
use crate::format::parquet_reader::ParquetReadOptions;
use crate::scan::DataSplit;
use crate::table::Table;
use crate::Result;

/// What a [`Table::rewrite_file_index`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RewriteFileIndexReport {
    /// Data files whose index was rebuilt.
    pub files: usize,
    /// Of them, files whose index is now a separate `.index` file (the rest are embedded in
    /// the manifest, or have no index when the table has no file-index options).
    pub index_files: usize,
    /// The COMPACT snapshot, `None` when no file was selected.
    pub snapshot: Option<i64>,
}

impl Table {
    /// Rebuilds the file indexes of the live data files of the partitions `partitions` selects
    /// (`[("dt", "1")]`; several specs select their union, none every partition) from the
    /// table's current `file-index.*` options, in one COMPACT commit. On primary-key tables
    /// every live file of every level is re-indexed over its value columns.
    pub async fn rewrite_file_index(
        &self,
        partitions: &[Vec<(String, String)>],
    ) -> Result<RewriteFileIndexReport> {
        let schema = self.schema();
        let row_type = schema.row_type();
        let options = FileIndexOptions::parse(
            self.options().as_map(),
            &row_type,
            self.options().file_index_in_manifest_threshold()?,
        )?;
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Ok(RewriteFileIndexReport::default());
        };
        let selected = self
            .select_buckets(&CompactRequest {
                partitions: partitions.to_vec(),
                ..Default::default()
            })
            .await?;
        let store = self.manifest_store();
        let metas = store.data_manifests(&snapshot).await?;
        let batches = store.read_manifests(&metas).await?;
        let merged = merge_entries(batches.into_iter().flatten())?;
        let mut messages: Vec<CommitMessage> = Vec::new();
        let mut report = RewriteFileIndexReport::default();
        let mut written = Vec::new();
        let result: Result<()> = async {
            for e in merged.adds {
                if !selected.contains(&(e.partition.clone(), e.bucket)) {
                    continue;
                }
                let (after, index_file) = self
                    .reindex(
                        &options,
                        &row_type,
                        snapshot.id,
                        &e.partition,
                        e.bucket,
                        e.total_buckets,
                        &e.file,
                    )
                    .await?;
                if let Some(p) = index_file {
                    written.push(p);
                    report.index_files += 1;
                }
                report.files += 1;
                let at = messages
                    .iter()
                    .position(|m| m.partition == e.partition && m.bucket == e.bucket);
                let m = match at {
                    Some(i) => &mut messages[i],
                    None => {
                        messages.push(CommitMessage::new(
                            e.partition.clone(),
                            e.bucket,
                            e.total_buckets,
                        ));
                        messages.last_mut().expect("pushed")
                    }
                };
                m.compact_before.push(e.file);
                m.compact_after.push(after);
            }
            Ok(())
        }
        .await;
        let committed = match result {
            Ok(()) if messages.is_empty() => Ok(None),
            Ok(()) => self.new_commit()?.commit(messages).await,
            Err(e) => Err(e),
        };
        match committed {
            Ok(snapshot) => {
                report.snapshot = snapshot;
                Ok(report)
            }
            Err(e) => {
                for p in written {
                    let _ = self.file_io().delete(&p).await;
                }
                Err(e)
            }
        }
    }

    /// `file` with its index rebuilt, and the path of the index file written (if any).
    #[allow(clippy::too_many_arguments)]
    async fn reindex(
        &self,
        options: &FileIndexOptions,
        row_type: &strata_spec::RowType,
        snapshot_id: i64,
        partition: &BinaryRow,
        bucket: i32,
        total_buckets: i32,
        file: &DataFileMeta,
    ) -> Result<(DataFileMeta, Option<object_store::path::Path>)> {
        if file.external_path.is_some() {
            return Err(ErrorDetail::Unsupported(format!(
                "rewrite_file_index of {}: data file {} is at an external path",
                self.identifier(),
                file.file_name
            ))
            .into());
        }
        let file_schema = self.schema_manager().schema(file.schema_id).await?;
        let file_name = |f: &strata_spec::DataField| {
            file_schema
                .fields
                .iter()
                .find(|g| g.id == f.id && g.data_type.kind == f.data_type.kind)
                .map(|g| g.name.clone())
        };
        let mut after = file.clone();
        let old_index: Vec<String> = file
            .extra_files
            .iter()
            .filter(|n| n.ends_with(INDEX_PATH_SUFFIX))
            .cloned()
            .collect();
        after
            .extra_files
            .retain(|n| !n.ends_with(INDEX_PATH_SUFFIX));
        after.embedded_index = None;
        let Some(mut writer) = DataFileIndexWriter::create_renamed(options, row_type, &file_name)?
        else {
            return Ok((after, None));
        };
        let mut rows = if self.is_primary_key_table() {
            // The key-value file's records, all of them, as rows of the value columns.
            let data = strata_spec::kv::key_value_fields(&file_schema)?;
            let path =
                self.paths()
                    .data_file(&self.partition_path(partition)?, bucket, &file.file_name);
            let options = ParquetReadOptions {
                file_size: Some(file.file_size as u64),
                ..Default::default()
            };
            read_data_file(self.file_io(), &path, &data, &row_type.fields, options).await?
        } else {
            let split = DataSplit {
                snapshot_id,
                partition: partition.clone(),
                bucket,
                total_buckets,
                files: vec![file.clone()],
                raw_convertible: true,
                row_range: None,
                branch: None,
            };
            self.new_read()
                .without_deletion_vectors()
                .to_stream(vec![split])?
        };
        while let Some(batch) = rows.try_next().await? {
            writer.write(&batch)?;
        }
        let dir = self.partition_path(partition)?;
        match writer.finish() {
            FileIndexOutput::Embedded(bytes) => {
                after.embedded_index = Some(bytes);
                Ok((after, None))
            }
            FileIndexOutput::Separate(bytes) => {
                let name = match old_index.first() {
                    Some(old) => next_index_file_name(old),
                    None => format!("{}{INDEX_PATH_SUFFIX}", file.file_name),
                };
                let path = self.paths().data_file(&dir, bucket, &name);
                self.file_io().put(&path, bytes).await?;
                after.extra_files.push(name);
                Ok((after, Some(path)))
            }
        }
    }
}

/// Java's `DataFilePathFactory.createNewFileIndexFilePath`: `<x>-<n>.index` → `<x>-<n+1>.index`,
/// any other `<x>.index` → `<x>-1.index`.
fn next_index_file_name(name: &str) -> String {
    let stem = name.strip_suffix(INDEX_PATH_SUFFIX).unwrap_or(name);
    if let Some((head, n)) = stem.rsplit_once('-') {
        if let Ok(n) = n.parse::<i32>() {
            return format!("{head}-{}{INDEX_PATH_SUFFIX}", n.wrapping_add(1));
        }
    }
    format!("{stem}-1{INDEX_PATH_SUFFIX}")
}

#[cfg(test)]
mod tests {
    use super::next_index_file_name;

    #[test]
    fn index_file_names_as_java() {
        assert_eq!(
            next_index_file_name("data-u-0.parquet.index"),
            "data-u-0.parquet-1.index"
        );
        assert_eq!(
            next_index_file_name("data-u-0.parquet-1.index"),
            "data-u-0.parquet-2.index"
        );
    }
}
