//! Paimon's per-data-file indexes (Java's `FileIndexer` family): the container
//! ([`container`], Java `FileIndexFormat`), the `bloom-filter` ([`bloom_filter`],
//! `BloomFilterFileIndex`) and `bitmap` ([`bitmap`], `BitmapFileIndex`) codecs, and the
//! evaluation of a read's filter against a file's indexes ([`evaluate`], Java's
//! `FileIndexPredicate`): a file whose indexes prove no row can match is skipped.
//!
//! `bsi` and `range-bitmap` indexes Java writes are not evaluated (they keep every file:
//! reads stay right, only slower); strata refuses to write them.

pub(crate) mod bitmap;
pub(crate) mod bloom_filter;
pub(crate) mod container;
pub(crate) mod writer;

use roaring::RoaringBitmap;
use strata_spec::{SpecError, TypeKind};

use crate::expr::{BoundLeafPredicate, BoundPredicate};
use container::FileIndexContainer;

/// `DataFilePathFactory.INDEX_PATH_SUFFIX`: a data file's separate index is
/// `<data-file>.index` in its directory.
pub(crate) const INDEX_PATH_SUFFIX: &str = ".index";

/// Java's `FileIndexResult`: keep the file, skip it, or the rows that may match.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IndexResult {
    /// Some row may match (`FileIndexResult.REMAIN`).
    Remain,
    /// No row matches (`FileIndexResult.SKIP`).
    Skip,
    /// Only these rows may match (`BitmapIndexResult`); empty means skip.
    Bitmap(RoaringBitmap),
}

impl IndexResult {
    pub(crate) fn remain_if(remain: bool) -> Self {
        if remain {
            IndexResult::Remain
        } else {
            IndexResult::Skip
        }
    }

    /// `FileIndexResult.remain()`.
    pub(crate) fn remains(&self) -> bool {
        match self {
            IndexResult::Remain => true,
            IndexResult::Skip => false,
            IndexResult::Bitmap(b) => !b.is_empty(),
        }
    }

    /// `FileIndexResult.and` (bitmaps intersect).
    pub(crate) fn and(self, other: IndexResult) -> IndexResult {
        match (self, other) {
            (IndexResult::Remain, o) => o,
            (IndexResult::Skip, _) => IndexResult::Skip,
            (IndexResult::Bitmap(a), IndexResult::Bitmap(b)) => IndexResult::Bitmap(a & b),
            (b @ IndexResult::Bitmap(_), o) => {
                if o.remains() {
                    b
                } else {
                    IndexResult::Skip
                }
            }
        }
    }

    /// `FileIndexResult.or` (bitmaps unite).
    pub(crate) fn or(self, other: IndexResult) -> IndexResult {
        match (self, other) {
            (IndexResult::Remain, _) => IndexResult::Remain,
            (IndexResult::Skip, o) => o,
            (IndexResult::Bitmap(a), IndexResult::Bitmap(b)) => IndexResult::Bitmap(a | b),
            (b @ IndexResult::Bitmap(_), o) => {
                if o.remains() {
                    IndexResult::Remain
                } else {
                    b
                }
            }
        }
    }
}

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
            // `bsi`, `range-bitmap` and index types strata does not know keep the file.
            _ => IndexResult::Remain,
        };
        result = result.and(r);
        if !result.remains() {
            return Ok(result);
        }
    }
    Ok(result)
}
