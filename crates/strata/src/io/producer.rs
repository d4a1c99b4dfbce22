//! Producer tasks that feed a channel (file decoding running ahead of its consumer).
//!
//! A consumer reads such a channel to its end, so a producer that stops early must say why:
//! an error it returns, and also a panic (of strata's code or of a decoder), is sent as the
//! channel's last item. Otherwise a panicking task would just drop its sender, and the
//! consumer — a table read, a merge read, a compaction rewrite — would take the truncated
//! stream for the whole file: rows missing without an error, or, in a compaction, deleted.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use tokio::sync::mpsc::Sender;

use crate::error::ErrorDetail;
use crate::Result;

/// Spawns `work` (which sends its items through its own clone of `tx`); a failure or panic
/// of it is sent through `tx` as an error naming `what`.
pub(crate) fn spawn_producer<T, F>(what: String, tx: Sender<Result<T>>, work: F)
where
    T: Send + 'static,
    F: Future<Output = Result<()>> + Send + 'static,
{
    tokio::spawn(async move {
        let err = match AssertUnwindSafe(work).catch_unwind().await {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                ErrorDetail::TaskPanicked { what, message }.into()
            }
        };
        let _ = tx.send(Err(err)).await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_producer_ends_its_channel_with_an_error() {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<u32>>(4);
        let inner = tx.clone();
        spawn_producer("reading f.parquet".into(), tx, async move {
            inner.send(Ok(1)).await.ok();
            if inner.capacity() < usize::MAX {
                panic!("boom");
            }
            Ok(())
        });
        assert!(matches!(rx.recv().await, Some(Ok(1))));
        match rx.recv().await {
            Some(Err(e)) if matches!(e.detail(), ErrorDetail::TaskPanicked { .. }) => {
                let ErrorDetail::TaskPanicked { what, message } = e.detail() else {
                    unreachable!()
                };
                assert_eq!(what, "reading f.parquet");
                assert_eq!(message, "boom");
            }
            other => panic!("expected the panic as an error, got {other:?}"),
        }
        assert!(rx.recv().await.is_none());
    }

    #[tokio::test]
    async fn an_error_is_the_last_item() {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<u32>>(4);
        spawn_producer("x".into(), tx, async move {
            Err(ErrorDetail::InvalidArgument("bad".into()).into())
        });
        assert!(matches!(
            rx.recv().await,
            Some(Err(e)) if matches!(e.detail(), ErrorDetail::InvalidArgument(_))
        ));
        assert!(rx.recv().await.is_none());
    }
}
