//! Which columns of a data file are dictionary-encoded: parquet-java's fallback rule.
//!
//! parquet-java (what Java Paimon, Spark and Flink write with) starts every column chunk with a
//! dictionary (`FallbackValuesWriter` around a `DictionaryValuesWriter`) and, when its first
//! page is complete, keeps the dictionary only if it paid for itself:
//! `isCompressionSatisfying(rawSize, encodedSize)` = `encodedSize + dictionaryByteSize <
//! rawSize`. Otherwise it re-encodes that page plain and writes the rest of the chunk plain.
//! Unique columns (keys, `_SEQUENCE_NUMBER`, timestamps, free text) therefore end up plain,
//! and low-cardinality columns keep their dictionary. Writer version 1.0 never
//! dictionary-encodes BOOLEAN and FIXED_LEN_BYTE_ARRAY columns
//! (`DefaultV1ValuesWriterFactory`).
//!
//! arrow-rs has no such rule: it keeps a dictionary until the dictionary page size limit, so a
//! unique BIGINT column costs its 8 bytes of dictionary *plus* its indices per value. strata
//! applies parquet-java's rule itself: [`plain_columns`] looks at the first page's worth of
//! values of every leaf column (the rows a writer holds back before it starts encoding, see
//! [`super::parquet_writer`]) and names the columns to write plain; the writer switches
//! dictionary encoding off for them through arrow-rs's per-column properties. The decision is
//! made once per file, from its first rows, as parquet-java makes it once per column chunk
//! from its first page.
//!
//! Sizes are the ones parquet-java compares: plain bytes of the non-null values (4 per INT32,
//! 8 per INT64/DOUBLE, 4 + length per BYTE_ARRAY, ...), the dictionary as plain bytes of its
//! distinct values, and the indices as RLE/bit-packed ids (`1 + ceil(n / 8) * bit width`).
//! Distinct values are counted by a 64-bit hash of their bytes (a collision only makes the
//! dictionary look smaller by one entry).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::schema::types::{ColumnPath, SchemaDescriptor};

/// How much of each column parquet-java's first page holds: values up to the page's row
/// limit (`parquet.page.row.count.limit`) or its size (`parquet.page.size`), whichever
/// comes first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FirstPage {
    pub max_values: usize,
    pub max_bytes: usize,
}

/// The leaf columns (by Parquet path) whose dictionary would not pay for itself on the first
/// page of `batches`, so they are written plain. `v2` is the Parquet writer version 2 (where
/// FIXED_LEN_BYTE_ARRAY columns may use a dictionary). Leaves strata cannot inspect keep
/// the dictionary (arrow-rs's default).
pub(crate) fn plain_columns(
    descr: &SchemaDescriptor,
    batches: &[RecordBatch],
    first_page: FirstPage,
    v2: bool,
) -> Vec<ColumnPath> {
    let n = descr.num_columns();
    let mut tallies: Vec<Tally> = (0..n).map(|_| Tally::default()).collect();
    let mut leaves = Vec::with_capacity(n);
    for batch in batches {
        leaves.clear();
        for column in batch.columns() {
            collect_leaves(column, &mut leaves);
        }
        if leaves.len() != n {
            // A layout this traversal does not mirror (should not happen): decide nothing.
            return Vec::new();
        }
        for (tally, leaf) in tallies.iter_mut().zip(&leaves) {
            tally.add(leaf.as_ref(), first_page);
        }
    }
    let mut out = Vec::new();
    for (i, tally) in tallies.iter().enumerate() {
        let column = descr.column(i);
        let plain = match column.physical_type() {
            // parquet-java v1: BooleanPlainValuesWriter, FixedLenByteArrayPlainValuesWriter.
            PhysicalType::BOOLEAN => true,
            PhysicalType::FIXED_LEN_BYTE_ARRAY if !v2 => true,
            _ => tally.dictionary_does_not_pay(),
        };
        if plain {
            out.push(column.path().clone());
        }
    }
    out
}

/// Plain-encoded size of the non-null values of `batch` (parquet-java's `rawDataByteSize`
/// summed over columns): what the writer reports as its size while it holds rows back.
pub(crate) fn plain_size(batch: &RecordBatch) -> usize {
    let mut leaves = Vec::new();
    for column in batch.columns() {
        collect_leaves(column, &mut leaves);
    }
    leaves.iter().map(|l| leaf_plain_size(l.as_ref())).sum()
}

/// Per-leaf running totals over the first page.
#[derive(Default)]
struct Tally {
    values: usize,
    raw_bytes: usize,
    dictionary_bytes: usize,
    /// Hashes of the distinct values (`DefaultHasher::new()` has fixed keys, so the
    /// decision is the same on every run).
    distinct: HashSet<u64>,
    /// Values of a type this module does not inspect were seen.
    unknown: bool,
    full: bool,
}

