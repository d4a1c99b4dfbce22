//! Per-column statistics of a data file, collected while its batches are written.
//!
//! The result is what goes into `DataFileMeta._VALUE_STATS` (and, for key columns,
//! `_KEY_STATS`). Java Paimon takes these from the Parquet footer and then applies the column's
//! stats mode (`SimpleColStatsCollector.convert`); strata computes the same values from the
//! batches with Arrow's aggregate kernels (one min/max per column per batch) and applies the
//! mode at [`StatsCollector::finish`]:
//!
//! * `none` ⇒ min, max and null count all unknown;
//! * `counts` ⇒ only the null count;
//! * `full` ⇒ exact min/max;
//! * `truncate(n)` ⇒ strings/binaries truncated: min to its first n characters/bytes, max to a
//!   value ≥ the real max (`strata_spec::stats::truncate_max`); when no such value exists
//!   (e.g. all `U+10FFFF`/`0xFF`), min and max both become unknown, as in Java.
//!
//! Nested columns (ARRAY, MAP, MULTISET, ROW, VARIANT) get unknown min/max but a null count
//! (their top-level NULLs).
//!
//! Floating point: Java's Parquet statistics drop min/max when NaN is involved, and Paimon
//! compares floats with `Double.compare` (NaN greatest). A NaN-free min/max would let a
//! predicate like `x > 100` prune files holding NaN, so a column that saw any NaN gets unknown
//! min/max. Min/max otherwise use IEEE total order (−0.0 < +0.0).

use arrow::compute::{
    max, max_binary, max_boolean, max_string, min, min_binary, min_boolean, min_string,
};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray, RecordBatch};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use strata_spec::stats::{truncate_max, truncate_min, ColumnStats, StatsMode};
use strata_spec::types::{DataType, RowType};
use strata_spec::Datum;

use self::num_float::Float as _;
use super::datum::timestamp_datum;
use crate::error::ErrorDetail;
use crate::Result;

/// Collects [`ColumnStats`] for every column of a row type over a sequence of batches.
#[derive(Debug, Clone)]
pub(crate) struct StatsCollector {
    columns: Vec<ColumnCollector>,
}

#[derive(Debug, Clone)]
struct ColumnCollector {
    name: String,
    data_type: DataType,
    mode: StatsMode,
    null_count: i64,
    /// Running min/max over all batches; `None` before the first non-null value.
    range: Option<(Datum, Datum)>,
    /// Min/max became unknown (NaN seen, or a value Paimon cannot represent).
    range_unknown: bool,
}

/// Min/max of one batch of one column.
enum BatchRange {
    /// No non-null values.
    Empty,
    Range(Datum, Datum),
    /// Min/max cannot be stated (NaN).
    Unknown,
}

impl StatsCollector {
    /// A collector for `row_type`'s columns with one stats mode per column.
    pub(crate) fn new(row_type: &RowType, modes: &[StatsMode]) -> Result<Self> {
        if modes.len() != row_type.fields.len() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "stats collector: {} stats modes for {} columns",
                modes.len(),
                row_type.fields.len()
            ))
            .into());
        }
        let columns = row_type
            .fields
            .iter()
            .zip(modes)
            .map(|(f, mode)| ColumnCollector {
                name: f.name.clone(),
                data_type: f.data_type.clone(),
                mode: *mode,
                null_count: 0,
                range: None,
                range_unknown: false,
            })
            .collect();
        Ok(StatsCollector { columns })
    }

    /// A collector using the same mode for every column.
    pub(crate) fn with_mode(row_type: &RowType, mode: StatsMode) -> Self {
        let modes = vec![mode; row_type.fields.len()];
        Self::new(row_type, &modes).expect("one mode per column by construction")
    }

    /// Adds a batch whose columns are the row type's columns, in order, in their
    /// [`super::arrow_types`] Arrow form.
    pub(crate) fn update(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_columns() != self.columns.len() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "stats collector: batch has {} columns, expected {}",
                batch.num_columns(),
                self.columns.len()
            ))
            .into());
        }
        for (column, array) in self.columns.iter_mut().zip(batch.columns()) {
            column.update(array.as_ref())?;
        }
        Ok(())
    }

    /// The statistics of every column, after applying each column's stats mode.
    pub(crate) fn finish(&self) -> Vec<ColumnStats> {
        self.columns.iter().map(ColumnCollector::finish).collect()
    }
}

