//! Rows → one Arrow [`RecordBatch`] for a system table: each table declares its columns as
//! Paimon [`DataField`]s (names, types and nullability of Java's `TABLE_TYPE`), pushes rows of
//! [`Cell`]s, and [`Rows::finish`] builds the columns with strata's Paimon → Arrow type mapping
//! (`format::arrow_types`, without field-id metadata). A cell that does not fit its column
//! (wrong kind, NULL in a NOT NULL column) is an error naming the table and column.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef, TimeUnit};
use strata_spec::{DataField, DataType, TypeKind};

use crate::error::ErrorDetail;
use crate::format::arrow_types::to_arrow_type;
use crate::{Error, Result};

/// One value of a system-table row.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Cell {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Str(String),
    /// TIMESTAMP(3): a local date-time as epoch millis read as UTC.
    Millis(i64),
    /// ARRAY<STRING>.
    StrList(Vec<String>),
}

impl From<Option<i64>> for Cell {
    fn from(v: Option<i64>) -> Self {
        v.map_or(Cell::Null, Cell::Long)
    }
}

impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Self {
        v.map_or(Cell::Null, Cell::Str)
    }
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Long(v)
    }
}

impl From<i32> for Cell {
    fn from(v: i32) -> Self {
        Cell::Int(v)
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Str(v)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Str(v.to_string())
    }
}

/// A column of a system table: `DataField` with id = position, like Java's `TABLE_TYPE`.
pub(super) fn col(id: i32, name: &str, kind: TypeKind, nullable: bool) -> DataField {
    DataField::new(id, name, DataType::new(kind, nullable))
}

/// `STRING` (`VARCHAR(2147483647)`).
pub(super) fn string() -> TypeKind {
    DataType::string().kind
}

/// The Arrow schema of a system table's columns.
pub(super) fn arrow_schema(fields: &[DataField]) -> Result<SchemaRef> {
    let arrow: Vec<Field> = fields
        .iter()
        .map(|f| {
            Ok(Field::new(
                &f.name,
                to_arrow_type(&f.data_type)?,
                f.data_type.nullable,
            ))
        })
        .collect::<Result<_>>()?;
    Ok(Arc::new(Schema::new(arrow)))
}

/// The rows of one system table being built.
pub(super) struct Rows {
    table: String,
    fields: Vec<DataField>,
    rows: Vec<Vec<Cell>>,
}

impl Rows {
    /// Rows of system table `table` (e.g. `db.t$files`, for errors) with columns `fields`.
    pub(super) fn new(table: String, fields: Vec<DataField>) -> Rows {
        Rows {
            table,
            fields,
            rows: Vec::new(),
        }
    }

    /// Appends one row (one cell per column).
    pub(super) fn push(&mut self, row: Vec<Cell>) -> Result<()> {
        if row.len() != self.fields.len() {
            return Err(ErrorDetail::Invariant(format!(
                "{}: a row of {} values for {} columns",
                self.table,
                row.len(),
                self.fields.len()
            ))
            .into());
        }
        self.rows.push(row);
        Ok(())
    }

