//! Exact, vectorized filtering of Arrow batches with a [`BoundPredicate`].
//!
//! Leaves run Arrow kernels (`cmp`, `starts_with`, `is_null`) against a one-element scalar of
//! the column's own Arrow type ([`super::scalar`]); `And`/`Or` combine with Kleene logic, so
//! the intermediate results follow SQL three-valued semantics. The public results are masks
//! without nulls: a row is selected only when the predicate is TRUE.
//!
//! Which array is "field i"? Three choices, for the reader's convenience:
//! * [`BoundPredicate::evaluate`]: positional, batch column `i` is bound field `i` (bind to the
//!   batch's own row type, or [`BoundPredicate::project`] to the read projection first);
//! * [`BoundPredicate::evaluate_by_name`]: the batch column named like the bound field;
//! * [`BoundPredicate::evaluate_with`]: any mapping, as a closure from field index to array.

use arrow::buffer::BooleanBuffer;
use arrow::compute::kernels::cmp;
use arrow::compute::kernels::comparison::starts_with;
use arrow::compute::{
    and_kleene, filter_record_batch, is_not_null, is_null, not, or_kleene, prep_null_mask_filter,
};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, Scalar};
use arrow_schema::DataType as ArrowType;

use super::bound::{BoundLeafPredicate, BoundPredicate};
use super::predicate::LeafOp;
use super::scalar::{string_scalar, to_scalar, ScalarLit};
use crate::error::ErrorDetail;
use crate::error::{Error, Result};

impl BoundPredicate {
    /// Rows of `batch` for which the predicate is TRUE; batch column `i` is bound field `i`.
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        self.evaluate_with(batch.num_rows(), &|i| batch.columns().get(i).cloned())
    }

    /// Like [`Self::evaluate`], finding each field's column by its name in the batch schema.
    pub fn evaluate_by_name(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let names = self.leaf_names();
        self.evaluate_with(batch.num_rows(), &|i| {
            let name = names.iter().find(|(idx, _)| *idx == i)?.1.as_str();
            batch.column_by_name(name).cloned()
        })
    }

    /// Rows (of `num_rows`) for which the predicate is TRUE; `column(i)` gives the array of
    /// bound field `i` (`None`: not available, which is an error if the field is referenced).
    pub fn evaluate_with(
        &self,
        num_rows: usize,
        column: &dyn Fn(usize) -> Option<ArrayRef>,
    ) -> Result<BooleanArray> {
        let mask = eval_node(self, num_rows, column)?;
        Ok(if mask.null_count() > 0 {
            prep_null_mask_filter(&mask)
        } else {
            mask
        })
    }

    fn leaf_names(&self) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        fn walk(p: &BoundPredicate, out: &mut Vec<(usize, String)>) {
            match p {
                BoundPredicate::Leaf(l) => out.push((l.index, l.name.clone())),
                BoundPredicate::And(c) | BoundPredicate::Or(c) => {
                    c.iter().for_each(|c| walk(c, out))
                }
                _ => {}
            }
        }
        walk(self, &mut out);
        out
    }
}

/// The rows of `batch` selected by `predicate`, evaluated positionally (see
/// [`BoundPredicate::evaluate`]).
pub fn filter_batch(batch: &RecordBatch, predicate: &BoundPredicate) -> Result<RecordBatch> {
    match predicate {
        BoundPredicate::AlwaysTrue => Ok(batch.clone()),
        _ => {
            let mask = predicate.evaluate(batch)?;
            filter_record_batch(batch, &mask)
                .map_err(|e| Error::arrow("filtering a batch by predicate", e))
        }
    }
}

fn constant(num_rows: usize, value: bool) -> BooleanArray {
    let bits = if value {
        BooleanBuffer::new_set(num_rows)
    } else {
        BooleanBuffer::new_unset(num_rows)
    };
    BooleanArray::new(bits, None)
}

/// `value` on every non-null row of `array`, NULL on its null rows.
fn constant_nonnull(array: &dyn Array, value: bool) -> BooleanArray {
    let c = constant(array.len(), value);
    BooleanArray::new(c.values().clone(), array.logical_nulls())
}

fn eval_node(
    p: &BoundPredicate,
    num_rows: usize,
    column: &dyn Fn(usize) -> Option<ArrayRef>,
) -> Result<BooleanArray> {
    let combine = |c: &[BoundPredicate], and: bool| -> Result<BooleanArray> {
        let mut acc: Option<BooleanArray> = None;
        for child in c {
            let r = eval_node(child, num_rows, column)?;
            acc = Some(match acc {
                None => r,
                Some(a) if and => {
                    and_kleene(&a, &r).map_err(|e| Error::arrow("evaluating AND", e))?
                }
                Some(a) => or_kleene(&a, &r).map_err(|e| Error::arrow("evaluating OR", e))?,
            });
        }
        Ok(acc.unwrap_or_else(|| constant(num_rows, and)))
    };
    match p {
        BoundPredicate::AlwaysTrue => Ok(constant(num_rows, true)),
        BoundPredicate::AlwaysFalse => Ok(constant(num_rows, false)),
        BoundPredicate::And(c) => combine(c, true),
        BoundPredicate::Or(c) => combine(c, false),
        BoundPredicate::Leaf(l) => {
            let array = column(l.index).ok_or_else(|| {
                Error::from(ErrorDetail::InvalidArgument(format!(
                    "predicate column {} (field index {}) is not in the batch",
                    l.name, l.index
                )))
            })?;
            if array.len() != num_rows {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "predicate column {} has {} values but the batch has {num_rows} rows",
                    l.name,
                    array.len()
                ))
                .into());
            }
            eval_leaf(l, &array)
        }
    }
}