impl ColumnCollector {
    fn update(&mut self, array: &dyn Array) -> Result<()> {
        if self.mode == StatsMode::None {
            return Ok(());
        }
        self.null_count += array.logical_null_count() as i64;
        if self.mode == StatsMode::Counts || self.data_type.is_nested() || self.range_unknown {
            return Ok(());
        }
        match batch_range(array).map_err(|message| ErrorDetail::SchemaMismatch {
            column: self.name.clone(),
            message: format!("collecting statistics: {message}"),
        })? {
            BatchRange::Empty => {}
            BatchRange::Unknown => {
                self.range_unknown = true;
                self.range = None;
            }
            BatchRange::Range(lo, hi) => {
                self.range = Some(match self.range.take() {
                    None => (lo, hi),
                    Some((cur_lo, cur_hi)) => {
                        let lo = if lo.compare(&cur_lo).is_some_and(|o| o.is_lt()) {
                            lo
                        } else {
                            cur_lo
                        };
                        let hi = if hi.compare(&cur_hi).is_some_and(|o| o.is_gt()) {
                            hi
                        } else {
                            cur_hi
                        };
                        (lo, hi)
                    }
                });
            }
        }
        Ok(())
    }

    fn finish(&self) -> ColumnStats {
        let null_count = Some(self.null_count);
        let (min, max) = match (&self.range, self.range_unknown) {
            (Some((lo, hi)), false) => (Some(lo.clone()), Some(hi.clone())),
            _ => (None, None),
        };
        match self.mode {
            StatsMode::None => ColumnStats::default(),
            StatsMode::Counts => ColumnStats {
                min: None,
                max: None,
                null_count,
            },
            StatsMode::Full => ColumnStats {
                min,
                max,
                null_count,
            },
            StatsMode::Truncate(n) => {
                let (min, max) = match (min, max) {
                    (Some(lo), Some(hi)) => match truncate_max(&hi, n) {
                        Some(hi) => (truncate_min(&lo, n), Some(hi)),
                        None => (None, None),
                    },
                    _ => (None, None),
                };
                ColumnStats {
                    min,
                    max,
                    null_count,
                }
            }
        }
    }
}

fn primitive_range<T, F>(array: &dyn Array, to_datum: F) -> BatchRange
where
    T: ArrowPrimitiveType,
    T::Native: PartialOrd,
    F: Fn(T::Native) -> Option<Datum>,
{
    let a: &PrimitiveArray<T> = array.as_primitive::<T>();
    match (min(a), max(a)) {
        (Some(lo), Some(hi)) => match (to_datum(lo), to_datum(hi)) {
            (Some(lo), Some(hi)) => BatchRange::Range(lo, hi),
            _ => BatchRange::Unknown,
        },
        _ => BatchRange::Empty,
    }
}

/// Min/max of a float column in IEEE total order; `Unknown` if any non-null value is NaN.
fn float_range<T, F>(array: &dyn Array, to_datum: F) -> BatchRange
where
    T: ArrowPrimitiveType,
    T::Native: num_float::Float,
    F: Fn(T::Native) -> Datum,
{
    let a: &PrimitiveArray<T> = array.as_primitive::<T>();
    let mut range: Option<(T::Native, T::Native)> = None;
    let mut visit = |v: T::Native| -> bool {
        if v.is_nan_value() {
            return false;
        }
        range = Some(match range {
            None => (v, v),
            Some((lo, hi)) => (
                if v.total_lt(lo) { v } else { lo },
                if hi.total_lt(v) { v } else { hi },
            ),
        });
        true
    };
    match a.nulls() {
        None => {
            for &v in a.values().iter() {
                if !visit(v) {
                    return BatchRange::Unknown;
                }
            }
        }
        Some(nulls) => {
            for i in nulls.valid_indices() {
                if !visit(a.value(i)) {
                    return BatchRange::Unknown;
                }
            }
        }
    }
    match range {
        None => BatchRange::Empty,
        Some((lo, hi)) => BatchRange::Range(to_datum(lo), to_datum(hi)),
    }
}

