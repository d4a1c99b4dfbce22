//! Row tracking on reads: the system columns `_ROW_ID` and `_SEQUENCE_NUMBER` of a table with
//! `row-tracking.enabled` (Java `SpecialFields.rowTypeWithRowTracking`, filled as Java's
//! `DataFileRecordReader` / `ColumnarRowIterator.assignRowTracking` do).
//!
//! A read projects or filters them by name like the table's columns (they are not part of
//! the default projection; Paimon's `t$row_tracking` reads every column and both). A file may
//! store them (compaction writes them, as Java's `AppendTableCompactor` does with
//! `rowTypeWithRowTracking`): a stored non-NULL value wins. Otherwise `_ROW_ID` is the file's
//! `firstRowId` plus the row's position in the file, and `_SEQUENCE_NUMBER` is the file's
//! `maxSequenceNumber`. Positions must stay contiguous, so a read of either column skips no
//! row group or page by statistics and filters after decoding.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, RecordBatchOptions};
use strata_spec::manifest::DataFileMeta;
use strata_spec::DataField;

use crate::error::ErrorDetail;
use crate::{Error, Result};

pub(crate) use strata_spec::kv::{
    row_tracking_fields as system_fields, ROW_ID_ID as ROW_ID_FIELD_ID,
    SEQUENCE_NUMBER_ID as SEQUENCE_NUMBER_FIELD_ID,
};

/// Where the system columns sit among a read's decoded fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slots {
    row_id: Option<usize>,
    sequence: Option<usize>,
}

impl Slots {
    /// The slots in `read_fields`; `None` when neither column is read.
    pub(crate) fn of(read_fields: &[DataField]) -> Option<Slots> {
        let row_id = read_fields.iter().position(|f| f.id == ROW_ID_FIELD_ID);
        let sequence = read_fields
            .iter()
            .position(|f| f.id == SEQUENCE_NUMBER_FIELD_ID);
        (row_id.is_some() || sequence.is_some()).then_some(Slots { row_id, sequence })
    }

    /// `read_fields` with the system columns nullable (a file without them decodes NULLs,
    /// which [`Slots::fill`] replaces).
    pub(crate) fn decodable(&self, read_fields: &[DataField]) -> Vec<DataField> {
        read_fields
            .iter()
            .map(|f| {
                let mut f = f.clone();
                if f.id == ROW_ID_FIELD_ID || f.id == SEQUENCE_NUMBER_FIELD_ID {
                    f.data_type.nullable = true;
                }
                f
            })
            .collect()
    }

    /// The system columns of `batch` (rows from `position` on in `file`) filled.
    pub(crate) fn fill(
        &self,
        batch: RecordBatch,
        file: &DataFileMeta,
        position: u64,
    ) -> Result<RecordBatch> {
        let mut columns = batch.columns().to_vec();
        if let Some(i) = self.row_id {
            columns[i] = fill_column(&columns[i], |row| match file.first_row_id {
                Some(first) => Ok(first + (position + row as u64) as i64),
                None => Err(ErrorDetail::InvalidArgument(format!(
                    "data file {} has rows without a stored _ROW_ID and no firstRowId: its \
                     row ids are unknown",
                    file.file_name
                ))
                .into()),
            })?;
        }
        if let Some(i) = self.sequence {
            columns[i] = fill_column(&columns[i], |_| Ok(file.max_sequence_number))?;
        }
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        RecordBatch::try_new_with_options(batch.schema(), columns, &options)
            .map_err(|e| Error::arrow("filling row-tracking columns", e))
    }
}

/// `column` (Int64) with its NULLs replaced by `value(row)`.
fn fill_column(column: &ArrayRef, value: impl Fn(usize) -> Result<i64>) -> Result<ArrayRef> {
    let Some(ints) = column.as_any().downcast_ref::<Int64Array>() else {
        return Err(ErrorDetail::InvalidArgument(format!(
            "a row-tracking column decoded as {} instead of BIGINT",
            column.data_type()
        ))
        .into());
    };
    if ints.null_count() == 0 {
        return Ok(column.clone());
    }
    let values = (0..ints.len())
        .map(|i| {
            if ints.is_null(i) {
                value(i)
            } else {
                Ok(ints.value(i))
            }
        })
        .collect::<Result<Vec<i64>>>()?;
    Ok(Arc::new(Int64Array::from(values)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType as ArrowType, Field, Schema};
    use strata_spec::kv::{ROW_ID, SEQUENCE_NUMBER};
    use strata_spec::{DataType, TypeKind};

    #[test]
    fn stored_values_win_and_nulls_are_derived() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", ArrowType::Int64, true),
            Field::new(ROW_ID, ArrowType::Int64, true),
            Field::new(SEQUENCE_NUMBER, ArrowType::Int64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![1, 2, 3])),
                Arc::new(Int64Array::from(vec![None, Some(77), None])),
                Arc::new(Int64Array::from(vec![Some(5), None, None])),
            ],
        )
        .unwrap();
        let mut fields = vec![DataField::new(
            0,
            "a",
            DataType::new(TypeKind::BigInt, true),
        )];
        fields.extend(system_fields());
        let slots = Slots::of(&fields).unwrap();
        use strata_spec::binary_row::BinaryRow;
        use strata_spec::stats::SimpleStats;
        let mut file = DataFileMeta {
            file_name: "f.parquet".into(),
            file_size: 1,
            row_count: 3,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
        };
        file.first_row_id = Some(100);
        file.max_sequence_number = 9;
        let out = slots.fill(batch, &file, 10).unwrap();
        let col = |i: usize| {
            out.column(i)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        };
        assert_eq!(col(1), vec![110, 77, 112]);
        assert_eq!(col(2), vec![5, 9, 9]);
        assert!(slots.decodable(&fields)[1].data_type.nullable);
    }
}
