//! Writing `.blob` data files byte for byte as Java Paimon 2.0's `BlobFormatWriter` does (with
//! `RawBlobElementSerializer`: one top-level BLOB column, the values' bytes copied in): the
//! layout [`crate::format::blob_reader`] reads.
//!
//! Each non-NULL value is one record `magic | payload | record_length:i64 | crc32:u32`
//! (`AbstractBlobElementWriter.startRecord` / `finishRecord`: the CRC-32 covers the magic, the
//! payload and the length); a NULL value writes nothing and is length `-1` in the index. At
//! close the index (every row's record length, `DeltaVarintCompressor.compress`: the first
//! value then the deltas, ZigZag varints), its byte length (`i32`) and the version byte follow.
//! The file streams to storage (`object_store`'s `BufWriter`), so a file never has to fit in
//! memory; its size so far is what `blob.target-file-size` is checked against after every row
//! (Java's `BlobFormatWriter.reachTargetSize` checks each record).

use object_store::buffered::BufWriter;
use object_store::path::Path;
use tokio::io::AsyncWriteExt;

use crate::error::ErrorDetail;
use crate::format::blob_reader::{MAGIC, VERSION};
use crate::format::deletion_vector::crc32;
use crate::io::FileIO;
use crate::{Error, Result};

/// Java `BlobFormatWriter.NULL_LENGTH`.
const NULL_LENGTH: i64 = -1;
/// Java `BlobFormatWriter.PLACE_HOLDER_LENGTH`.
const PLACEHOLDER_LENGTH: i64 = -2;
/// The upload buffer of one `.blob` file before it becomes a multipart upload.
const SINK_CAPACITY: usize = 4 * 1024 * 1024;

/// One `.blob` file being written.
pub(crate) struct BlobFileWriter {
    io: FileIO,
    path: Path,
    sink: BufWriter,
    /// Record length of every row so far (`-1`: NULL).
    lengths: Vec<i64>,
    /// Bytes written so far (Java's `PositionOutputStream.getPos`).
    position: u64,
}

impl BlobFileWriter {
    /// Starts the file at `path` (nothing is visible there before [`Self::close`]).
    pub(crate) fn create(io: &FileIO, path: Path) -> Self {
        let sink = BufWriter::with_capacity(io.store(), path.clone(), SINK_CAPACITY);
        BlobFileWriter {
            io: io.clone(),
            path,
            sink,
            lengths: Vec::new(),
            position: 0,
        }
    }

    /// Appends one row: `None` is NULL.
    pub(crate) async fn write(&mut self, value: Option<&[u8]>) -> Result<()> {
        let Some(payload) = value else {
            self.lengths.push(NULL_LENGTH);
            return Ok(());
        };
        let record = encode_record(payload);
        self.sink
            .write_all(&record)
            .await
            .map_err(|e| self.io_error(e))?;
        self.position += record.len() as u64;
        self.lengths.push(record.len() as i64);
        Ok(())
    }

    /// Appends one placeholder row (Java's `BlobPlaceholder`, written by data-evolution updates
    /// of a BLOB column for the rows they leave unchanged): no record, length `-2` in the index;
    /// readers take the row's value from an older `.blob` file (`BlobFallbackRecordReader`).
    pub(crate) fn write_placeholder(&mut self) {
        self.lengths.push(PLACEHOLDER_LENGTH);
    }

    /// Bytes written so far.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// Rows written so far.
    pub(crate) fn rows(&self) -> usize {
        self.lengths.len()
    }

    /// Writes the index and footer and completes the upload; returns the file's size.
    pub(crate) async fn close(mut self) -> Result<u64> {
        let footer = encode_footer(&self.lengths)?;
        let result = async {
            self.sink.write_all(&footer).await?;
            self.sink.shutdown().await
        }
        .await;
        match result {
            Ok(()) => Ok(self.position + footer.len() as u64),
            Err(e) => {
                let err = self.io_error(e);
                let _ = self.abort().await;
                Err(err)
            }
        }
    }

    /// Abandons the file: aborts the upload and deletes anything already at the path.
    pub(crate) async fn abort(mut self) -> Result<()> {
        let _ = self.sink.abort().await;
        self.io.delete(&self.path).await
    }

    fn io_error(&self, e: std::io::Error) -> Error {
        ErrorDetail::DataFile {
            format: "blob",
            path: self.path.to_string(),
            message: format!("writing: {e}"),
        }
        .into()
    }
}

