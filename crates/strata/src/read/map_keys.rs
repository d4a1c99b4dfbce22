//! MAP key columns (`m['k']`) in reads: deriving them from decoded MAP arrays, the row filter
//! pushed into Parquet decoding when it tests key columns, and the MAP-key predicate passed to
//! the format layer as a hint.
//!
//! Derivation never assumes the format layer trimmed the maps to the selected keys: it looks
//! the key up among each row's entries (one pass over the offsets; after trimming a row holds
//! at most the selected keys, so the pass is short) and gathers the values with one `take`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::buffer::NullBuffer;
use arrow::compute::take;
use arrow_array::builder::BooleanBufferBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayAccessor, ArrayRef, MapArray, UInt32Array};
use arrow_schema::DataType as ArrowType;
use strata_spec::{DataField, Datum};

use crate::error::ErrorDetail;
use crate::expr::{BoundPredicate, LeafOp, MapKeyColumn};
use crate::format::parquet_reader::PushedRowFilter;
use crate::format::{MapKeyLeaf, MapKeyPredicate};
use crate::{Error, Result};

/// For every key in `keys`, the value of that key in each row of `map` (a MAP array with
/// string keys): NULL when the map is NULL, the key is absent or its value is NULL. When a row
/// holds a key twice the last entry wins (as a map built from the entries in order).
pub(crate) fn derive_map_keys(map: &dyn Array, keys: &[&str]) -> Result<Vec<ArrayRef>> {
    let map = map.as_any().downcast_ref::<MapArray>().ok_or_else(|| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "MAP key access needs a MAP array, the reader returned {}",
            map.data_type()
        )))
    })?;
    let n = map.len();
    let mut found: Vec<Found> = (0..keys.len()).map(|_| Found::new(n)).collect();
    let entry_keys = map.keys();
    match entry_keys.data_type() {
        ArrowType::Utf8 => scan(map, entry_keys.as_string::<i32>(), keys, &mut found),
        ArrowType::LargeUtf8 => scan(map, entry_keys.as_string::<i64>(), keys, &mut found),
        ArrowType::Utf8View => scan(map, entry_keys.as_string_view(), keys, &mut found),
        other => {
            return Err(ErrorDetail::InvalidArgument(format!(
                "MAP key access needs string map keys, the reader returned {other}"
            ))
            .into())
        }
    }
    found
        .into_iter()
        .map(|mut f| {
            let indices =
                UInt32Array::new(f.index.into(), Some(NullBuffer::from(f.valid.finish())));
            take(map.values().as_ref(), &indices, None)
                .map_err(|e| Error::arrow("deriving MAP key columns", e))
        })
        .collect()
}

/// Per requested key: the entry index of its value in each row, and which rows have one.
struct Found {
    index: Vec<u32>,
    valid: BooleanBufferBuilder,
}

impl Found {
    fn new(n: usize) -> Self {
        let mut valid = BooleanBufferBuilder::new(n);
        valid.append_n(n, false);
        Found {
            index: vec![0; n],
            valid,
        }
    }
}

fn scan<'a, A: ArrayAccessor<Item = &'a str>>(
    map: &MapArray,
    entry_keys: A,
    keys: &[&str],
    found: &mut [Found],
) {
    let offsets = map.value_offsets();
    let nulls = map.logical_nulls();
    // Few keys: compare directly; many: one hash lookup per entry.
    let lookup: Option<HashMap<&str, usize>> =
        (keys.len() > 8).then(|| keys.iter().enumerate().map(|(i, k)| (*k, i)).collect());
    let position = |k: &str| match &lookup {
        Some(h) => h.get(k).copied(),
        None => keys.iter().position(|x| *x == k),
    };
    for row in 0..map.len() {
        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            continue;
        }
        // Offsets of a valid MapArray are non-negative and within the entries.
        let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
        for entry in start..end {
            if let Some(j) = position(entry_keys.value(entry)) {
                found[j].index[row] = entry as u32;
                found[j].valid.set_bit(row, true);
            }
        }
    }
}

/// Derives the key columns of a read from the columns of its read fields.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyDeriver {
    /// Per map: its position among the columns, then the keys and their output slots.
    groups: Vec<(usize, Vec<String>, Vec<usize>)>,
    n_keys: usize,
}

impl KeyDeriver {
    /// Key columns `keys` over columns of `fields` (each key's map found by field id).
    pub(super) fn new(fields: &[DataField], keys: &[MapKeyColumn]) -> Result<Self> {
        let mut groups: Vec<(usize, Vec<String>, Vec<usize>)> = Vec::new();
        for (slot, k) in keys.iter().enumerate() {
            let pos = fields
                .iter()
                .position(|f| f.id == k.map_field.id)
                .ok_or_else(|| {
                    Error::from(ErrorDetail::InvalidArgument(format!(
                        "{}: MAP column {} is not among the columns read",
                        k.field.name, k.map_field.name
                    )))
                })?;
            match groups.iter_mut().find(|g| g.0 == pos) {
                Some(g) => {
                    g.1.push(k.key.clone());
                    g.2.push(slot);
                }
                None => groups.push((pos, vec![k.key.clone()], vec![slot])),
            }
        }
        Ok(KeyDeriver {
            groups,
            n_keys: keys.len(),
        })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.n_keys == 0
    }

