//! [`BoundPredicate`]: a [`Predicate`] resolved against a [`RowType`].
//!
//! Binding (`Predicate::bind`) does three things:
//! * resolves each column name to its field index and [`DataType`] (unknown names fail with
//!   `ErrorDetail::ColumnNotFound`);
//! * converts each literal to the column's internal value ([`super::literal`]), failing with
//!   `ErrorDetail::InvalidArgument` naming the column, its type and the literal;
//! * pushes `NOT` down to the leaves (De Morgan; every leaf op has a negation, and the rewrite
//!   is exact under SQL three-valued logic), flattens and simplifies `And`/`Or`.
//!
//! The result has no `Not`, so it is monotone: dropping conjuncts only weakens it, which is what
//! [`BoundPredicate::extract_for_columns`] relies on. Leaves refer to columns by index into the
//! bound row type, so the predicate can be re-targeted to a projection
//! ([`BoundPredicate::project`]) or another layout ([`BoundPredicate::remap`]).

use std::fmt;

use strata_spec::{DataField, DataType, Datum, RowType};

use super::literal::coerce;
use super::map_key::{resolve_column, resolve_map_key, MapKeyColumn};
use super::predicate::{sql_literal, write_joined, write_leaf, LeafOp, LeafPredicate, Predicate};
use crate::error::ErrorDetail;
use crate::error::{Error, Result};

/// A predicate whose leaves refer to fields of a row type by index. Contains no `Not`.
#[derive(Clone, Debug, PartialEq)]
pub enum BoundPredicate {
    /// Matches every row (what an empty `And` or `x NOT IN ()` binds to).
    AlwaysTrue,
    /// Matches no row (what an empty `Or` or `x IN ()` binds to).
    AlwaysFalse,
    /// A test on one field of the bound row type.
    Leaf(BoundLeafPredicate),
    /// Non-empty after binding (an empty `And` binds to `AlwaysTrue`).
    And(Vec<BoundPredicate>),
    /// Non-empty after binding (an empty `Or` binds to `AlwaysFalse`).
    Or(Vec<BoundPredicate>),
}

/// A leaf bound to one field: its index in the bound row type, its name and type, and the
/// operation with literals already converted to the field's internal values.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundLeafPredicate {
    /// Position of the field in the bound row type (for a MAP key access, a virtual field after
    /// the row type's own fields).
    pub index: usize,
    /// The field's name (a key access's canonical `m['k']` text), for messages and display.
    pub name: String,
    /// The field's type; the literals in `op` are values of this type.
    pub data_type: DataType,
    /// The test, its literals converted to the field's internal values.
    pub op: LeafOp,
}

impl Predicate {
    /// Resolves column names against `row_type` and converts literals to the column types.
    /// `table` is only used in error messages.
    pub fn bind(&self, row_type: &RowType, table: &str) -> Result<BoundPredicate> {
        let scope = Scope {
            row_type,
            keys: &[],
            table,
        };
        Ok(simplify(bind_node(self, false, &scope)?))
    }

