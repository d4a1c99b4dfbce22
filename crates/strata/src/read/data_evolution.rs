//! Data-evolution reads (`data-evolution.enabled`), as Java's `DataEvolutionSplitRead`: the
//! files of a bucket are grouped by row-id range (`mergeRangesAndSort`: overlapping ranges
//! `[firstRowId, firstRowId + rowCount)` merged; every data file of a group must cover the same
//! range), and each group is read as one table of rows whose columns come from different files:
//! for every column read, the newest file (highest `maxSequenceNumber`) that holds it — its
//! `writeCols`, or all columns of its schema when it has none — provides it; a column no file
//! holds is NULL (an error for a NOT NULL column, as Java's `createUnionReader` says).
//! `_ROW_ID` and `_SEQUENCE_NUMBER` come from the newest file like any column (stored, or its
//! `firstRowId` plus the position and its `maxSequenceNumber`: `super::row_tracking`).
//!
//! A group's files are read whole (no statistics pruning: a file without a column cannot
//! answer a filter on it) and stitched in memory; the read's filter and projection apply to
//! the stitched rows. A BLOB column comes from its `.blob` files (sub-ranges of the group, after
//! the data files as Java's `BlobFileBunch`: `super::blob_files`). With deletion vectors, a
//! range's vector is its anchor file's ([`anchor_file`], Java's
//! `DataEvolutionUtils.retrieveAnchorFile`), positions counted from the range's first row id
//! ([`drop_deleted`]). Java's vector-store files are refused by name.

use arrow_array::{new_null_array, ArrayRef};
use futures::StreamExt;
use strata_spec::manifest::DataFileMeta;
use strata_spec::DataField;

use crate::error::ErrorDetail;
use crate::format::arrow_types::to_arrow_field;
use crate::format::parquet_reader::ParquetReadOptions;
use crate::table::Table;
use crate::{Error, Result};

use super::row_tracking::{self, Slots};

/// Java `mergeRangesAndSort`: the files grouped by overlapping row-id ranges (groups by first
/// row id), each group newest first (`maxSequenceNumber` descending).
pub(crate) fn group_by_row_ranges(
    table: &Table,
    mut files: Vec<DataFileMeta>,
) -> Result<Vec<Vec<DataFileMeta>>> {
    let range = |f: &DataFileMeta| -> Result<(i64, i64)> {
        let lower = f.file_name.to_ascii_lowercase();
        if lower.contains(".vector") {
            return Err(unsupported(
                table,
                format!(
                    "data file {} is a vector-store file (Java's VectorFileBunch); strata does \
                     not read them",
                    f.file_name
                ),
            ));
        }
        let first = f.first_row_id.ok_or_else(|| {
            unsupported(
                table,
                format!(
                    "data file {} has no firstRowId: its rows cannot be matched by row id",
                    f.file_name
                ),
            )
        })?;
        Ok((first, first + f.row_count - 1))
    };
    let mut keyed = Vec::with_capacity(files.len());
    for f in files.drain(..) {
        keyed.push((range(&f)?, f));
    }
    keyed.sort_by_key(|((from, _), _)| *from);
    // (the group's last row id, its files with their ranges)
    type Group = (i64, Vec<((i64, i64), DataFileMeta)>);
    let mut groups: Vec<Group> = Vec::new();
    for (r, f) in keyed {
        match groups.last_mut() {
            Some((to, g)) if r.0 <= *to => {
                *to = (*to).max(r.1);
                g.push((r, f));
            }
            _ => groups.push((r.1, vec![(r, f)])),
        }
    }
    groups
        .into_iter()
        .map(|(_, g)| {
            // `.blob` files hold sub-ranges of their data file's rows (Java's BlobFileBunch):
            // kept after the data files, by first row id, each inside the data files' range.
            let (mut g, mut blobs): (Vec<_>, Vec<_>) =
                g.into_iter().partition(|(_, f)| !is_blob_file(f));
            g.sort_by_key(|(_, f)| std::cmp::Reverse(f.max_sequence_number));
            blobs.sort_by_key(|(r, f)| (r.0, std::cmp::Reverse(f.max_sequence_number)));
            let Some(&(from, to)) = g.first().map(|(r, _)| r) else {
                let names: Vec<_> = blobs.iter().map(|(_, f)| f.file_name.as_str()).collect();
                return Err(unsupported(
                    table,
                    format!(
                        "BLOB files {} hold row ids no data file holds",
                        names.join(", ")
                    ),
                ));
            };
            if let Some((_, f)) = blobs.iter().find(|(r, _)| r.0 < from || r.1 > to) {
                return Err(unsupported(
                    table,
                    format!(
                        "BLOB file {} reaches past the row ids {from}..={to} of its data files",
                        f.file_name
                    ),
                ));
            }
            g.extend(blobs);
            if g.iter().any(|(r, f)| !is_blob_file(f) && *r != g[0].0) {
                let names: Vec<_> = g.iter().map(|(_, f)| f.file_name.as_str()).collect();
                return Err(unsupported(
                    table,
                    format!(
                        "data files {} overlap in row ids without covering the same range \
                         (Java: \"Data files should be all row id ranges same\")",
                        names.join(", ")
                    ),
                ));
            }
            Ok(g.into_iter().map(|(_, f)| f).collect())
        })
        .collect()
}

