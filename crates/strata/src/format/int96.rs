//! TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9) columns written as Parquet INT96, as Java Paimon
//! writes them.
//!
//! Java's `ParquetSchemaConverter.createTimestampWithLogicalType` stores a timestamp of
//! precision > 6 as a plain INT96 (no logical type) and `ParquetRowDataWriter.timestampToInt96`
//! fills it. Java Paimon 1.x cannot read the INT64 `TIMESTAMP(NANOS)` that arrow-rs would
//! write instead: its `ParquetVectorUpdaterFactory` takes an INT64 TIMESTAMP(9) column as epoch
//! *milliseconds* (wrong values) and fails on an INT64 TIMESTAMP_LTZ(9) column with a
//! `ClassCastException` (Java 2.0 reads both). arrow-rs cannot encode INT96 from Arrow, so the
//! encoder ([`super::parallel_encoder`]) writes these leaves itself through parquet's typed
//! column writer: [`parquet_schema`] gives the file schema with INT96 leaves,
//! [`Int96Leaf`] collects one leaf's values and definition/repetition levels (any nesting in
//! ARRAY / MAP / ROW) until its row group is written.
//!
//! The bytes are Java's: `julianDay = millis / 86400000 + 2440588` and `nanosOfDay = millis %
//! 86400000 * 1000000 + nanosOfMillisecond` with Java's truncating division, so a time before
//! 1970 has a *negative* `nanosOfDay` on the epoch-side day. Every INT96 reader computes
//! `days * 86400e9 + nanos` linearly, so the value reads back exactly (arrow-rs, Java, Spark).
//! Readers keep reading INT96 as before (Arrow `Timestamp(ns)`); INT96 column statistics are
//! not used for pruning (their order is undefined), as in Java.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::Array;
use arrow_schema::{DataType as ArrowType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{LogicalType, Type as PhysicalType};
use parquet::data_type::Int96;
use parquet::errors::{ParquetError, Result};
use parquet::file::writer::SerializedColumnWriter;
use parquet::schema::types::{ColumnDescPtr, SchemaDescriptor, Type, TypePtr};

/// Julian day of 1970-01-01 (`ParquetRowDataWriter.JULIAN_EPOCH_OFFSET_DAYS`).
const JULIAN_EPOCH_OFFSET_DAYS: i64 = 2_440_588;
const MILLIS_PER_DAY: i64 = 86_400_000;
const NANOS_PER_MILLI: i64 = 1_000_000;

/// Whether an Arrow type is what strata uses for TIMESTAMP / TIMESTAMP_LTZ of precision > 6.
pub(super) fn is_int96_arrow_type(t: &ArrowType) -> bool {
    matches!(t, ArrowType::Timestamp(TimeUnit::Nanosecond, _))
}

/// The INT96 value Java writes for `nanos` since the epoch.
pub(super) fn java_int96(nanos: i64) -> Int96 {
    let millis = nanos.div_euclid(NANOS_PER_MILLI);
    let nano_of_milli = nanos.rem_euclid(NANOS_PER_MILLI);
    // Java's `/` and `%` truncate toward zero
    let julian_day = millis / MILLIS_PER_DAY + JULIAN_EPOCH_OFFSET_DAYS;
    let nanos_of_day = (millis % MILLIS_PER_DAY) * NANOS_PER_MILLI + nano_of_milli;
    let bits = nanos_of_day as u64;
    let mut v = Int96::new();
    v.set_data(bits as u32, (bits >> 32) as u32, julian_day as u32);
    v
}

/// The Parquet schema of a file of `schema` (root message `root`) with every nanosecond
/// timestamp leaf as INT96; `None` when there is no such leaf (arrow-rs' schema is used).
pub(super) fn parquet_schema(schema: &Schema, root: &str) -> Result<Option<SchemaDescriptor>> {
    if !schema
        .fields()
        .iter()
        .any(|f| has_int96_leaf(f.data_type()))
    {
        return Ok(None);
    }
    let base = ArrowSchemaConverter::new()
        .schema_root(root)
        .convert(schema)?;
    let root = rewrite(&base.root_schema_ptr())?;
    Ok(Some(SchemaDescriptor::new(root)))
}

fn has_int96_leaf(t: &ArrowType) -> bool {
    match t {
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::Map(f, _) => {
            has_int96_leaf(f.data_type())
        }
        ArrowType::Struct(fields) => fields.iter().any(|f| has_int96_leaf(f.data_type())),
        t => is_int96_arrow_type(t),
    }
}

/// `t` with INT64 TIMESTAMP(NANOS) leaves replaced by plain INT96 ones (same name, repetition
/// and field id).
fn rewrite(t: &TypePtr) -> Result<TypePtr> {
    let info = t.get_basic_info();
    if t.is_primitive() {
        let nanos = matches!(
            info.logical_type_ref(),
            Some(LogicalType::Timestamp(t)) if t.unit == parquet::basic::TimeUnit::NANOS
        );
        if t.get_physical_type() != PhysicalType::INT64 || !nanos {
            return Ok(t.clone());
        }
        let b = Type::primitive_type_builder(info.name(), PhysicalType::INT96)
            .with_repetition(info.repetition())
            .with_id(info.has_id().then(|| info.id()));
        return Ok(Arc::new(b.build()?));
    }
    let fields = t
        .get_fields()
        .iter()
        .map(rewrite)
        .collect::<Result<Vec<_>>>()?;
    let mut b = Type::group_type_builder(info.name())
        .with_fields(fields)
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_id(info.has_id().then(|| info.id()));
    if info.has_repetition() {
        b = b.with_repetition(info.repetition());
    }
    Ok(Arc::new(b.build()?))
}

/// One step from a column down to one of its leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Into the n-th child of a ROW.
    Struct(usize),
    /// Into the elements of an ARRAY.
    List,
    /// Into the keys (0) or values (1) of a MAP.
    Map(usize),
}