    /// Binds like [`Self::bind`], where a leaf may also reference a MAP key access
    /// `m['k']` ([`super::map_key`]). Key accesses are bound to virtual fields placed after
    /// `row_type`'s fields: `keys[j]` is field `row_type.fields.len() + j`. `keys` may arrive
    /// with entries (e.g. a projection's key accesses, resolved against the same row type);
    /// new key accesses are appended in order of first appearance.
    pub fn bind_with_map_keys(
        &self,
        row_type: &RowType,
        table: &str,
        keys: &mut Vec<MapKeyColumn>,
    ) -> Result<BoundPredicate> {
        let mut error = None;
        self.visit_leaf_columns(&mut |column| {
            if error.is_some() {
                return;
            }
            match resolve_map_key(row_type, column, table) {
                Ok(Some(k)) => {
                    if !keys.iter().any(|x| x.is(k.map_field.id, &k.key)) {
                        keys.push(k);
                    }
                }
                Ok(None) => {}
                Err(e) => error = Some(e),
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let scope = Scope {
            row_type,
            keys,
            table,
        };
        Ok(simplify(bind_node(self, false, &scope)?))
    }

    /// Binds for pruning only (scans): like [`Self::bind_with_map_keys`], then every test of
    /// a key access `m['k']` is weakened to `m IS NOT NULL` (every test but `IS NULL` is
    /// false on a NULL map) or dropped (`IS NULL`), as in
    /// [`BoundPredicate::extract_for_columns`]. The result is implied by the filter and reads
    /// only `row_type`'s fields; `None`: nothing is left.
    pub fn bind_for_pruning(
        &self,
        row_type: &RowType,
        table: &str,
    ) -> Result<Option<BoundPredicate>> {
        let mut keys = Vec::new();
        let bound = self.bind_with_map_keys(row_type, table, &mut keys)?;
        if keys.is_empty() {
            return Ok(Some(bound));
        }
        let n = row_type.fields.len();
        let weakened = weaken_map_keys(bound, n, &|j| {
            let id = keys.get(j)?.map_field.id;
            let i = row_type.fields.iter().position(|f| f.id == id)?;
            Some((i, &row_type.fields[i]))
        });
        let real: Vec<usize> = (0..n).collect();
        Ok(weakened.extract_for_columns(&real))
    }

    fn visit_leaf_columns(&self, f: &mut impl FnMut(&str)) {
        match self {
            Predicate::Leaf(l) => f(&l.column),
            Predicate::And(c) | Predicate::Or(c) => c.iter().for_each(|c| c.visit_leaf_columns(f)),
            Predicate::Not(inner) => inner.visit_leaf_columns(f),
            Predicate::AlwaysTrue | Predicate::AlwaysFalse => {}
        }
    }
}

/// Replaces leaves on key columns (index `n + j`) by `map IS NOT NULL` on the map of key `j`
/// (`map_of(j)`), except `IS NULL` leaves, left for the caller to drop.
fn weaken_map_keys<'a>(
    p: BoundPredicate,
    n: usize,
    map_of: &dyn Fn(usize) -> Option<(usize, &'a DataField)>,
) -> BoundPredicate {
    match p {
        BoundPredicate::Leaf(l) if l.index >= n && l.op != LeafOp::IsNull => {
            match map_of(l.index - n) {
                Some((index, f)) => BoundPredicate::Leaf(BoundLeafPredicate {
                    index,
                    name: f.name.clone(),
                    data_type: f.data_type.clone(),
                    op: LeafOp::IsNotNull,
                }),
                None => BoundPredicate::Leaf(l),
            }
        }
        BoundPredicate::And(c) => BoundPredicate::And(
            c.into_iter()
                .map(|c| weaken_map_keys(c, n, map_of))
                .collect(),
        ),
        BoundPredicate::Or(c) => BoundPredicate::Or(
            c.into_iter()
                .map(|c| weaken_map_keys(c, n, map_of))
                .collect(),
        ),
        other => other,
    }
}

/// What leaf column names resolve against: the row type's fields, then key accesses.
struct Scope<'a> {
    row_type: &'a RowType,
    keys: &'a [MapKeyColumn],
    table: &'a str,
}

impl Scope<'_> {
    /// The index and field a leaf column name refers to.
    fn resolve(&self, name: &str) -> Result<(usize, &DataField)> {
        if let Some(i) = resolve_column(self.row_type, name) {
            return Ok((i, &self.row_type.fields[i]));
        }
        let not_found = || {
            Error::from(ErrorDetail::ColumnNotFound {
                table: self.table.to_string(),
                column: name.to_string(),
                available: self
                    .row_type
                    .fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        };
        let Some(k) = resolve_map_key(self.row_type, name, self.table)? else {
            return Err(not_found());
        };
        if self.keys.is_empty() {
            return Err(ErrorDetail::InvalidArgument(format!(
                "{name} is a MAP key access, which is only available where key columns are \
                 derived (table reads; Predicate::bind_with_map_keys)"
            ))
            .into());
        }
        let j = self
            .keys
            .iter()
            .position(|x| x.is(k.map_field.id, &k.key))
            .ok_or_else(not_found)?;
        Ok((self.row_type.fields.len() + j, &self.keys[j].field))
    }
}

fn bind_node(p: &Predicate, negated: bool, scope: &Scope) -> Result<BoundPredicate> {
    Ok(match p {
        Predicate::AlwaysTrue if !negated => BoundPredicate::AlwaysTrue,
        Predicate::AlwaysTrue => BoundPredicate::AlwaysFalse,
        Predicate::AlwaysFalse if !negated => BoundPredicate::AlwaysFalse,
        Predicate::AlwaysFalse => BoundPredicate::AlwaysTrue,
        Predicate::Not(inner) => bind_node(inner, !negated, scope)?,
        Predicate::And(children) | Predicate::Or(children) => {
            let bound = children
                .iter()
                .map(|c| bind_node(c, negated, scope))
                .collect::<Result<Vec<_>>>()?;
            // NOT (a AND b) = NOT a OR NOT b, and the converse.
            if matches!(p, Predicate::And(_)) != negated {
                BoundPredicate::And(bound)
            } else {
                BoundPredicate::Or(bound)
            }
        }
        Predicate::Leaf(leaf) => {
            let op = if negated {
                leaf.op.negate()
            } else {
                leaf.op.clone()
            };
            bind_leaf(leaf, op, scope)?
        }
    })
}

fn bind_leaf(leaf: &LeafPredicate, op: LeafOp, scope: &Scope) -> Result<BoundPredicate> {
    let (index, field) = scope.resolve(&leaf.column)?;
    let ty = &field.data_type;
    let convert = |lit: &Datum| -> Result<Datum> {
        if ty.is_nested() || matches!(ty.kind, strata_spec::TypeKind::Blob) {
            return Err(ErrorDetail::InvalidArgument(format!(
                "column {} has type {ty}, which cannot be compared with a value (only IS [NOT] NULL applies)",
                field.name
            )).into());
        }
        coerce(lit, ty).map_err(|reason| {
            ErrorDetail::InvalidArgument(format!(
                "cannot compare column {} of type {ty} with literal {}: {reason}",
                field.name,
                sql_literal(lit)
            ))
            .into()
        })
    };
    let op = match op {
        LeafOp::Equal(v) => LeafOp::Equal(convert(&v)?),
        LeafOp::NotEqual(v) => LeafOp::NotEqual(convert(&v)?),
        LeafOp::LessThan(v) => LeafOp::LessThan(convert(&v)?),
        LeafOp::LessOrEqual(v) => LeafOp::LessOrEqual(convert(&v)?),
        LeafOp::GreaterThan(v) => LeafOp::GreaterThan(convert(&v)?),
        LeafOp::GreaterOrEqual(v) => LeafOp::GreaterOrEqual(convert(&v)?),
        LeafOp::IsNull => LeafOp::IsNull,
        LeafOp::IsNotNull => LeafOp::IsNotNull,
        LeafOp::In(ref l) | LeafOp::NotIn(ref l) if l.is_empty() => {
            // `x IN ()` matches nothing, `x NOT IN ()` everything.
            return Ok(if matches!(op, LeafOp::In(_)) {
                BoundPredicate::AlwaysFalse
            } else {
                BoundPredicate::AlwaysTrue
            });
        }
        LeafOp::In(l) => LeafOp::In(l.iter().map(convert).collect::<Result<_>>()?),
        LeafOp::NotIn(l) => LeafOp::NotIn(l.iter().map(convert).collect::<Result<_>>()?),
        LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) if !ty.is_string() => {
            return Err(ErrorDetail::InvalidArgument(format!(
                "LIKE needs a string column; column {} has type {ty}",
                field.name
            ))
            .into());
        }
        op @ (LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_)) => op,
    };
    Ok(BoundPredicate::Leaf(BoundLeafPredicate {
        index,
        name: field.name.clone(),
        data_type: ty.clone(),
        op,
    }))
}

/// Flattens nested `And`/`Or`, removes neutral constants and collapses absorbing ones.
pub(crate) fn simplify(p: BoundPredicate) -> BoundPredicate {
    match p {
        BoundPredicate::And(children) => {
            let mut out = Vec::with_capacity(children.len());
            for c in children {
                match simplify(c) {
                    BoundPredicate::AlwaysTrue => {}
                    BoundPredicate::AlwaysFalse => return BoundPredicate::AlwaysFalse,
                    BoundPredicate::And(inner) => out.extend(inner),
                    other => out.push(other),
                }
            }
            match out.len() {
                0 => BoundPredicate::AlwaysTrue,
                1 => out.pop().expect("length checked to be 1"),
                _ => BoundPredicate::And(out),
            }
        }
        BoundPredicate::Or(children) => {
            let mut out = Vec::with_capacity(children.len());
            for c in children {
                match simplify(c) {
                    BoundPredicate::AlwaysFalse => {}
                    BoundPredicate::AlwaysTrue => return BoundPredicate::AlwaysTrue,
                    BoundPredicate::Or(inner) => out.extend(inner),
                    other => out.push(other),
                }
            }
            match out.len() {
                0 => BoundPredicate::AlwaysFalse,
                1 => out.pop().expect("length checked to be 1"),
                _ => BoundPredicate::Or(out),
            }
        }
        other => other,
    }
}

impl BoundPredicate {
    /// Field indexes the predicate reads, sorted and distinct.
    pub fn referenced_columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.visit_leaves(&mut |l| out.push(l.index));
        out.sort_unstable();
        out.dedup();
        out
    }

