//! The SQL text of a type, as Java's `asSQLString` writes it: [`atomic_type_text`] and
//! `Display` for [`DataType`] (`INT NOT NULL`, `ARRAY<STRING>`, `ROW<`a` INT>`). A leaf over the
//! type model, used by the JSON codec and by every message that names a type.

use std::fmt;

use super::{DataType, TypeKind, MAX_LENGTH};

/// SQL text of a type kind without nullability, as Java's `asSQLString` writes it:
/// `INT`, `DECIMAL(10, 2)`, `STRING`, `VARCHAR(5)`, `BYTES`, `TIMESTAMP(6)`,
/// `TIMESTAMP(3) WITH LOCAL TIME ZONE`; nested kinds render as `ARRAY<INT>`,
/// `MAP<STRING, BIGINT>`, `ROW<`a` INT>`.
pub fn atomic_type_text(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Boolean => "BOOLEAN".into(),
        TypeKind::TinyInt => "TINYINT".into(),
        TypeKind::SmallInt => "SMALLINT".into(),
        TypeKind::Int => "INT".into(),
        TypeKind::BigInt => "BIGINT".into(),
        TypeKind::Float => "FLOAT".into(),
        TypeKind::Double => "DOUBLE".into(),
        TypeKind::Decimal { precision, scale } => format!("DECIMAL({precision}, {scale})"),
        TypeKind::Char(n) => format!("CHAR({n})"),
        TypeKind::VarChar(n) if *n == MAX_LENGTH => "STRING".into(),
        TypeKind::VarChar(n) => format!("VARCHAR({n})"),
        TypeKind::Binary(n) => format!("BINARY({n})"),
        TypeKind::VarBinary(n) if *n == MAX_LENGTH => "BYTES".into(),
        TypeKind::VarBinary(n) => format!("VARBINARY({n})"),
        TypeKind::Date => "DATE".into(),
        TypeKind::Time(p) => format!("TIME({p})"),
        TypeKind::Timestamp(p) => format!("TIMESTAMP({p})"),
        TypeKind::LocalZonedTimestamp(p) => format!("TIMESTAMP({p}) WITH LOCAL TIME ZONE"),
        TypeKind::Variant => "VARIANT".into(),
        TypeKind::Blob => "BLOB".into(),
        TypeKind::Array(_) | TypeKind::Multiset(_) | TypeKind::Map { .. } | TypeKind::Row(_) => {
            // Display of the nullable form renders the nested SQL text.
            DataType::nullable(kind.clone()).to_string()
        }
    }
}

impl fmt::Display for DataType {
    /// SQL text as Paimon's `asSQLString` renders it, e.g. `DECIMAL(10, 2) NOT NULL`,
    /// `ARRAY<INT>`, `MAP<STRING, BIGINT>`, `ROW<a INT, b STRING>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Array(e) => write!(f, "ARRAY<{e}>")?,
            TypeKind::Multiset(e) => write!(f, "MULTISET<{e}>")?,
            TypeKind::Map { key, value } => write!(f, "MAP<{key}, {value}>")?,
            TypeKind::Row(fields) => {
                write!(f, "ROW<")?;
                for (i, fl) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "`{}` {}", fl.name, fl.data_type)?;
                }
                write!(f, ">")?;
            }
            _ => f.write_str(&atomic_type_text(&self.kind))?,
        }
        if !self.nullable {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}
