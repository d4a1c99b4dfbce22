//! Writing shredded VARIANT columns: each configured column of a batch (`Struct{value,
//! metadata}`, the unshredded variant binary) converted into its physical group
//! ([`super::variant_shred_schema`]) as Java's `VariantShreddingWriter.castShredded` does it
//! (with `PaimonShreddedResultBuilder`, which allows numeric scale changes):
//!
//! - the row's `metadata` is copied as is (it keeps every key, shredded ones included);
//! - a shredded object takes the value's fields named in the schema into `typed_value` (fields
//!   the value lacks get an empty group: `value` and `typed_value` null) and keeps the others,
//!   their bytes and dictionary ids unchanged, in a residual object in `value` (null when none);
//! - a shredded array shreds every element;
//! - a scalar goes into `typed_value` when it fits the type: integers into an integer type
//!   that holds them or a decimal whose precision does; decimals into a decimal (same scale,
//!   or rescaled without loss) or into an integer type when whole; booleans, strings, doubles,
//!   floats and binaries into their own type only;
//! - anything else (including a value of another shape than the schema) stays in `value`.
//!
//! [`VariantShredder`] converts whole batches for the Parquet writer; `unshred` of the read
//! side (`super::variant_shredding`) is its inverse.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, BooleanBufferBuilder, BooleanBuilder, Decimal128Builder,
    Float32Builder, Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder,
    StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef};

use super::arrow_types::{field_id_of, to_arrow_field};
use super::variant_encode::{container, dictionary, encode_object, slice, Primitive};
use super::variant_shred_adaptive::{ColumnEvidence, InferenceSession};
use super::variant_shred_infer::{analyze_column, infer, InferOptions};
use super::variant_shred_schema::{physical_type, VariantShreddingSchema};
use crate::error::ErrorDetail;
use crate::{Error, Result};
use strata_spec::types::DataField;

fn bad(column: &str, why: impl std::fmt::Display) -> Error {
    ErrorDetail::SchemaMismatch {
        column: column.to_string(),
        message: format!("cannot shred VARIANT value: {why}"),
    }
    .into()
}

/// Whether an Arrow field is a VARIANT column (`Struct{value, metadata}`, binaries NOT NULL
/// with ids 0 and 1, as [`super::arrow_types`] maps VARIANT).
fn is_variant(f: &Field) -> bool {
    let ArrowType::Struct(children) = f.data_type() else {
        return false;
    };
    children.len() == 2
        && children.iter().enumerate().all(|(i, c)| {
            c.name() == ["value", "metadata"][i]
                && c.data_type() == &ArrowType::Binary
                && !c.is_nullable()
                && field_id_of(c) == Some(i as i32)
        })
}

/// Converts the shredded VARIANT columns of a file's batches to their physical layout.
#[derive(Debug)]
pub(crate) struct VariantShredder {
    physical: SchemaRef,
    /// Indices of the shredded columns.
    columns: Vec<usize>,
}

impl VariantShredder {
    /// The shredder for a file of `schema` (the logical Arrow schema): every top-level VARIANT
    /// column named in `shredding` is shredded (Java `configuredPhysicalRowType`); other
    /// columns are written as given.
    pub(crate) fn new(schema: &SchemaRef, shredding: &VariantShreddingSchema) -> Result<Self> {
        let mut columns = Vec::new();
        let mut fields: Vec<FieldRef> = Vec::with_capacity(schema.fields().len());
        for (i, f) in schema.fields().iter().enumerate() {
            match shredding.column(f.name()).filter(|_| is_variant(f)) {
                Some(t) => {
                    let id =
                        field_id_of(f).ok_or_else(|| bad(f.name(), "column has no field id"))?;
                    let physical = DataField::new(id, f.name().clone(), physical_type(t)?);
                    fields.push(Arc::new(to_arrow_field(&physical)?));
                    columns.push(i);
                }
                None => fields.push(f.clone()),
            }
        }
        Ok(VariantShredder {
            physical: Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
            columns,
        })
    }