    fn visit_leaves(&self, f: &mut impl FnMut(&BoundLeafPredicate)) {
        match self {
            BoundPredicate::Leaf(l) => f(l),
            BoundPredicate::And(c) | BoundPredicate::Or(c) => {
                c.iter().for_each(|c| c.visit_leaves(f))
            }
            BoundPredicate::AlwaysTrue | BoundPredicate::AlwaysFalse => {}
        }
    }

    /// The weakest-possible-loss part of this predicate that reads only the given field
    /// indexes: conjuncts touching other columns are dropped, and an `Or` survives only when
    /// every branch does. Indexes are unchanged. `None` means nothing constrains those columns.
    ///
    /// Whenever this predicate is true for a row, the extracted one is true too, so a
    /// partition whose values make the extracted predicate false (or unknown) can be skipped.
    pub fn extract_for_columns(&self, columns: &[usize]) -> Option<BoundPredicate> {
        match self {
            BoundPredicate::AlwaysTrue => None,
            BoundPredicate::AlwaysFalse => Some(BoundPredicate::AlwaysFalse),
            BoundPredicate::Leaf(l) => columns.contains(&l.index).then(|| self.clone()),
            BoundPredicate::And(children) => {
                let kept: Vec<_> = children
                    .iter()
                    .filter_map(|c| c.extract_for_columns(columns))
                    .collect();
                (!kept.is_empty()).then(|| simplify(BoundPredicate::And(kept)))
            }
            BoundPredicate::Or(children) => {
                let kept = children
                    .iter()
                    .map(|c| c.extract_for_columns(columns))
                    .collect::<Option<Vec<_>>>()?;
                Some(simplify(BoundPredicate::Or(kept)))
            }
        }
    }