/// The columns of `read_fields` for the rows of one group (`files` newest first, all under
/// `partition_dir` / `bucket`), each as long as the group.
pub(crate) async fn read_group(
    table: &Table,
    partition_dir: &str,
    bucket: i32,
    files: &[DataFileMeta],
    read_fields: &[DataField],
    batch_size: usize,
) -> Result<(Vec<ArrayRef>, usize)> {
    let rows = files.first().map_or(0, |f| f.row_count.max(0) as usize);
    // Which file provides each read field: the first (newest) holding it.
    let mut source: Vec<Option<usize>> = vec![None; read_fields.len()];
    let mut schemas = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let schema = table.schema_manager().schema(file.schema_id).await?;
        if is_blob_file(file) {
            // read below, by bunch (after every data file, as Java's fieldsFiles)
            schemas.push(Vec::new());
            continue;
        }
        let mut held: Vec<DataField> = schema
            .fields
            .iter()
            .filter(|f| {
                file.write_cols
                    .as_ref()
                    .is_none_or(|cols| cols.iter().any(|c| c == &f.name))
            })
            .cloned()
            .collect();
        held.extend(row_tracking::system_fields());
        for (j, rf) in read_fields.iter().enumerate() {
            if source[j].is_none() && held.iter().any(|h| h.id == rf.id) {
                source[j] = Some(i);
            }
        }
        let mut data_fields = schema.fields.clone();
        data_fields.extend(row_tracking::system_fields());
        schemas.push(data_fields);
    }
    let mut columns: Vec<Option<ArrayRef>> = vec![None; read_fields.len()];
    let inline = super::blob_files::descriptor_fields(table);
    let first_row_id = files.first().and_then(|f| f.first_row_id).unwrap_or(0);
    for (j, rf) in read_fields.iter().enumerate() {
        if source[j].is_some() {
            continue;
        }
        let mut bunch = Vec::new();
        for file in files.iter().filter(|f| is_blob_file(f)) {
            let schema = table.schema_manager().schema(file.schema_id).await?;
            let column = file.write_cols.as_ref().and_then(|c| c.first());
            if column.is_some_and(|c| schema.fields.iter().any(|f| &f.name == c && f.id == rf.id)) {
                bunch.push(file);
            }
        }
        if !bunch.is_empty() {
            columns[j] = Some(
                super::blob_files::read_bunch(
                    table,
                    partition_dir,
                    bucket,
                    &bunch,
                    first_row_id,
                    rows,
                )
                .await?,
            );
        }
    }
    for (i, file) in files.iter().enumerate() {
        let wanted: Vec<usize> = (0..read_fields.len())
            .filter(|j| source[*j] == Some(i))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let fields: Vec<DataField> = wanted.iter().map(|&j| read_fields[j].clone()).collect();
        let slots = Slots::of(&fields);
        let decode = match &slots {
            Some(s) => s.decodable(&fields),
            None => fields.clone(),
        };
        let (io, path) = match &file.external_path {
            Some(uri) => table.file_io().resolve_external(uri)?,
            None => (
                table.file_io().clone(),
                table
                    .paths()
                    .data_file(partition_dir, bucket, &file.file_name),
            ),
        };
        let options = ParquetReadOptions {
            file_size: Some(file.file_size as u64),
            batch_size,
            ..Default::default()
        };
        let mut stream = crate::format::data_file_reader::read_data_file(
            &io,
            &path,
            &schemas[i],
            &decode,
            options,
        )
        .await?;
        let mut batches = Vec::new();
        let mut position = 0u64;
        while let Some(batch) = stream.next().await {
            let mut batch = batch?;
            let n = batch.num_rows() as u64;
            if let Some(s) = &slots {
                batch = s.fill(batch, file, position)?;
            }
            position += n;
            batches.push(batch);
        }
        if position as usize != rows {
            return Err(unsupported(
                table,
                format!(
                    "data file {} has {position} rows where its row-id range has {rows}",
                    file.file_name
                ),
            ));
        }
        for (k, &j) in wanted.iter().enumerate() {
            let parts: Vec<&dyn arrow_array::Array> =
                batches.iter().map(|b| b.column(k).as_ref()).collect();
            let column = if parts.is_empty() {
                new_null_array(to_arrow_field(&decode[k])?.data_type(), 0)
            } else {
                arrow::compute::concat(&parts)
                    .map_err(|e| Error::arrow("stitching data-evolution columns", e))?
            };
            // `blob-descriptor-field`: the BLOB lives in the data file as a descriptor
            let column = if matches!(read_fields[j].data_type.kind, strata_spec::TypeKind::Blob)
                && inline.iter().any(|n| n == &read_fields[j].name)
            {
                super::blob_files::resolve_inline_descriptors(table, &read_fields[j].name, &column)
                    .await?
            } else {
                column
            };
            columns[j] = Some(column);
        }
    }
    let mut out = Vec::with_capacity(read_fields.len());
    for (j, column) in columns.into_iter().enumerate() {
        out.push(match column {
            Some(c) => c,
            None if read_fields[j].data_type.nullable => {
                new_null_array(to_arrow_field(&read_fields[j])?.data_type(), rows)
            }
            None => {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "reading table {}: column {} is NOT NULL but no file of row ids {}.. holds \
                     it",
                    table.identifier(),
                    read_fields[j].name,
                    files.first().and_then(|f| f.first_row_id).unwrap_or(0)
                ))
                .into())
            }
        });
    }
    Ok((out, rows))
}