impl Tally {
    fn add(&mut self, leaf: &dyn Array, first_page: FirstPage) {
        if self.full || self.unknown {
            return;
        }
        let known = for_each_value(leaf, |bytes, plain| {
            if self.values >= first_page.max_values || self.raw_bytes >= first_page.max_bytes {
                self.full = true;
                return false;
            }
            self.values += 1;
            self.raw_bytes += plain;
            let mut h = DefaultHasher::new();
            bytes.hash(&mut h);
            if self.distinct.insert(h.finish()) {
                self.dictionary_bytes += plain;
            }
            true
        });
        if !known {
            self.unknown = true;
        }
    }

    fn dictionary_does_not_pay(&self) -> bool {
        if self.unknown {
            return false;
        }
        if self.values == 0 {
            // All NULL so far: no dictionary to pay for (parquet-java writes such a page plain).
            return true;
        }
        let ids = self.distinct.len().max(1);
        let bit_width = (usize::BITS - (ids - 1).leading_zeros()).max(1) as usize;
        let encoded = 1 + self.values.div_ceil(8) * bit_width;
        encoded + self.dictionary_bytes >= self.raw_bytes
    }
}

/// The Parquet leaves of `array` in schema order (depth first: struct fields, list elements,
/// map keys then values), each restricted to the part the array's rows reference.
fn collect_leaves(array: &ArrayRef, out: &mut Vec<ArrayRef>) {
    match array.data_type() {
        DataType::Struct(_) => {
            for c in array.as_struct().columns() {
                collect_leaves(c, out);
            }
        }
        DataType::List(_) => {
            let l = array.as_list::<i32>();
            let o = l.value_offsets();
            let (start, end) = (o[0] as usize, o[o.len() - 1] as usize);
            collect_leaves(&l.values().slice(start, end - start), out);
        }
        DataType::LargeList(_) => {
            let l = array.as_list::<i64>();
            let o = l.value_offsets();
            let (start, end) = (o[0] as usize, o[o.len() - 1] as usize);
            collect_leaves(&l.values().slice(start, end - start), out);
        }
        DataType::FixedSizeList(_, _) => {
            collect_leaves(array.as_fixed_size_list().values(), out);
        }
        DataType::Map(_, _) => {
            let m = array.as_map();
            let o = m.value_offsets();
            let (start, end) = (o[0] as usize, o[o.len() - 1] as usize);
            collect_leaves(&m.keys().slice(start, end - start), out);
            collect_leaves(&m.values().slice(start, end - start), out);
        }
        _ => out.push(array.clone()),
    }
}

/// Plain Parquet size of one value of a fixed-width Arrow type as strata writes it.
fn fixed_plain_width(dt: &DataType) -> Option<usize> {
    Some(match dt {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::Date32
        | DataType::Time32(_)
        | DataType::Float32 => 4,
        DataType::Int64
        | DataType::UInt64
        | DataType::Date64
        | DataType::Time64(_)
        | DataType::Timestamp(_, _)
        | DataType::Duration(_)
        | DataType::Float64 => 8,
        DataType::Decimal128(p, _) | DataType::Decimal256(p, _) => match *p {
            0..=9 => 4,
            10..=18 => 8,
            // Paimon's minimal FIXED_LEN_BYTE_ARRAY length for the precision.
            p => decimal_bytes(p),
        },
        DataType::FixedSizeBinary(n) => *n as usize,
        _ => return None,
    })
}

/// `ParquetSchemaConverter.computeMinBytesForDecimalPrecision`.
fn decimal_bytes(precision: u8) -> usize {
    let mut bytes = 1usize;
    while 2f64.powi(8 * bytes as i32 - 1) < 10f64.powi(precision as i32) {
        bytes += 1;
    }
    bytes
}

fn leaf_plain_size(leaf: &dyn Array) -> usize {
    let valid = leaf.len() - leaf.null_count();
    if let Some(w) = fixed_plain_width(leaf.data_type()) {
        return valid * w;
    }
    match leaf.data_type() {
        DataType::Boolean => valid.div_ceil(8),
        _ => {
            let mut total = 0;
            for_each_value(leaf, |_, plain| {
                total += plain;
                true
            });
            total
        }
    }
}