    /// Re-targets the predicate to a projection: `projection[i]` is the bound field index that
    /// becomes index `i`. Parts on fields outside the projection are dropped as in
    /// [`Self::extract_for_columns`]; `None` means nothing is left to test.
    ///
    /// E.g. with `projection` = the partition keys' indexes in the table row, the result tests
    /// a partition row (`test_values`, `test_stats` on partition stats).
    pub fn project(&self, projection: &[usize]) -> Option<BoundPredicate> {
        let extracted = self.extract_for_columns(projection)?;
        Some(
            extracted
                .remap(|i| projection.iter().position(|&p| p == i))
                .expect("every extracted column is in the projection"),
        )
    }

    /// Changes every leaf's index through `mapping`; fails naming the first referenced field
    /// the mapping does not cover. Names and types are kept.
    pub fn remap(&self, mapping: impl Fn(usize) -> Option<usize>) -> Result<BoundPredicate> {
        self.remap_with(&mapping)
    }

    fn remap_with(&self, mapping: &dyn Fn(usize) -> Option<usize>) -> Result<BoundPredicate> {
        Ok(match self {
            BoundPredicate::AlwaysTrue => BoundPredicate::AlwaysTrue,
            BoundPredicate::AlwaysFalse => BoundPredicate::AlwaysFalse,
            BoundPredicate::Leaf(l) => {
                let index = mapping(l.index).ok_or_else(|| {
                    Error::from(ErrorDetail::InvalidArgument(format!(
                        "predicate column {} (field index {}) is not available after remapping",
                        l.name, l.index
                    )))
                })?;
                BoundPredicate::Leaf(BoundLeafPredicate { index, ..l.clone() })
            }
            BoundPredicate::And(c) => BoundPredicate::And(
                c.iter()
                    .map(|c| c.remap_with(mapping))
                    .collect::<Result<_>>()?,
            ),
            BoundPredicate::Or(c) => BoundPredicate::Or(
                c.iter()
                    .map(|c| c.remap_with(mapping))
                    .collect::<Result<_>>()?,
            ),
        })
    }

