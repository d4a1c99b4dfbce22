//! Footer column orders that Java, Spark and DuckDB understand.
//!
//! arrow-rs 60 declares FLOAT and DOUBLE columns with the `IEEE_754_TOTAL_ORDER` column order
//! (a parquet-format 2.11 addition; arrow-rs 59, which strata is built on while DataFusion is,
//! still writes `TYPE_ORDER`, and then this rewrite finds nothing to do). parquet-java 1.13–1.15 (Java Paimon, Spark, Flink) and
//! pyarrow do not know that order, and a reader that does not know a column's order must
//! ignore its statistics: for them a strata file had no min/max on any floating-point column,
//! so they could not prune by it. parquet-java itself writes `TYPE_ORDER` for every column.
//!
//! The statistics arrow-rs computes are also valid under `TYPE_ORDER`: NaN is never a min or
//! max unless a chunk holds only NaN (which `TYPE_ORDER` readers ignore), and -0.0 / +0.0 are
//! within the bounds either way. So strata rewrites the order of those columns to `TYPE_ORDER`
//! in the serialized footer. arrow-rs has no setting for this (`FileMetaData` column orders are
//! derived from the physical type when the footer is written), hence the byte patch: both orders
//! are empty Thrift structs, so the footer keeps its length.
//!
//! The footer is Thrift compact protocol; `column_orders` (field 7, `list<ColumnOrder>`) is its
//! last field without encryption. [`to_type_defined_orders`] checks the exact layout from the
//! end — struct stop, one 3-byte `ColumnOrder` union per leaf column, the list header, the
//! field header — before changing anything, and leaves a footer it does not recognise alone.

/// Compact-protocol byte of a `ColumnOrder` union member: field id `n` (delta from 0), type
/// struct (12).
const fn union_member(field: u8) -> u8 {
    (field << 4) | 12
}
const TYPE_ORDER: u8 = union_member(1);
const IEEE_754_TOTAL_ORDER: u8 = union_member(2);
const INT96_TIMESTAMP_ORDER: u8 = union_member(3);

/// Rewrites `IEEE_754_TOTAL_ORDER` column orders to `TYPE_ORDER` in the footer at the end of
/// `file_tail` (which must end with the footer, its 4-byte length and `PAR1`). `leaves` is the
/// number of leaf columns. Returns how many orders were rewritten, or `None` if the footer does
/// not have the expected layout (then nothing is changed).
pub(crate) fn to_type_defined_orders(file_tail: &mut [u8], leaves: usize) -> Option<usize> {
    let n = file_tail.len();
    if n < 8 || &file_tail[n - 4..] != b"PAR1" {
        return None;
    }
    let footer_len = u32::from_le_bytes(file_tail[n - 8..n - 4].try_into().ok()?) as usize;
    let footer_end = n - 8;
    let footer_start = footer_end.checked_sub(footer_len)?;
    let footer = &mut file_tail[footer_start..footer_end];
    // ... field 7 header, list header, leaves x [member, 0x00, 0x00], 0x00 (FileMetaData stop).
    let orders_len = leaves.checked_mul(3)?;
    let stop = footer.len().checked_sub(1)?;
    if footer[stop] != 0 {
        return None;
    }
    let orders_start = stop.checked_sub(orders_len)?;
    let header = list_header(leaves);
    let list_start = orders_start.checked_sub(header.len())?;
    if footer[list_start..orders_start] != header[..] {
        return None;
    }
    // Field 7 after field 6 (`created_by`, which arrow-rs always writes): delta 1, type list (9).
    if list_start == 0 || footer[list_start - 1] != 0x19 {
        return None;
    }
    let orders = &mut footer[orders_start..stop];
    for member in orders.chunks(3) {
        let known = matches!(
            member[0],
            TYPE_ORDER | IEEE_754_TOTAL_ORDER | INT96_TIMESTAMP_ORDER
        );
        if !known || member[1] != 0 || member[2] != 0 {
            return None;
        }
    }
    let mut rewritten = 0;
    for member in orders.chunks_mut(3) {
        if member[0] == IEEE_754_TOTAL_ORDER {
            member[0] = TYPE_ORDER;
            rewritten += 1;
        }
    }
    Some(rewritten)
}