/// The steps from a column of type `t` to its `leaf`-th leaf (depth first, the order of the
/// Parquet leaves), or `None` when it has fewer leaves.
fn leaf_path(t: &ArrowType, leaf: &mut usize, out: &mut Vec<Step>) -> bool {
    match t {
        ArrowType::Struct(fields) => {
            for (i, f) in fields.iter().enumerate() {
                out.push(Step::Struct(i));
                if leaf_path(f.data_type(), leaf, out) {
                    return true;
                }
                out.pop();
            }
            false
        }
        ArrowType::List(f) => {
            out.push(Step::List);
            if leaf_path(f.data_type(), leaf, out) {
                return true;
            }
            out.pop();
            false
        }
        ArrowType::Map(entries, _) => {
            let ArrowType::Struct(kv) = entries.data_type() else {
                return false;
            };
            for (i, f) in kv.iter().enumerate().take(2) {
                out.push(Step::Map(i));
                if leaf_path(f.data_type(), leaf, out) {
                    return true;
                }
                out.pop();
            }
            false
        }
        _ => {
            if *leaf == 0 {
                return true;
            }
            *leaf -= 1;
            false
        }
    }
}

/// The values and levels of one INT96 leaf, buffered for the open row group.
#[derive(Debug)]
pub(super) struct Int96Leaf {
    /// Index of the leaf among the file's Parquet leaves.
    pub column: usize,
    /// Index of the top-level field holding it.
    pub field: usize,
    descr: ColumnDescPtr,
    nullable: bool,
    path: Vec<Step>,
    values: Vec<Int96>,
    def: Vec<i16>,
    rep: Vec<i16>,
}

impl Int96Leaf {
    /// The leaf `column` (Parquet leaf index, descriptor `descr`), the `leaf_in_field`-th leaf
    /// of top-level `field` of the Arrow schema.
    pub(super) fn new(
        column: usize,
        descr: ColumnDescPtr,
        field_idx: usize,
        field: &Field,
        leaf_in_field: usize,
    ) -> Result<Self> {
        let mut path = Vec::new();
        let mut n = leaf_in_field;
        if !leaf_path(field.data_type(), &mut n, &mut path) {
            return Err(ParquetError::General(format!(
                "column {} has no leaf {leaf_in_field}",
                field.name()
            )));
        }
        Ok(Int96Leaf {
            column,
            field: field_idx,
            descr,
            nullable: field.is_nullable(),
            path,
            values: Vec::new(),
            def: Vec::new(),
            rep: Vec::new(),
        })
    }

    /// Appends the leaf's part of every row of `column` (the top-level field's array).
    pub(super) fn append(&mut self, column: &dyn Array) -> Result<()> {
        let path = std::mem::take(&mut self.path);
        let r = (0..column.len())
            .try_for_each(|row| self.visit(column, self.nullable, &path, row, 0, 0, 0));
        self.path = path;
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        array: &dyn Array,
        nullable: bool,
        path: &[Step],
        idx: usize,
        def: i16,
        rep: i16,
        depth: i16,
    ) -> Result<()> {
        if nullable && array.is_null(idx) {
            return self.push(rep, def, None);
        }
        let def = def + i16::from(nullable);
        let Some((step, rest)) = path.split_first() else {
            let ArrowType::Timestamp(TimeUnit::Nanosecond, _) = array.data_type() else {
                return Err(ParquetError::General(format!(
                    "INT96 leaf {} holds {}",
                    self.descr.path(),
                    array.data_type()
                )));
            };
            let v = array.as_primitive::<TimestampNanosecondType>().value(idx);
            return self.push(rep, def, Some(java_int96(v)));
        };
        match *step {
            Step::Struct(c) => {
                let s = array.as_struct();
                let child_nullable = s.fields()[c].is_nullable();
                self.visit(
                    s.column(c).as_ref(),
                    child_nullable,
                    rest,
                    idx,
                    def,
                    rep,
                    depth,
                )
            }
            Step::List => {
                let l = array.as_list::<i32>();
                let elem_nullable = match l.data_type() {
                    ArrowType::List(f) => f.is_nullable(),
                    _ => true,
                };
                let offsets = l.value_offsets();
                let (start, end) = (offsets[idx] as usize, offsets[idx + 1] as usize);
                self.items(
                    l.values().as_ref(),
                    elem_nullable,
                    rest,
                    start..end,
                    def,
                    rep,
                    depth,
                )
            }
            Step::Map(side) => {
                let m = array.as_map();
                let kv = m.entries();
                let child_nullable = kv.fields()[side].is_nullable();
                let offsets = m.value_offsets();
                let (start, end) = (offsets[idx] as usize, offsets[idx + 1] as usize);
                let child = kv.column(side).clone();
                self.items(
                    child.as_ref(),
                    child_nullable,
                    rest,
                    start..end,
                    def,
                    rep,
                    depth,
                )
            }
        }
    }

