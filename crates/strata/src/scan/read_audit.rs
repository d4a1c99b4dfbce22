//! The read side of strata's rule that what it cannot honour it refuses by name: every plan —
//! batch scans, incremental scans, the snapshots a stream reads — is checked before a row is
//! returned, so a table another engine wrote is read exactly as Java reads it or not at all.
//!
//! * **Table options** ([`check_options`]): `strata_spec::options::support` classifies every
//!   option Java knows for reads too ([`ReadSupport`]); a set option that changes what a read
//!   must return and that no read path of strata honours (`chain-table.enabled`,
//!   `sequence.snapshot-ordering`, ...) refuses the read, naming each
//!   option, its value and what Java does with it.
//! * **Data files** ([`check_file`]): the fields of Java 2.0's `DataFileMeta` that change how a
//!   file is read. A format strata has no reader for (`lance`, `vortex`, `blob`, `csv`,
//!   `json`, ...), a file holding only some columns of its rows (`writeCols`: data-evolution
//!   partial updates outside a data-evolution table's batch reads, BLOB files; not the whole
//!   row plus `_ROW_ID` and `_SEQUENCE_NUMBER` a compaction of a row-tracking table stores)
//!   and an external path strata cannot reach are refused while
//!   planning — before the first row of any file is printed. The other fields are honoured
//!   where they matter: `externalPath` (read where it is), `valueStatsCols` (statistics
//!   pruning), `deleteRowCount` (raw-convertible splits), `level` and `totalBuckets`
//!   (planning); `firstRowId`, `fileSource`, `embeddedIndex`, `extraFiles` and
//!   `creationTime` (only `scan.*-creation-time-millis` reads it) do not change the rows of a
//!   file.
//!
//! * **Deletion-vector index files** ([`check_index_files`]): one at an external path strata
//!   cannot reach is refused while planning, like a data file.
//!
//! [`ReadSupport`]: strata_spec::options::support::ReadSupport

use crate::error::ErrorDetail;
use strata_spec::manifest::{DataFileMeta, ManifestEntry};
use strata_spec::options::support::refused_read_options;

use crate::format::data_file_reader::DataFileFormat;
use crate::table::Table;
use crate::{Error, Result};

/// Refuses a read of `table` when it sets an option reads do not honour (streaming-only
/// options only when `streaming`).
pub(crate) fn check_options(table: &Table, streaming: bool) -> Result<()> {
    check_blob_columns(table)?;
    let options = table.options().as_map();
    let refused = refused_read_options(options, streaming);
    if refused.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = refused
        .iter()
        .map(|(key, why)| {
            format!(
                "`{key}` = `{}` ({why})",
                options.get(key).map(String::as_str).unwrap_or_default()
            )
        })
        .collect();
    Err(ErrorDetail::Unsupported(format!(
        "reading table {}: strata does not honour {} {} on reads, so it refuses to read the \
         table rather than return rows Java Paimon would not",
        table.identifier(),
        if list.len() == 1 { "option" } else { "options" },
        list.join("; ")
    ))
    .into())
}

/// Refuses a read of a table with BLOB columns strata cannot read, naming them: it reads the
/// top-level BLOB columns of an append table with `data-evolution.enabled` from their `.blob`
/// files (`crate::read::data_evolution`, Java's `BlobFileBunch`); BLOB inside ARRAY, MAP,
/// MULTISET or ROW (Java's `ArrayBlobElementSerializer` / `MapBlobElementSerializer`) and the
/// BLOBs of primary-key tables (Java's `PrimaryKeyBlobExternalizer`) stay refused.
/// `blob-as-descriptor` reads serialized descriptors (`read::blob_files`);
/// `blob-descriptor-field` columns are read from the data files (`read::blob_files`);
/// `blob-view-field` is refused by the option audit.
fn check_blob_columns(table: &Table) -> Result<()> {
    let top_level = |t: &strata_spec::DataType| matches!(t.kind, strata_spec::TypeKind::Blob);
    if table.is_primary_key_table()
        || !table.options().data_evolution_enabled().unwrap_or(false)
        || table
            .schema()
            .fields
            .iter()
            .any(|f| !top_level(&f.data_type) && has_blob(&f.data_type))
    {
        return refuse_blob_columns(table, "reading");
    }
    Ok(())
}

fn has_blob(t: &strata_spec::DataType) -> bool {
    use strata_spec::TypeKind as K;
    match &t.kind {
        K::Blob => true,
        K::Array(e) | K::Multiset(e) => has_blob(e),
        K::Map { key, value } => has_blob(key) || has_blob(value),
        K::Row(fields) => fields.iter().any(|f| has_blob(&f.data_type)),
        _ => false,
    }
}

