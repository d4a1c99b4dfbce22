//! Key-value records of primary-key tables: [`RowKind`] and the physical column layout of
//! key-value data files (Java `KeyValue.createKeyValueFields`).
//!
//! A primary-key table's data file holds, in order: one `_KEY_<pk>` column per *trimmed*
//! primary-key field (primary keys minus partition keys; field id = source id + 1073741823),
//! `_SEQUENCE_NUMBER` (BIGINT NOT NULL, id 2147483646), `_VALUE_KIND` (TINYINT NOT NULL, id
//! 2147483645), then every table column in schema order with its own id.

use crate::schema::TableSchema;
use crate::types::{DataField, DataType, TypeKind};
use crate::{Result, SpecError};

/// Prefix of key columns in key-value files.
pub const KEY_FIELD_PREFIX: &str = "_KEY_";
/// Offset added to a field id to get the id of its `_KEY_` column (`Integer.MAX_VALUE / 2`).
pub const KEY_FIELD_ID_START: i32 = i32::MAX / 2;
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
pub const SEQUENCE_NUMBER_ID: i32 = i32::MAX - 1;
pub const VALUE_KIND: &str = "_VALUE_KIND";
pub const VALUE_KIND_ID: i32 = i32::MAX - 2;
/// `_ROW_ID` of row-tracking tables (Java `SpecialFields.ROW_ID`).
pub const ROW_ID: &str = "_ROW_ID";
/// Field id of `_ROW_ID`: `Integer.MAX_VALUE - 5`.
pub const ROW_ID_ID: i32 = i32::MAX - 5;

/// `_ROW_ID` and `_SEQUENCE_NUMBER`, both `BIGINT NOT NULL`: the columns Java's
/// `SpecialFields.rowTypeWithRowTracking` appends to a row-tracking table's row type.
pub fn row_tracking_fields() -> [DataField; 2] {
    [
        DataField::new(ROW_ID_ID, ROW_ID, DataType::new(TypeKind::BigInt, false)),
        DataField::new(
            SEQUENCE_NUMBER_ID,
            SEQUENCE_NUMBER,
            DataType::new(TypeKind::BigInt, false),
        ),
    ]
}

/// Paimon's `RowKind`: the change a record carries. The byte is what `_VALUE_KIND` stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKind {
    /// `+I`
    Insert,
    /// `-U`
    UpdateBefore,
    /// `+U`
    UpdateAfter,
    /// `-D`
    Delete,
}

impl RowKind {
    pub fn to_byte(self) -> i8 {
        match self {
            RowKind::Insert => 0,
            RowKind::UpdateBefore => 1,
            RowKind::UpdateAfter => 2,
            RowKind::Delete => 3,
        }
    }

    pub fn from_byte(b: i8) -> Result<Self> {
        Ok(match b {
            0 => RowKind::Insert,
            1 => RowKind::UpdateBefore,
            2 => RowKind::UpdateAfter,
            3 => RowKind::Delete,
            other => {
                return Err(SpecError::invalid(
                    VALUE_KIND,
                    format!("unknown value {other} (expected 0 +I, 1 -U, 2 +U or 3 -D)"),
                ))
            }
        })
    }

    /// `+I`, `-U`, `+U`, `-D` (Paimon's short strings, used by `rowkind.field`).
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// Parses `+I`/`-U`/`+U`/`-D` (Java `RowKind.fromShortString`).
    pub fn from_short_string(s: &str) -> Result<Self> {
        Ok(match s {
            "+I" => RowKind::Insert,
            "-U" => RowKind::UpdateBefore,
            "+U" => RowKind::UpdateAfter,
            "-D" => RowKind::Delete,
            other => {
                return Err(SpecError::invalid(
                    "row kind",
                    format!("unknown row kind '{other}' (expected +I, -U, +U or -D)"),
                ))
            }
        })
    }

    /// `+I` and `+U` add; `-U` and `-D` retract.
    pub fn is_add(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }

    pub fn is_retract(self) -> bool {
        !self.is_add()
    }
}

impl std::fmt::Display for RowKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short_string())
    }
}

/// The `_KEY_` fields of a table: its trimmed primary-key fields renamed and re-numbered.
pub fn key_fields(schema: &TableSchema) -> Result<Vec<DataField>> {
    let row_type = schema.row_type();
    schema
        .trimmed_primary_keys()
        .iter()
        .map(|name| {
            let f = row_type.field(name).ok_or_else(|| {
                SpecError::invalid("schema", format!("primary key {name} is not a column"))
            })?;
            Ok(DataField::new(
                KEY_FIELD_ID_START + f.id,
                format!("{KEY_FIELD_PREFIX}{}", f.name),
                f.data_type.clone(),
            ))
        })
        .collect()
}

/// Every physical column of a key-value data file, in file order.
pub fn key_value_fields(schema: &TableSchema) -> Result<Vec<DataField>> {
    let mut out = key_fields(schema)?;
    out.push(DataField::new(
        SEQUENCE_NUMBER_ID,
        SEQUENCE_NUMBER,
        DataType::not_null(TypeKind::BigInt),
    ));
    out.push(DataField::new(
        VALUE_KIND_ID,
        VALUE_KIND,
        DataType::not_null(TypeKind::TinyInt),
    ));
    out.extend(schema.fields.iter().cloned());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_kind_round_trips() {
        for k in [
            RowKind::Insert,
            RowKind::UpdateBefore,
            RowKind::UpdateAfter,
            RowKind::Delete,
        ] {
            assert_eq!(RowKind::from_byte(k.to_byte()).unwrap(), k);
            assert_eq!(RowKind::from_short_string(k.short_string()).unwrap(), k);
        }
        assert!(RowKind::from_byte(4).is_err());
        assert!(RowKind::from_short_string("+X").is_err());
        assert!(RowKind::Insert.is_add() && RowKind::UpdateAfter.is_add());
        assert!(RowKind::Delete.is_retract() && RowKind::UpdateBefore.is_retract());
    }
}
