//! The `null_value_counts`, `min_value_stats` and `max_value_stats` text of the `files` system
//! table: a file's value statistics evolved to the table's current columns and printed as a
//! Java `TreeMap<String, Object>` (`{a=1, b=null}`, keys in `String.compareTo` order), as
//! Java's `FilesTable.StatsLazyGetter` does with `SimpleStatsEvolutions`:
//!
//! 1. the file's columns are those of the schema it was written with, projected to
//!    `_WRITE_COLS` when set; its statistics row covers `_VALUE_STATS_COLS` (dense statistics)
//!    or, when that is null, every one of those columns;
//! 2. a file of the current schema without write columns shows its columns as they are (as
//!    many as its statistics row has, when not dense);
//! 3. otherwise each current column is matched by field id: a column the file does not have
//!    counts every row as NULL (null count = row count, no min/max); a column whose type
//!    changed has its min/max cast to the current type (numeric widening, decimal rescaling,
//!    anything to STRING; other casts show `null`).

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;
use strata_spec::schema::TableSchema;
use strata_spec::{DataField, DataType, Datum, TypeKind};

use super::java_text::{cast_to_string, compare_java_strings, object_text};
use crate::{Error, Result};

/// The three statistics texts of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StatsText {
    pub null_value_counts: String,
    pub min_value_stats: String,
    pub max_value_stats: String,
}

/// One column's statistics.
#[derive(Clone, Debug, Default)]
struct Col {
    null_count: Option<i64>,
    min: Option<Datum>,
    max: Option<Datum>,
}

/// Field `i` of a statistics row, NULL beyond its arity; a nested column (whose statistics
/// Paimon never fills) reads as NULL.
fn field(row: &BinaryRow, i: usize, ty: &DataType, file: &str) -> Result<Option<Datum>> {
    if row.is_null_at(i) || ty.is_nested() || matches!(ty.kind, TypeKind::Blob) {
        return Ok(None);
    }
    row.get(i, ty)
        .map_err(|e| Error::corrupt(file.to_string(), e))
}

/// The statistics texts of `file`, written with schema `data`, shown in the columns of
/// `table`. `file_shown` names the file in errors.
pub(super) fn stats_text(
    file: &DataFileMeta,
    data: &TableSchema,
    table: &TableSchema,
    file_shown: &str,
) -> Result<StatsText> {
    let data_fields: Vec<&DataField> = match &file.write_cols {
        Some(cols) => cols
            .iter()
            .filter_map(|c| data.fields.iter().find(|f| &f.name == c))
            .collect(),
        None => data.fields.iter().collect(),
    };
    let stats = &file.value_stats;
    // Each data column's statistics, read from its slot of the (possibly dense) stats row.
    let mut per_data: Vec<Col> = Vec::with_capacity(data_fields.len());
    for (k, f) in data_fields.iter().enumerate() {
        let slot = match &file.value_stats_cols {
            Some(dense) => dense.iter().position(|n| n == &f.name),
            None => Some(k),
        };
        per_data.push(match slot {
            Some(j) => Col {
                null_count: stats.null_counts.get(j).copied().flatten(),
                min: field(&stats.min_values, j, &f.data_type, file_shown)?,
                max: field(&stats.max_values, j, &f.data_type, file_shown)?,
            },
            None => Col::default(),
        });
    }

    let mut shown: Vec<(&str, Col)> = Vec::new();
    if data.id == table.id && file.write_cols.is_none() {
        let visible = if file.value_stats_cols.is_some() {
            data_fields.len()
        } else {
            stats.min_values.arity()
        };
        let n = visible.min(table.fields.len()).min(per_data.len());
        for (f, c) in table.fields.iter().zip(per_data).take(n) {
            shown.push((&f.name, c));
        }
    } else {
        for f in &table.fields {
            let c = match data_fields.iter().position(|d| d.id == f.id) {
                None => Col {
                    null_count: Some(file.row_count),
                    min: None,
                    max: None,
                },
                Some(k) => {
                    let from = &data_fields[k].data_type;
                    let mut c = per_data[k].clone();
                    if from.with_nullable(true) != f.data_type.with_nullable(true) {
                        c.min = c.min.and_then(|d| cast(&d, from, &f.data_type));
                        c.max = c.max.and_then(|d| cast(&d, from, &f.data_type));
                    }
                    c
                }
            };
            shown.push((&f.name, c));
        }
    }
    shown.sort_by(|a, b| compare_java_strings(a.0, b.0));

    let map = |value: &dyn Fn(&Col) -> String| -> String {
        let parts: Vec<String> = shown
            .iter()
            .map(|(name, c)| format!("{name}={}", value(c)))
            .collect();
        format!("{{{}}}", parts.join(", "))
    };
    let text = |d: &Option<Datum>| d.as_ref().map_or("null".to_string(), object_text);
    Ok(StatsText {
        null_value_counts: map(&|c| c.null_count.map_or("null".to_string(), |n| n.to_string())),
        min_value_stats: map(&|c| text(&c.min)),
        max_value_stats: map(&|c| text(&c.max)),
    })
}

