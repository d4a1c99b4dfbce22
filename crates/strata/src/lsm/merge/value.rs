//! Arrow columns ⇄ [`Value`]s, for every Paimon type.
//!
//! Merge functions work row by row on whole values (an ARRAY or a MAP is merged as one value),
//! so the merge reader turns the value columns of a group into [`Value`]s with [`value_at`] and
//! turns merged rows back into columns with [`values_to_array`]. Atomic values go through
//! [`crate::format::datum`]; nested types follow the Arrow layout of
//! [`crate::format::arrow_types`] (ARRAY = List, MAP/MULTISET = Map, ROW and VARIANT = Struct).
//! A MULTISET is a [`Value::Map`] from element to its INT count; a VARIANT is a two-field
//! [`Value::Row`] of `value` and `metadata` bytes.

use crate::error::ErrorDetail;
use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, MapArray, StructArray};
use arrow_schema::DataType as ArrowType;
use strata_spec::types::{DataType, TypeKind};
use strata_spec::Datum;

use super::function::Value;
use crate::format::arrow_types::to_arrow_type;
use crate::format::datum::{datum_at, datums_to_array};
use crate::{Error, Result};

/// The value at `row` of `array` (any Paimon column layout), NULL as [`Value::Null`].
pub(crate) fn value_at(array: &dyn Array, row: usize) -> Result<Value> {
    if row >= array.len() {
        return Err(ErrorDetail::InvalidArgument(format!(
            "row {row} is out of bounds for an array of {} rows",
            array.len()
        ))
        .into());
    }
    match array.data_type() {
        ArrowType::List(_) => {
            if array.is_null(row) {
                return Ok(Value::Null);
            }
            let list = array.as_list::<i32>();
            let items = list.value(row);
            Ok(Value::Array(values_of(items.as_ref())?))
        }
        ArrowType::LargeList(_) => {
            if array.is_null(row) {
                return Ok(Value::Null);
            }
            let list = array.as_list::<i64>();
            let items = list.value(row);
            Ok(Value::Array(values_of(items.as_ref())?))
        }
        ArrowType::Map(_, _) => {
            if array.is_null(row) {
                return Ok(Value::Null);
            }
            let map = array.as_map();
            let entries = map.value(row);
            let keys = entries.column(0);
            let values = entries.column(1);
            let mut out = Vec::with_capacity(entries.len());
            for i in 0..entries.len() {
                out.push((value_at(keys.as_ref(), i)?, value_at(values.as_ref(), i)?));
            }
            Ok(Value::Map(out))
        }
        ArrowType::Struct(_) => {
            if array.is_null(row) {
                return Ok(Value::Null);
            }
            let st = array.as_struct();
            let fields = st
                .columns()
                .iter()
                .map(|c| value_at(c.as_ref(), row))
                .collect::<Result<Vec<_>>>()?;
            Ok(Value::Row(fields))
        }
        _ => Ok(match datum_at(array, row)? {
            Some(d) => Value::Scalar(d),
            None => Value::Null,
        }),
    }
}

/// Every value of `array`, in order.
pub(crate) fn values_of(array: &dyn Array) -> Result<Vec<Value>> {
    (0..array.len()).map(|i| value_at(array, i)).collect()
}

/// An Arrow array of `data_type` (its [`to_arrow_type`] layout) holding `values`.
/// Each value must match the type (a scalar of the type's kind, an array for ARRAY, …).
pub(crate) fn values_to_array(values: &[Value], data_type: &DataType) -> Result<ArrayRef> {
    build(values, data_type, &to_arrow_type(data_type)?)
}

