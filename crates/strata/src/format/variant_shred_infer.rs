//! Shredding schema inference for VARIANT columns (`variant.inferShreddingSchema`), as Java
//! Paimon 2.0's `InferVariantShreddingSchema` in its default per-file mode: the writer buffers a
//! file's first `variant.shredding.maxInferBufferRow` rows (`InferShreddingWritePlanWriter`),
//! infers one shredding type per top-level VARIANT column from them, and writes the whole file
//! with that layout ([`super::variant_shred_schema`]). The adaptive mode
//! (`variant.shredding.inferenceMode = adaptive`) reuses these shapes across the files of one
//! rolling writer: [`super::variant_shred_adaptive`].
//!
//! Per column: each non-null value's shape (`schemaOf`: objects become ROWs of their fields
//! with an occurrence count, arrays ARRAYs of their merged element shape, integers the smallest
//! `DECIMAL(p, 0)` up to 18 digits else BIGINT, decimals `DECIMAL` of their digits without
//! trailing zeros, strings STRING, booleans, doubles, floats; a variant null no shape; other
//! primitives and anything below `variant.shredding.maxSchemaDepth` VARIANT) merged over the rows
//! (`mergeSchema`: decimals widened to hold both, a decimal and a BIGINT to BIGINT or a decimal
//! holding both, ROW fields merged by name adding counts, anything else unequal VARIANT), then
//! finalized (`finalizeSimpleSchema`): ROW fields seen in fewer than
//! `ceil(non-null values × variant.shredding.minFieldCardinalityRatio)` values dropped, integer
//! decimals BIGINT, other decimals DECIMAL(18 or 38, s), a ROW left empty VARIANT, and at most
//! `variant.shredding.maxSchemaWidth` columns in all (each path takes one for `value`, scalars a
//! second for `typed_value`). Dates, timestamps and binaries infer types Java then cannot shred:
//! such a file fails in Java, and strata refuses it with the same message.

use arrow_array::cast::AsArray;
use arrow_array::{Array, StructArray};
use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

use super::variant_encode::{container, dictionary, Primitive};
use crate::error::ErrorDetail;
use crate::Result;

/// `variant.shredding.*` settings of inference.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InferOptions {
    /// `variant.shredding.maxInferBufferRow` (default 4096).
    pub buffer_rows: usize,
    /// `variant.shredding.maxSchemaWidth` (default 300).
    pub max_width: i64,
    /// `variant.shredding.maxSchemaDepth` (default 50).
    pub max_depth: i64,
    /// `variant.shredding.minFieldCardinalityRatio` (default 0.1).
    pub min_ratio: f64,
    /// `variant.shredding.inferenceMode = adaptive`: evidence kept across the files of one
    /// rolling writer ([`super::variant_shred_adaptive`]); `None` in the per-file mode.
    pub adaptive: Option<AdaptiveOptions>,
}

/// `variant.shredding.adaptive.*`, as Java's `VariantShreddingWritePlanFactory` reads them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AdaptiveOptions {
    /// `variant.shredding.adaptive.maxInferBufferRow` (default 256): the rows sampled by the
    /// files after the first, and the bound of the kept evidence (`effectiveSampleSize`).
    pub buffer_rows: usize,
    /// `variant.shredding.adaptive.retentionRatio` (default 0.05).
    pub retention_ratio: f64,
}

