//! Decompression of `zstandard` Avro blocks with a per-thread reusable context.

/// Largest decompressed Avro block accepted (Java cuts blocks at 64 KB of datums; this only
/// stops a corrupt or hostile block from exhausting memory).
const MAX_BLOCK_BYTES: usize = 1 << 30;

/// Decompresses one `zstandard` Avro block, appending to `out`.
///
/// Why not apache-avro's codec: it builds a streaming decoder per block, which allocates a
/// decompression context, a window and two 128 KiB buffers every time — over a megabyte of
/// short-lived allocations per manifest, which dominated planning over hundreds of manifests.
/// Here each thread keeps one context and reuses it (reset between blocks, dropped after an
/// error).
pub(crate) fn zstd_decompress_into(
    src: &[u8],
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    use std::cell::RefCell;
    use zstd::zstd_safe::{get_error_name, DCtx, InBuffer, OutBuffer, ResetDirective};

    thread_local! {
        static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
    }
    let run = |dctx: &mut DCtx<'static>, out: &mut Vec<u8>| -> std::result::Result<(), String> {
        dctx.reset(ResetDirective::SessionOnly)
            .map_err(|c| get_error_name(c).to_string())?;
        let start = out.len();
        let mut input = InBuffer::around(src);
        let mut finished = false;
        loop {
            if input.pos() == src.len() && finished {
                return Ok(());
            }
            if out.capacity() - out.len() < 16 * 1024 {
                let grow = (out.len() - start).clamp(64 * 1024, 4 << 20);
                out.reserve(grow);
            }
            let before = (out.len(), input.pos());
            let pos = out.len();
            let mut output = OutBuffer::around_pos(out, pos);
            // The call sets `out`'s length to what it wrote.
            let hint = dctx
                .decompress_stream(&mut output, &mut input)
                .map_err(|c| get_error_name(c).to_string())?;
            finished = hint == 0;
            if out.len() - start > MAX_BLOCK_BYTES {
                return Err(format!(
                    "block decompresses to more than {MAX_BLOCK_BYTES} bytes"
                ));
            }
            if !finished && (out.len(), input.pos()) == before && input.pos() == src.len() {
                return Err("truncated zstd frame".into());
            }
        }
    };
    DCTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let dctx = slot.get_or_insert_with(DCtx::create);
        let result = run(dctx, out);
        if result.is_err() {
            // A failed context may refuse further work; start the next block afresh.
            *slot = None;
        }
        result
    })
}
