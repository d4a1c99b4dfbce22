//! Adaptive VARIANT shredding inference (`variant.shredding.inferenceMode = adaptive`), as Java
//! Paimon 2.0's `VariantShreddingInferenceSession` and `InferVariantShreddingSchema`'s
//! `inferInitial` / `inferAdaptive`.
//!
//! One [`InferenceSession`] lives per rolling writer (Java creates it with the writer factory of
//! a `RowDataRollingFileWriter` / `KeyValueFileWriterFactory` rolling writer: strata's
//! `BucketWriter` until its `prepare_commit`, and each `RollingKvWriter`). The first file infers
//! from its first `variant.shredding.maxInferBufferRow` rows exactly as the per-file mode; every
//! later file samples only `variant.shredding.adaptive.maxInferBufferRow` rows and combines them
//! with the evidence kept from the files before (each column's non-null value count and merged
//! shape, scaled down to at most `adaptive.maxInferBufferRow` values). A path shredded in the
//! previous file stays while its combined presence ratio is at least
//! `variant.shredding.adaptive.retentionRatio`; a new path needs
//! `variant.shredding.minFieldCardinalityRatio`. The evidence of a file counts for the next
//! ones only once the file is written (`commitPendingInference` from
//! `VariantShreddingWritePlanFactory.onFileCompleted`).

use std::cmp::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use strata_spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};

use super::variant_shred_infer::{
    finalize, merge, merge_decimal, merge_decimal_long, variant, AdaptiveOptions, InferOptions,
    Shape,
};
use crate::error::ErrorDetail;
use crate::Result;

/// Java's `ColumnEvidence`: a column's non-null values and their merged shape.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ColumnEvidence {
    pub count: f64,
    pub observed: Option<Shape>,
}

/// The evidence and selected shredding types of one inference, per VARIANT column.
#[derive(Clone, Debug)]
struct Inference {
    evidence: Vec<ColumnEvidence>,
    selected: Vec<Shape>,
}

/// An [`InferenceSession`] shared by a rolling writer and the file it has open.
pub(crate) type SharedSession = Arc<Mutex<InferenceSession>>;

/// The session of a new rolling writer: `None` unless `options` infer adaptively.
pub(crate) fn new_session(options: Option<&InferOptions>) -> Option<SharedSession> {
    InferenceSession::new(options?).map(|s| Arc::new(Mutex::new(s)))
}

/// The session, locked (never held across an `await`).
pub(crate) fn lock(session: &SharedSession) -> Result<MutexGuard<'_, InferenceSession>> {
    session.lock().map_err(|_| {
        ErrorDetail::Unsupported(
            "a Variant shredding inference session was poisoned by a failed writer".into(),
        )
        .into()
    })
}

/// Java's `VariantShreddingInferenceSession`: the inference state of one rolling writer.
#[derive(Debug)]
pub(crate) struct InferenceSession {
    options: InferOptions,
    adaptive: AdaptiveOptions,
    committed: Option<Inference>,
    pending: Option<Inference>,
}

impl InferenceSession {
    /// A session for a writer with these settings; `None` unless the adaptive mode is on.
    pub(crate) fn new(options: &InferOptions) -> Option<Self> {
        Some(InferenceSession {
            adaptive: options.adaptive.clone()?,
            options: options.clone(),
            committed: None,
            pending: None,
        })
    }

    /// Rows the next file buffers before inferring (Java's `inferBufferRowCount`).
    pub(crate) fn buffer_rows(&self) -> usize {
        match self.committed {
            Some(_) => self.adaptive.buffer_rows,
            None => self.options.buffer_rows,
        }
    }

    /// Java's `inferSchema`: the shredding type of each VARIANT column of a file whose sampled
    /// rows give `current`; the inference is pending until [`Self::commit_pending`].
    pub(super) fn infer(&mut self, current: Vec<ColumnEvidence>) -> Result<Vec<DataType>> {
        let inference = match &self.committed {
            None => infer_initial(current, &self.options, self.adaptive.buffer_rows)?,
            Some(prior) => infer_adaptive(prior, current, &self.options, &self.adaptive),
        };
        let types = inference
            .selected
            .iter()
            .map(type_of)
            .collect::<Result<Vec<_>>>()?;
        self.pending = Some(inference);
        Ok(types)
    }

    /// Java's `commitPendingInference`: the file written, its evidence counts for the next.
    pub(crate) fn commit_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            self.committed = Some(p);
        }
    }
}

/// Java's `inferInitial`: the per-file inference, keeping the evidence bounded.
fn infer_initial(
    current: Vec<ColumnEvidence>,
    options: &InferOptions,
    sample: usize,
) -> Result<Inference> {
    let mut remaining = options.max_width;
    let mut selected = Vec::with_capacity(current.len());
    for c in &current {
        let min = (c.count * options.min_ratio).ceil();
        selected.push(shape_of_type(&finalize(
            c.observed.as_ref(),
            min,
            &mut remaining,
        )?));
    }
    let evidence = current
        .into_iter()
        .map(|c| scale_to_at_most(c, sample as f64))
        .collect();
    Ok(Inference { evidence, selected })
}