/// The value of `d` (of type `from`) cast to `to`, for the casts statistics survive: numeric
/// widening, decimal rescaling and anything to STRING. `None` for others.
fn cast(d: &Datum, from: &DataType, to: &DataType) -> Option<Datum> {
    let int = |d: &Datum| -> Option<i128> {
        Some(match d {
            Datum::TinyInt(v) => *v as i128,
            Datum::SmallInt(v) => *v as i128,
            Datum::Int(v) => *v as i128,
            Datum::BigInt(v) => *v as i128,
            _ => return None,
        })
    };
    match &to.kind {
        TypeKind::Char(_) | TypeKind::VarChar(_) => Some(Datum::String(match d {
            Datum::String(s) => s.clone(),
            other => cast_to_string(other, from),
        })),
        TypeKind::SmallInt => int(d)
            .and_then(|v| i16::try_from(v).ok())
            .map(Datum::SmallInt),
        TypeKind::Int => int(d).and_then(|v| i32::try_from(v).ok()).map(Datum::Int),
        TypeKind::BigInt => int(d)
            .and_then(|v| i64::try_from(v).ok())
            .map(Datum::BigInt),
        TypeKind::Float => int(d).map(|v| Datum::Float(v as f32)),
        TypeKind::Double => match d {
            Datum::Float(v) => Some(Datum::Double(*v as f64)),
            other => int(other).map(|v| Datum::Double(v as f64)),
        },
        TypeKind::Decimal { precision, scale } => {
            let (unscaled, from_scale) = match d {
                Datum::Decimal {
                    unscaled, scale, ..
                } => (*unscaled, *scale),
                other => (int(other)?, 0),
            };
            let unscaled = rescale(unscaled, from_scale, *scale)?;
            (unscaled.unsigned_abs() < 10u128.checked_pow(*precision)?).then_some(Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            })
        }
        _ => None,
    }
}