    /// Whether `schema` has top-level VARIANT columns for inference to shred. A VARIANT nested
    /// in a ROW column (which Java's inference shreds too) is refused by name.
    pub(crate) fn has_variant_columns(schema: &SchemaRef) -> Result<bool> {
        fn nested(f: &Field) -> bool {
            match f.data_type() {
                ArrowType::Struct(children) if !is_variant(f) => {
                    children.iter().any(|c| is_variant(c) || nested(c))
                }
                _ => false,
            }
        }
        if let Some(f) = schema.fields().iter().find(|f| nested(f)) {
            return Err(ErrorDetail::Unsupported(format!(
                "variant.inferShreddingSchema with a VARIANT nested in ROW column {}: \
                 strata infers shredding schemas of top-level VARIANT columns only",
                f.name()
            ))
            .into());
        }
        Ok(schema.fields().iter().any(|f| is_variant(f)))
    }

    /// The shredder of a file whose VARIANT columns are shredded by the schema inferred from
    /// the first `sample` rows of `batches` (Java's `InferVariantShreddingSchema`); with an
    /// adaptive `session`, from them and the evidence of the writer's earlier files.
    pub(crate) fn inferred(
        schema: &SchemaRef,
        batches: &[RecordBatch],
        sample: usize,
        options: &InferOptions,
        session: Option<&mut InferenceSession>,
    ) -> Result<Self> {
        let all = arrow::compute::concat_batches(schema, batches)
            .map_err(|e| bad("*", format!("buffered rows: {e}")))?;
        let rows = all.slice(0, sample.min(all.num_rows()));
        let indices: Vec<usize> = (0..schema.fields().len())
            .filter(|i| is_variant(schema.field(*i)))
            .collect();
        let columns = indices
            .iter()
            .map(|i| {
                rows.column(*i)
                    .as_struct_opt()
                    .ok_or_else(|| bad(schema.field(*i).name(), "not a struct"))
            })
            .collect::<Result<Vec<_>>>()?;
        let types = match session {
            None => infer(&columns, options)?,
            Some(session) => {
                let evidence = columns
                    .iter()
                    .map(|c| {
                        let (count, observed) = analyze_column(c, options.max_depth)?;
                        Ok(ColumnEvidence { count, observed })
                    })
                    .collect::<Result<Vec<_>>>()?;
                session.infer(evidence)?
            }
        };
        let fields = indices
            .iter()
            .zip(types)
            .map(|(i, t)| DataField::new(*i as i32, schema.field(*i).name().clone(), t))
            .collect();
        Self::new(schema, &VariantShreddingSchema::from_fields(fields)?)
    }

    /// The file's physical schema.
    pub(crate) fn physical_schema(&self) -> &SchemaRef {
        &self.physical
    }

    /// `batch` (logical schema) in the physical layout.
    pub(crate) fn convert(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        if self.columns.is_empty() {
            return Ok(batch.clone());
        }
        let mut columns = batch.columns().to_vec();
        for &i in &self.columns {
            let field = self.physical.field(i);
            let source = batch.column(i).as_struct_opt().ok_or_else(|| {
                bad(
                    field.name(),
                    format!("column has type {}", batch.column(i).data_type()),
                )
            })?;
            columns[i] = shred_column(source, field)?;
        }
        RecordBatch::try_new(self.physical.clone(), columns)
            .map_err(|e| bad("*", format!("physical batch: {e}")))
    }
}

/// One VARIANT column shredded into the group `field`.
pub(crate) fn shred_column(source: &StructArray, field: &Field) -> Result<ArrayRef> {
    let name = field.name().as_str();
    let ArrowType::Struct(fields) = field.data_type() else {
        return Err(bad(name, "physical type is not a group"));
    };
    let value = source
        .column_by_name("value")
        .and_then(|a| a.as_binary_opt::<i32>())
        .ok_or_else(|| bad(name, "no binary `value`"))?;
    let metadata = source
        .column_by_name("metadata")
        .and_then(|a| a.as_binary_opt::<i32>())
        .ok_or_else(|| bad(name, "no binary `metadata`"))?;
    let mut group = Group::new(fields, name)?;
    // Rows of one writer often share their metadata: decode it once per distinct run.
    let mut last: Option<(&[u8], Vec<String>)> = None;
    for row in 0..source.len() {
        if source.is_null(row) {
            group.missing();
            continue;
        }
        let (v, m) = (value.value(row), metadata.value(row));
        if last.as_ref().is_none_or(|(bytes, _)| *bytes != m) {
            let keys = dictionary(m).ok_or_else(|| bad(name, "malformed variant metadata"))?;
            last = Some((m, keys));
        }
        let keys = last.as_ref().map(|(_, k)| k.as_slice()).unwrap_or_default();
        if let Some(b) = group.metadata.as_mut() {
            b.append_value(m);
        }
        let v = slice(v, 0).ok_or_else(|| bad(name, "malformed variant value"))?;
        group.shred(v, keys, name)?;
    }
    group.finish(source.nulls().cloned())
}