impl InferOptions {
    /// The settings when `variant.inferShreddingSchema` is true (and no explicit schema is
    /// set); `None` otherwise.
    pub(crate) fn from_options<'a>(
        lookup: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<Option<Self>> {
        let invalid = |key: &str, v: &str| -> crate::Error {
            ErrorDetail::InvalidOption {
                key: key.into(),
                message: format!("{v:?} is not valid"),
            }
            .into()
        };
        match lookup("variant.inferShreddingSchema") {
            Some(v) if v.eq_ignore_ascii_case("true") => {}
            Some(v) if v.eq_ignore_ascii_case("false") => return Ok(None),
            Some(v) => return Err(invalid("variant.inferShreddingSchema", v)),
            None => return Ok(None),
        }
        if lookup(super::variant_shred_schema::SHREDDING_SCHEMA_KEY).is_some()
            || lookup(super::variant_shred_schema::SHREDDING_SCHEMA_FALLBACK_KEY).is_some()
        {
            return Ok(None);
        }
        let adaptive = match lookup("variant.shredding.inferenceMode") {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("per-file") || v.eq_ignore_ascii_case("per_file") => {
                false
            }
            Some(v) if v.eq_ignore_ascii_case("adaptive") => true,
            Some(v) => return Err(invalid("variant.shredding.inferenceMode", v)),
        };
        let int = |key: &str, default: i64| -> Result<i64> {
            lookup(key)
                .map(|v| v.trim().parse::<i64>().map_err(|_| invalid(key, v)))
                .transpose()
                .map(|v| v.unwrap_or(default))
        };
        let ratio = match lookup("variant.shredding.minFieldCardinalityRatio") {
            Some(v) => v
                .trim()
                .parse::<f64>()
                .map_err(|_| invalid("variant.shredding.minFieldCardinalityRatio", v))?,
            None => 0.1,
        };
        let buffer = int("variant.shredding.maxInferBufferRow", 4096)?;
        let adaptive = if adaptive {
            // Java's `VariantShreddingInferenceSession` preconditions.
            let key = "variant.shredding.adaptive.maxInferBufferRow";
            let sample = int(key, 256)?;
            if sample <= 0 || sample > i64::from(i32::MAX) {
                return Err(ErrorDetail::InvalidOption {
                    key: key.into(),
                    message: format!("{sample}: Effective sample size must be positive."),
                }
                .into());
            }
            if !(0.0..=1.0).contains(&ratio) {
                return Err(ErrorDetail::InvalidOption {
                    key: "variant.shredding.minFieldCardinalityRatio".into(),
                    message: format!("{ratio}: Admission ratio must be between 0 and 1."),
                }
                .into());
            }
            let key = "variant.shredding.adaptive.retentionRatio";
            let retention = match lookup(key) {
                Some(v) => v.trim().parse::<f64>().map_err(|_| invalid(key, v))?,
                None => 0.05,
            };
            if !(retention >= 0.0 && retention <= ratio) {
                return Err(ErrorDetail::InvalidOption {
                    key: key.into(),
                    message: format!(
                        "{retention}: Retention ratio must be between 0 and the admission ratio \
                         (variant.shredding.minFieldCardinalityRatio = {ratio})."
                    ),
                }
                .into());
            }
            Some(AdaptiveOptions {
                buffer_rows: sample as usize,
                retention_ratio: retention,
            })
        } else {
            None
        };
        Ok(Some(InferOptions {
            buffer_rows: usize::try_from(buffer.max(1)).unwrap_or(1),
            max_width: int("variant.shredding.maxSchemaWidth", 300)?,
            max_depth: int("variant.shredding.maxSchemaDepth", 50)?,
            min_ratio: ratio,
            adaptive,
        }))
    }
}

/// An observed shape (`schemaOf`); `None` where Java has a null type.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
    Variant,
    Boolean,
    BigInt,
    Decimal(u32, i32),
    String,
    Double,
    Float,
    /// Types Java infers but cannot shred (DATE, timestamps, BYTES), by name.
    Unshreddable(&'static str),
    Array(Box<Shape>),
    /// Fields in key order: name, occurrence count, shape.
    Row(Vec<(String, f64, Option<Shape>)>),
}

fn digits(v: i128) -> u32 {
    let mut v = v.unsigned_abs();
    let mut d = 1;
    while v >= 10 {
        v /= 10;
        d += 1;
    }
    d
}

