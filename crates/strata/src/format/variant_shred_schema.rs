//! The physical layout of shredded VARIANT columns for writing: `variant.shreddingSchema`
//! (fallback key `parquet.variant.shreddingSchema`) parsed and turned into the Parquet group
//! Java Paimon 2.0 writes (`VariantShreddingWritePlan.fromConfiguredSchema`,
//! `PaimonShreddingUtils.variantShreddingSchema`).
//!
//! The option is a JSON Paimon `ROW` type (fields without ids are numbered from 0 in document
//! order, as Java's `DataTypeJsonParser`); its top-level fields name VARIANT columns and their
//! types describe the paths to shred. A column `v` (field id `n`) shredded as `T` is written
//! as the nullable group (ids as Java's `RowType.builder()` gives them, from 0 at each level)
//!
//! ```text
//! v = n { metadata BYTES NOT NULL = 0, value BYTES = 1, typed_value T' = 2 }
//! ```
//!
//! where `T'` is `T` for a scalar, `ROW<f: {value, typed_value} NOT NULL, …>` for a `ROW`
//! (each field keeping its id and name from the option), `ARRAY<{value, typed_value}>` for an
//! `ARRAY`; a `VARIANT` branch keeps only `value` (nullable as an object field, required
//! elsewhere). Java's `buildVariantSchema` then rejects what its shredder cannot fill (CHAR,
//! VARBINARY / BYTES); every refusal reads `Invalid variant shredding schema: <type>` as Java's.
//! Typed values declared `NOT NULL` are refused too: Java's writer fails on the first value
//! that does not fit them.

use std::sync::Arc;

use strata_spec::types::{DataField, DataType, TypeKind};

use crate::error::ErrorDetail;
use crate::Result;

/// `variant.shreddingSchema` (Java `CoreOptions.VARIANT_SHREDDING_SCHEMA`).
pub(crate) const SHREDDING_SCHEMA_KEY: &str = "variant.shreddingSchema";
/// Its fallback key.
pub(crate) const SHREDDING_SCHEMA_FALLBACK_KEY: &str = "parquet.variant.shreddingSchema";

const METADATA: &str = "metadata";
const VALUE: &str = "value";
const TYPED_VALUE: &str = "typed_value";

fn invalid(t: &DataType) -> crate::Error {
    ErrorDetail::InvalidOption {
        key: SHREDDING_SCHEMA_KEY.into(),
        message: format!("Invalid variant shredding schema: {t}"),
    }
    .into()
}

/// The configured shredding schema: one entry per VARIANT column it names.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VariantShreddingSchema {
    fields: Arc<Vec<DataField>>,
}

impl VariantShreddingSchema {
    /// Parses the option text (a JSON `ROW` type) and checks every column's type can be
    /// shredded.
    pub(crate) fn parse(text: &str) -> Result<Self> {
        let bad = |message: String| -> crate::Error {
            ErrorDetail::InvalidOption {
                key: SHREDDING_SCHEMA_KEY.into(),
                message,
            }
            .into()
        };
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let t = strata_spec::types::json::parse_type(&json)
            .map_err(|e| bad(format!("not a Paimon data type: {e}")))?;
        let TypeKind::Row(fields) = t.kind else {
            return Err(bad(format!("expected a ROW type, found {t}")));
        };
        for f in &fields {
            physical_type(&f.data_type)?;
        }
        Ok(VariantShreddingSchema {
            fields: Arc::new(fields),
        })
    }

    /// A schema of `fields` (an inferred one), checked like a parsed one.
    pub(crate) fn from_fields(fields: Vec<DataField>) -> Result<Self> {
        for f in &fields {
            physical_type(&f.data_type)?;
        }
        Ok(VariantShreddingSchema {
            fields: Arc::new(fields),
        })
    }

    /// The schema from table options (`variant.shreddingSchema`, else its fallback key).
    pub(crate) fn from_options<'a>(
        lookup: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<Option<Self>> {
        lookup(SHREDDING_SCHEMA_KEY)
            .or_else(|| lookup(SHREDDING_SCHEMA_FALLBACK_KEY))
            .map(Self::parse)
            .transpose()
    }

    /// The configured type of column `name`, if the schema shreds it.
    pub(crate) fn column(&self, name: &str) -> Option<&DataType> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| &f.data_type)
    }
}

/// The physical type of a VARIANT column shredded as `t` (a nullable group).
pub(crate) fn physical_type(t: &DataType) -> Result<DataType> {
    let physical = shredding_type(t, true, false)?;
    check(&physical, true)?;
    Ok(physical)
}

fn bytes(nullable: bool) -> DataType {
    DataType::bytes().with_nullable(nullable)
}