/// One record: magic, payload, record length, CRC-32 of everything before it.
pub(crate) fn encode_record(payload: &[u8]) -> Vec<u8> {
    let length = payload.len() as i64 + 16;
    let mut record = Vec::with_capacity(payload.len() + 16);
    record.extend_from_slice(&MAGIC.to_le_bytes());
    record.extend_from_slice(payload);
    record.extend_from_slice(&length.to_le_bytes());
    let crc = crc32(&record);
    record.extend_from_slice(&crc.to_le_bytes());
    record
}

/// The index of record lengths, its length and the version byte.
pub(crate) fn encode_footer(lengths: &[i64]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(lengths.len() * 2 + 5);
    let mut prev = 0i64;
    for (i, &l) in lengths.iter().enumerate() {
        let v = if i == 0 { l } else { l.wrapping_sub(prev) };
        prev = l;
        let mut zz = ((v << 1) ^ (v >> 63)) as u64;
        while zz & !0x7F != 0 {
            out.push((zz as u8 & 0x7F) | 0x80);
            zz >>= 7;
        }
        out.push(zz as u8);
    }
    let index_len = i32::try_from(out.len()).map_err(|_| {
        Error::from(ErrorDetail::InvalidArgument(format!(
            "a .blob file of {} rows: its index would be {} bytes, more than Java's i32 length",
            lengths.len(),
            out.len()
        )))
    })?;
    out.extend_from_slice(&index_len.to_le_bytes());
    out.push(VERSION);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::blob_reader::read_blob_file;
    use arrow_array::Array;

    fn file_bytes(values: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lengths = Vec::new();
        for v in values {
            match v {
                Some(p) => {
                    let r = encode_record(p);
                    lengths.push(r.len() as i64);
                    out.extend_from_slice(&r);
                }
                None => lengths.push(NULL_LENGTH),
            }
        }
        out.extend_from_slice(&encode_footer(&lengths).unwrap());
        out
    }

    #[test]
    fn written_files_read_back() {
        let big = vec![7u8; 300];
        let values: Vec<Option<&[u8]>> = vec![Some(b"abc"), None, Some(b""), Some(&big), None];
        let bytes = file_bytes(&values);
        let got = read_blob_file("x.blob", &bytes).unwrap();
        assert_eq!(got.len(), 5);
        for (i, v) in values.iter().enumerate() {
            match v {
                Some(p) => assert_eq!(got.value(i), *p, "row {i}"),
                None => assert!(got.is_null(i), "row {i}"),
            }
        }
    }

    #[test]
    fn footer_is_java_delta_zigzag() {
        // lengths 19, -1, 16: deltas 19, -20, 17 → zigzag 38, 39, 34
        let f = encode_footer(&[19, -1, 16]).unwrap();
        assert_eq!(f, vec![38, 39, 34, 3, 0, 0, 0, 1]);
        // an empty file: no index, length 0, version
        assert_eq!(encode_footer(&[]).unwrap(), vec![0, 0, 0, 0, 1]);
        // multi-byte varint: 300 → zigzag 600 = 0b100_1011000
        assert_eq!(&encode_footer(&[300]).unwrap()[..2], &[0xD8, 0x04]);
    }

    /// The streaming writer reproduces a file Java 2.0's `BlobFormatWriter` wrote, byte for
    /// byte (the sample the reader's tests decode).
    #[tokio::test]
    async fn writes_the_bytes_java_wrote() {
        let java = crate::format::blob_reader::tests::JAVA_FILE;
        let java: Vec<u8> = (0..java.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&java[i..i + 2], 16).unwrap())
            .collect();
        let io = FileIO::memory();
        let path = Path::from("t/bucket-0/data-1.blob");
        let mut w = BlobFileWriter::create(&io, path.clone());
        for v in [
            None,
            Some(vec![1u8; 20]),
            Some(vec![2; 40]),
            None,
            Some(vec![4; 80]),
        ] {
            w.write(v.as_deref()).await.unwrap();
        }
        assert_eq!(w.rows(), 5);
        let size = w.close().await.unwrap();
        let got = io.get(&path).await.unwrap();
        assert_eq!(size as usize, got.len());
        assert_eq!(got.to_vec(), java);
    }

    #[test]
    fn record_layout() {
        let r = encode_record(b"hi");
        assert_eq!(&r[..4], &MAGIC.to_le_bytes());
        assert_eq!(&r[4..6], b"hi");
        assert_eq!(&r[6..14], &18i64.to_le_bytes());
        assert_eq!(&r[14..], &crc32(&r[..14]).to_le_bytes());
    }
}