/// [`values_to_array`] with the exact Arrow type to produce: nested fields inside a ROW carry
/// field-id metadata that their parent's Arrow type expects, so children are built with the
/// types their parent declares.
fn build(values: &[Value], data_type: &DataType, target: &ArrowType) -> Result<ArrayRef> {
    let wrong = |v: &Value| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "value {v:?} does not match type {data_type}"
        )))
    };
    match &data_type.kind {
        TypeKind::Array(element) => {
            let ArrowType::List(field) = target.clone() else {
                return Err(
                    ErrorDetail::Unsupported(format!("{data_type} is not an Arrow list")).into(),
                );
            };
            let mut children = Vec::new();
            let mut offsets = Vec::with_capacity(values.len() + 1);
            let mut valid = Vec::with_capacity(values.len());
            offsets.push(0i32);
            for v in values {
                match v {
                    Value::Null => valid.push(false),
                    Value::Array(items) => {
                        valid.push(true);
                        children.extend(items.iter().cloned());
                    }
                    other => return Err(wrong(other)),
                }
                offsets.push(offset(children.len())?);
            }
            let child = build(&children, element, field.data_type())?;
            let list = ListArray::try_new(
                field,
                OffsetBuffer::new(offsets.into()),
                child,
                nulls(&valid),
            )
            .map_err(|e| Error::arrow(format!("building {data_type} values"), e))?;
            Ok(Arc::new(list))
        }
        TypeKind::Map { key, value } => map_array(values, data_type, target, key, value),
        TypeKind::Multiset(element) => {
            let count = DataType::not_null(TypeKind::Int);
            map_array(values, data_type, target, element, &count)
        }
        TypeKind::Row(fields) => {
            let ArrowType::Struct(arrow_fields) = target.clone() else {
                return Err(ErrorDetail::Unsupported(format!(
                    "{data_type} is not an Arrow struct"
                ))
                .into());
            };
            if arrow_fields.len() != fields.len() {
                return Err(ErrorDetail::Unsupported(format!(
                    "{data_type} does not match {target}"
                ))
                .into());
            }
            let valid = row_validity(values, fields.len(), &wrong)?;
            let mut columns = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                let column: Vec<Value> = values
                    .iter()
                    .map(|v| match v {
                        Value::Row(items) => items[i].clone(),
                        _ => Value::Null,
                    })
                    .collect();
                columns.push(build(&column, &f.data_type, arrow_fields[i].data_type())?);
            }
            let st = StructArray::try_new(arrow_fields, columns, nulls(&valid))
                .map_err(|e| Error::arrow(format!("building {data_type} values"), e))?;
            Ok(Arc::new(st))
        }
        TypeKind::Variant => {
            let ArrowType::Struct(arrow_fields) = target.clone() else {
                return Err(ErrorDetail::Unsupported(format!(
                    "{data_type} is not an Arrow struct"
                ))
                .into());
            };
            let valid = row_validity(values, 2, &wrong)?;
            let bytes = DataType::not_null(TypeKind::VarBinary(strata_spec::types::MAX_LENGTH));
            let mut columns = Vec::with_capacity(2);
            for i in 0..2 {
                // The binaries are NOT NULL: a NULL variant stores empty bytes under its null bit.
                let column = values
                    .iter()
                    .map(|v| match v {
                        Value::Row(items) => match &items[i] {
                            Value::Scalar(d @ Datum::Bytes(_)) => Ok(Some(d.clone())),
                            other => Err(wrong(other)),
                        },
                        _ => Ok(Some(Datum::Bytes(Vec::new()))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                columns.push(datums_to_array(&column, &bytes)?);
            }
            let st = StructArray::try_new(arrow_fields, columns, nulls(&valid))
                .map_err(|e| Error::arrow(format!("building {data_type} values"), e))?;
            Ok(Arc::new(st))
        }
        _ => {
            let datums = values
                .iter()
                .map(|v| match v {
                    Value::Null => Ok(None),
                    Value::Scalar(d) => Ok(Some(d.clone())),
                    other => Err(wrong(other)),
                })
                .collect::<Result<Vec<_>>>()?;
            datums_to_array(&datums, data_type)
        }
    }
}

fn map_array(
    values: &[Value],
    data_type: &DataType,
    target: &ArrowType,
    key: &DataType,
    value: &DataType,
) -> Result<ArrayRef> {
    let ArrowType::Map(entries_field, sorted) = target.clone() else {
        return Err(ErrorDetail::Unsupported(format!("{data_type} is not an Arrow map")).into());
    };
    let ArrowType::Struct(entry_fields) = entries_field.data_type().clone() else {
        return Err(
            ErrorDetail::Unsupported(format!("{data_type}: map entries are not a struct")).into(),
        );
    };
    let mut keys = Vec::new();
    let mut vals = Vec::new();
    let mut offsets = Vec::with_capacity(values.len() + 1);
    let mut valid = Vec::with_capacity(values.len());
    offsets.push(0i32);
    for v in values {
        match v {
            Value::Null => valid.push(false),
            Value::Map(entries) => {
                valid.push(true);
                for (k, x) in entries {
                    if *k == Value::Null {
                        return Err(ErrorDetail::InvalidArgument(format!(
                            "a key of a {data_type} value is NULL (map keys are NOT NULL)"
                        ))
                        .into());
                    }
                    keys.push(k.clone());
                    vals.push(x.clone());
                }
            }
            other => {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "value {other:?} does not match type {data_type}"
                ))
                .into())
            }
        }
        offsets.push(offset(keys.len())?);
    }
    if entry_fields.len() != 2 {
        return Err(
            ErrorDetail::Unsupported(format!("{data_type} does not match {target}")).into(),
        );
    }
    let key_array = build(
        &keys,
        &key.with_nullable(false),
        entry_fields[0].data_type(),
    )?;
    let value_array = build(&vals, value, entry_fields[1].data_type())?;
    let entries = StructArray::try_new(entry_fields, vec![key_array, value_array], None)
        .map_err(|e| Error::arrow(format!("building {data_type} entries"), e))?;
    let map = MapArray::try_new(
        entries_field,
        OffsetBuffer::new(offsets.into()),
        entries,
        nulls(&valid),
        sorted,
    )
    .map_err(|e| Error::arrow(format!("building {data_type} values"), e))?;
    Ok(Arc::new(map))
}