pub(super) fn shape_of(v: &[u8], keys: &[String], depth: i64) -> Option<Shape> {
    let header = *v.first()?;
    match header & 3 {
        2 => {
            if depth <= 0 {
                return Some(Shape::Variant);
            }
            let Some(fields) = container(v, true) else {
                return Some(Shape::Variant);
            };
            let mut out = Vec::with_capacity(fields.len());
            for (id, value) in fields {
                let key = keys.get(id).cloned().unwrap_or_default();
                out.push((key, 1.0, shape_of(value, keys, depth - 1)));
            }
            Some(Shape::Row(out))
        }
        3 => {
            if depth <= 0 {
                return Some(Shape::Variant);
            }
            let mut element = None;
            for (_, e) in container(v, false).unwrap_or_default() {
                element = merge(element, shape_of(e, keys, depth - 1));
            }
            Some(Shape::Array(Box::new(element.unwrap_or(Shape::Variant))))
        }
        1 => Some(Shape::String),
        _ => match header >> 2 {
            0 => None,
            1 | 2 => Some(Shape::Boolean),
            3..=6 => match Primitive::decode(v) {
                Some(Primitive::Long(x)) if digits(x as i128) <= 18 => {
                    Some(Shape::Decimal(digits(x as i128), 0))
                }
                _ => Some(Shape::BigInt),
            },
            8..=10 => match Primitive::decode(v) {
                Some(Primitive::Decimal(mut u, s)) => {
                    // `stripTrailingZeros`
                    let mut scale = s as i32;
                    if u == 0 {
                        scale = 0;
                    }
                    while u != 0 && u % 10 == 0 {
                        u /= 10;
                        scale -= 1;
                    }
                    let precision = (digits(u) as i32).max(scale).max(1);
                    Some(Shape::Decimal(precision as u32, scale))
                }
                _ => Some(Shape::Variant),
            },
            7 => Some(Shape::Double),
            14 => Some(Shape::Float),
            16 => Some(Shape::String),
            11 => Some(Shape::Unshreddable("DATE")),
            12 => Some(Shape::Unshreddable("TIMESTAMP(6) WITH LOCAL TIME ZONE")),
            13 => Some(Shape::Unshreddable("TIMESTAMP(6)")),
            15 => Some(Shape::Unshreddable("BYTES")),
            _ => Some(Shape::Variant),
        },
    }
}

pub(super) fn merge_decimal(p1: u32, s1: i32, p2: u32, s2: i32) -> Shape {
    let scale = s1.max(s2);
    let range = (p1 as i32 - s1).max(p2 as i32 - s2);
    if range + scale > 38 {
        Shape::Variant
    } else {
        Shape::Decimal((range + scale) as u32, scale)
    }
}

pub(super) fn merge_decimal_long(p: u32, s: i32) -> Shape {
    if s == 0 && p <= 18 {
        Shape::BigInt
    } else {
        merge_decimal(p, s, 19, 0)
    }
}

/// Java's `mergeSchema`.
pub(super) fn merge(a: Option<Shape>, b: Option<Shape>) -> Option<Shape> {
    let (a, b) = match (a, b) {
        (None, b) => return b,
        (a, None) => return a,
        (Some(a), Some(b)) => (a, b),
    };
    Some(match (a, b) {
        (Shape::Decimal(p1, s1), Shape::Decimal(p2, s2)) => merge_decimal(p1, s1, p2, s2),
        (Shape::Decimal(p, s), Shape::BigInt) | (Shape::BigInt, Shape::Decimal(p, s)) => {
            merge_decimal_long(p, s)
        }
        (Shape::Row(f1), Shape::Row(f2)) => merge_rows(f1, f2),
        (Shape::Array(e1), Shape::Array(e2)) => Shape::Array(Box::new(
            merge(Some(*e1), Some(*e2)).unwrap_or(Shape::Variant),
        )),
        (a, b) if a == b => a,
        _ => Shape::Variant,
    })
}