/// Java `DataEvolutionUtils.retrieveAnchorFile`: the data file of a row-id range with the
/// smallest (`maxSequenceNumber`, file name); `.blob` files never anchor.
pub(crate) fn anchor_file(group: &[DataFileMeta]) -> Option<&DataFileMeta> {
    group.iter().filter(|f| !is_blob_file(f)).min_by(|a, b| {
        a.max_sequence_number
            .cmp(&b.max_sequence_number)
            .then_with(|| a.file_name.cmp(&b.file_name))
    })
}

/// The stitched rows of a range without those its anchor file's deletion vector `dv` deletes
/// (position = row id − the range's first row id, as Java's `DeletionVectorWithRange`).
pub(crate) fn drop_deleted(
    columns: Vec<ArrayRef>,
    rows: usize,
    dv: &crate::format::deletion_vector::DeletionVector,
) -> Result<(Vec<ArrayRef>, usize)> {
    if (0..rows as u64).all(|p| !dv.is_deleted(p)) {
        return Ok((columns, rows));
    }
    let keep: arrow_array::BooleanArray =
        (0..rows as u64).map(|p| Some(!dv.is_deleted(p))).collect();
    let kept = keep.true_count();
    let mut out = Vec::with_capacity(columns.len());
    for c in &columns {
        out.push(
            arrow::compute::filter(c, &keep)
                .map_err(|e| Error::arrow("applying a deletion vector", e))?,
        );
    }
    Ok((out, kept))
}

/// A `.blob` file (Java's `BlobFileFormat.isBlobFile`).
pub(crate) fn is_blob_file(f: &DataFileMeta) -> bool {
    f.file_name.to_ascii_lowercase().ends_with(".blob")
}

fn unsupported(table: &Table, why: String) -> Error {
    ErrorDetail::Unsupported(format!(
        "reading data-evolution table {}: {why}",
        table.identifier()
    ))
    .into()
}