/// One level of the layout: `metadata` (top level only), `value`, `typed_value`.
struct Group {
    fields: Fields,
    metadata: Option<BinaryBuilder>,
    value: Option<BinaryBuilder>,
    typed: Option<Typed>,
}

enum Typed {
    Scalar(Scalar),
    Object {
        fields: Fields,
        index: HashMap<String, usize>,
        children: Vec<Group>,
        valid: BooleanBufferBuilder,
    },
    List {
        element: FieldRef,
        offsets: Vec<i32>,
        valid: BooleanBufferBuilder,
        group: Box<Group>,
    },
}

enum Scalar {
    Boolean(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float(Float32Builder),
    Double(Float64Builder),
    String(StringBuilder),
    Binary(BinaryBuilder),
    Decimal(Decimal128Builder, u8, i8),
}

impl Group {
    fn new(fields: &Fields, path: &str) -> Result<Self> {
        let mut group = Group {
            fields: fields.clone(),
            metadata: None,
            value: None,
            typed: None,
        };
        for f in fields {
            match f.name().as_str() {
                "metadata" => group.metadata = Some(BinaryBuilder::new()),
                "value" => group.value = Some(BinaryBuilder::new()),
                "typed_value" => group.typed = Some(Typed::new(f, path)?),
                other => return Err(bad(path, format!("unexpected field {other}"))),
            }
        }
        Ok(group)
    }

    /// Appends a missing value (`value` and `typed_value` null); `metadata` gets an empty
    /// placeholder (only under a null row).
    fn missing(&mut self) {
        if let Some(m) = self.metadata.as_mut() {
            m.append_value([]);
        }
        if let Some(v) = self.value.as_mut() {
            v.append_null();
        }
        if let Some(t) = self.typed.as_mut() {
            t.append_null();
        }
    }

    fn put_value(&mut self, v: Option<&[u8]>, path: &str) -> Result<()> {
        match (self.value.as_mut(), v) {
            (Some(b), Some(v)) => b.append_value(v),
            (Some(b), None) => b.append_null(),
            (None, None) => {}
            (None, Some(_)) => return Err(bad(path, "the layout has no `value` to keep it in")),
        }
        Ok(())
    }

    /// Appends the shredding of variant value `v` (exactly one value's bytes).
    fn shred(&mut self, v: &[u8], keys: &[String], path: &str) -> Result<()> {
        let basic = v[0] & 3;
        let residual: Option<Vec<u8>> = match self.typed.as_mut() {
            Some(Typed::List {
                offsets,
                valid,
                group,
                ..
            }) if basic == 3 => {
                let elements = container(v, false).ok_or_else(|| bad(path, "malformed array"))?;
                for (_, e) in &elements {
                    group.shred(e, keys, path)?;
                }
                let last = *offsets.last().unwrap_or(&0);
                offsets.push(last + elements.len() as i32);
                valid.append(true);
                None
            }
            Some(Typed::Object {
                index,
                children,
                valid,
                ..
            }) if basic == 2 => {
                let fields = container(v, true).ok_or_else(|| bad(path, "malformed object"))?;
                let mut seen = vec![false; children.len()];
                let mut rest = Vec::new();
                for (id, value) in fields {
                    let key = keys
                        .get(id)
                        .ok_or_else(|| bad(path, format!("field id {id} not in the metadata")))?;
                    match index.get(key.as_str()) {
                        Some(&i) => {
                            if seen[i] {
                                return Err(bad(path, format!("duplicate key {key:?}")));
                            }
                            seen[i] = true;
                            children[i].shred(value, keys, path)?;
                        }
                        None => rest.push((id as u32, key.clone(), value.to_vec())),
                    }
                }
                for (i, child) in children.iter_mut().enumerate() {
                    if !seen[i] {
                        child.missing();
                    }
                }
                valid.append(true);
                if rest.is_empty() {
                    None
                } else {
                    let mut out = Vec::new();
                    encode_object(rest, &mut out);
                    Some(out)
                }
            }
            Some(Typed::Scalar(s)) => {
                if s.try_append(v) {
                    None
                } else {
                    s.append_null();
                    Some(v.to_vec())
                }
            }
            Some(t) => {
                t.append_null();
                Some(v.to_vec())
            }
            None => Some(v.to_vec()),
        };
        self.put_value(residual.as_deref(), path)
    }

