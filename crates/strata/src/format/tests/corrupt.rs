//! Corrupt and truncated data files fail with `ErrorDetail::Parquet` naming the file, never panic.

use bytes::Bytes;
use futures::StreamExt;

use super::*;
use crate::error::ErrorDetail;
use crate::Error;

async fn valid_file(io: &FileIO, p: &Path) -> (RowType, Bytes) {
    let row_type = all_types();
    write_file(
        io,
        p,
        &row_type,
        &[all_types_batch()],
        &ParquetWriteOptions::default(),
    )
    .await;
    let bytes = io.get(p).await.unwrap();
    (row_type, bytes)
}

fn assert_parquet_error(err: &Error, name: &str) {
    match err.detail() {
        ErrorDetail::Parquet { path, .. } => assert!(path.contains(name), "{err}"),
        other => panic!("expected a Parquet error naming {name}, got {other}"),
    }
}

/// Reads everything, returning the first error (from opening or from the stream).
async fn read_err(io: &FileIO, p: &Path, fields: &[DataField]) -> Option<Error> {
    match read_parquet(io, p, None, fields, fields, 1024).await {
        Err(e) => Some(e),
        Ok(mut stream) => {
            while let Some(item) = stream.next().await {
                if let Err(e) = item {
                    return Some(e);
                }
            }
            None
        }
    }
}

#[tokio::test]
async fn not_a_parquet_file() {
    let io = FileIO::memory();
    let p = Path::from("bad/garbage.parquet");
    io.put(&p, Bytes::from_static(b"this is not parquet at all"))
        .await
        .unwrap();
    let fields = all_types().fields;
    let err = read_err(&io, &p, &fields).await.expect("must fail");
    assert_parquet_error(&err, "garbage.parquet");
    let err = read_parquet_metadata(&io, &p, None).await.unwrap_err();
    assert_parquet_error(&err, "garbage.parquet");

    io.put(&p, Bytes::new()).await.unwrap();
    let err = read_err(&io, &p, &fields).await.expect("must fail");
    assert_parquet_error(&err, "garbage.parquet");
}

#[tokio::test]
async fn truncated_file() {
    let io = FileIO::memory();
    let p = Path::from("bad/truncated.parquet");
    let (row_type, bytes) = valid_file(&io, &p).await;
    for cut in [1, 8, bytes.len() / 2, bytes.len() - 4] {
        io.put(&p, bytes.slice(..bytes.len() - cut)).await.unwrap();
        let err = read_err(&io, &p, &row_type.fields)
            .await
            .expect("must fail");
        assert_parquet_error(&err, "truncated.parquet");
    }
    // A wrong size hint (longer than the object) also fails cleanly.
    io.put(&p, bytes.clone()).await.unwrap();
    let res = read_parquet(
        &io,
        &p,
        Some(bytes.len() as u64 + 100),
        &row_type.fields,
        &row_type.fields,
        1024,
    )
    .await;
    assert!(res.is_err());
}

#[tokio::test]
async fn corrupted_pages_do_not_panic() {
    let io = FileIO::memory();
    let p = Path::from("bad/flipped.parquet");
    let (row_type, bytes) = valid_file(&io, &p).await;
    // Overwrite spans of the data region (after the magic, before the footer).
    let footer_len =
        u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap()) as usize;
    let data_end = bytes.len() - 8 - footer_len;
    let mut failures = 0;
    for start in (4..data_end).step_by(97) {
        let mut corrupted = bytes.to_vec();
        let end = (start + 16).min(data_end);
        for b in &mut corrupted[start..end] {
            *b ^= 0x5a;
        }
        io.put(&p, Bytes::from(corrupted)).await.unwrap();
        if let Some(err) = read_err(&io, &p, &row_type.fields).await {
            assert!(
                matches!(
                    err.detail(),
                    ErrorDetail::Parquet { .. } | ErrorDetail::SchemaMismatch { .. }
                ),
                "{err}"
            );
            failures += 1;
        }
    }
    assert!(
        failures > 0,
        "flipping data bytes should be detected at least once"
    );
}