    /// The key columns (in key order) derived from `columns`.
    pub(super) fn derive(&self, columns: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
        let mut out: Vec<Option<ArrayRef>> = vec![None; self.n_keys];
        for (pos, keys, slots) in &self.groups {
            let map = columns.get(*pos).ok_or_else(|| {
                Error::from(ErrorDetail::InvalidArgument(format!(
                    "MAP column {pos} missing from a read batch"
                )))
            })?;
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            for (slot, array) in slots.iter().zip(derive_map_keys(map.as_ref(), &keys)?) {
                out[*slot] = Some(array);
            }
        }
        // Every slot belongs to exactly one group (built in `new`).
        Ok(out.into_iter().flatten().collect())
    }
}

/// `bound` as a filter pushed into Parquet decoding. `bound` is over `fields` followed by the
/// key columns `keys` (key `j` is field `fields.len() + j`). The pushed fields are the real
/// columns the filter reads plus the MAP columns of its key columns, which the predicate
/// derives before evaluating; the reader decodes the rest only for the selected rows.
pub(crate) fn pushed_filter(
    bound: &BoundPredicate,
    fields: &[DataField],
    keys: &[MapKeyColumn],
) -> Option<PushedRowFilter> {
    let referenced = bound.referenced_columns();
    if referenced.is_empty() {
        return None;
    }
    let n = fields.len();
    let mut pushed: Vec<DataField> = Vec::new();
    for &i in referenced.iter().filter(|&&i| i < n) {
        pushed.push(fields[i].clone());
    }
    let used_keys: Vec<MapKeyColumn> = referenced
        .iter()
        .filter(|&&i| i >= n)
        .map(|&i| keys.get(i - n).cloned())
        .collect::<Option<_>>()?;
    for k in &used_keys {
        if !pushed.iter().any(|f| f.id == k.map_field.id) {
            pushed.push(k.map_field.clone());
        }
    }
    let n_pushed = pushed.len();
    let remapped = bound
        .remap(|i| {
            if i < n {
                pushed.iter().position(|f| f.id == fields[i].id)
            } else {
                let k = &keys[i - n];
                used_keys
                    .iter()
                    .position(|u| u.is(k.map_field.id, &k.key))
                    .map(|p| n_pushed + p)
            }
        })
        .ok()?;
    let deriver = KeyDeriver::new(&pushed, &used_keys).ok()?;
    Some(PushedRowFilter {
        fields: pushed,
        predicate: Arc::new(move |batch| {
            let derived = deriver.derive(batch.columns())?;
            remapped.evaluate_with(batch.num_rows(), &|i| {
                if i < n_pushed {
                    batch.columns().get(i).cloned()
                } else {
                    derived.get(i - n_pushed).cloned()
                }
            })
        }),
    })
}

/// The MAP-key predicate of a filter for the format layer: leaves on key columns (fields
/// `n_real + j` = `keys[j]`) become [`MapKeyLeaf`]s on the map's field id, every other leaf
/// `Unknown`; `And`/`Or` are kept (the bound filter has no `Not`), `Unknown` conjuncts
/// dropped and `Unknown` disjunctions collapsed. `None` when nothing about a key is left.
pub(crate) fn map_key_predicate(
    bound: &BoundPredicate,
    n_real: usize,
    keys: &[MapKeyColumn],
) -> Option<MapKeyPredicate> {
    match translate(bound, n_real, keys) {
        MapKeyPredicate::Unknown => None,
        p => Some(p),
    }
}

fn translate(p: &BoundPredicate, n_real: usize, keys: &[MapKeyColumn]) -> MapKeyPredicate {
    match p {
        // No variant for "false"; Unknown is the conservative answer.
        BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => MapKeyPredicate::Unknown,
        BoundPredicate::Leaf(l) => match l.index.checked_sub(n_real).and_then(|j| keys.get(j)) {
            Some(k) => MapKeyPredicate::Leaf(MapKeyLeaf {
                field_id: k.map_field.id,
                key: k.key.clone(),
                op: l.op.clone(),
                literals: literals(&l.op),
                value_type: l.data_type.clone(),
            }),
            None => MapKeyPredicate::Unknown,
        },
        BoundPredicate::And(children) => {
            let mut kept: Vec<MapKeyPredicate> = children
                .iter()
                .map(|c| translate(c, n_real, keys))
                .filter(|c| *c != MapKeyPredicate::Unknown)
                .collect();
            match kept.len() {
                0 => MapKeyPredicate::Unknown,
                1 => kept.pop().unwrap_or(MapKeyPredicate::Unknown),
                _ => MapKeyPredicate::And(kept),
            }
        }
        BoundPredicate::Or(children) => {
            let all: Vec<MapKeyPredicate> = children
                .iter()
                .map(|c| translate(c, n_real, keys))
                .collect();
            if all.contains(&MapKeyPredicate::Unknown) {
                MapKeyPredicate::Unknown
            } else {
                MapKeyPredicate::Or(all)
            }
        }
    }
}

/// The literals of a leaf operation (already of the column's type after binding).
fn literals(op: &LeafOp) -> Vec<Datum> {
    match op {
        LeafOp::Equal(v)
        | LeafOp::NotEqual(v)
        | LeafOp::LessThan(v)
        | LeafOp::LessOrEqual(v)
        | LeafOp::GreaterThan(v)
        | LeafOp::GreaterOrEqual(v) => vec![v.clone()],
        LeafOp::In(l) | LeafOp::NotIn(l) => l.clone(),
        LeafOp::StartsWith(p) | LeafOp::NotStartsWith(p) => vec![Datum::String(p.clone())],
        LeafOp::IsNull | LeafOp::IsNotNull => Vec::new(),
    }
}

#[cfg(test)]
#[path = "map_keys_tests.rs"]
mod tests;