    /// The Arrow batch of the rows pushed.
    pub(super) fn finish(self) -> Result<RecordBatch> {
        let schema = arrow_schema(&self.fields)?;
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.fields.len());
        for (i, (field, arrow)) in self.fields.iter().zip(schema.fields()).enumerate() {
            columns.push(self.column(i, field, arrow)?);
        }
        RecordBatch::try_new(schema, columns)
            .map_err(|e| Error::arrow(format!("building system table {}", self.table), e))
    }

    fn column(&self, i: usize, field: &DataField, arrow: &Field) -> Result<ArrayRef> {
        let n = self.rows.len();
        let cells = self.rows.iter().map(|r| &r[i]);
        let bad = |c: &Cell| {
            ErrorDetail::Invariant(format!(
                "system table {} column {} ({}): cannot hold {c:?}",
                self.table, field.name, field.data_type
            ))
            .into()
        };
        if !field.data_type.nullable {
            if let Some(c) = self.rows.iter().map(|r| &r[i]).find(|c| **c == Cell::Null) {
                return Err(bad(c));
            }
        }
        Ok(match arrow.data_type() {
            ArrowType::Boolean => {
                let mut b = BooleanBuilder::with_capacity(n);
                for c in cells {
                    match c {
                        Cell::Bool(v) => b.append_value(*v),
                        Cell::Null => b.append_null(),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            ArrowType::Int32 => {
                let mut b = Int32Builder::with_capacity(n);
                for c in cells {
                    match c {
                        Cell::Int(v) => b.append_value(*v),
                        Cell::Null => b.append_null(),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            ArrowType::Int64 => {
                let mut b = Int64Builder::with_capacity(n);
                for c in cells {
                    match c {
                        Cell::Long(v) => b.append_value(*v),
                        Cell::Null => b.append_null(),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            ArrowType::Utf8 => {
                let mut b = StringBuilder::with_capacity(n, n * 16);
                for c in cells {
                    match c {
                        Cell::Str(v) => b.append_value(v),
                        Cell::Null => b.append_null(),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            ArrowType::Timestamp(TimeUnit::Millisecond, None) => {
                let mut b = TimestampMillisecondBuilder::with_capacity(n);
                for c in cells {
                    match c {
                        Cell::Millis(v) => b.append_value(*v),
                        Cell::Null => b.append_null(),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            ArrowType::List(element) if element.data_type() == &ArrowType::Utf8 => {
                let mut b = ListBuilder::new(StringBuilder::new()).with_field(element.clone());
                for c in cells {
                    match c {
                        Cell::StrList(vs) => {
                            for v in vs {
                                b.values().append_value(v);
                            }
                            b.append(true);
                        }
                        Cell::Null => b.append(false),
                        other => return Err(bad(other)),
                    }
                }
                Arc::new(b.finish())
            }
            other => {
                return Err(ErrorDetail::Invariant(format!(
                    "system table {} column {}: no builder for Arrow type {other}",
                    self.table, field.name
                ))
                .into())
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn builds_typed_columns_and_rejects_misfits() {
        let fields = vec![
            col(0, "a", TypeKind::BigInt, false),
            col(1, "b", string(), true),
            col(2, "c", TypeKind::Timestamp(3), true),
            col(3, "d", TypeKind::Array(Box::new(DataType::string())), true),
            col(4, "e", TypeKind::Boolean, false),
            col(5, "f", TypeKind::Int, false),
        ];
        let mut rows = Rows::new("db.t$x".into(), fields.clone());
        rows.push(vec![
            Cell::Long(1),
            Cell::Str("x".into()),
            Cell::Millis(5),
            Cell::StrList(vec!["p".into(), "q".into()]),
            Cell::Bool(true),
            Cell::Int(3),
        ])
        .unwrap();
        rows.push(vec![
            Cell::Long(2),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Bool(false),
            Cell::Int(4),
        ])
        .unwrap();
        let b = rows.finish().unwrap();
        assert_eq!(b.num_rows(), 2);
        assert_eq!(
            b.schema().field(2).data_type(),
            &ArrowType::Timestamp(TimeUnit::Millisecond, None)
        );
        assert!(!b.schema().field(0).is_nullable());
        assert!(b.column(3).is_null(1));

        let mut rows = Rows::new("db.t$x".into(), fields.clone());
        rows.push(vec![
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            Cell::Bool(true),
            Cell::Int(1),
        ])
        .unwrap();
        let err = rows.finish().unwrap_err().to_string();
        assert!(err.contains("db.t$x") && err.contains("column a"), "{err}");
        let mut rows = Rows::new("db.t$x".into(), fields);
        assert!(rows.push(vec![Cell::Null]).is_err());
    }
}
