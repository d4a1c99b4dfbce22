//! CPU work over fetched bytes split across threads: decoding many manifests, or many
//! manifest entries, after the I/O is done. One blocking task hands contiguous chunks to
//! scoped threads (one per core, at most 8) and returns the results in input order.

use crate::error::ErrorDetail;
use crate::Result;

/// Applies `f` to contiguous chunks of `items` — on the calling thread when there are fewer
/// than `min_parallel` items or one core, else one chunk per core — and returns the chunk
/// results in order. The first error (in chunk order) wins.
pub(crate) fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    min_parallel: usize,
    f: impl Fn(&[T]) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if items.len() < min_parallel || threads < 2 {
        return Ok(vec![f(items)?]);
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || f(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ErrorDetail::Unsupported("a decoding thread panicked".into()).into())
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_input_order_and_errors_surface() {
        let items: Vec<u32> = (0..1000).collect();
        let sums = map_chunks(&items, 10, |part| Ok(part.to_vec())).unwrap();
        assert_eq!(sums.concat(), items);
        let small = map_chunks(&items[..3], 10, |part| Ok(part.len())).unwrap();
        assert_eq!(small, vec![3]);
        let err = map_chunks(&items, 10, |part| {
            if part.contains(&999) {
                Err(ErrorDetail::Unsupported("boom".into()).into())
            } else {
                Ok(())
            }
        });
        assert!(err.is_err());
    }
}
