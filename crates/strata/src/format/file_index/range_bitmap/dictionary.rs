//! The `ChunkedDictionary` of a range bitmap (Java's `ChunkedDictionary`,
//! `FixedLengthChunk`, `VariableLengthChunk`): the sorted distinct keys in chunks, each chunk's
//! first key and code in its head, the rest of its keys (fixed-size, or strings behind i32
//! offsets) in the keys region; read whole into a code-ordered list, written as Java's
//! `ChunkedDictionary.Appender`.

use strata_spec::SpecError;

use super::key::{invalid, read_key, sub, usize_of, Key, KeyKind, VERSION_1};
use crate::format::file_index::container::JavaReader;

/// Every key of a `ChunkedDictionary`, in code order.
pub(super) fn read_dictionary(data: &[u8], kk: KeyKind) -> Result<Vec<Key>, SpecError> {
    let mut r = JavaReader::new(data);
    let header_length = usize_of(r.i32()?, "dictionary header length")?;
    let version = r.u8()?;
    if version > VERSION_1 {
        return Err(invalid(format!("dictionary version {version}")));
    }
    let size = usize_of(r.i32()?, "chunk count")?;
    let offsets_length = usize_of(r.i32()?, "offsets length")?;
    let chunks_length = usize_of(r.i32()?, "chunks length")?;
    let body = 4 + header_length;
    let offsets = sub(data, body, offsets_length)?;
    let chunks = sub(data, body + offsets_length, chunks_length)?;
    let keys_base = body + offsets_length + chunks_length;
    if offsets_length != size * 4 {
        return Err(invalid("chunk offsets do not match the chunk count"));
    }
    let mut out = Vec::new();
    let mut offs = JavaReader::new(offsets);
    for _ in 0..size {
        let at = usize_of(offs.i32()?, "chunk offset")?;
        let mut h = JavaReader::at(chunks, at)?;
        let version = h.u8()?;
        if version > VERSION_1 {
            return Err(invalid(format!("chunk version {version}")));
        }
        let first = read_key(&mut h, kk)?;
        let code = usize_of(h.i32()?, "code")?;
        let keys_offset = usize_of(h.i32()?, "keys offset")?;
        let n = usize_of(h.i32()?, "chunk size")?;
        if code != out.len() {
            return Err(invalid(format!(
                "chunk code {code}, expected {}",
                out.len()
            )));
        }
        out.push(first);
        if kk == KeyKind::Str {
            let offsets_len = usize_of(h.i32()?, "chunk offsets length")?;
            let keys_len = usize_of(h.i32()?, "chunk keys length")?;
            let region = sub(data, keys_base + keys_offset, offsets_len + keys_len)?;
            let mut o = JavaReader::new(&region[..offsets_len]);
            let keys = &region[offsets_len..];
            for _ in 0..n {
                let mut k = JavaReader::at(keys, usize_of(o.i32()?, "key offset")?)?;
                out.push(read_key(&mut k, kk)?);
            }
        } else {
            let keys_len = usize_of(h.i32()?, "chunk keys length")?;
            let fixed = usize_of(h.i32()?, "fixed length")?;
            if fixed.checked_mul(n).is_none_or(|l| l > keys_len) {
                return Err(invalid("chunk keys overrun their length"));
            }
            let mut k = JavaReader::new(sub(data, keys_base + keys_offset, keys_len)?);
            for _ in 0..n {
                out.push(read_key(&mut k, kk)?);
            }
        }
    }
    if out.windows(2).any(|w| w[0] >= w[1]) {
        return Err(invalid("dictionary keys out of order"));
    }
    Ok(out)
}

/// One chunk being filled (`FixedLengthChunk` / `VariableLengthChunk`).
struct ChunkWriter {
    key: Key,
    code: i32,
    keys_offset: i32,
    size: i32,
    offsets: Vec<u8>,
    keys: Vec<u8>,
}

/// `ChunkedDictionary.Appender`.
pub(super) struct DictionaryWriter {
    limit: usize,
    chunk: Option<ChunkWriter>,
    offsets: Vec<u8>,
    chunks: Vec<u8>,
    keys: Vec<u8>,
    size: i32,
}

impl DictionaryWriter {
    pub(super) fn new(limit: usize) -> Self {
        DictionaryWriter {
            limit,
            chunk: None,
            offsets: Vec::new(),
            chunks: Vec::new(),
            keys: Vec::new(),
            size: 0,
        }
    }

    pub(super) fn append(&mut self, key: &Key, code: i32) {
        if let Some(c) = &mut self.chunk {
            let len = key.size();
            let fits = if matches!(key, Key::Str(_)) {
                // `VariableLengthChunk.tryAdd`: keys and offsets each bounded by the limit.
                len <= self.limit - c.keys.len() && 4 <= self.limit - c.offsets.len()
            } else {
                len <= self.limit - c.keys.len()
            };
            if fits {
                if matches!(key, Key::Str(_)) {
                    let at: usize = c.keys.len();
                    c.offsets.extend_from_slice(&(at as i32).to_be_bytes());
                }
                key.write(&mut c.keys);
                c.size += 1;
                return;
            }
            self.flush();
        }
        self.chunk = Some(ChunkWriter {
            key: key.clone(),
            code,
            keys_offset: self.keys.len() as i32,
            size: 0,
            offsets: Vec::new(),
            keys: Vec::new(),
        });
    }

    fn flush(&mut self) {
        let Some(c) = self.chunk.take() else { return };
        self.offsets
            .extend_from_slice(&(self.chunks.len() as i32).to_be_bytes());
        self.chunks.push(VERSION_1);
        c.key.write(&mut self.chunks);
        for v in [c.code, c.keys_offset, c.size] {
            self.chunks.extend_from_slice(&v.to_be_bytes());
        }
        if matches!(c.key, Key::Str(_)) {
            self.chunks
                .extend_from_slice(&(c.offsets.len() as i32).to_be_bytes());
            self.chunks
                .extend_from_slice(&(c.keys.len() as i32).to_be_bytes());
            self.keys.extend_from_slice(&c.offsets);
        } else {
            self.chunks
                .extend_from_slice(&(c.keys.len() as i32).to_be_bytes());
            self.chunks
                .extend_from_slice(&(c.key.size() as i32).to_be_bytes());
        }
        self.keys.extend_from_slice(&c.keys);
        self.size += 1;
    }

    pub(super) fn finish(mut self) -> Vec<u8> {
        self.flush();
        let mut out = 13i32.to_be_bytes().to_vec();
        out.push(VERSION_1);
        for v in [
            self.size,
            self.offsets.len() as i32,
            self.chunks.len() as i32,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&self.offsets);
        out.extend_from_slice(&self.chunks);
        out.extend_from_slice(&self.keys);
        out
    }
}