/// Refuses a table with a BLOB column (also inside ARRAY, MAP, MULTISET or ROW), naming it: Java
/// 2.0 keeps BLOB values in separate `.blob` files (`BlobFileFormat`, with data evolution or
/// primary-key managed blobs) beside the Parquet files of the other columns, and stores
/// descriptors or views of them with `blob-as-descriptor` / `blob-view-field`; strata reads and
/// writes none of that, so `doing` (reading, writing) such a table is refused rather than
/// returning or writing the column wrongly.
pub(crate) fn refuse_blob_columns(table: &Table, doing: &str) -> Result<()> {
    let schema = table.schema();
    let blobs: Vec<&str> = schema
        .fields
        .iter()
        .filter(|f| has_blob(&f.data_type))
        .map(|f| f.name.as_str())
        .collect();
    if blobs.is_empty() {
        return Ok(());
    }
    Err(ErrorDetail::Unsupported(format!(
        "{doing} table {}: column(s) {} hold BLOB values, which Java Paimon 2.0 stores in \
         separate .blob files (BlobFileFormat) next to the other columns' data files; strata \
         writes no BLOB storage and reads only top-level BLOB columns of append tables with \
         data-evolution.enabled",
        table.identifier(),
        blobs.join(", ")
    ))
    .into())
}

/// Refuses a data file strata cannot read as Java does (see the module docs). `where_` names
/// its partition and bucket for the message.
pub(crate) fn check_file(
    table: &Table,
    file: &DataFileMeta,
    where_: impl Fn() -> String,
) -> Result<()> {
    let refuse = |why: String| {
        Err(ErrorDetail::Unsupported(format!(
            "reading table {}: data file {} ({}) {why}",
            table.identifier(),
            file.file_name,
            where_()
        ))
        .into())
    };
    let data_evolution = table.options().data_evolution_enabled().unwrap_or(false);
    // a `.blob` file of one BLOB column, read by row id with its data files
    let blob_file = data_evolution
        && file.file_name.to_ascii_lowercase().ends_with(".blob")
        && file.write_cols.as_ref().is_some_and(|c| {
            c.len() == 1
                && table.schema().fields.iter().any(|f| {
                    f.name == c[0] && matches!(f.data_type.kind, strata_spec::TypeKind::Blob)
                })
        });
    let name = object_store::path::Path::from(file.file_name.as_str());
    if !blob_file && DataFileFormat::of(&name, &file.file_name).is_err() {
        let ext = file.file_name.rsplit_once('.').map_or("(none)", |(_, e)| e);
        return refuse(format!(
            "is in a format strata has no reader for (extension .{ext}; strata reads Parquet, \
             ORC and Avro data files, and the .blob files of BLOB columns of data-evolution \
             tables)"
        ));
    }
    if let Some(cols) = file
        .write_cols
        .as_ref()
        .filter(|c| !data_evolution && !stores_row_tracking(table, c))
    {
        return refuse(format!(
            "holds only the columns {} of its rows (writeCols: a data-evolution or BLOB file \
             that Java stitches with other files by row id); strata does not stitch files",
            cols.join(", ")
        ));
    }
    if let Some(uri) = &file.external_path {
        table
            .file_io()
            .resolve_external(uri)
            .map(|_| ())
            .or_else(|e| refuse(format!("cannot be reached: {e}")))?;
    }
    Ok(())
}

/// Whether `write_cols` are a whole row plus `_ROW_ID` and `_SEQUENCE_NUMBER` stored by a
/// compaction of a row-tracking table (Java's `AppendTableCompactor` writes
/// `rowTypeWithRowTracking`); the read checks the columns against the file's schema.
fn stores_row_tracking(table: &Table, write_cols: &[String]) -> bool {
    use strata_spec::kv::{ROW_ID, SEQUENCE_NUMBER};
    table.options().row_tracking_enabled().unwrap_or(false)
        && write_cols.len() >= 2
        && write_cols[write_cols.len() - 2..] == [ROW_ID, SEQUENCE_NUMBER]
        && !write_cols[..write_cols.len() - 2]
            .iter()
            .any(|c| c == ROW_ID || c == SEQUENCE_NUMBER)
}

/// Refuses a read of `snapshot` of a deletion-vector table whose index files strata cannot
/// reach (an external path on a store it has no client for), before any file is read.
pub(crate) async fn check_index_files(
    table: &Table,
    snapshot: &strata_spec::snapshot::Snapshot,
) -> Result<()> {
    if snapshot.index_manifest.is_none() || !table.options().deletion_vectors_enabled()? {
        return Ok(());
    }
    let entries = crate::index::IndexManifestStore::new(table)?
        .read_snapshot(snapshot)
        .await?;
    for e in entries {
        if let Some(uri) = &e.index_file.external_path {
            if let Err(err) = table.file_io().resolve_external(uri) {
                return Err(ErrorDetail::Unsupported(format!(
                    "reading table {}: deletion-vector index file {} cannot be reached: {err}",
                    table.identifier(),
                    e.index_file.file_name
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// "partition dt=1, bucket 2" of an entry, for messages.
pub(crate) fn describe_entry(table: &Table, e: &ManifestEntry) -> String {
    match table.partition_text(&e.partition) {
        Ok(p) if !p.is_empty() => format!("partition {p}, bucket {}", e.bucket),
        _ => format!("bucket {}", e.bucket),
    }
}

/// A spec error about an option as `ErrorDetail::InvalidOption` naming the option.
pub(crate) fn option_error(e: strata_spec::SpecError) -> Error {
    match e {
        strata_spec::SpecError::Invalid { context, message } => ErrorDetail::InvalidOption {
            key: context,
            message,
        }
        .into(),
        other => ErrorDetail::Spec(other).into(),
    }
}
