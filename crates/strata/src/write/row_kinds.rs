//! The row kind of each written row, for append and primary-key tables alike.
//!
//! As Java's `TableWriteImpl` does for every table: the kind comes from the caller (the API's
//! per-row kinds, Java's `InternalRow.getRowKind`), else from the `rowkind.field` column
//! (`RowKindGenerator`), else is `+I`; then `RowKindFilter` drops `-U` and `-D` rows under
//! `ignore-delete` and `-U` rows under `ignore-update-before`. Primary-key tables store what
//! is left with its kind ([`super::kv_write`]); an append table stores rows, so it takes only
//! `+I` and `+U` and refuses any `-U` / `-D` left after the filter, as Java's
//! `AppendOnlyFileStoreTable.newWrite` does ("Append only writer can not accept row with
//! RowKind ...") — [`AppendRowKinds`].

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_select::filter::filter_record_batch;
use strata_spec::kv::RowKind;

use crate::error::ErrorDetail;
use crate::table::Table;
use crate::{Error, Result};

/// The row kinds of the `rowkind.field` column `col` (named `name`): `+I`, `-U`, `+U` or `-D`
/// per row; a NULL or any other text is an error naming the column and the row.
pub(super) fn parse_row_kind_column(col: &ArrayRef, name: &str) -> Result<Vec<i8>> {
    let strings = arrow_cast::cast(col, &arrow_schema::DataType::Utf8)
        .map_err(|e| Error::arrow(format!("reading row kinds from column {name}"), e))?;
    let strings = strings
        .as_any()
        .downcast_ref::<StringArray>()
        .expect("cast to Utf8 yields a StringArray");
    let mut out = Vec::with_capacity(strings.len());
    for i in 0..strings.len() {
        if strings.is_null(i) {
            return Err(ErrorDetail::InvalidArgument(format!(
                "row kind column {name} (rowkind.field) is NULL in row {i}"
            ))
            .into());
        }
        let k = RowKind::from_short_string(strings.value(i)).map_err(|_| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "row kind column {name} (rowkind.field) holds '{}' in row {i}; \
                 expected +I, -U, +U or -D",
                strings.value(i)
            )))
        })?;
        out.push(k.to_byte());
    }
    Ok(out)
}

/// Where row kinds come from and which are dropped, from a table's options: Java's
/// `RowKindGenerator` and `RowKindFilter`.
#[derive(Clone, Debug)]
pub(super) struct RowKindSettings {
    /// The `rowkind.field` column: its index in the table's row type, and its name.
    field: Option<(usize, String)>,
    ignore_delete: bool,
    ignore_update_before: bool,
}

impl RowKindSettings {
    pub(super) fn from_table(table: &Table) -> Result<Self> {
        let opts = table.options();
        let field = match opts.get("rowkind.field") {
            None => None,
            Some(name) => {
                let idx = table.schema().row_type().index_of(name).ok_or_else(|| {
                    Error::from(ErrorDetail::InvalidOption {
                        key: "rowkind.field".into(),
                        message: format!("column {name} does not exist in {}", table.identifier()),
                    })
                })?;
                Some((idx, name.to_string()))
            }
        };
        Ok(RowKindSettings {
            field,
            ignore_delete: opts.ignore_delete()?,
            ignore_update_before: opts.get_bool("ignore-update-before")?.unwrap_or(false),
        })
    }

    /// The kind of each row of `batch` (already cast to the table's schema): `given` (the
    /// API's, one per row), else the `rowkind.field` column's, else `None` (every row `+I`).
    pub(super) fn kinds(
        &self,
        batch: &RecordBatch,
        given: Option<&[RowKind]>,
    ) -> Result<Option<Vec<i8>>> {
        match given {
            Some(k) => {
                if k.len() != batch.num_rows() {
                    return Err(ErrorDetail::InvalidArgument(format!(
                        "{} row kinds for a batch of {} rows",
                        k.len(),
                        batch.num_rows()
                    ))
                    .into());
                }
                Ok(Some(k.iter().map(|k| k.to_byte()).collect()))
            }
            None => match &self.field {
                Some((idx, name)) => parse_row_kind_column(batch.column(*idx), name).map(Some),
                None => Ok(None),
            },
        }
    }

    /// Whether `RowKindFilter` drops a row of kind `k`.
    pub(super) fn drops(&self, k: i8) -> bool {
        (self.ignore_delete
            && (k == RowKind::Delete.to_byte() || k == RowKind::UpdateBefore.to_byte()))
            || (self.ignore_update_before && k == RowKind::UpdateBefore.to_byte())
    }

    /// `batch` and `kinds` without the rows [`Self::drops`] drops.
    pub(super) fn filter(
        &self,
        batch: &RecordBatch,
        kinds: Vec<i8>,
    ) -> Result<(RecordBatch, Vec<i8>)> {
        if !kinds.iter().any(|k| self.drops(*k)) {
            return Ok((batch.clone(), kinds));
        }
        let keep: BooleanArray = kinds.iter().map(|k| Some(!self.drops(*k))).collect();
        let filtered = filter_record_batch(batch, &keep)
            .map_err(|e| Error::arrow("dropping ignored row kinds", e))?;
        let kinds = kinds.into_iter().filter(|k| !self.drops(*k)).collect();
        Ok((filtered, kinds))
    }
}

/// The row kinds an append table takes: see the module docs.
pub(super) struct AppendRowKinds {
    settings: RowKindSettings,
    table: String,
}

impl AppendRowKinds {
    pub(super) fn new(table: &Table) -> Result<Self> {
        Ok(AppendRowKinds {
            settings: RowKindSettings::from_table(table)?,
            table: table.identifier().to_string(),
        })
    }

    /// The rows of `batch` (cast to the table's schema) the table stores: those the row-kind
    /// filter keeps; a `-U` or `-D` row it keeps is an error naming its row and kind, and
    /// nothing of the batch is written.
    pub(super) fn admit(
        &self,
        batch: RecordBatch,
        given: Option<&[RowKind]>,
    ) -> Result<RecordBatch> {
        let Some(kinds) = self.settings.kinds(&batch, given)? else {
            return Ok(batch);
        };
        let retract = kinds.iter().enumerate().find(|(_, &k)| {
            !self.settings.drops(k) && RowKind::from_byte(k).is_ok_and(|k| k.is_retract())
        });
        if let Some((row, &k)) = retract {
            let kind = RowKind::from_byte(k).map_or("?", |k| k.short_string());
            return Err(ErrorDetail::InvalidArgument(format!(
                "append table {} cannot accept row {row} of kind {kind}: a table without a \
                 primary key stores rows, not changes, and takes only +I and +U rows (Java's \
                 AppendOnlyFileStoreTable refuses the same); set ignore-delete = true to drop \
                 -U and -D rows, or write the changes to a primary-key table",
                self.table
            ))
            .into());
        }
        Ok(self.settings.filter(&batch, kinds)?.0)
    }
}
