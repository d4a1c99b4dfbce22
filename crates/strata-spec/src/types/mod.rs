//! Paimon's logical data types (`org.apache.paimon.types.*`).
//!
//! A [`DataType`] is a [`TypeKind`] plus nullability, exactly as Paimon models it: nullability
//! belongs to every type, including the element/key/value types of ARRAY, MAP and MULTISET and
//! the fields of a nested ROW. [`DataField`] carries the field id that ties columns across schema
//! versions and into Parquet field ids.
//!
//! The JSON text form used in `schema/schema-N` lives in [`json`]; which type changes Paimon
//! allows (Java's `DataTypeCasts` and `CastExecutors`) in [`casts`]; column default values read
//! as values of their type (`DefaultValueUtils`) in [`default_value`].

pub mod casts;
pub mod default_value;
pub mod json;
mod type_text;

/// Maximum length of VARCHAR/VARBINARY; `VARCHAR(2147483647)` is written `STRING`.
pub const MAX_LENGTH: u32 = i32::MAX as u32;

/// A Paimon data type: the kind and whether NULL is allowed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataType {
    pub kind: TypeKind,
    pub nullable: bool,
}

/// The kind of a [`DataType`], with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    /// DECIMAL(precision, scale); precision 1..=38.
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// CHAR(n)
    Char(u32),
    /// VARCHAR(n); `STRING` is `VarChar(MAX_LENGTH)`.
    VarChar(u32),
    /// BINARY(n)
    Binary(u32),
    /// VARBINARY(n); `BYTES` is `VarBinary(MAX_LENGTH)`.
    VarBinary(u32),
    /// Days since 1970-01-01.
    Date,
    /// TIME(p): milliseconds of the day.
    Time(u32),
    /// TIMESTAMP(p) without time zone (a local date-time).
    Timestamp(u32),
    /// TIMESTAMP(p) WITH LOCAL TIME ZONE (an instant).
    LocalZonedTimestamp(u32),
    Array(Box<DataType>),
    Multiset(Box<DataType>),
    Map {
        key: Box<DataType>,
        value: Box<DataType>,
    },
    Row(Vec<DataField>),
    Variant,
    Blob,
}

impl DataType {
    pub fn new(kind: TypeKind, nullable: bool) -> Self {
        DataType { kind, nullable }
    }
    pub fn nullable(kind: TypeKind) -> Self {
        DataType {
            kind,
            nullable: true,
        }
    }
    pub fn not_null(kind: TypeKind) -> Self {
        DataType {
            kind,
            nullable: false,
        }
    }
    /// Same type with the given nullability.
    pub fn with_nullable(&self, nullable: bool) -> Self {
        DataType {
            kind: self.kind.clone(),
            nullable,
        }
    }
    pub fn string() -> Self {
        Self::nullable(TypeKind::VarChar(MAX_LENGTH))
    }
    pub fn bytes() -> Self {
        Self::nullable(TypeKind::VarBinary(MAX_LENGTH))
    }

    /// True for types whose BinaryRow value fits in the 8-byte fixed slot
    /// (`BinaryRow.isInFixedLengthPart` in Java).
    pub fn is_fixed_length(&self) -> bool {
        match &self.kind {
            TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Date
            | TypeKind::Time(_) => true,
            TypeKind::Decimal { precision, .. } => *precision <= 18,
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => *p <= 3,
            _ => false,
        }
    }

    /// True for CHAR/VARCHAR/STRING.
    pub fn is_string(&self) -> bool {
        matches!(self.kind, TypeKind::Char(_) | TypeKind::VarChar(_))
    }

    /// True for BINARY/VARBINARY/BYTES/BLOB.
    pub fn is_binary(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob
        )
    }

    /// True for ARRAY, MAP, MULTISET, ROW, VARIANT: types without min/max statistics and
    /// that cannot be partition or key columns in practice.
    pub fn is_nested(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Array(_)
                | TypeKind::Multiset(_)
                | TypeKind::Map { .. }
                | TypeKind::Row(_)
                | TypeKind::Variant
        )
    }
}

/// A named, id-carrying field of a ROW type or of a table schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataField {
    /// Field id, stable across schema versions (renames keep it, re-adds get a new one).
    pub id: i32,
    pub name: String,
    pub data_type: DataType,
    pub description: Option<String>,
    pub default_value: Option<String>,
}

impl DataField {
    pub fn new(id: i32, name: impl Into<String>, data_type: DataType) -> Self {
        DataField {
            id,
            name: name.into(),
            data_type,
            description: None,
            default_value: None,
        }
    }
}

/// An ordered list of fields: a table's columns, a partition type, a key type.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowType {
    pub fields: Vec<DataField>,
}

impl RowType {
    pub fn new(fields: Vec<DataField>) -> Self {
        RowType { fields }
    }
    pub fn len(&self) -> usize {
        self.fields.len()
    }
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
    /// Index of the field called `name` (exact match).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }
    pub fn field_by_id(&self, id: i32) -> Option<&DataField> {
        self.fields.iter().find(|f| f.id == id)
    }
    pub fn types(&self) -> Vec<DataType> {
        self.fields.iter().map(|f| f.data_type.clone()).collect()
    }
    pub fn names(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.name.clone()).collect()
    }
    /// The sub-row of the named fields, in the given order.
    pub fn project(&self, names: &[String]) -> Option<RowType> {
        names
            .iter()
            .map(|n| self.field(n).cloned())
            .collect::<Option<Vec<_>>>()
            .map(RowType::new)
    }
}