    /// The items `range` of a repeated level (an empty one is a single slot at `def`).
    #[allow(clippy::too_many_arguments)]
    fn items(
        &mut self,
        values: &dyn Array,
        nullable: bool,
        path: &[Step],
        range: std::ops::Range<usize>,
        def: i16,
        rep: i16,
        depth: i16,
    ) -> Result<()> {
        if range.is_empty() {
            return self.push(rep, def, None);
        }
        for (k, i) in range.enumerate() {
            let r = if k == 0 { rep } else { depth + 1 };
            self.visit(values, nullable, path, i, def + 1, r, depth + 1)?;
        }
        Ok(())
    }

    fn push(&mut self, rep: i16, def: i16, value: Option<Int96>) -> Result<()> {
        if def > self.descr.max_def_level() || rep > self.descr.max_rep_level() {
            return Err(ParquetError::General(format!(
                "INT96 leaf {}: levels ({def}, {rep}) above the column's ({}, {})",
                self.descr.path(),
                self.descr.max_def_level(),
                self.descr.max_rep_level()
            )));
        }
        if let Some(v) = value {
            if def != self.descr.max_def_level() {
                return Err(ParquetError::General(format!(
                    "INT96 leaf {}: a value at definition level {def}",
                    self.descr.path()
                )));
            }
            self.values.push(v);
        }
        self.def.push(def);
        self.rep.push(rep);
        Ok(())
    }

    /// Bytes buffered (values and levels).
    pub(super) fn memory_size(&self) -> usize {
        self.values.len() * 12 + (self.def.len() + self.rep.len()) * 2
    }

    /// Writes the buffered row group part into `writer` (the row group's next column, this
    /// leaf) and clears the buffer.
    pub(super) fn write_to(&mut self, mut writer: SerializedColumnWriter<'_>) -> Result<()> {
        let def = (self.descr.max_def_level() > 0).then_some(self.def.as_slice());
        let rep = (self.descr.max_rep_level() > 0).then_some(self.rep.as_slice());
        writer
            .typed::<parquet::data_type::Int96Type>()
            .write_batch(&self.values, def, rep)?;
        writer.close()?;
        self.values.clear();
        self.def.clear();
        self.rep.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_bytes_and_linear_decoding() {
        // 1970-01-01T00:00:00.000000001: day 2440588, 1 ns
        assert_eq!(java_int96(1).data(), &[1, 0, 2_440_588]);
        // one day later
        assert_eq!(java_int96(86_400_000_000_000).data(), &[0, 0, 2_440_589]);
        // 1969-12-31T23:59:59.999999999: Java truncates, so the epoch day with nanos -1
        let v = java_int96(-1);
        assert_eq!(v.data()[2], 2_440_588);
        assert_eq!(((v.data()[1] as u64) << 32 | v.data()[0] as u64) as i64, -1);
        for ns in [
            -1i64,
            0,
            1,
            1_700_000_000_123_456_789,
            -2_208_988_800_000_000_001,
            -86_400_000_000_001,
            9_000_000_000_000_000_000,
        ] {
            assert_eq!(java_int96(ns).to_nanos(), ns, "{ns}");
        }
    }

    #[test]
    fn leaf_paths_follow_parquet_leaf_order() {
        let ts = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
        let t = ArrowType::Struct(
            vec![
                Field::new("a", ArrowType::Int32, true),
                Field::new_list("l", Field::new("element", ts.clone(), true), true),
                Field::new_map(
                    "m",
                    "key_value",
                    Field::new("key", ArrowType::Utf8, false),
                    Field::new("value", ts, true),
                    false,
                    true,
                ),
            ]
            .into(),
        );
        let path = |n: usize| {
            let (mut n, mut out) = (n, Vec::new());
            leaf_path(&t, &mut n, &mut out).then_some(out)
        };
        assert_eq!(path(0), Some(vec![Step::Struct(0)]));
        assert_eq!(path(1), Some(vec![Step::Struct(1), Step::List]));
        assert_eq!(path(2), Some(vec![Step::Struct(2), Step::Map(0)]));
        assert_eq!(path(3), Some(vec![Step::Struct(2), Step::Map(1)]));
        assert_eq!(path(4), None);
    }
}
