//! Schema evolution of columns read from a data file.
//!
//! A data file holds its columns as they were when it was written (`data` type, from the
//! file's schema id); a reader asks for the current schema's columns (`read` type). Columns are
//! tied by field id, recursively: ROW children are matched by id and read by the name they had
//! in the file, so renamed nested fields are found, dropped ones ignored and added ones filled
//! with NULL. Leaves are cast to the read type (e.g. INT → BIGINT) and every nested field takes
//! the target Arrow name and nullability, whatever physical variant the writer used
//! (`item`/`element`, `entries`/`key_value`, decimals as FLBA, timestamps in any unit...).
//!
//! A leaf whose type changed is converted as Java's cast executors convert it
//! (`CastExecutors`, applied by `SchemaEvolutionUtil` when Java reads an older file). For
//! character and binary targets that includes the length: `BinaryStringUtils.toCharacterString`
//! cuts values longer than a `CHAR(n)` / `VARCHAR(n)` target to `n` characters and pads
//! `CHAR(n)` with spaces, `toBinaryString` cuts `VARBINARY(n)` and cuts or zero-pads
//! `BINARY(n)`. [`check_readable_type_change`] says which type changes this module converts
//! exactly as Java does; `ALTER TABLE` refuses the others, which Java allows but strata would
//! read differently (or fail on).

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{new_null_array, Array, ArrayRef, ListArray, MapArray, StructArray};
use arrow_schema::{DataType as ArrowType, Field, FieldRef};
use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

use super::convert::{cast_to_type, check_not_null_under};
use crate::error::ErrorDetail;
use crate::{Error, Result};

fn mismatch(column: &str, message: impl Into<String>) -> Error {
    ErrorDetail::SchemaMismatch {
        column: column.to_string(),
        message: message.into(),
    }
    .into()
}

/// Finds a struct child / file column by name: exact first, then case-insensitive (as Java's
/// Parquet reader does).
pub(crate) fn find_by_name<'a, I>(names: I, wanted: &str) -> Option<usize>
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    names
        .clone()
        .into_iter()
        .position(|n| n == wanted)
        .or_else(|| {
            names
                .into_iter()
                .position(|n| n.eq_ignore_ascii_case(wanted))
        })
}

/// Converts `array` (a column of Paimon type `data` as stored in a file) to the `target` Arrow
/// field of Paimon type `read`, matching ROW children by field id. Checks `target`'s
/// nullability.
pub(crate) fn evolve_array(
    array: &ArrayRef,
    data: &DataType,
    read: &DataType,
    target: &Field,
    path: &str,
) -> Result<ArrayRef> {
    let out = evolve_to_type(array, data, read, target.data_type(), path)?;
    super::convert::check_top_level_not_null(
        out,
        target,
        path,
        "the column is NOT NULL in the read schema but has",
    )
}

fn evolve_to_type(
    array: &ArrayRef,
    data: &DataType,
    read: &DataType,
    target: &ArrowType,
    path: &str,
) -> Result<ArrayRef> {
    match (&data.kind, &read.kind, target) {
        (TypeKind::Row(data_fields), TypeKind::Row(read_fields), ArrowType::Struct(targets)) => {
            evolve_struct(array, data_fields, read_fields, targets, path)
        }
        (TypeKind::Array(de), TypeKind::Array(re), ArrowType::List(element)) => {
            evolve_list(array, de, re, element, path)
        }
        (TypeKind::Map { key: dk, value: dv }, TypeKind::Map { key: rk, value: rv }, _) => {
            evolve_map(array, (dk, dv), (rk, rv), target, path)
        }
        (TypeKind::Multiset(de), TypeKind::Multiset(re), _) => {
            let count = DataType::not_null(TypeKind::Int);
            evolve_map(array, (de, &count), (re, &count), target, path)
        }
        _ if data.kind == read.kind => cast_to_type(array, target, path),
        _ => {
            // Length rules work on plain strings and binaries; a string-view target is
            // reached from the fitted plain strings.
            let plain = match target {
                ArrowType::Utf8View => &ArrowType::Utf8,
                other => other,
            };
            let out = fit_length(cast_to_type(array, plain, path)?, &read.kind, path)?;
            cast_to_type(&out, target, path)
        }
    }
}

/// Java's length rules for a value cast to a character or binary type (see the module docs).
fn fit_length(array: ArrayRef, read: &TypeKind, path: &str) -> Result<ArrayRef> {
    match *read {
        TypeKind::Char(n) => fit_strings(&array, n as usize, true, path),
        TypeKind::VarChar(n) if n < MAX_LENGTH => fit_strings(&array, n as usize, false, path),
        TypeKind::Binary(n) => fit_binary(&array, n as usize, true, path),
        TypeKind::VarBinary(n) if n < MAX_LENGTH => fit_binary(&array, n as usize, false, path),
        _ => Ok(array),
    }
}