    fn finish(mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.fields.len());
        for f in self.fields.iter() {
            columns.push(match f.name().as_str() {
                "metadata" => Arc::new(self.metadata.as_mut().expect("has metadata").finish()),
                "value" => Arc::new(self.value.as_mut().expect("has value").finish()),
                _ => self.typed.take().expect("has typed_value").finish(f)?,
            });
        }
        let array = StructArray::try_new(self.fields.clone(), columns, nulls)
            .map_err(|e| bad("*", format!("shredded group: {e}")))?;
        Ok(Arc::new(array))
    }
}

impl Typed {
    fn new(f: &Field, path: &str) -> Result<Self> {
        let path = format!("{path}.typed_value");
        Ok(match f.data_type() {
            ArrowType::Struct(children) => {
                let mut groups = Vec::with_capacity(children.len());
                for c in children {
                    let ArrowType::Struct(gf) = c.data_type() else {
                        return Err(bad(&path, format!("field {} is not a group", c.name())));
                    };
                    groups.push(Group::new(gf, &format!("{path}.{}", c.name()))?);
                }
                Typed::Object {
                    index: children
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (c.name().clone(), i))
                        .collect(),
                    fields: children.clone(),
                    children: groups,
                    valid: BooleanBufferBuilder::new(0),
                }
            }
            ArrowType::List(element) => {
                let ArrowType::Struct(gf) = element.data_type() else {
                    return Err(bad(&path, "array elements are not groups"));
                };
                Typed::List {
                    element: element.clone(),
                    offsets: vec![0],
                    valid: BooleanBufferBuilder::new(0),
                    group: Box::new(Group::new(gf, &format!("{path}.element"))?),
                }
            }
            ArrowType::Boolean => Typed::Scalar(Scalar::Boolean(BooleanBuilder::new())),
            ArrowType::Int8 => Typed::Scalar(Scalar::Int8(Int8Builder::new())),
            ArrowType::Int16 => Typed::Scalar(Scalar::Int16(Int16Builder::new())),
            ArrowType::Int32 => Typed::Scalar(Scalar::Int32(Int32Builder::new())),
            ArrowType::Int64 => Typed::Scalar(Scalar::Int64(Int64Builder::new())),
            ArrowType::Float32 => Typed::Scalar(Scalar::Float(Float32Builder::new())),
            ArrowType::Float64 => Typed::Scalar(Scalar::Double(Float64Builder::new())),
            ArrowType::Utf8 => Typed::Scalar(Scalar::String(StringBuilder::new())),
            ArrowType::Binary => Typed::Scalar(Scalar::Binary(BinaryBuilder::new())),
            ArrowType::Decimal128(p, s) => Typed::Scalar(Scalar::Decimal(
                Decimal128Builder::new()
                    .with_precision_and_scale(*p, *s)
                    .map_err(|e| bad(&path, e))?,
                *p,
                *s,
            )),
            other => return Err(bad(&path, format!("typed_value of type {other}"))),
        })
    }

    fn append_null(&mut self) {
        match self {
            Typed::Scalar(s) => s.append_null(),
            Typed::Object {
                children, valid, ..
            } => {
                for c in children {
                    c.missing();
                }
                valid.append(false);
            }
            Typed::List { offsets, valid, .. } => {
                let last = *offsets.last().unwrap_or(&0);
                offsets.push(last);
                valid.append(false);
            }
        }
    }

    fn finish(self, field: &Field) -> Result<ArrayRef> {
        let path = field.name();
        Ok(match self {
            Typed::Scalar(s) => s.finish(),
            Typed::Object {
                fields,
                children,
                mut valid,
                ..
            } => {
                let columns = children
                    .into_iter()
                    .map(|c| c.finish(None))
                    .collect::<Result<Vec<_>>>()?;
                let nulls = NullBuffer::new(valid.finish());
                Arc::new(
                    StructArray::try_new(fields, columns, Some(nulls)).map_err(|e| bad(path, e))?,
                )
            }
            Typed::List {
                element,
                offsets,
                mut valid,
                group,
            } => {
                let values = group.finish(None)?;
                let nulls = NullBuffer::new(valid.finish());
                Arc::new(
                    ListArray::try_new(
                        element,
                        OffsetBuffer::new(offsets.into()),
                        values,
                        Some(nulls),
                    )
                    .map_err(|e| bad(path, e))?,
                )
            }
        })
    }
}

