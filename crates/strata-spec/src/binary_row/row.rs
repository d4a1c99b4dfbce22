//! The [`BinaryRow`] value and its fixed-part layout (header, null bits, slots): what the
//! encoder (`encode`) builds and the decoder (`decode`) reads, below both of them. Typed access
//! ([`BinaryRow::get`], [`BinaryRow::from_datums`]) is in `binary_row/mod.rs`, which calls down
//! into them.

use std::fmt;

use crate::error::{Result, SpecError};

/// Number of header bits before the null bits (the RowKind byte).
const HEADER_SIZE_IN_BITS: usize = 8;

/// Longest string/binary stored inline in its slot.
pub(crate) const MAX_INLINE_LEN: usize = 7;

/// Bytes of header + null bit set of a row of `arity` fields (`calculateBitSetWidthInBytes`).
pub fn null_bits_size_in_bytes(arity: usize) -> usize {
    ((arity + 63 + HEADER_SIZE_IN_BITS) / 64) * 8
}

/// Bytes of the fixed-length part (header, null bits and slots) of a row of `arity` fields.
pub fn fixed_part_size_in_bytes(arity: usize) -> usize {
    null_bits_size_in_bytes(arity) + 8 * arity
}

/// The change kind stored in byte 0 of every row (`org.apache.paimon.types.RowKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// `+I`, byte 0.
    Insert,
    /// `-U`, byte 1.
    UpdateBefore,
    /// `+U`, byte 2.
    UpdateAfter,
    /// `-D`, byte 3.
    Delete,
}

impl RowKind {
    /// The byte Java writes for this kind.
    pub fn to_byte(self) -> u8 {
        match self {
            RowKind::Insert => 0,
            RowKind::UpdateBefore => 1,
            RowKind::UpdateAfter => 2,
            RowKind::Delete => 3,
        }
    }

    /// The kind of a header byte; `None` for values other than 0..=3.
    pub fn from_byte(b: u8) -> Option<RowKind> {
        match b {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// Paimon's short text: `+I`, `-U`, `+U`, `-D`.
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }
}

/// One row in Paimon's binary format: the field count and the row bytes (without the 4-byte
/// arity prefix of the serialized form).
///
/// Equality and `Hash` compare arity and bytes, like Java's `BinaryRow.equals`; Paimon's own
/// hash code (used for buckets) is [`BinaryRow::hash_code`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BinaryRow {
    pub(super) arity: usize,
    pub(super) data: Vec<u8>,
}

impl BinaryRow {
    /// The row of arity 0 (`BinaryRow.EMPTY_ROW`): 8 zero bytes. Used for unpartitioned
    /// `_PARTITION`, append-table `_MIN_KEY`/`_MAX_KEY` and empty statistics.
    pub fn empty() -> BinaryRow {
        BinaryRow {
            arity: 0,
            data: vec![0; fixed_part_size_in_bytes(0)],
        }
    }

    /// Wraps row bytes (no arity prefix) of a row with `arity` fields. Fails when the bytes are
    /// shorter than the fixed-length part or longer than Java can address.
    pub fn from_row_bytes(arity: usize, data: Vec<u8>) -> Result<BinaryRow> {
        let fixed = checked_fixed_part_size(arity)
            .ok_or_else(|| SpecError::invalid("BinaryRow", format!("arity {arity} too large")))?;
        if data.len() < fixed {
            return Err(SpecError::invalid(
                "BinaryRow",
                format!(
                    "{} bytes is shorter than the fixed-length part ({fixed} bytes) of a row of arity {arity}",
                    data.len()
                ),
            ));
        }
        if data.len() > i32::MAX as usize {
            return Err(SpecError::invalid(
                "BinaryRow",
                format!("row of {} bytes exceeds 2 GiB", data.len()),
            ));
        }
        Ok(BinaryRow { arity, data })
    }

    /// Decodes the Avro form (`SerializationUtils.deserializeBinaryRow`): a 4-byte big-endian
    /// arity followed by the row bytes. Truncated or inconsistent input is an error.
    pub fn from_serialized(bytes: &[u8]) -> Result<BinaryRow> {
        let Some((prefix, rest)) = bytes.split_first_chunk::<4>() else {
            return Err(SpecError::invalid(
                "serialized BinaryRow",
                format!("{} bytes, need at least the 4-byte arity", bytes.len()),
            ));
        };
        let arity = i32::from_be_bytes(*prefix);
        if arity < 0 {
            return Err(SpecError::invalid(
                "serialized BinaryRow",
                format!("negative arity {arity}"),
            ));
        }
        BinaryRow::from_row_bytes(arity as usize, rest.to_vec())
    }

    /// The Avro form: 4-byte big-endian arity followed by the row bytes.
    pub fn to_serialized(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.data.len());
        // Arity fits in i32: from_row_bytes/encode bound the row size by i32::MAX bytes.
        out.extend_from_slice(&(self.arity as i32).to_be_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The row bytes, without the arity prefix.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }

    /// Size of the row bytes (`getSizeInBytes`).
    pub fn size_in_bytes(&self) -> usize {
        self.data.len()
    }

    /// The RowKind in byte 0; an error for bytes other than 0..=3.
    pub fn row_kind(&self) -> Result<RowKind> {
        let b = self.data[0];
        RowKind::from_byte(b).ok_or_else(|| {
            SpecError::invalid("BinaryRow header", format!("unknown RowKind byte {b}"))
        })
    }

    /// Sets the RowKind byte.
    pub fn set_row_kind(&mut self, kind: RowKind) {
        self.data[0] = kind.to_byte();
    }

    /// True when field `i` is NULL. Fields at or beyond the arity count as NULL.
    pub fn is_null_at(&self, i: usize) -> bool {
        if i >= self.arity {
            return true;
        }
        let bit = i + HEADER_SIZE_IN_BITS;
        // The fixed part (which holds every null bit of i < arity) is validated at construction.
        self.data[bit / 8] & (1 << (bit % 8)) != 0
    }

    /// Byte offset of field `i`'s slot.
    pub(crate) fn slot_offset(&self, i: usize) -> usize {
        null_bits_size_in_bytes(self.arity) + 8 * i
    }

    /// The 8-byte slot of field `i < arity` as a little-endian long.
    pub(crate) fn slot(&self, i: usize) -> i64 {
        let off = self.slot_offset(i);
        let mut b = [0u8; 8];
        // Slots of i < arity lie in the fixed part, validated at construction.
        b.copy_from_slice(&self.data[off..off + 8]);
        i64::from_le_bytes(b)
    }
}

/// Fixed-part size with overflow checks (arity comes from untrusted bytes).
fn checked_fixed_part_size(arity: usize) -> Option<usize> {
    let bits = arity.checked_add(63 + HEADER_SIZE_IN_BITS)?;
    (bits / 64)
        .checked_mul(8)?
        .checked_add(arity.checked_mul(8)?)
}

impl fmt::Debug for BinaryRow {
    /// `BinaryRow(arity=2, 00000000 00000000 | 05000000 00000000 | ...)`: hex in 8-byte words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BinaryRow(arity={}, ", self.arity)?;
        for (w, word) in self.data.chunks(8).enumerate() {
            if w > 0 {
                f.write_str(" ")?;
            }
            for b in word {
                write!(f, "{b:02x}")?;
            }
        }
        f.write_str(")")
    }
}