/// Dictionary arrays become their value type, fixed-size binary becomes binary, so literals
/// can be built for one plain type.
fn normalize(array: &ArrayRef, leaf: &BoundLeafPredicate) -> Result<ArrayRef> {
    let target = match array.data_type() {
        ArrowType::Dictionary(_, value) => value.as_ref().clone(),
        ArrowType::FixedSizeBinary(_) => ArrowType::Binary,
        _ => return Ok(array.clone()),
    };
    arrow::compute::cast(array, &target)
        .map_err(|e| Error::arrow(format!("reading predicate column {}", leaf.name), e))
}

#[derive(Clone, Copy)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

fn eval_leaf(leaf: &BoundLeafPredicate, array: &ArrayRef) -> Result<BooleanArray> {
    let ctx = || format!("evaluating predicate on column {}", leaf.name);
    match &leaf.op {
        LeafOp::IsNull => return is_null(array).map_err(|e| Error::arrow(ctx(), e)),
        LeafOp::IsNotNull => return is_not_null(array).map_err(|e| Error::arrow(ctx(), e)),
        _ => {}
    }
    let array = normalize(array, leaf)?;
    let array = array.as_ref();
    let compare = |op: Cmp, lit| compare(leaf, array, op, lit);
    match &leaf.op {
        LeafOp::IsNull | LeafOp::IsNotNull => unreachable!("handled above"),
        LeafOp::Equal(v) => compare(Cmp::Eq, v),
        LeafOp::NotEqual(v) => compare(Cmp::Ne, v),
        LeafOp::LessThan(v) => compare(Cmp::Lt, v),
        LeafOp::LessOrEqual(v) => compare(Cmp::Le, v),
        LeafOp::GreaterThan(v) => compare(Cmp::Gt, v),
        LeafOp::GreaterOrEqual(v) => compare(Cmp::Ge, v),
        LeafOp::In(list) | LeafOp::NotIn(list) => {
            let mut acc = constant_nonnull(array, false);
            for v in list {
                let eq = compare(Cmp::Eq, v)?;
                acc = or_kleene(&acc, &eq).map_err(|e| Error::arrow(ctx(), e))?;
            }
            if matches!(leaf.op, LeafOp::NotIn(_)) {
                acc = not(&acc).map_err(|e| Error::arrow(ctx(), e))?;
            }
            Ok(acc)
        }
        LeafOp::StartsWith(prefix) | LeafOp::NotStartsWith(prefix) => {
            if !matches!(
                array.data_type(),
                ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View
            ) {
                return Err(ErrorDetail::InvalidArgument(format!(
                    "LIKE on column {} needs string data, found Arrow type {}",
                    leaf.name,
                    array.data_type()
                ))
                .into());
            }
            let pattern = Scalar::new(string_scalar(prefix, array.data_type()));
            let r = starts_with(&array, &pattern).map_err(|e| Error::arrow(ctx(), e))?;
            if matches!(leaf.op, LeafOp::NotStartsWith(_)) {
                not(&r).map_err(|e| Error::arrow(ctx(), e))
            } else {
                Ok(r)
            }
        }
    }
}

fn compare(
    leaf: &BoundLeafPredicate,
    array: &dyn Array,
    op: Cmp,
    lit: &strata_spec::Datum,
) -> Result<BooleanArray> {
    let scalar = to_scalar(lit, array.data_type()).map_err(|reason| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "cannot evaluate predicate on column {} ({}): {reason}",
            leaf.name, leaf.data_type
        )))
    })?;
    let run = |op: Cmp, s: ArrayRef| {
        let s = Scalar::new(s);
        match op {
            Cmp::Eq => cmp::eq(&array, &s),
            Cmp::Ne => cmp::neq(&array, &s),
            Cmp::Lt => cmp::lt(&array, &s),
            Cmp::Le => cmp::lt_eq(&array, &s),
            Cmp::Gt => cmp::gt(&array, &s),
            Cmp::Ge => cmp::gt_eq(&array, &s),
        }
        .map_err(|e| Error::arrow(format!("evaluating predicate on column {}", leaf.name), e))
    };
    match scalar {
        ScalarLit::Exact(s) => run(op, s),
        // floor < literal < next value: `x < lit` is `x <= floor`, `x > lit` is `x > floor`.
        ScalarLit::Floor(s) => match op {
            Cmp::Eq => Ok(constant_nonnull(array, false)),
            Cmp::Ne => Ok(constant_nonnull(array, true)),
            Cmp::Lt | Cmp::Le => run(Cmp::Le, s),
            Cmp::Gt | Cmp::Ge => run(Cmp::Gt, s),
        },
        ScalarLit::AboveAll => Ok(constant_nonnull(
            array,
            matches!(op, Cmp::Ne | Cmp::Lt | Cmp::Le),
        )),
        ScalarLit::BelowAll => Ok(constant_nonnull(
            array,
            matches!(op, Cmp::Ne | Cmp::Gt | Cmp::Ge),
        )),
    }
}