impl Scalar {
    fn append_null(&mut self) {
        match self {
            Scalar::Boolean(b) => b.append_null(),
            Scalar::Int8(b) => b.append_null(),
            Scalar::Int16(b) => b.append_null(),
            Scalar::Int32(b) => b.append_null(),
            Scalar::Int64(b) => b.append_null(),
            Scalar::Float(b) => b.append_null(),
            Scalar::Double(b) => b.append_null(),
            Scalar::String(b) => b.append_null(),
            Scalar::Binary(b) => b.append_null(),
            Scalar::Decimal(b, ..) => b.append_null(),
        }
    }

    fn finish(self) -> ArrayRef {
        fn done(mut b: impl ArrayBuilder) -> ArrayRef {
            b.finish()
        }
        match self {
            Scalar::Boolean(b) => done(b),
            Scalar::Int8(b) => done(b),
            Scalar::Int16(b) => done(b),
            Scalar::Int32(b) => done(b),
            Scalar::Int64(b) => done(b),
            Scalar::Float(b) => done(b),
            Scalar::Double(b) => done(b),
            Scalar::String(b) => done(b),
            Scalar::Binary(b) => done(b),
            Scalar::Decimal(b, ..) => done(b),
        }
    }

    /// Java's `tryTypedShred`: appends `v` and returns true when it fits the type.
    fn try_append(&mut self, v: &[u8]) -> bool {
        let Some(p) = Primitive::decode(v) else {
            return false;
        };
        match (self, p) {
            (Scalar::Boolean(b), Primitive::Boolean(x)) => b.append_value(x),
            (Scalar::Int8(b), p) => match p.integral().and_then(|x| i8::try_from(x).ok()) {
                Some(x) => b.append_value(x),
                None => return false,
            },
            (Scalar::Int16(b), p) => match p.integral().and_then(|x| i16::try_from(x).ok()) {
                Some(x) => b.append_value(x),
                None => return false,
            },
            (Scalar::Int32(b), p) => match p.integral().and_then(|x| i32::try_from(x).ok()) {
                Some(x) => b.append_value(x),
                None => return false,
            },
            (Scalar::Int64(b), p) => match p.integral().and_then(|x| i64::try_from(x).ok()) {
                Some(x) => b.append_value(x),
                None => return false,
            },
            (Scalar::Decimal(b, precision, scale), p) => {
                match p.decimal(*precision as u32, (*scale).max(0) as u32) {
                    Some(x) => b.append_value(x),
                    None => return false,
                }
            }
            (Scalar::Float(b), Primitive::Float(x)) => b.append_value(x),
            (Scalar::Double(b), Primitive::Double(x)) => b.append_value(x),
            (Scalar::String(b), Primitive::String(s)) => b.append_value(String::from_utf8_lossy(s)),
            (Scalar::Binary(b), Primitive::Binary(x)) => b.append_value(x),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
#[path = "variant_shred_write_tests.rs"]
mod tests;
