//! A read's filter evaluated against one file's index container (Java's
//! `FileIndexPredicate`): each leaf asks every index of its column, `AND`/`OR` combine the
//! answers ([`IndexResult`]); a file is skipped when no row can match.

use strata_spec::{SpecError, TypeKind};

use super::container::FileIndexContainer;
use super::result::IndexResult;
use super::{bitmap, bloom_filter, bsi, range_bitmap};
use crate::expr::{BoundLeafPredicate, BoundPredicate};

/// A filter leaf's column as the data file knows it: its name in the file's schema (the
/// index container is keyed by it) and its type there.
pub(crate) struct IndexedColumn {
    pub(crate) name: String,
    pub(crate) kind: TypeKind,
}

/// Evaluates `filter` against a file's index container `blob` (Java's `FileIndexPredicate`):
/// `column(leaf)` names the leaf's column in the data file, or `None` to keep the file for that
/// leaf (a column the file does not have, or whose type changed since). Returns whether the
/// file may hold a matching row.
pub(crate) fn evaluate(
    blob: &[u8],
    filter: &BoundPredicate,
    column: &dyn Fn(&BoundLeafPredicate) -> Option<IndexedColumn>,
) -> Result<bool, SpecError> {
    let container = FileIndexContainer::parse(blob)?;
    Ok(visit(&container, filter, column)?.remains())
}

fn visit(
    container: &FileIndexContainer<'_>,
    p: &BoundPredicate,
    column: &dyn Fn(&BoundLeafPredicate) -> Option<IndexedColumn>,
) -> Result<IndexResult, SpecError> {
    Ok(match p {
        BoundPredicate::AlwaysTrue => IndexResult::Remain,
        BoundPredicate::AlwaysFalse => IndexResult::Skip,
        BoundPredicate::Leaf(leaf) => visit_leaf(container, leaf, column)?,
        BoundPredicate::And(children) => {
            let mut result = IndexResult::Remain;
            for c in children {
                result = result.and(visit(container, c, column)?);
                if !result.remains() {
                    return Ok(result);
                }
            }
            result
        }
        BoundPredicate::Or(children) => {
            let mut result: Option<IndexResult> = None;
            for c in children {
                let r = visit(container, c, column)?;
                result = Some(match result {
                    None => r,
                    Some(acc) => acc.or(r),
                });
            }
            result.unwrap_or(IndexResult::Remain)
        }
    })
}

fn visit_leaf(
    container: &FileIndexContainer<'_>,
    leaf: &BoundLeafPredicate,
    column: &dyn Fn(&BoundLeafPredicate) -> Option<IndexedColumn>,
) -> Result<IndexResult, SpecError> {
    let Some(col) = column(leaf) else {
        return Ok(IndexResult::Remain);
    };
    let mut result = IndexResult::Remain;
    for index in container.column(&col.name) {
        let Some(body) = index.body else { continue };
        let r = match index.index_type.as_str() {
            bloom_filter::IDENTIFIER if bloom_filter::supports(&col.kind) => {
                let filter = bloom_filter::BloomFilter64::from_bytes(body)?;
                bloom_filter::evaluate(&filter, &col.kind, &leaf.op)
            }
            bitmap::IDENTIFIER if bitmap::supports(&col.kind) => {
                bitmap::BitmapIndex::parse(body, &col.kind)?.evaluate(&col.kind, &leaf.op)?
            }
            bsi::IDENTIFIER if bsi::supports(&col.kind) => {
                bsi::BsiIndex::parse(body)?.evaluate(&col.kind, &leaf.op)
            }
            range_bitmap::IDENTIFIER if range_bitmap::supports(&col.kind) => {
                range_bitmap::RangeBitmapIndex::parse(body, &col.kind)?
                    .evaluate(&col.kind, &leaf.op)
            }
            // Index types strata does not know keep the file.
            _ => IndexResult::Remain,
        };
        result = result.and(r);
        if !result.remains() {
            return Ok(result);
        }
    }
    Ok(result)
}