fn fit_strings(array: &ArrayRef, n: usize, pad: bool, path: &str) -> Result<ArrayRef> {
    let Some(strings) = array.as_string_opt::<i32>() else {
        return Err(mismatch(
            path,
            format!("expected strings, got {}", array.data_type()),
        ));
    };
    let fits = |v: &str| {
        let chars = v.chars().count();
        chars == n || (!pad && chars < n)
    };
    if strings.iter().flatten().all(fits) {
        return Ok(array.clone());
    }
    let mut out = StringBuilder::with_capacity(strings.len(), strings.value_data().len());
    for v in strings.iter() {
        match v {
            None => out.append_null(),
            Some(v) => {
                let mut text: String = v.chars().take(n).collect();
                if pad {
                    let missing = n.saturating_sub(text.chars().count());
                    text.extend(std::iter::repeat_n(' ', missing));
                }
                out.append_value(text);
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

fn fit_binary(array: &ArrayRef, n: usize, pad: bool, path: &str) -> Result<ArrayRef> {
    let Some(bytes) = array.as_binary_opt::<i32>() else {
        return Err(mismatch(
            path,
            format!("expected bytes, got {}", array.data_type()),
        ));
    };
    let fits = |v: &[u8]| v.len() == n || (!pad && v.len() < n);
    if bytes.iter().flatten().all(fits) {
        return Ok(array.clone());
    }
    let mut out = BinaryBuilder::with_capacity(bytes.len(), bytes.value_data().len());
    for v in bytes.iter() {
        match v {
            None => out.append_null(),
            Some(v) => {
                let mut value = v[..v.len().min(n)].to_vec();
                if pad {
                    value.resize(n, 0);
                }
                out.append_value(value);
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Whether this module reads values written as `from` as `to` exactly as Java Paimon's cast
/// executors would (`Err` says why not). Exact here: integer widening; integers to FLOAT /
/// DOUBLE (rounded to nearest, as Java's `Number.floatValue` / `doubleValue`); FLOAT to
/// DOUBLE; integers to a DECIMAL with room for every value; DECIMAL to a DECIMAL with at least
/// the scale and integer digits; any character type to any character type, any binary type to
/// any binary type (with Java's cutting and padding); BOOLEAN and integers to character types
/// (Java's `toString`); TIMESTAMP(p) to TIMESTAMP(q ≥ p) and the same WITH LOCAL TIME ZONE;
/// inside ARRAY, MAP values and ROW fields (matched by field id), the same rules. Java also
/// allows narrowing and other explicit casts (BIGINT → INT wraps around, STRING → INT parses,
/// DOUBLE → DECIMAL rounds through `BigDecimal.valueOf`, TIMESTAMP ↔ LTZ uses the JVM's time
/// zone, ...), which strata does not reproduce.
pub(crate) fn check_readable_type_change(
    from: &DataType,
    to: &DataType,
) -> std::result::Result<(), String> {
    use TypeKind as K;
    fn int_digits(k: &TypeKind) -> Option<u32> {
        match k {
            K::TinyInt => Some(3),
            K::SmallInt => Some(5),
            K::Int => Some(10),
            K::BigInt => Some(19),
            _ => None,
        }
    }
    let is_string = |k: &TypeKind| matches!(k, K::Char(_) | K::VarChar(_));
    let is_binary = |k: &TypeKind| matches!(k, K::Binary(_) | K::VarBinary(_));
    let refuse = || {
        Err(format!(
            "Java Paimon allows changing {from} to {to}, but strata cannot yet read values \
             written as {from} the way Java converts them"
        ))
    };
    match (&from.kind, &to.kind) {
        (a, b) if a == b => Ok(()),
        (a, b) if int_digits(a).is_some() && int_digits(b).is_some() => {
            if int_digits(a) <= int_digits(b) {
                Ok(())
            } else {
                refuse()
            }
        }
        (a, K::Float | K::Double) if int_digits(a).is_some() => Ok(()),
        (K::Float, K::Double) => Ok(()),
        (a, K::Decimal { precision, scale }) if int_digits(a).is_some() => match int_digits(a) {
            Some(d) if precision.saturating_sub(*scale) >= d => Ok(()),
            _ => refuse(),
        },
        (
            K::Decimal {
                precision: p1,
                scale: s1,
            },
            K::Decimal {
                precision: p2,
                scale: s2,
            },
        ) => {
            if s2 >= s1 && p2.saturating_sub(*s2) >= p1.saturating_sub(*s1) {
                Ok(())
            } else {
                refuse()
            }
        }
        (a, b) if is_string(a) && is_string(b) => Ok(()),
        (a, b) if is_binary(a) && is_binary(b) => Ok(()),
        (a, b) if (int_digits(a).is_some() || *a == K::Boolean) && is_string(b) => Ok(()),
        (K::Timestamp(p), K::Timestamp(q))
        | (K::LocalZonedTimestamp(p), K::LocalZonedTimestamp(q)) => {
            if q >= p {
                Ok(())
            } else {
                refuse()
            }
        }
        (K::Array(a), K::Array(b)) | (K::Multiset(a), K::Multiset(b)) => {
            check_readable_type_change(a, b)
        }
        (K::Map { key: ka, value: va }, K::Map { key: kb, value: vb }) => {
            check_readable_type_change(ka, kb)?;
            check_readable_type_change(va, vb)
        }
        (K::Row(fa), K::Row(fb)) => {
            for b in fb {
                if let Some(a) = fa.iter().find(|a| a.id == b.id) {
                    check_readable_type_change(&a.data_type, &b.data_type)
                        .map_err(|e| format!("field `{}`: {e}", b.name))?;
                }
            }
            Ok(())
        }
        _ => refuse(),
    }
}

fn evolve_struct(
    array: &ArrayRef,
    data_fields: &[DataField],
    read_fields: &[DataField],
    targets: &arrow_schema::Fields,
    path: &str,
) -> Result<ArrayRef> {
    let Some(source) = array.as_struct_opt() else {
        return Err(mismatch(
            path,
            format!(
                "expected a struct for a ROW column, got {}",
                array.data_type()
            ),
        ));
    };
    if targets.len() != read_fields.len() {
        return Err(mismatch(path, "read type and Arrow type disagree"));
    }
    let source_names = source.fields().iter().map(|f| f.name().as_str());
    let mut children = Vec::with_capacity(read_fields.len());
    for (rf, tf) in read_fields.iter().zip(targets.iter()) {
        let child_path = format!("{path}.{}", rf.name);
        let found = data_fields.iter().find(|df| df.id == rf.id).and_then(|df| {
            find_by_name(source_names.clone(), &df.name).map(|i| (df, source.column(i)))
        });
        let child = match found {
            Some((df, column)) => evolve_to_type(
                column,
                &df.data_type,
                &rf.data_type,
                tf.data_type(),
                &child_path,
            )?,
            None => new_null_array(tf.data_type(), source.len()),
        };
        if !tf.is_nullable() {
            check_not_null_under(&child, source.nulls(), &child_path)?;
        }
        children.push(child);
    }
    let out = StructArray::try_new_with_length(
        targets.clone(),
        children,
        source.nulls().cloned(),
        source.len(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the struct: {e}")))?;
    Ok(Arc::new(out))
}

fn as_list(array: &ArrayRef, path: &str) -> Result<ArrayRef> {
    match array.data_type() {
        ArrowType::List(_) => Ok(array.clone()),
        ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            cast_to_type(array, &ArrowType::List(f.clone()), path)
        }
        other => Err(mismatch(
            path,
            format!("expected a list for an ARRAY column, got {other}"),
        )),
    }
}

fn evolve_list(
    array: &ArrayRef,
    data_element: &DataType,
    read_element: &DataType,
    element: &FieldRef,
    path: &str,
) -> Result<ArrayRef> {
    let list = as_list(array, path)?;
    let list = list.as_list::<i32>();
    let element_path = format!("{path}.{}", element.name());
    let values = evolve_array(
        list.values(),
        data_element,
        read_element,
        element,
        &element_path,
    )?;
    let out = ListArray::try_new(
        element.clone(),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )
    .map_err(|e| mismatch(path, format!("rebuilding the list: {e}")))?;
    Ok(Arc::new(out))
}

fn evolve_map(
    array: &ArrayRef,
    data: (&DataType, &DataType),
    read: (&DataType, &DataType),
    target: &ArrowType,
    path: &str,
) -> Result<ArrayRef> {
    let ArrowType::Map(entries, sorted) = target else {
        return Err(mismatch(path, format!("MAP read as {target}")));
    };
    let ArrowType::Struct(kv) = entries.data_type() else {
        return Err(mismatch(path, "map entries type is not a struct"));
    };
    let Some(map) = array.as_map_opt() else {
        return Err(mismatch(
            path,
            format!("expected a map for a MAP column, got {}", array.data_type()),
        ));
    };
    if kv.len() != 2 {
        return Err(mismatch(path, "map entries must have a key and a value"));
    }
    let key_path = format!("{path}.{}", kv[0].name());
    let value_path = format!("{path}.{}", kv[1].name());
    let keys = evolve_array(map.keys(), data.0, read.0, &kv[0], &key_path)?;
    let values = evolve_array(map.values(), data.1, read.1, &kv[1], &value_path)?;
    let entry_array = StructArray::try_new(kv.clone(), vec![keys, values], None)
        .map_err(|e| mismatch(path, format!("rebuilding map entries: {e}")))?;
    let out = MapArray::try_new(
        entries.clone(),
        map.offsets().clone(),
        entry_array,
        map.nulls().cloned(),
        *sorted,
    )
    .map_err(|e| mismatch(path, format!("rebuilding the map: {e}")))?;
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, StringArray};
    use strata_spec::types::json::parse_type_text;

    fn ty(t: &str) -> DataType {
        parse_type_text(t).unwrap()
    }

    #[test]
    fn readable_type_changes() {
        let ok = [
            ("TINYINT", "BIGINT"),
            ("INT", "BIGINT"),
            ("INT", "FLOAT"),
            ("BIGINT", "DOUBLE"),
            ("FLOAT", "DOUBLE"),
            ("INT", "DECIMAL(10, 0)"),
            ("BIGINT", "DECIMAL(21, 2)"),
            ("DECIMAL(5, 2)", "DECIMAL(10, 3)"),
            ("VARCHAR(5)", "VARCHAR(2)"),
            ("CHAR(3)", "STRING"),
            ("BYTES", "BINARY(4)"),
            ("INT", "STRING"),
            ("BOOLEAN", "VARCHAR(3)"),
            ("TIMESTAMP(3)", "TIMESTAMP(6)"),
            (
                "TIMESTAMP(3) WITH LOCAL TIME ZONE",
                "TIMESTAMP(9) WITH LOCAL TIME ZONE",
            ),
            ("ARRAY<INT>", "ARRAY<BIGINT>"),
            (
                "MAP<STRING NOT NULL, FLOAT>",
                "MAP<STRING NOT NULL, DOUBLE>",
            ),
        ];
        for (a, b) in ok {
            assert_eq!(
                check_readable_type_change(&ty(a), &ty(b)),
                Ok(()),
                "{a} -> {b}"
            );
        }
        let refused = [
            ("BIGINT", "INT"),
            ("DOUBLE", "FLOAT"),
            ("INT", "DECIMAL(9, 0)"),
            ("DECIMAL(10, 3)", "DECIMAL(10, 2)"),
            ("DECIMAL(10, 2)", "DECIMAL(10, 4)"),
            ("FLOAT", "DECIMAL(20, 2)"),
            ("DOUBLE", "STRING"),
            ("STRING", "INT"),
            ("TIMESTAMP(6)", "TIMESTAMP(3)"),
            ("TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            ("DATE", "TIMESTAMP(3)"),
            ("ARRAY<BIGINT>", "ARRAY<INT>"),
        ];
        for (a, b) in refused {
            let e = check_readable_type_change(&ty(a), &ty(b)).unwrap_err();
            assert!(e.contains(a) || e.contains("INT"), "{a} -> {b}: {e}");
        }
        // ROW fields are matched by id (the parser numbers both `x` alike).
        let rows = (ty("ROW<x BIGINT, y INT>"), ty("ROW<x INT, y BIGINT>"));
        let e = check_readable_type_change(&rows.0, &rows.1).unwrap_err();
        assert!(e.contains("field `x`"), "{e}");
    }

    #[test]
    fn lengths_follow_java_casts() {
        let strings: ArrayRef = Arc::new(StringArray::from(vec![
            Some("abcdef"),
            Some("ab"),
            None,
            Some("äöüß"),
        ]));
        let cut = fit_length(strings.clone(), &TypeKind::VarChar(3), "c").unwrap();
        let cut = cut.as_string::<i32>();
        assert_eq!(
            cut.iter().collect::<Vec<_>>(),
            [Some("abc"), Some("ab"), None, Some("äöü")]
        );
        let padded = fit_length(strings, &TypeKind::Char(3), "c").unwrap();
        assert_eq!(
            padded.as_string::<i32>().iter().collect::<Vec<_>>(),
            [Some("abc"), Some("ab "), None, Some("äöü")]
        );
        let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some(&b"\x01\x02\x03"[..]),
            Some(&b"\x01"[..]),
        ]));
        let var = fit_length(bytes.clone(), &TypeKind::VarBinary(2), "b").unwrap();
        assert_eq!(
            var.as_binary::<i32>().iter().collect::<Vec<_>>(),
            [Some(&b"\x01\x02"[..]), Some(&b"\x01"[..])]
        );
        let fixed = fit_length(bytes, &TypeKind::Binary(2), "b").unwrap();
        assert_eq!(
            fixed.as_binary::<i32>().iter().collect::<Vec<_>>(),
            [Some(&b"\x01\x02"[..]), Some(&b"\x01\x00"[..])]
        );
        // STRING and BYTES targets keep everything.
        let long: ArrayRef = Arc::new(StringArray::from(vec!["x".repeat(50)]));
        let same = fit_length(long.clone(), &TypeKind::VarChar(MAX_LENGTH), "c").unwrap();
        assert!(Arc::ptr_eq(&same, &long));
    }
}