/// Java's `mergeRowTypes`: a merge of two key-ordered field lists (at most 1000 fields).
fn merge_rows(
    f1: Vec<(String, f64, Option<Shape>)>,
    f2: Vec<(String, f64, Option<Shape>)>,
) -> Shape {
    const MAX: usize = 1000;
    let mut out = Vec::new();
    let mut a = f1.into_iter().peekable();
    let mut b = f2.into_iter().peekable();
    while out.len() < MAX {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => x.0.encode_utf16().cmp(y.0.encode_utf16()),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => break,
        };
        match next {
            std::cmp::Ordering::Equal => {
                let (x, y) = (a.next().expect("peeked"), b.next().expect("peeked"));
                out.push((x.0, x.1 + y.1, merge(x.2, y.2)));
            }
            std::cmp::Ordering::Less => out.push(a.next().expect("peeked")),
            std::cmp::Ordering::Greater => out.push(b.next().expect("peeked")),
        }
    }
    Shape::Row(out)
}

pub(super) fn variant() -> DataType {
    DataType::nullable(TypeKind::Variant)
}

/// Java's `finalizeSimpleSchema`: the shredding type of a shape.
pub(super) fn finalize(shape: Option<&Shape>, min: f64, remaining: &mut i64) -> Result<DataType> {
    *remaining -= 1;
    if *remaining <= 0 {
        return Ok(variant());
    }
    let Some(shape) = shape else {
        return Ok(variant());
    };
    let scalar = |remaining: &mut i64, kind: TypeKind| {
        *remaining -= 1;
        Ok(DataType::nullable(kind))
    };
    match shape {
        Shape::Variant => Ok(variant()),
        Shape::Row(fields) => {
            let mut out = Vec::new();
            for (name, count, t) in fields {
                if *count >= min && *remaining > 0 {
                    let t = finalize(t.as_ref(), min, remaining)?;
                    out.push(DataField::new(out.len() as i32, name.clone(), t));
                }
            }
            Ok(if out.is_empty() {
                variant()
            } else {
                DataType::nullable(TypeKind::Row(out))
            })
        }
        Shape::Array(element) => {
            let element = finalize(Some(element), min, remaining)?;
            Ok(DataType::nullable(TypeKind::Array(Box::new(element))))
        }
        Shape::BigInt => scalar(remaining, TypeKind::BigInt),
        Shape::Decimal(p, s) => {
            if *s < 0 || *s as u32 > *p {
                // Java's `DataTypes.DECIMAL` refuses the type (e.g. 1E+2 after
                // `stripTrailingZeros`) and the write fails.
                return Err(ErrorDetail::InvalidOption {
                    key: "variant.inferShreddingSchema".into(),
                    message: format!(
                        "Decimal scale must be between 0 and the precision {p} (both inclusive): \
                         inferred DECIMAL({p}, {s})"
                    ),
                }
                .into());
            }
            let (p, s) = (*p, *s as u32);
            if p <= 18 && s == 0 {
                scalar(remaining, TypeKind::BigInt)
            } else {
                let precision = if p <= 18 { 18 } else { 38 };
                scalar(
                    remaining,
                    TypeKind::Decimal {
                        precision,
                        scale: s,
                    },
                )
            }
        }
        Shape::Boolean => scalar(remaining, TypeKind::Boolean),
        Shape::String => scalar(remaining, TypeKind::VarChar(MAX_LENGTH)),
        Shape::Double => scalar(remaining, TypeKind::Double),
        Shape::Float => scalar(remaining, TypeKind::Float),
        Shape::Unshreddable(name) => Err(ErrorDetail::InvalidOption {
            key: "variant.inferShreddingSchema".into(),
            message: format!("Invalid variant shredding schema: {name} (inferred)"),
        }
        .into()),
    }
}

/// The shredding type inferred for each VARIANT column, in order: `columns` holds each
/// column's values (`Struct{value, metadata}`) of the sampled rows.
pub(crate) fn infer(columns: &[&StructArray], options: &InferOptions) -> Result<Vec<DataType>> {
    let mut remaining = options.max_width;
    let mut out = Vec::with_capacity(columns.len());
    for column in columns {
        let (count, observed) = analyze_column(column, options.max_depth)?;
        let min = (count * options.min_ratio).ceil();
        out.push(finalize(observed.as_ref(), min, &mut remaining)?);
    }
    Ok(out)
}

