//! Parquet footer statistics as Paimon [`ColumnStats`], for row-group pruning.
//!
//! Mirrors Java's `ParquetSimpleStatsExtractor` conversions: INT32 stats become TINYINT,
//! SMALLINT, INT, DATE, TIME or DECIMAL(p≤9) values by the Paimon type; INT64 stats BIGINT,
//! TIMESTAMP (unit from the column's logical type) or DECIMAL; binary stats STRING, BYTES or
//! DECIMAL (big-endian two's complement). INT96 timestamps and nested columns have no min/max.
//! Float min/max holding NaN are dropped and ±0.0 widened (as parquet-java's reader does).
//! Binary statistics only present in the deprecated (signed-order) fields are ignored.
//!
//! Values are bounds, not necessarily exact: writers may truncate long string statistics
//! (to a prefix for min, to a greater value for max), which is still safe for pruning.

use arrow_schema::TimeUnit;
use parquet::basic::{ConvertedType, LogicalType, TimeUnit as ParquetTimeUnit};
use parquet::file::metadata::{ColumnChunkMetaData, RowGroupMetaData};
use parquet::file::page_index::column_index::{ColumnIndex, ColumnIndexMetaData};
use parquet::file::statistics::Statistics;
use strata_spec::stats::ColumnStats;
use strata_spec::types::{DataField, DataType, TypeKind};
use strata_spec::Datum;

use super::datum::timestamp_datum;
use super::evolve::find_by_name;

/// Statistics of each of `data_fields` (the file's own schema) in one row group; a field
/// without a top-level column chunk (nested, or absent) gets all-unknown stats.
#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // strata::unstable only
pub fn row_group_stats(
    row_group: &RowGroupMetaData,
    data_fields: &[DataField],
) -> Vec<ColumnStats> {
    let top_level: Vec<(usize, &str)> = row_group
        .columns()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c.column_path().parts() {
            [name] => Some((i, name.as_str())),
            _ => None,
        })
        .collect();
    data_fields
        .iter()
        .map(|f| {
            if f.data_type.is_nested() {
                return ColumnStats::default();
            }
            match find_by_name(top_level.iter().map(|(_, n)| *n), &f.name) {
                Some(pos) => column_stats(row_group.column(top_level[pos].0), &f.data_type),
                None => ColumnStats::default(),
            }
        })
        .collect()
}

/// Statistics of one column chunk read as Paimon type `data_type`.
pub(crate) fn column_stats(chunk: &ColumnChunkMetaData, data_type: &DataType) -> ColumnStats {
    let Some(stats) = chunk.statistics() else {
        return ColumnStats::default();
    };
    let null_count = stats.null_count_opt().map(|n| n as i64);
    let (min, max) = match min_max(chunk, stats, data_type) {
        Some((lo, hi)) => (Some(lo), Some(hi)),
        None => (None, None),
    };
    ColumnStats {
        min,
        max,
        null_count,
    }
}

/// Statistics of page `page` of a column chunk from its column index (`None` when the index
/// has no usable bounds for it), read as Paimon type `data_type` like [`column_stats`].
pub(crate) fn page_stats(
    chunk: &ColumnChunkMetaData,
    index: &ColumnIndexMetaData,
    page: usize,
    data_type: &DataType,
) -> ColumnStats {
    use ColumnIndexMetaData as I;
    let nulls = |i: &ColumnIndex| i.null_count(page).and_then(|n| u64::try_from(n).ok());
    let stats = match index {
        I::BOOLEAN(i) => Statistics::boolean(
            i.min_value(page).copied(),
            i.max_value(page).copied(),
            None,
            nulls(i),
            false,
        ),
        I::INT32(i) => Statistics::int32(
            i.min_value(page).copied(),
            i.max_value(page).copied(),
            None,
            nulls(i),
            false,
        ),
        I::INT64(i) => Statistics::int64(
            i.min_value(page).copied(),
            i.max_value(page).copied(),
            None,
            nulls(i),
            false,
        ),
        I::FLOAT(i) => Statistics::float(
            i.min_value(page).copied(),
            i.max_value(page).copied(),
            None,
            nulls(i),
            false,
        ),
        I::DOUBLE(i) => Statistics::double(
            i.min_value(page).copied(),
            i.max_value(page).copied(),
            None,
            nulls(i),
            false,
        ),
        I::BYTE_ARRAY(i) => Statistics::byte_array(
            i.min_value(page).map(|b| b.to_vec().into()),
            i.max_value(page).map(|b| b.to_vec().into()),
            None,
            nulls(i),
            false,
        ),
        I::NONE | I::INT96(_) | I::FIXED_LEN_BYTE_ARRAY(_) => return ColumnStats::default(),
    };
    let null_count = stats.null_count_opt().map(|n| n as i64);
    let (min, max) = match min_max(chunk, &stats, data_type) {
        Some((lo, hi)) => (Some(lo), Some(hi)),
        None => (None, None),
    };
    ColumnStats {
        min,
        max,
        null_count,
    }
}