/// Java's `variantShreddingSchema(dataType, isTopLevel, isObjectField)`.
fn shredding_type(t: &DataType, top: bool, object_field: bool) -> Result<DataType> {
    let mut fields: Vec<DataField> = Vec::new();
    let mut push = |name: &str, t: DataType| {
        let id = fields.len() as i32;
        fields.push(DataField::new(id, name, t));
    };
    if top {
        push(METADATA, bytes(false));
    }
    match &t.kind {
        TypeKind::Array(element) => {
            let element = shredding_type(element, false, false)?;
            push(VALUE, bytes(true));
            push(
                TYPED_VALUE,
                DataType::new(TypeKind::Array(Box::new(element)), t.nullable),
            );
        }
        TypeKind::Row(row) => {
            let shredded = row
                .iter()
                .map(|f| {
                    Ok(DataField {
                        data_type: shredding_type(&f.data_type, false, true)?.with_nullable(false),
                        ..f.clone()
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            push(VALUE, bytes(true));
            push(
                TYPED_VALUE,
                DataType::new(TypeKind::Row(shredded), t.nullable),
            );
        }
        TypeKind::Variant => push(VALUE, bytes(object_field)),
        TypeKind::Char(_)
        | TypeKind::VarChar(_)
        | TypeKind::Boolean
        | TypeKind::Binary(_)
        | TypeKind::VarBinary(_)
        | TypeKind::Decimal { .. }
        | TypeKind::TinyInt
        | TypeKind::SmallInt
        | TypeKind::Int
        | TypeKind::BigInt
        | TypeKind::Float
        | TypeKind::Double => {
            push(VALUE, bytes(true));
            push(TYPED_VALUE, t.clone());
        }
        _ => return Err(invalid(t)),
    }
    Ok(DataType::nullable(TypeKind::Row(fields)))
}

/// Java's `buildVariantSchema`: what the shredder can fill.
fn check(group: &DataType, top: bool) -> Result<()> {
    let TypeKind::Row(fields) = &group.kind else {
        return Err(invalid(group));
    };
    if fields.is_empty() {
        return Err(invalid(group));
    }
    let mut metadata = false;
    for f in fields {
        match f.name.as_str() {
            TYPED_VALUE => {
                let t = &f.data_type;
                match &t.kind {
                    TypeKind::Row(children) => {
                        if children.is_empty() {
                            return Err(invalid(group));
                        }
                        for c in children {
                            check(&c.data_type, false)?;
                        }
                    }
                    TypeKind::Array(element) => check(element, false)?,
                    TypeKind::Boolean
                    | TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::Float
                    | TypeKind::Double
                    | TypeKind::VarChar(_)
                    | TypeKind::Binary(_)
                    | TypeKind::Decimal { .. } => {
                        if !t.nullable {
                            return Err(ErrorDetail::InvalidOption {
                                key: SHREDDING_SCHEMA_KEY.into(),
                                message: format!(
                                    "shredded type {t} is NOT NULL: values that do not fit it \
                                     are kept in `value`, so typed values must be nullable"
                                ),
                            }
                            .into());
                        }
                    }
                    _ => return Err(invalid(group)),
                }
            }
            VALUE => {}
            METADATA => metadata = true,
            _ => return Err(invalid(group)),
        }
    }
    if top != metadata {
        return Err(invalid(group));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_example_gets_java_ids_and_layout() {
        let s = VariantShreddingSchema::parse(
            r#"{"type":"ROW","fields":[{"name":"payload","type":{"type":"ROW","fields":[{"name":"user_id","type":"BIGINT"},{"name":"city","type":"STRING"}]}}]}"#,
        )
        .unwrap();
        let p = physical_type(s.column("payload").unwrap()).unwrap();
        assert_eq!(
            p.to_string(),
            "ROW<`metadata` BYTES NOT NULL, `value` BYTES, `typed_value` ROW<`user_id` ROW<`value` BYTES, `typed_value` BIGINT> NOT NULL, `city` ROW<`value` BYTES, `typed_value` STRING> NOT NULL>>"
        );
        let TypeKind::Row(top) = &p.kind else {
            panic!()
        };
        assert_eq!(top.iter().map(|f| f.id).collect::<Vec<_>>(), [0, 1, 2]);
        let TypeKind::Row(typed) = &top[2].data_type.kind else {
            panic!()
        };
        // The option's own ids (payload 0, user_id 1, city 2).
        assert_eq!(typed.iter().map(|f| f.id).collect::<Vec<_>>(), [1, 2]);
        assert!(s.column("other").is_none());
    }

    #[test]
    fn refuses_what_java_refuses() {
        for t in [
            "BYTES",
            "CHAR(3)",
            "DATE",
            "TIMESTAMP(3)",
            "MAP<STRING, INT>",
            "INT NOT NULL",
        ] {
            let json = format!(r#"{{"type":"ROW","fields":[{{"name":"v","type":"{t}"}}]}}"#);
            let err = VariantShreddingSchema::parse(&json)
                .unwrap_err()
                .to_string();
            assert!(err.contains("variant.shreddingSchema"), "{t}: {err}");
        }
        assert!(VariantShreddingSchema::parse("INT").is_err());
        assert!(VariantShreddingSchema::parse(r#""INT""#).is_err());
    }

    #[test]
    fn variant_branch_and_arrays() {
        let s = VariantShreddingSchema::parse(
            r#"{"type":"ROW","fields":[{"name":"v","type":{"type":"ARRAY","element":{"type":"ROW","fields":[{"name":"x","type":"VARIANT"}]}}}]}"#,
        )
        .unwrap();
        let p = physical_type(s.column("v").unwrap()).unwrap();
        assert_eq!(
            p.to_string(),
            "ROW<`metadata` BYTES NOT NULL, `value` BYTES, `typed_value` ARRAY<ROW<`value` BYTES, `typed_value` ROW<`x` ROW<`value` BYTES> NOT NULL>>>>"
        );
        let top = physical_type(&DataType::nullable(TypeKind::Variant)).unwrap();
        assert_eq!(
            top.to_string(),
            "ROW<`metadata` BYTES NOT NULL, `value` BYTES NOT NULL>"
        );
    }
}
