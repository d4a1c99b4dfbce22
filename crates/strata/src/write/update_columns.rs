//! Writes of some columns of existing rows of a data-evolution table, by row id
//! ([`Table::update_columns`]), as Flink's `DataEvolutionPartialWriteOperator` and pypaimon's
//! row-id updates write them: for every row-id range (the files of one `firstRowId`) holding
//! an updated row, one file of only the updated columns for the whole range (new values where
//! given, the current ones elsewhere, read by `read::data_evolution`), its `writeCols` the
//! columns and its `firstRowId` the range's, committed in one APPEND snapshot. Reads then take
//! those columns from the new file (the newest of its range) and every other column from the
//! older ones; no data file is rewritten. Updated BLOB columns go to `.blob` files of their own
//! over the whole range, placeholders for the rows not updated (`super::blob_update`, as
//! Spark's `DataEvolutionTableDataWrite`); a BLOB-only update writes no Parquet file.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::compute::interleave;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, RecordBatchOptions};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::schema::TableSchema;
use strata_spec::DataField;

use crate::commit::CommitMessage;
use crate::error::ErrorDetail;
use crate::format::arrow_types::{to_arrow_field, to_arrow_schema};
use crate::table::Table;
use crate::{Error, Result};

use super::bucket_writer::{BucketWriter, WriterConfig};

/// One row-id range of the table: where its files are.
struct Range {
    partition: BinaryRow,
    dir: String,
    files: Vec<DataFileMeta>,
}

impl Table {
    /// Writes the columns of `batch` other than `_ROW_ID` into the rows whose `_ROW_ID` it
    /// gives, on a table with `data-evolution.enabled` (Java's partial-column writes: one file
    /// of only those columns per row-id range touched, committed in one APPEND snapshot; the
    /// other columns and rows keep their values). Each `_ROW_ID` must be a row of the latest
    /// snapshot, at most once. Returns the new snapshot id (`None` for an empty batch).
    pub async fn update_columns(&self, batch: &RecordBatch) -> Result<Option<i64>> {
        // The row-id check base of the commit (Java `rowIdCheckConflict`): a compaction or
        // overwrite landing before the snapshot is a conflict (`commit::row_id_conflicts`).
        let base = self.snapshot_manager().latest().await?.map(|s| s.id);
        let messages = self.column_update_messages(batch).await?;
        if messages.is_empty() {
            return Ok(None);
        }
        self.new_commit()?
            .with_row_id_check_from(base)
            .commit(messages)
            .await
    }

