//! Cutting a stream of batches at a row limit ([`limit_rows`]): what [`super::TableRead`]'s
//! `with_limit` does, and what a caller that filters or reshapes a read's batches itself (an
//! incremental read, Python's `TableRead` with a filter) applies after its own steps.

use arrow_array::RecordBatch;
use futures::stream::{self, BoxStream};
use futures::StreamExt;

use crate::Result;

/// The first `limit` rows of `inner`: its batches until `limit` rows have passed, the last
/// one sliced; the stream ends there without polling `inner` again. An error is passed on and
/// ends the stream.
pub fn limit_rows(
    inner: BoxStream<'static, Result<RecordBatch>>,
    limit: usize,
) -> BoxStream<'static, Result<RecordBatch>> {
    stream::unfold((inner, limit), |(mut inner, left)| async move {
        if left == 0 {
            return None;
        }
        match inner.next().await? {
            Ok(b) => {
                let b = if b.num_rows() > left {
                    b.slice(0, left)
                } else {
                    b
                };
                let left = left - b.num_rows();
                Some((Ok(b), (inner, left)))
            }
            Err(e) => Some((Err(e), (inner, 0))),
        }
    })
    .boxed()
}
