//! Java's `FileIndexResult` (and `BitmapIndexResult`): what an index says about a file for a
//! filter, combined across a filter's `AND`s and `OR`s.

use roaring::RoaringBitmap;

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