/// Java's `analyze` of one VARIANT column: its non-null values and their merged shape.
pub(super) fn analyze_column(column: &StructArray, max_depth: i64) -> Result<(f64, Option<Shape>)> {
    {
        let (Some(values), Some(metas)) = (
            column
                .column_by_name("value")
                .and_then(|a| a.as_binary_opt::<i32>()),
            column
                .column_by_name("metadata")
                .and_then(|a| a.as_binary_opt::<i32>()),
        ) else {
            return Err(ErrorDetail::SchemaMismatch {
                column: "*".into(),
                message: "a VARIANT column is not Struct{value, metadata}".into(),
            }
            .into());
        };
        let mut count = 0.0;
        let mut observed = None;
        for row in 0..column.len() {
            if column.is_null(row) {
                continue;
            }
            count += 1.0;
            let keys = dictionary(metas.value(row)).unwrap_or_default();
            observed = merge(observed, shape_of(values.value(row), &keys, max_depth));
        }
        Ok((count, observed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::variant_json::variant_from_json;
    use arrow_array::{ArrayRef, BinaryArray};
    use arrow_schema::{DataType as ArrowType, Field, Fields};
    use serde_json::{json, Value};
    use std::sync::Arc;

    fn column(docs: &[Value]) -> StructArray {
        let (v, m): (Vec<_>, Vec<_>) = docs.iter().map(variant_from_json).unzip();
        StructArray::new(
            Fields::from(vec![
                Field::new("value", ArrowType::Binary, false),
                Field::new("metadata", ArrowType::Binary, false),
            ]),
            vec![
                Arc::new(BinaryArray::from_iter_values(v)) as ArrayRef,
                Arc::new(BinaryArray::from_iter_values(m)),
            ],
            None,
        )
    }

    fn opts() -> InferOptions {
        InferOptions {
            buffer_rows: 4096,
            max_width: 300,
            max_depth: 50,
            min_ratio: 0.1,
            adaptive: None,
        }
    }

    #[test]
    fn infers_as_java_finalizes() {
        let mut docs: Vec<Value> = (0..20)
            .map(|i| json!({"a": i, "b": format!("s{i}"), "c": {"x": [i, i + 1]}}))
            .collect();
        docs.push(json!({"a": "text", "rare": true}));
        let t = infer(&[&column(&docs)], &opts()).unwrap();
        // `a` mixes integers and a string: VARIANT; `rare` is in 1 of 21 values (< ceil(2.1)).
        assert_eq!(
            t[0].to_string(),
            "ROW<`a` VARIANT, `b` STRING, `c` ROW<`x` ARRAY<BIGINT>>>"
        );
        let t = infer(&[&column(&[json!(1), json!(2)])], &opts()).unwrap();
        assert_eq!(t[0].to_string(), "BIGINT");
        let t = infer(&[&column(&[json!(1.5), json!("x")])], &opts()).unwrap();
        assert_eq!(t[0].to_string(), "VARIANT");
        let narrow = InferOptions {
            max_width: 3,
            ..opts()
        };
        let t = infer(&[&column(&[json!({"a": 1, "b": 2})])], &narrow).unwrap();
        assert_eq!(t[0].to_string(), "ROW<`a` BIGINT>");
    }

    #[test]
    fn merges_decimals_and_longs() {
        assert_eq!(merge_decimal_long(5, 2), Shape::Decimal(21, 2));
        assert_eq!(merge_decimal_long(5, 0), Shape::BigInt);
        assert_eq!(merge_decimal(4, 2, 3, 1), Shape::Decimal(4, 2));
        assert_eq!(merge_decimal(38, 0, 3, 2), Shape::Variant);
    }
}