/// `unscaled` from scale `from` to scale `to`, rounding half up (`BigDecimal.setScale`).
fn rescale(unscaled: i128, from: u32, to: u32) -> Option<i128> {
    if to >= from {
        unscaled.checked_mul(10i128.checked_pow(to - from)?)
    } else {
        let div = 10i128.checked_pow(from - to)?;
        let (q, r) = (unscaled / div, unscaled % div);
        Some(if r.unsigned_abs() * 2 >= div.unsigned_abs() {
            q + unscaled.signum()
        } else {
            q
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::stats::{ColumnStats, SimpleStats};

    fn schema(id: i64, fields: Vec<DataField>) -> TableSchema {
        TableSchema {
            version: 3,
            id,
            highest_field_id: fields.iter().map(|f| f.id).max().unwrap_or(-1),
            fields,
            partition_keys: vec![],
            primary_keys: vec![],
            options: Default::default(),
            comment: None,
            time_millis: 0,
        }
    }

    fn file(stats: SimpleStats, dense: Option<Vec<&str>>) -> DataFileMeta {
        DataFileMeta {
            file_name: "data-x-0.parquet".into(),
            file_size: 1,
            row_count: 10,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: SimpleStats::empty(),
            value_stats: stats,
            min_sequence_number: 0,
            max_sequence_number: 9,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: dense.map(|d| d.into_iter().map(String::from).collect()),
            external_path: None,
            first_row_id: None,
            write_cols: None,
        }
    }

    fn c(min: Option<Datum>, max: Option<Datum>, nulls: i64) -> ColumnStats {
        ColumnStats {
            min,
            max,
            null_count: Some(nulls),
        }
    }

    #[test]
    fn same_schema_and_evolved_schema() {
        let int = DataType::nullable(TypeKind::Int);
        let v0 = schema(
            0,
            vec![
                DataField::new(0, "b", int.clone()),
                DataField::new(1, "a", DataType::string()),
            ],
        );
        let stats = SimpleStats::from_columns(
            &[
                c(Some(Datum::Int(1)), Some(Datum::Int(7)), 0),
                c(None, None, 10),
            ],
            &[int.clone(), DataType::string()],
        )
        .unwrap();
        let f = file(stats, None);
        let t = stats_text(&f, &v0, &v0, "f").unwrap();
        assert_eq!(t.null_value_counts, "{a=10, b=0}");
        assert_eq!(t.min_value_stats, "{a=null, b=1}");
        assert_eq!(t.max_value_stats, "{a=null, b=7}");

        // Schema 1: b widened to BIGINT and renamed z, a dropped, c added.
        let v1 = schema(
            1,
            vec![
                DataField::new(0, "z", DataType::nullable(TypeKind::BigInt)),
                DataField::new(2, "c", DataType::nullable(TypeKind::Double)),
            ],
        );
        let t = stats_text(&f, &v0, &v1, "f").unwrap();
        assert_eq!(t.null_value_counts, "{c=10, z=0}");
        assert_eq!(t.min_value_stats, "{c=null, z=1}");
    }

    #[test]
    fn dense_statistics() {
        let int = DataType::nullable(TypeKind::Int);
        let v0 = schema(
            0,
            vec![
                DataField::new(0, "a", int.clone()),
                DataField::new(1, "b", DataType::nullable(TypeKind::Double)),
            ],
        );
        let stats = SimpleStats::from_columns(
            &[c(Some(Datum::Double(0.5)), Some(Datum::Double(1e10)), 2)],
            &[DataType::nullable(TypeKind::Double)],
        )
        .unwrap();
        let t = stats_text(&file(stats, Some(vec!["b"])), &v0, &v0, "f").unwrap();
        assert_eq!(t.null_value_counts, "{a=null, b=2}");
        assert_eq!(t.min_value_stats, "{a=null, b=0.5}");
        assert_eq!(t.max_value_stats, "{a=null, b=1.0E10}");
        let none = stats_text(&file(SimpleStats::empty(), Some(vec![])), &v0, &v0, "f").unwrap();
        assert_eq!(none.null_value_counts, "{a=null, b=null}");
        let empty = stats_text(&file(SimpleStats::empty(), None), &v0, &v0, "f").unwrap();
        assert_eq!(empty.min_value_stats, "{}");
    }

    #[test]
    fn casts() {
        let dec = |p, s| {
            DataType::nullable(TypeKind::Decimal {
                precision: p,
                scale: s,
            })
        };
        let d = Datum::Decimal {
            unscaled: 1255,
            precision: 5,
            scale: 2,
        };
        assert_eq!(
            cast(&d, &dec(5, 2), &dec(6, 1)),
            Some(Datum::Decimal {
                unscaled: 126,
                precision: 6,
                scale: 1
            })
        );
        assert_eq!(
            cast(
                &Datum::Int(3),
                &DataType::nullable(TypeKind::Int),
                &DataType::string()
            ),
            Some(Datum::String("3".into()))
        );
        assert_eq!(
            cast(
                &Datum::String("x".into()),
                &DataType::string(),
                &DataType::nullable(TypeKind::Int)
            ),
            None
        );
        assert_eq!(rescale(-125, 2, 1), Some(-13));
    }
}