/// Java's `inferAdaptive`.
fn infer_adaptive(
    prior: &Inference,
    current: Vec<ColumnEvidence>,
    options: &InferOptions,
    adaptive: &AdaptiveOptions,
) -> Inference {
    let sample = adaptive.buffer_rows as f64;
    let mut remaining = options.max_width;
    let mut evidence = Vec::with_capacity(current.len());
    let mut selected = Vec::with_capacity(current.len());
    for (i, cur) in current.into_iter().enumerate() {
        let previous = prior.evidence.get(i).cloned();
        let combined = if cur.count == 0.0 {
            previous.unwrap_or(ColumnEvidence {
                count: 0.0,
                observed: None,
            })
        } else {
            let bounded = previous.map(|p| scale_to_at_most(p, sample));
            let (count, observed) = match bounded {
                Some(b) => (cur.count + b.count, merge(b.observed, cur.observed.clone())),
                None => (cur.count, cur.observed.clone()),
            };
            scale_to_at_most(ColumnEvidence { count, observed }, sample)
        };
        let ctx = Ctx {
            root: combined.count,
            admission: options.min_ratio,
            retention: adaptive.retention_ratio,
        };
        selected.push(finalize_adaptive(
            combined.observed.clone(),
            cur.observed,
            prior.selected.get(i).cloned(),
            &ctx,
            &mut remaining,
        ));
        evidence.push(combined);
    }
    Inference { evidence, selected }
}

/// Java's `scaleToAtMost`: evidence of more than `max` values scaled down to `max`.
fn scale_to_at_most(e: ColumnEvidence, max: f64) -> ColumnEvidence {
    if e.count == 0.0 || e.count <= max {
        return e;
    }
    let scale = max / e.count;
    ColumnEvidence {
        count: max,
        observed: e.observed.map(|s| scale_counts(s, scale)),
    }
}

/// Java's `scaleFieldCounts`.
fn scale_counts(shape: Shape, scale: f64) -> Shape {
    match shape {
        Shape::Row(fields) => Shape::Row(
            fields
                .into_iter()
                .map(|(n, c, t)| (n, c * scale, t.map(|t| scale_counts(t, scale))))
                .collect(),
        ),
        Shape::Array(e) => Shape::Array(Box::new(scale_counts(*e, scale))),
        other => other,
    }
}

struct Ctx {
    root: f64,
    admission: f64,
    retention: f64,
}

impl Ctx {
    fn ratio(&self, count: f64) -> f64 {
        if self.root == 0.0 {
            0.0
        } else {
            count / self.root
        }
    }
}

fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn find<'a>(row: Option<&'a Shape>, name: &str) -> Option<&'a (String, f64, Option<Shape>)> {
    match row {
        Some(Shape::Row(fields)) => fields.iter().find(|f| f.0 == name),
        _ => None,
    }
}

/// Java's `finalizeAdaptiveSchema`: the selected shredding shape of one path.
fn finalize_adaptive(
    mut combined: Option<Shape>,
    current: Option<Shape>,
    mut previous: Option<Shape>,
    ctx: &Ctx,
    remaining: &mut i64,
) -> Shape {
    *remaining -= 1;
    if *remaining <= 0 {
        return Shape::Variant;
    }
    if let (Some(c), Some(p)) = (&current, &previous) {
        if !compatible_families(p, c) {
            combined = Some(c.clone());
            previous = None;
        }
    }
    if matches!(combined, None | Some(Shape::Variant)) {
        if current.is_some() && current != Some(Shape::Variant) {
            combined = current.clone();
        } else if previous.is_some() {
            combined = previous.clone();
        } else {
            return Shape::Variant;
        }
    }
    let combined = combined.expect("set above");
    match combined {
        Shape::Row(fields) => {
            let mut candidates: Vec<&(String, f64, Option<Shape>)> = fields
                .iter()
                .filter(|f| {
                    let threshold = match find(previous.as_ref(), &f.0) {
                        None => ctx.admission,
                        Some(_) => ctx.retention,
                    };
                    ctx.ratio(f.1) >= threshold
                })
                .collect();
            candidates.sort_by(|a, b| {
                ctx.ratio(b.1)
                    .total_cmp(&ctx.ratio(a.1))
                    .then_with(|| {
                        let new_a = find(previous.as_ref(), &a.0).is_none();
                        let new_b = find(previous.as_ref(), &b.0).is_none();
                        new_a.cmp(&new_b)
                    })
                    .then_with(|| java_cmp(&a.0, &b.0))
            });
            let mut selected = Vec::new();
            for f in candidates {
                if *remaining <= 0 {
                    break;
                }
                let cur = find(current.as_ref(), &f.0).and_then(|c| c.2.clone());
                let prev = find(previous.as_ref(), &f.0).and_then(|p| p.2.clone());
                let t = finalize_adaptive(f.2.clone(), cur, prev, ctx, remaining);
                selected.push((f.0.clone(), 0.0, Some(t)));
            }
            selected.sort_by(|a, b| java_cmp(&a.0, &b.0));
            if selected.is_empty() {
                Shape::Variant
            } else {
                Shape::Row(selected)
            }
        }
        Shape::Array(element) => {
            let cur = match current {
                Some(Shape::Array(e)) => Some(*e),
                _ => None,
            };
            let prev = match previous {
                Some(Shape::Array(e)) => Some(*e),
                _ => None,
            };
            Shape::Array(Box::new(finalize_adaptive(
                Some(*element),
                cur,
                prev,
                ctx,
                remaining,
            )))
        }
        scalar => {
            *remaining -= 1;
            select_scalar(scalar, current, previous)
        }
    }
}