    /// The files of [`Table::update_columns`], uncommitted (one message per row-id range
    /// touched; none for an empty batch), for a caller that commits them with other changes
    /// (`super::data_evolution_dml`: MERGE INTO's matched updates and inserts in one snapshot).
    pub(crate) async fn column_update_messages(
        &self,
        batch: &RecordBatch,
    ) -> Result<Vec<CommitMessage>> {
        super::blob_write::refuse_unwritable(self, "updating columns of")?;
        if !self.options().data_evolution_enabled()? {
            return Err(invalid(format!(
                "updating columns of {} by row id needs data-evolution.enabled = true",
                self.identifier()
            )));
        }
        let schema = batch.schema();
        let id_at = schema
            .index_of(strata_spec::kv::ROW_ID)
            .map_err(|_| invalid("the batch has no _ROW_ID column".to_string()))?;
        let ids = arrow::compute::cast(batch.column(id_at), &arrow_schema::DataType::Int64)
            .map_err(|e| Error::arrow("reading _ROW_ID", e))?;
        let ids = ids
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or_else(|| invalid("_ROW_ID is not BIGINT".to_string()))?;
        if ids.null_count() > 0 {
            return Err(invalid("_ROW_ID holds NULL".to_string()));
        }
        // The updated columns, in the table's order, with the input cast to their types.
        let mut fields: Vec<DataField> = Vec::new();
        for f in schema
            .fields()
            .iter()
            .filter(|f| f.name() != strata_spec::kv::ROW_ID)
        {
            let field = self.schema().fields.iter().find(|t| &t.name == f.name());
            let Some(field) = field else {
                return Err(invalid(format!(
                    "{} has no column {}",
                    self.identifier(),
                    f.name()
                )));
            };
            if self.schema().partition_keys.contains(&field.name) {
                return Err(invalid(format!(
                    "partition column {} cannot be updated by row id",
                    field.name
                )));
            }
            fields.push(field.clone());
        }
        if fields.is_empty() || batch.num_rows() == 0 {
            return Ok(Vec::new());
        }
        fields.sort_by_key(|f| self.schema().fields.iter().position(|t| t.id == f.id));
        let mut values: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for f in &fields {
            let target = to_arrow_field(f)?;
            let column = batch.column(
                schema
                    .index_of(&f.name)
                    .map_err(|e| Error::arrow("finding an updated column", e))?,
            );
            values.push(
                arrow::compute::cast(column, target.data_type())
                    .map_err(|e| Error::arrow(format!("casting column {}", f.name), e))?,
            );
        }

        // The live row-id ranges, by first row id.
        let plan = self.new_scan().own_branch().plan().await?;
        let snapshot = plan.snapshot.as_ref().map(|s| s.id);
        let mut ranges: BTreeMap<i64, Range> = BTreeMap::new();
        for split in plan.splits {
            let dir = self.partition_path(&split.partition)?;
            for files in crate::read::data_evolution::group_by_row_ranges(self, split.files)? {
                let first = files[0].first_row_id.unwrap_or_default();
                ranges.insert(
                    first,
                    Range {
                        partition: split.partition.clone(),
                        dir: dir.clone(),
                        files,
                    },
                );
            }
        }
        // Input rows per range: (position in the range, input row).
        let mut touched: BTreeMap<i64, Vec<(usize, usize)>> = BTreeMap::new();
        for row in 0..ids.len() {
            let id = ids.value(row);
            let hit = ranges
                .range(..=id)
                .next_back()
                .filter(|(first, r)| id < *first + r.files[0].row_count);
            let Some((first, _)) = hit else {
                return Err(invalid(format!(
                    "_ROW_ID {id} is not a row of {} (snapshot {snapshot:?})",
                    self.identifier()
                )));
            };
            touched
                .entry(*first)
                .or_default()
                .push(((id - first) as usize, row));
        }
        // Global indexes over the updated columns (before any file is written).
        let mut partitions: Vec<BinaryRow> = Vec::new();
        for first in touched.keys() {
            let p = &ranges[first].partition;
            if !partitions.contains(p) {
                partitions.push(p.clone());
            }
        }
        let index_changes = self.global_index_changes(&fields, &partitions).await?;
        let mut messages = Vec::new();
        let writing = self.with_dynamic_options([
            // One file per range, as Java's partial writer (no rolling).
            ("target-file-size".to_string(), "99999 G".to_string()),
            ("target-file-row-num".to_string(), i64::MAX.to_string()),
        ])?;
        // BLOB columns go to `.blob` files of their own (`super::blob_update`), the others to
        // one Parquet file per range; a BLOB-only update writes no Parquet file (Spark's
        // DataEvolutionTableDataWrite: "Raw blob ... only partial writes may produce no normal
        // file").
        let is_blob = |f: &DataField| matches!(f.data_type.kind, strata_spec::TypeKind::Blob);
        let normal: Vec<usize> = (0..fields.len())
            .filter(|k| !is_blob(&fields[*k]))
            .collect();
        let blob_cols: Vec<usize> = (0..fields.len()).filter(|k| is_blob(&fields[*k])).collect();
        let normal_fields: Vec<DataField> = normal.iter().map(|k| fields[*k].clone()).collect();
        let projected = Arc::new(TableSchema {
            fields: normal_fields.clone(),
            partition_keys: Vec::new(),
            primary_keys: Vec::new(),
            ..writing.schema().as_ref().clone()
        });
        let writing = writing.with_schema(projected)?;
        let config = Arc::new(WriterConfig::from_table(&writing)?);
        let arrow_schema = to_arrow_schema(&strata_spec::RowType::new(normal_fields.clone()))?;
        for (first, mut rows) in touched {
            let range = &ranges[&first];
            rows.sort_unstable();
            if rows.windows(2).any(|w| w[0].0 == w[1].0) {
                return Err(invalid(format!(
                    "a _ROW_ID of range {first}.. is given more than once"
                )));
            }
            let n = range.files[0].row_count.max(0) as usize;
            let mut msg = CommitMessage::new(range.partition.clone(), 0, -1);
            if !normal_fields.is_empty() {
                msg.new_files.push(
                    self.write_normal_update(
                        &writing,
                        &config,
                        &arrow_schema,
                        range,
                        first,
                        &normal_fields,
                        &normal.iter().map(|k| &values[*k]).collect::<Vec<_>>(),
                        &rows,
                    )
                    .await?,
                );
            }
            let mut created = Vec::new();
            for k in &blob_cols {
                let update = super::blob_update::BlobUpdate {
                    column: &fields[*k].name,
                    dir: &range.dir,
                    first_row_id: first,
                    rows: n,
                    updates: &rows,
                    values: &values[*k],
                };
                match super::blob_update::write_blob_update(self, &update, &mut created).await {
                    Ok(files) => msg.new_files.extend(files),
                    Err(e) => {
                        // this range's files: the Parquet file and every `.blob` file begun
                        let parquet = msg
                            .new_files
                            .iter()
                            .map(|f| self.paths().data_file(&range.dir, 0, &f.file_name));
                        for path in parquet.chain(created.iter().cloned()) {
                            let _ = self.file_io().delete(&path).await;
                        }
                        return Err(e);
                    }
                }
            }
            messages.push(msg);
        }
        messages.extend(index_changes);
        Ok(messages)
    }