fn min_max(
    chunk: &ColumnChunkMetaData,
    stats: &Statistics,
    data_type: &DataType,
) -> Option<(Datum, Datum)> {
    let kind = &data_type.kind;
    match stats {
        Statistics::Boolean(s) => match kind {
            TypeKind::Boolean => {
                Some((Datum::Boolean(*s.min_opt()?), Datum::Boolean(*s.max_opt()?)))
            }
            _ => None,
        },
        Statistics::Int32(s) => {
            let (lo, hi) = (*s.min_opt()?, *s.max_opt()?);
            let f = |v: i32| -> Option<Datum> {
                Some(match kind {
                    TypeKind::TinyInt => Datum::TinyInt(i8::try_from(v).ok()?),
                    TypeKind::SmallInt => Datum::SmallInt(i16::try_from(v).ok()?),
                    TypeKind::Int => Datum::Int(v),
                    TypeKind::Date => Datum::Date(v),
                    TypeKind::Time(_) => Datum::Time(v),
                    TypeKind::Decimal { precision, scale } => Datum::Decimal {
                        unscaled: i128::from(v),
                        precision: *precision,
                        scale: *scale,
                    },
                    _ => return None,
                })
            };
            Some((f(lo)?, f(hi)?))
        }
        Statistics::Int64(s) => {
            let (lo, hi) = (*s.min_opt()?, *s.max_opt()?);
            let unit = timestamp_unit(chunk, data_type);
            let f = |v: i64| -> Option<Datum> {
                Some(match kind {
                    TypeKind::BigInt => Datum::BigInt(v),
                    TypeKind::Timestamp(_) => timestamp_datum(v, unit, false)?,
                    TypeKind::LocalZonedTimestamp(_) => timestamp_datum(v, unit, true)?,
                    TypeKind::Decimal { precision, scale } => Datum::Decimal {
                        unscaled: i128::from(v),
                        precision: *precision,
                        scale: *scale,
                    },
                    _ => return None,
                })
            };
            Some((f(lo)?, f(hi)?))
        }
        Statistics::Int96(_) => None,
        Statistics::Float(s) => {
            let (lo, hi) = (*s.min_opt()?, *s.max_opt()?);
            if lo.is_nan() || hi.is_nan() || !matches!(kind, TypeKind::Float) {
                return None;
            }
            let lo = if lo == 0.0 { -0.0 } else { lo };
            let hi = if hi == 0.0 { 0.0 } else { hi };
            Some((Datum::Float(lo), Datum::Float(hi)))
        }
        Statistics::Double(s) => {
            let (lo, hi) = (*s.min_opt()?, *s.max_opt()?);
            if lo.is_nan() || hi.is_nan() || !matches!(kind, TypeKind::Double) {
                return None;
            }
            let lo = if lo == 0.0 { -0.0 } else { lo };
            let hi = if hi == 0.0 { 0.0 } else { hi };
            Some((Datum::Double(lo), Datum::Double(hi)))
        }
        Statistics::ByteArray(_) | Statistics::FixedLenByteArray(_) => {
            if stats.is_min_max_deprecated() {
                return None;
            }
            let lo = stats.min_bytes_opt()?;
            let hi = stats.max_bytes_opt()?;
            let f = |b: &[u8]| -> Option<Datum> {
                Some(match kind {
                    TypeKind::Char(_) | TypeKind::VarChar(_) => {
                        Datum::String(std::str::from_utf8(b).ok()?.to_string())
                    }
                    TypeKind::Binary(_) | TypeKind::VarBinary(_) => Datum::Bytes(b.to_vec()),
                    TypeKind::Decimal { precision, scale } => Datum::Decimal {
                        unscaled: be_twos_complement(b)?,
                        precision: *precision,
                        scale: *scale,
                    },
                    _ => return None,
                })
            };
            Some((f(lo)?, f(hi)?))
        }
    }
}

/// Unit of an INT64 timestamp column: from its logical/converted type, else by precision as
/// Java's reader assumes (p≤3 millis, else micros).
fn timestamp_unit(chunk: &ColumnChunkMetaData, data_type: &DataType) -> TimeUnit {
    let descr = chunk.column_descr();
    if let Some(LogicalType::Timestamp(t)) = descr.logical_type_ref() {
        return match t.unit {
            ParquetTimeUnit::MILLIS => TimeUnit::Millisecond,
            ParquetTimeUnit::MICROS => TimeUnit::Microsecond,
            ParquetTimeUnit::NANOS => TimeUnit::Nanosecond,
        };
    }
    match descr.converted_type() {
        ConvertedType::TIMESTAMP_MILLIS => TimeUnit::Millisecond,
        ConvertedType::TIMESTAMP_MICROS => TimeUnit::Microsecond,
        _ => match data_type.kind {
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) if p <= 3 => {
                TimeUnit::Millisecond
            }
            _ => TimeUnit::Microsecond,
        },
    }
}

/// Big-endian two's complement bytes (1..=16 of them) as an i128.
fn be_twos_complement(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0x00 };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}