/// Java's `selectScalarType`.
fn select_scalar(combined: Shape, current: Option<Shape>, previous: Option<Shape>) -> Shape {
    match (current, previous) {
        (None, None) => widen(combined),
        (None, Some(p)) => p,
        (Some(c), None) => widen(c),
        (Some(c), Some(p)) => match merge_scalar(&p, &c) {
            Shape::Variant => widen(c),
            merged => merged,
        },
    }
}

/// Java's `compatibleTypeFamilies`.
fn compatible_families(previous: &Shape, current: &Shape) -> bool {
    let row = |s: &Shape| matches!(s, Shape::Row(_));
    let array = |s: &Shape| matches!(s, Shape::Array(_));
    if row(previous) || row(current) {
        return row(previous) && row(current);
    }
    if array(previous) || array(current) {
        return array(previous) && array(current);
    }
    merge_scalar(previous, current) != Shape::Variant
}

/// Java's `mergeScalarTypes`.
fn merge_scalar(first: &Shape, second: &Shape) -> Shape {
    match (first, second) {
        (Shape::Decimal(p1, s1), Shape::Decimal(p2, s2)) => merge_decimal(*p1, *s1, *p2, *s2),
        (Shape::Decimal(p, s), Shape::BigInt) | (Shape::BigInt, Shape::Decimal(p, s)) => {
            merge_decimal_long(*p, *s)
        }
        (a, b) if a == b => a.clone(),
        _ => Shape::Variant,
    }
}

/// Java's `widenScalarType`.
fn widen(shape: Shape) -> Shape {
    match shape {
        Shape::Decimal(p, 0) if p <= 18 => Shape::BigInt,
        Shape::Decimal(p, s) if p <= 18 => Shape::Decimal(18, s),
        Shape::Decimal(_, s) => Shape::Decimal(38, s),
        other => other,
    }
}

/// A finalized shredding type as a shape (selected types are kept as shapes).
fn shape_of_type(t: &DataType) -> Shape {
    match &t.kind {
        TypeKind::Boolean => Shape::Boolean,
        TypeKind::BigInt => Shape::BigInt,
        TypeKind::Decimal { precision, scale } => Shape::Decimal(*precision, *scale as i32),
        TypeKind::VarChar(_) => Shape::String,
        TypeKind::Double => Shape::Double,
        TypeKind::Float => Shape::Float,
        TypeKind::Array(e) => Shape::Array(Box::new(shape_of_type(e))),
        TypeKind::Row(fields) => Shape::Row(
            fields
                .iter()
                .map(|f| (f.name.clone(), 0.0, Some(shape_of_type(&f.data_type))))
                .collect(),
        ),
        _ => Shape::Variant,
    }
}

/// A selected shape as its shredding type (`PaimonShreddingUtils.variantShreddingSchema` fails
/// for the types it cannot shred, as the per-file mode).
fn type_of(shape: &Shape) -> Result<DataType> {
    let kind = match shape {
        Shape::Variant => return Ok(variant()),
        Shape::Boolean => TypeKind::Boolean,
        Shape::BigInt => TypeKind::BigInt,
        Shape::String => TypeKind::VarChar(MAX_LENGTH),
        Shape::Double => TypeKind::Double,
        Shape::Float => TypeKind::Float,
        Shape::Decimal(p, s) if *s >= 0 && (*s as u32) <= *p && *p <= 38 => TypeKind::Decimal {
            precision: *p,
            scale: *s as u32,
        },
        Shape::Array(e) => TypeKind::Array(Box::new(type_of(e)?)),
        Shape::Row(fields) => {
            let mut out = Vec::with_capacity(fields.len());
            for (name, _, t) in fields {
                let t = match t {
                    Some(t) => type_of(t)?,
                    None => variant(),
                };
                out.push(DataField::new(out.len() as i32, name.clone(), t));
            }
            TypeKind::Row(out)
        }
        // The per-file finalization reports these (invalid decimals, DATE, timestamps, BYTES).
        other => {
            let mut unbounded = i64::MAX;
            return finalize(Some(other), 0.0, &mut unbounded);
        }
    };
    Ok(DataType::nullable(kind))
}

#[cfg(test)]
#[path = "variant_shred_adaptive_tests.rs"]
mod tests;
