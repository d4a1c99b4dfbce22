//! How reads hand batches on: rows per output batch, batches buffered per file being decoded,
//! and a channel's receiver as a stream. A leaf under `TableRead` and the primary-key read.

use arrow_array::RecordBatch;
use futures::stream::{self, BoxStream};
use futures::StreamExt;

use crate::Result;

/// Batches buffered per file being decoded.
pub(super) const CHANNEL_BATCHES: usize = 4;
/// Default rows per output batch.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

pub(super) fn receiver_stream(
    mut rx: tokio::sync::mpsc::Receiver<Result<RecordBatch>>,
) -> BoxStream<'static, Result<RecordBatch>> {
    stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}