/// Validity of ROW-like values with `arity` fields (a wrong arity is an error).
fn row_validity(
    values: &[Value],
    arity: usize,
    wrong: &dyn Fn(&Value) -> Error,
) -> Result<Vec<bool>> {
    values
        .iter()
        .map(|v| match v {
            Value::Null => Ok(false),
            Value::Row(items) if items.len() == arity => Ok(true),
            other => Err(wrong(other)),
        })
        .collect()
}

fn nulls(valid: &[bool]) -> Option<NullBuffer> {
    if valid.iter().all(|v| *v) {
        None
    } else {
        Some(NullBuffer::from(valid.to_vec()))
    }
}

fn offset(len: usize) -> Result<i32> {
    i32::try_from(len).map_err(|_| {
        ErrorDetail::InvalidArgument(format!(
            "{len} nested values do not fit in an Arrow list (i32 offsets)"
        ))
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_spec::types::{DataField, MAX_LENGTH};

    fn int() -> DataType {
        DataType::nullable(TypeKind::Int)
    }

    fn nested_type() -> DataType {
        DataType::nullable(TypeKind::Row(vec![
            DataField::new(10, "a", int()),
            DataField::new(
                11,
                "tags",
                DataType::nullable(TypeKind::Array(Box::new(DataType::string()))),
            ),
            DataField::new(
                12,
                "m",
                DataType::nullable(TypeKind::Map {
                    key: Box::new(DataType::string()),
                    value: Box::new(DataType::nullable(TypeKind::BigInt)),
                }),
            ),
            DataField::new(
                13,
                "d",
                DataType::nullable(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            ),
        ]))
    }

    fn opt<T: std::fmt::Debug + Clone + 'static>(
        s: impl Strategy<Value = T> + 'static,
        f: fn(T) -> Value,
    ) -> BoxedStrategy<Value> {
        prop_oneof![1 => Just(Value::Null), 4 => s.prop_map(f)].boxed()
    }

    fn string_value() -> BoxedStrategy<Value> {
        opt("[a-c]{0,3}", |s| Value::Scalar(Datum::String(s)))
    }

    fn nested_value() -> BoxedStrategy<Value> {
        let a = opt(any::<i32>(), |v| Value::Scalar(Datum::Int(v)));
        let tags = opt(
            proptest::collection::vec(string_value(), 0..4),
            Value::Array,
        );
        let m = opt(
            proptest::collection::vec(
                (
                    "[a-c]{1,2}".prop_map(|s| Value::Scalar(Datum::String(s))),
                    opt(any::<i64>(), |v| Value::Scalar(Datum::BigInt(v))),
                ),
                0..3,
            ),
            Value::Map,
        );
        let d = opt(-99_999_999i128..99_999_999, |u| {
            Value::Scalar(Datum::Decimal {
                unscaled: u,
                precision: 10,
                scale: 2,
            })
        });
        opt((a, tags, m, d), |(a, t, m, d)| Value::Row(vec![a, t, m, d]))
    }

    proptest! {
        #[test]
        fn nested_round_trip(values in proptest::collection::vec(nested_value(), 0..12)) {
            let ty = nested_type();
            let array = values_to_array(&values, &ty).unwrap();
            prop_assert_eq!(array.data_type(), &to_arrow_type(&ty).unwrap());
            let back = values_of(array.as_ref()).unwrap();
            prop_assert_eq!(&back, &values);
            let again = values_to_array(&back, &ty).unwrap();
            prop_assert_eq!(&again.to_data(), &array.to_data());
        }

        #[test]
        fn array_of_arrays_round_trip(values in proptest::collection::vec(
            opt(proptest::collection::vec(
                opt(proptest::collection::vec(
                    opt(any::<i16>(), |v| Value::Scalar(Datum::SmallInt(v))), 0..3), Value::Array),
                0..3), Value::Array), 0..8)) {
            let inner = DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(TypeKind::SmallInt))));
            let ty = DataType::nullable(TypeKind::Array(Box::new(inner)));
            let array = values_to_array(&values, &ty).unwrap();
            prop_assert_eq!(values_of(array.as_ref()).unwrap(), values);
        }
    }

    #[test]
    fn scalars_multiset_and_variant() {
        let ts = DataType::nullable(TypeKind::Timestamp(6));
        let v = vec![
            Value::Scalar(Datum::Timestamp {
                millis: 1_700_000_000_123,
                nanos: 456_000,
            }),
            Value::Null,
        ];
        let a = values_to_array(&v, &ts).unwrap();
        assert_eq!(values_of(a.as_ref()).unwrap(), v);

        let ms = DataType::nullable(TypeKind::Multiset(Box::new(DataType::string())));
        let v = vec![
            Value::Map(vec![(
                Value::Scalar(Datum::String("x".into())),
                Value::Scalar(Datum::Int(2)),
            )]),
            Value::Null,
        ];
        let a = values_to_array(&v, &ms).unwrap();
        assert_eq!(values_of(a.as_ref()).unwrap(), v);

        let var = DataType::nullable(TypeKind::Variant);
        let v = vec![
            Value::Row(vec![
                Value::Scalar(Datum::Bytes(vec![1, 2])),
                Value::Scalar(Datum::Bytes(vec![3])),
            ]),
            Value::Null,
        ];
        let a = values_to_array(&v, &var).unwrap();
        assert_eq!(values_of(a.as_ref()).unwrap(), v);

        // Wrong shapes are errors, not panics.
        assert!(values_to_array(&[Value::Array(vec![])], &int()).is_err());
        assert!(values_to_array(&[Value::Row(vec![])], &nested_type()).is_err());
        let s = DataType::nullable(TypeKind::VarChar(MAX_LENGTH));
        assert!(values_to_array(&[Value::Scalar(Datum::Int(1))], &s).is_err());
        assert!(value_at(a.as_ref(), 5).is_err());
    }
}