    /// The Parquet file of the non-BLOB updated columns of one range (`rows`: position in the
    /// range, input row): the whole range, updated values where given, current ones elsewhere.
    #[allow(clippy::too_many_arguments)]
    async fn write_normal_update(
        &self,
        writing: &Table,
        config: &Arc<WriterConfig>,
        arrow_schema: &arrow_schema::SchemaRef,
        range: &Range,
        first: i64,
        fields: &[DataField],
        values: &[&ArrayRef],
        rows: &[(usize, usize)],
    ) -> Result<DataFileMeta> {
        {
            let (current, n) = crate::read::data_evolution::read_group(
                self,
                &range.dir,
                0,
                &range.files,
                fields,
                crate::read::DEFAULT_BATCH_SIZE,
            )
            .await?;
            // Row i of the range: the input row updating it, or its current value.
            let mut pick: Vec<(usize, usize)> = (0..n).map(|i| (0, i)).collect();
            for (pos, row) in rows {
                pick[*pos] = (1, *row);
            }
            let mut columns = Vec::with_capacity(fields.len());
            for (k, cur) in current.iter().enumerate() {
                let arrays: [&dyn Array; 2] = [cur.as_ref(), values[k].as_ref()];
                columns.push(
                    interleave(&arrays, &pick)
                        .map_err(|e| Error::arrow("merging updated values", e))?,
                );
            }
            let options = RecordBatchOptions::new().with_row_count(Some(n));
            let out = RecordBatch::try_new_with_options(arrow_schema.clone(), columns, &options)
                .map_err(|e| Error::arrow("building the updated columns", e))?;
            let mut writer = BucketWriter::new(
                writing.clone(),
                config.clone(),
                range.partition.clone(),
                range.dir.clone(),
                0,
                0,
            );
            let written = async {
                writer.write(&out).await?;
                writer.prepare_commit().await
            }
            .await;
            let mut files = match written {
                Ok(f) => f,
                Err(e) => {
                    writer.abort().await;
                    return Err(e);
                }
            };
            if files.len() != 1 {
                writer.abort().await;
                return Err(invalid(format!(
                    "updating range {first}..: wrote {} files where Java writes one",
                    files.len()
                )));
            }
            let mut file = files.remove(0);
            file.write_cols = Some(fields.iter().map(|f| f.name.clone()).collect());
            file.first_row_id = Some(first);
            Ok(file)
        }
    }
}

fn invalid(message: String) -> Error {
    ErrorDetail::InvalidArgument(message).into()
}
