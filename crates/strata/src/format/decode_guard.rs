//! Keeps a panic of the Parquet/Arrow decoders on a corrupt data file from escaping strata.
//!
//! parquet-rs asserts on some malformed inputs instead of returning an error (a definition
//! level run longer than its buffer, for instance, found by `fuzz/` and by
//! `tests/it/corrupt_files.rs`). A panic there would otherwise unwind through the caller — or,
//! inside a spawned file task, end the task so that the file's remaining rows silently go
//! missing. The reader runs every decoding step under `catch_unwind` and turns a panic into an
//! `ErrorDetail::Parquet` naming the file; a stream that panicked yields that error and ends.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use arrow_array::RecordBatch;
use futures::stream::BoxStream;
use futures::{FutureExt, Stream, StreamExt};
use parquet::errors::ParquetError;

use crate::{Error, Result};

/// The error for a decoder panic while reading `display`.
pub(super) fn decoder_panicked(display: &str, payload: Box<dyn Any + Send>) -> Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::parquet(
        display,
        ParquetError::General(format!("corrupt data: the Parquet decoder failed ({what})")),
    )
}

/// Runs `fut`, turning a panic into [`decoder_panicked`].
pub(super) async fn guard<T>(
    display: &str,
    fut: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(payload) => Err(decoder_panicked(display, payload)),
    }
}

/// A batch stream whose polls run under `catch_unwind`.
pub(super) struct GuardedStream {
    inner: Option<BoxStream<'static, Result<RecordBatch>>>,
    display: String,
}

impl GuardedStream {
    pub(super) fn boxed(
        inner: BoxStream<'static, Result<RecordBatch>>,
        display: String,
    ) -> BoxStream<'static, Result<RecordBatch>> {
        GuardedStream {
            inner: Some(inner),
            display,
        }
        .boxed()
    }
}

impl Stream for GuardedStream {
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        match catch_unwind(AssertUnwindSafe(|| inner.poll_next_unpin(cx))) {
            Ok(poll) => poll,
            Err(payload) => {
                // A decoder that panicked is in an unknown state: never poll it again.
                this.inner = None;
                Poll::Ready(Some(Err(decoder_panicked(&this.display, payload))))
            }
        }
    }
}