    /// Evaluates the predicate on one row of exact values (`values[i]` is field `i`; `None` is
    /// SQL NULL), with SQL three-valued logic: `Some(true)`, `Some(false)`, or `None` for
    /// unknown (the SQL result is NULL, so the row would not be selected either).
    ///
    /// Partition pruning: `project` the table predicate to the partition keys, then a
    /// partition whose values give anything but `Some(true)` holds no matching row. Every
    /// referenced field should be present in `values`; a leaf on a field past the end of
    /// `values` is unknown (`None`), so a caller that cannot guarantee presence must prune on
    /// `Some(false)` only.
    pub fn test_values(&self, values: &[Option<Datum>]) -> Option<bool> {
        match self {
            BoundPredicate::AlwaysTrue => Some(true),
            BoundPredicate::AlwaysFalse => Some(false),
            BoundPredicate::Leaf(l) => test_leaf_value(&l.op, values.get(l.index)?.as_ref()),
            BoundPredicate::And(children) => {
                let mut result = Some(true);
                for c in children {
                    match c.test_values(values) {
                        Some(false) => return Some(false),
                        None => result = None,
                        Some(true) => {}
                    }
                }
                result
            }
            BoundPredicate::Or(children) => {
                let mut result = Some(false);
                for c in children {
                    match c.test_values(values) {
                        Some(true) => return Some(true),
                        None => result = None,
                        Some(false) => {}
                    }
                }
                result
            }
        }
    }
}

/// One leaf on one value under SQL semantics (`None` value = NULL, `None` result = unknown).
pub(crate) fn test_leaf_value(op: &LeafOp, value: Option<&Datum>) -> Option<bool> {
    use std::cmp::Ordering::*;
    let Some(v) = value else {
        return match op {
            LeafOp::IsNull => Some(true),
            LeafOp::IsNotNull => Some(false),
            _ => None,
        };
    };
    let eq = |lit: &Datum| v.compare(lit).map(|o| o == Equal);
    match op {
        LeafOp::IsNull => Some(false),
        LeafOp::IsNotNull => Some(true),
        LeafOp::Equal(lit) => eq(lit),
        LeafOp::NotEqual(lit) => eq(lit).map(|b| !b),
        LeafOp::LessThan(lit) => v.compare(lit).map(|o| o == Less),
        LeafOp::LessOrEqual(lit) => v.compare(lit).map(|o| o != Greater),
        LeafOp::GreaterThan(lit) => v.compare(lit).map(|o| o == Greater),
        LeafOp::GreaterOrEqual(lit) => v.compare(lit).map(|o| o != Less),
        LeafOp::In(list) | LeafOp::NotIn(list) => {
            let mut found = false;
            for lit in list {
                found |= eq(lit)?;
            }
            Some(found == matches!(op, LeafOp::In(_)))
        }
        LeafOp::StartsWith(p) | LeafOp::NotStartsWith(p) => match v {
            Datum::String(s) => {
                Some(s.starts_with(p.as_str()) == matches!(op, LeafOp::StartsWith(_)))
            }
            _ => None,
        },
    }
}

impl fmt::Display for BoundPredicate {
    /// SQL text with the bound column names (literals in their column types).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let compound =
            |p: &BoundPredicate| matches!(p, BoundPredicate::And(_) | BoundPredicate::Or(_));
        match self {
            BoundPredicate::AlwaysTrue => f.write_str("TRUE"),
            BoundPredicate::AlwaysFalse => f.write_str("FALSE"),
            BoundPredicate::Leaf(l) => write_leaf(f, &l.name, &l.op),
            BoundPredicate::And(c) => write_joined(f, c, " AND ", "TRUE", compound),
            BoundPredicate::Or(c) => write_joined(f, c, " OR ", "FALSE", compound),
        }
    }
}