/// Minimal float abstraction for [`float_range`] (f32 and f64).
mod num_float {
    pub(super) trait Float: Copy {
        fn is_nan_value(self) -> bool;
        fn total_lt(self, other: Self) -> bool;
    }
    impl Float for f32 {
        fn is_nan_value(self) -> bool {
            self.is_nan()
        }
        fn total_lt(self, other: Self) -> bool {
            self.total_cmp(&other).is_lt()
        }
    }
    impl Float for f64 {
        fn is_nan_value(self) -> bool {
            self.is_nan()
        }
        fn total_lt(self, other: Self) -> bool {
            self.total_cmp(&other).is_lt()
        }
    }
}

fn batch_range(array: &dyn Array) -> std::result::Result<BatchRange, String> {
    if array.null_count() == array.len() {
        return Ok(BatchRange::Empty);
    }
    let some = |lo: Option<Datum>, hi: Option<Datum>| match (lo, hi) {
        (Some(lo), Some(hi)) => BatchRange::Range(lo, hi),
        _ => BatchRange::Empty,
    };
    Ok(match array.data_type() {
        ArrowType::Boolean => {
            let a = array.as_boolean();
            some(
                min_boolean(a).map(Datum::Boolean),
                max_boolean(a).map(Datum::Boolean),
            )
        }
        ArrowType::Int8 => primitive_range::<Int8Type, _>(array, |v| Some(Datum::TinyInt(v))),
        ArrowType::Int16 => primitive_range::<Int16Type, _>(array, |v| Some(Datum::SmallInt(v))),
        ArrowType::Int32 => primitive_range::<Int32Type, _>(array, |v| Some(Datum::Int(v))),
        ArrowType::Int64 => primitive_range::<Int64Type, _>(array, |v| Some(Datum::BigInt(v))),
        ArrowType::Float32 => float_range::<Float32Type, _>(array, Datum::Float),
        ArrowType::Float64 => float_range::<Float64Type, _>(array, Datum::Double),
        ArrowType::Decimal128(p, s) => {
            let (precision, scale) = (u32::from(*p), u32::try_from(*s).unwrap_or(0));
            primitive_range::<Decimal128Type, _>(array, |unscaled| {
                Some(Datum::Decimal {
                    unscaled,
                    precision,
                    scale,
                })
            })
        }
        ArrowType::Date32 => primitive_range::<Date32Type, _>(array, |v| Some(Datum::Date(v))),
        ArrowType::Time32(TimeUnit::Millisecond) => {
            primitive_range::<Time32MillisecondType, _>(array, |v| Some(Datum::Time(v)))
        }
        ArrowType::Timestamp(unit, tz) => {
            let has_tz = tz.is_some();
            let unit = *unit;
            match unit {
                TimeUnit::Second => primitive_range::<TimestampSecondType, _>(array, |v| {
                    timestamp_datum(v, unit, has_tz)
                }),
                TimeUnit::Millisecond => {
                    primitive_range::<TimestampMillisecondType, _>(array, |v| {
                        timestamp_datum(v, unit, has_tz)
                    })
                }
                TimeUnit::Microsecond => {
                    primitive_range::<TimestampMicrosecondType, _>(array, |v| {
                        timestamp_datum(v, unit, has_tz)
                    })
                }
                TimeUnit::Nanosecond => primitive_range::<TimestampNanosecondType, _>(array, |v| {
                    timestamp_datum(v, unit, has_tz)
                }),
            }
        }
        ArrowType::Utf8 => {
            let a = array.as_string::<i32>();
            some(
                min_string(a).map(|s| Datum::String(s.to_string())),
                max_string(a).map(|s| Datum::String(s.to_string())),
            )
        }
        ArrowType::Binary => {
            let a = array.as_binary::<i32>();
            some(
                min_binary(a).map(|b| Datum::Bytes(b.to_vec())),
                max_binary(a).map(|b| Datum::Bytes(b.to_vec())),
            )
        }
        other => {
            return Err(format!(
                "unexpected Arrow type {other} (batches must be in the table's Arrow schema)"
            ))
        }
    })
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