/// Compact-protocol list header for `size` struct elements.
fn list_header(size: usize) -> Vec<u8> {
    if size < 15 {
        return vec![((size as u8) << 4) | 12];
    }
    let mut out = vec![0xF0 | 12];
    let mut v = size as u64;
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Float32Array, Float64Array, Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use bytes::Bytes;
    use parquet::arrow::ArrowWriter;
    use parquet::basic::ColumnOrder;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use std::sync::Arc;

    /// A file with `columns` columns alternating BIGINT / DOUBLE / FLOAT.
    fn file(columns: usize) -> Vec<u8> {
        let mut fields = Vec::new();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for c in 0..columns {
            match c % 3 {
                0 => {
                    fields.push(Field::new(format!("i{c}"), DataType::Int64, true));
                    arrays.push(Arc::new(Int64Array::from(vec![Some(3), None, Some(-1)])));
                }
                1 => {
                    fields.push(Field::new(format!("d{c}"), DataType::Float64, true));
                    arrays.push(Arc::new(Float64Array::from(vec![1.5, f64::NAN, -2.0])));
                }
                _ => {
                    fields.push(Field::new(format!("f{c}"), DataType::Float32, false));
                    arrays.push(Arc::new(Float32Array::from(vec![0.0, -0.0, 7.0])));
                }
            }
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        declare_total_order(&mut out, columns);
        out
    }

    /// Declares the float columns of [`file`] `IEEE_754_TOTAL_ORDER`, as arrow-rs 60 writes
    /// them (the arrow-rs this crate builds with may write `TYPE_ORDER` already).
    fn declare_total_order(bytes: &mut [u8], columns: usize) {
        let stop = bytes.len() - 8 - 1;
        let orders = &mut bytes[stop - 3 * columns..stop];
        for (c, member) in orders.chunks_mut(3).enumerate() {
            assert!(matches!(member[0], TYPE_ORDER | IEEE_754_TOTAL_ORDER));
            if c % 3 != 0 {
                member[0] = IEEE_754_TOTAL_ORDER;
            }
        }
    }

    #[test]
    fn float_orders_become_type_defined_and_stats_stay_readable() {
        for columns in [1, 2, 3, 14, 15, 16, 200] {
            let mut bytes = file(columns);
            let floats = (0..columns).filter(|c| c % 3 != 0).count();
            let len = bytes.len();
            assert_eq!(to_type_defined_orders(&mut bytes, columns), Some(floats));
            assert_eq!(bytes.len(), len);
            let reader = SerializedFileReader::new(Bytes::from(bytes)).unwrap();
            let meta = reader.metadata();
            let orders = meta.file_metadata().column_orders().unwrap();
            assert_eq!(orders.len(), columns);
            assert!(orders
                .iter()
                .all(|o| matches!(o, ColumnOrder::TYPE_DEFINED_ORDER(_))));
            if columns >= 2 {
                let stats = meta.row_group(0).column(1).statistics().unwrap();
                assert_eq!(stats.min_bytes_opt(), Some(&(-2.0f64).to_le_bytes()[..]));
                assert_eq!(stats.max_bytes_opt(), Some(&1.5f64.to_le_bytes()[..]));
            }
        }
    }

    #[test]
    fn unexpected_layouts_are_left_alone() {
        let mut bytes = file(4);
        let orig = bytes.clone();
        // Wrong leaf count: the list header does not match.
        assert_eq!(to_type_defined_orders(&mut bytes, 5), None);
        assert_eq!(to_type_defined_orders(&mut bytes, 3), None);
        assert_eq!(bytes, orig);
        // Not a Parquet tail.
        let mut junk = vec![0u8; 16];
        assert_eq!(to_type_defined_orders(&mut junk, 1), None);
        assert_eq!(to_type_defined_orders(&mut [], 1), None);
    }
}