/// Calls `f(value bytes, plain size)` for every non-null value of a leaf until it returns
/// false. Returns false when the leaf's type is not one this module inspects.
fn for_each_value(leaf: &dyn Array, mut f: impl FnMut(&[u8], usize) -> bool) -> bool {
    let dt = leaf.data_type();
    macro_rules! var_width {
        ($arr:expr) => {{
            let a = $arr;
            for i in 0..a.len() {
                if a.is_valid(i) {
                    let v: &[u8] = a.value(i).as_ref();
                    if !f(v, 4 + v.len()) {
                        break;
                    }
                }
            }
            true
        }};
    }
    match dt {
        DataType::Utf8 => var_width!(leaf.as_string::<i32>()),
        DataType::LargeUtf8 => var_width!(leaf.as_string::<i64>()),
        DataType::Utf8View => var_width!(leaf.as_string_view()),
        DataType::Binary => var_width!(leaf.as_binary::<i32>()),
        DataType::LargeBinary => var_width!(leaf.as_binary::<i64>()),
        DataType::BinaryView => var_width!(leaf.as_binary_view()),
        DataType::FixedSizeBinary(n) => {
            let a = leaf.as_fixed_size_binary();
            for i in 0..a.len() {
                if a.is_valid(i) && !f(a.value(i), *n as usize) {
                    break;
                }
            }
            true
        }
        _ => {
            let (Some(plain), Some(width)) = (fixed_plain_width(dt), dt.primitive_width()) else {
                return false;
            };
            let data = leaf.to_data();
            let Some(buffer) = data.buffers().first() else {
                return false;
            };
            let bytes = buffer.as_slice();
            let offset = data.offset();
            for i in 0..data.len() {
                if data.is_valid(i) {
                    let start = (offset + i) * width;
                    let Some(v) = bytes.get(start..start + width) else {
                        return false;
                    };
                    if !f(v, plain) {
                        break;
                    }
                }
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{ListBuilder, StringBuilder};
    use arrow_array::{BooleanArray, Float64Array, Int32Array, Int64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use parquet::arrow::ArrowSchemaConverter;
    use std::sync::Arc;

    const PAGE: FirstPage = FirstPage {
        max_values: 20_000,
        max_bytes: 1 << 20,
    };

    fn plain_names(batch: &RecordBatch) -> Vec<String> {
        let descr = ArrowSchemaConverter::new()
            .convert(&batch.schema())
            .unwrap();
        plain_columns(&descr, std::slice::from_ref(batch), PAGE, false)
            .iter()
            .map(|p| p.string())
            .collect()
    }

    #[test]
    fn unique_columns_go_plain_repetitive_ones_keep_the_dictionary() {
        let n = 5000;
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int32, false),
            Field::new("seq", DataType::Int64, false),
            Field::new("v", DataType::Utf8, true),
            Field::new("city", DataType::Utf8, true),
            Field::new("kind", DataType::Int32, false),
            Field::new("flag", DataType::Boolean, true),
            Field::new("price", DataType::Float64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from_iter_values(0..n)),
                Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| i * 3))),
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("value-{i:08}")),
                )),
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| ["Paris", "Lyon", "Nice"][i as usize % 3]),
                )),
                Arc::new(Int32Array::from_iter_values((0..n).map(|i| i % 2))),
                Arc::new(BooleanArray::from_iter((0..n).map(|i| Some(i % 3 == 0)))),
                Arc::new(Float64Array::from_iter_values(
                    (0..n).map(|i| (i % 100) as f64 / 4.0),
                )),
            ],
        )
        .unwrap();
        assert_eq!(plain_names(&batch), ["k", "seq", "v", "flag"]);
    }

    #[test]
    fn nested_leaves_and_all_null_columns() {
        let mut list = ListBuilder::new(StringBuilder::new());
        for i in 0..3000 {
            list.values().append_value(format!("a-{i:06}"));
            list.values().append_value(format!("b-{i:06}"));
            list.append(true);
        }
        let tags = list.finish();
        let nulls = Int64Array::from(vec![None::<i64>; 3000]);
        let schema = Arc::new(Schema::new(vec![
            Field::new("tags", tags.data_type().clone(), true),
            Field::new("n", DataType::Int64, true),
        ]));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(tags), Arc::new(nulls)]).unwrap();
        // Every list element is unique: the dictionary alone is as big as plain. The all-NULL
        // column has nothing to share.
        assert_eq!(plain_names(&batch), ["tags.list.item", "n"]);
        let one = batch.slice(0, 1000);
        assert!(plain_size(&one) > 1000 * 2 * 9);
    }

    #[test]
    fn only_the_first_page_counts() {
        // 100 repeated values and then unique ones: parquet-java decides on the first page.
        let values: Vec<i64> = (0..40_000)
            .map(|i| if i < 20_000 { i % 100 } else { i })
            .collect();
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(values))]).unwrap();
        assert!(plain_names(&batch).is_empty());
    }

    #[test]
    fn plain_sizes_follow_parquet_java() {
        assert_eq!(decimal_bytes(19), 9);
        assert_eq!(decimal_bytes(38), 16);
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])),
                Arc::new(StringArray::from(vec![Some("ab"), Some(""), None])),
            ],
        )
        .unwrap();
        assert_eq!(plain_size(&batch), 2 * 4 + (4 + 2) + 4);
    }
}
