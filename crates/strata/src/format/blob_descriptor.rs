//! Java Paimon 2.0's `BlobDescriptor`: where a BLOB value's bytes are (a URI, an offset and a
//! length), serialized as `BlobDescriptor.serialize` lays it out (little-endian):
//!
//! ```text
//! version:u8 (= 2)  magic:i64 ("BLOBDESC")  uri_length:i32  uri (UTF-8)  offset:i64  length:i64
//! ```
//!
//! Version 1 (no magic) is read too, as `BlobDescriptor.deserialize` does. With
//! `blob-as-descriptor = true` a BLOB column is read as these bytes (Java's
//! `AbstractBlobElementReader.readBlob`: the `.blob` file's path, the payload's position and
//! length) and written from them (the referenced bytes copied into the `.blob` file, as Java's
//! writers copy a `BlobRef`). Bad bytes are an error naming what is wrong, never a panic.

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Java `BlobDescriptor.MAGIC`: "BLOBDESC".
const MAGIC: i64 = 0x424C_4F42_4445_5343;
/// Java `BlobDescriptor.CURRENT_VERSION`.
const VERSION: u8 = 2;

/// A deserialized descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlobDescriptor {
    pub(crate) uri: String,
    pub(crate) offset: i64,
    pub(crate) length: i64,
}

impl BlobDescriptor {
    /// Java `BlobDescriptor.serialize` (version 2).
    pub(crate) fn serialize(&self) -> Vec<u8> {
        let uri = self.uri.as_bytes();
        let mut out = Vec::with_capacity(1 + 8 + 4 + uri.len() + 16);
        out.push(VERSION);
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&(uri.len() as i32).to_le_bytes());
        out.extend_from_slice(uri);
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.length.to_le_bytes());
        out
    }

    /// Java `BlobDescriptor.deserialize` (versions 1 and 2).
    pub(crate) fn deserialize(bytes: &[u8]) -> Result<Self> {
        let bad = |why: &str| -> Error {
            ErrorDetail::InvalidArgument(format!(
                "invalid BlobDescriptor ({} bytes): {why}",
                bytes.len()
            ))
            .into()
        };
        let (&version, mut rest) = bytes.split_first().ok_or_else(|| bad("too short"))?;
        if version > VERSION {
            return Err(bad(&format!(
                "version {version}, newer than Java Paimon 2.0's {VERSION}"
            )));
        }
        let mut take = |n: usize| -> Result<&[u8]> {
            if rest.len() < n {
                return Err(bad("too short"));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        if version > 1 {
            let magic = i64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
            if magic != MAGIC {
                return Err(bad("missing magic header"));
            }
        }
        let uri_len = i32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        if uri_len < 0 {
            return Err(bad(&format!("negative URI length {uri_len}")));
        }
        let uri = std::str::from_utf8(take(uri_len as usize)?)
            .map_err(|_| bad("the URI is not UTF-8"))?
            .to_string();
        let offset = i64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let length = i64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        Ok(BlobDescriptor {
            uri,
            offset,
            length,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_java_layout() {
        let d = BlobDescriptor {
            uri: "/wh/db.db/t/bucket-0/data-1.blob".into(),
            offset: 4,
            length: 20,
        };
        let bytes = d.serialize();
        assert_eq!(bytes[0], 2);
        assert_eq!(&bytes[1..9], b"CSEDBOLB"); // the magic, little-endian
        assert_eq!(&bytes[9..13], &(d.uri.len() as i32).to_le_bytes());
        assert_eq!(bytes.len(), 1 + 8 + 4 + d.uri.len() + 16);
        assert_eq!(BlobDescriptor::deserialize(&bytes).unwrap(), d);
        // version 1: no magic
        let mut v1 = vec![1u8];
        v1.extend_from_slice(&bytes[9..]);
        assert_eq!(BlobDescriptor::deserialize(&v1).unwrap(), d);
    }

    #[test]
    fn bad_bytes_are_errors() {
        let good = BlobDescriptor {
            uri: "x".into(),
            offset: 0,
            length: 1,
        }
        .serialize();
        for bad in [&[][..], &[3u8][..], &good[..good.len() - 1], &good[..5]] {
            assert!(BlobDescriptor::deserialize(bad).is_err(), "{bad:?}");
        }
        let mut wrong_magic = good.clone();
        wrong_magic[1] ^= 1;
        assert!(BlobDescriptor::deserialize(&wrong_magic).is_err());
        let mut negative = good;
        negative[9..13].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(BlobDescriptor::deserialize(&negative).is_err());
    }
}
