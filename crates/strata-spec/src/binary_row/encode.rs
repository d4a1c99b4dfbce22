//! Encoding datums into a [`BinaryRow`], following Java's `BinaryRowWriter`,
//! `AbstractBinaryWriter` and `RowHelper.copyInto`.

use super::row::{fixed_part_size_in_bytes, null_bits_size_in_bytes, BinaryRow, MAX_INLINE_LEN};
use crate::error::{Result, SpecError};
use crate::value_text::fits_precision;
use crate::{DataType, Datum, TypeKind};

/// Largest precision of a DECIMAL stored as a long in its slot.
pub(crate) const MAX_COMPACT_DECIMAL_PRECISION: u32 = 18;
/// Largest precision of a TIMESTAMP stored as epoch millis in its slot.
pub(crate) const MAX_COMPACT_TIMESTAMP_PRECISION: u32 = 3;

/// Row under construction: the fixed part grows a variable part behind it.
struct Writer {
    buf: Vec<u8>,
    null_bits: usize,
}

impl Writer {
    fn slot_offset(&self, i: usize) -> usize {
        self.null_bits + 8 * i
    }

    fn put_slot(&mut self, i: usize, bytes: &[u8]) {
        let off = self.slot_offset(i);
        self.buf[off..off + bytes.len()].copy_from_slice(bytes);
    }

    fn set_null_bit(&mut self, i: usize) {
        let bit = i + 8;
        self.buf[bit / 8] |= 1 << (bit % 8);
    }

    /// Appends `reserve` zero bytes (rounded up to a word) to the variable part and returns the
    /// offset where they start.
    fn reserve(&mut self, reserve: usize) -> usize {
        let offset = self.buf.len();
        self.buf.resize(offset + reserve.next_multiple_of(8), 0);
        offset
    }

    /// Writes `offset << 32 | low` into slot `i` (`setOffsetAndSize`).
    fn put_offset_and_size(&mut self, i: usize, offset: usize, low: u64) -> Result<()> {
        let offset = u32::try_from(offset)
            .ok()
            .filter(|o| *o <= i32::MAX as u32)
            .ok_or_else(|| {
                SpecError::invalid("BinaryRow", format!("field {i}: row exceeds 2 GiB"))
            })?;
        let v = ((offset as u64) << 32) | low;
        self.put_slot(i, &v.to_le_bytes());
        Ok(())
    }

    /// Strings and binaries: inline when at most 7 bytes, else in the variable part.
    fn put_bytes(&mut self, i: usize, bytes: &[u8]) -> Result<()> {
        if bytes.len() <= MAX_INLINE_LEN {
            let mut slot = [0u8; 8];
            slot[..bytes.len()].copy_from_slice(bytes);
            slot[7] = 0x80 | bytes.len() as u8;
            self.put_slot(i, &slot);
            Ok(())
        } else {
            let len = u32::try_from(bytes.len()).map_err(|_| {
                SpecError::invalid("BinaryRow", format!("field {i}: value exceeds 4 GiB"))
            })?;
            let offset = self.reserve(bytes.len());
            self.buf[offset..offset + bytes.len()].copy_from_slice(bytes);
            self.put_offset_and_size(i, offset, len as u64)
        }
    }
}

/// Encodes one row; see [`BinaryRow::from_datums`].
pub(super) fn encode(values: &[Option<Datum>], types: &[DataType]) -> Result<BinaryRow> {
    if values.len() != types.len() {
        return Err(SpecError::invalid(
            "BinaryRow",
            format!("{} values for {} types", values.len(), types.len()),
        ));
    }
    let arity = types.len();
    let mut w = Writer {
        buf: vec![0; fixed_part_size_in_bytes(arity)],
        null_bits: null_bits_size_in_bytes(arity),
    };
    for (i, (value, ty)) in values.iter().zip(types).enumerate() {
        match value {
            None => write_null(&mut w, i, ty)?,
            Some(d) => write_value(&mut w, i, d, ty)?,
        }
    }
    BinaryRow::from_row_bytes(arity, w.buf)
}

/// NULL: null bit and a zero slot; non-compact DECIMAL/TIMESTAMP still reserve their
/// variable-length bytes and keep the offset (Java `RowHelper` writes them with a null value).
fn write_null(w: &mut Writer, i: usize, ty: &DataType) -> Result<()> {
    w.set_null_bit(i);
    match ty.kind {
        TypeKind::Decimal { precision, .. } if precision > MAX_COMPACT_DECIMAL_PRECISION => {
            let offset = w.reserve(16);
            w.put_offset_and_size(i, offset, 0)
        }
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p)
            if p > MAX_COMPACT_TIMESTAMP_PRECISION =>
        {
            let offset = w.reserve(8);
            w.put_offset_and_size(i, offset, 0)
        }
        _ => Ok(()),
    }
}

fn mismatch(i: usize, d: &Datum, ty: &DataType) -> SpecError {
    SpecError::invalid(
        "BinaryRow",
        format!("field {i} of type {ty}: value {d:?} does not match the type"),
    )
}

fn unsupported(i: usize, ty: &DataType) -> SpecError {
    SpecError::Unsupported(format!("BinaryRow field {i} of type {ty}"))
}

fn write_value(w: &mut Writer, i: usize, d: &Datum, ty: &DataType) -> Result<()> {
    match (&ty.kind, d) {
        (TypeKind::Boolean, Datum::Boolean(v)) => w.put_slot(i, &[*v as u8]),
        (TypeKind::TinyInt, Datum::TinyInt(v)) => w.put_slot(i, &v.to_le_bytes()),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => w.put_slot(i, &v.to_le_bytes()),
        (TypeKind::Int, Datum::Int(v))
        | (TypeKind::Date, Datum::Date(v))
        | (TypeKind::Time(_), Datum::Time(v)) => w.put_slot(i, &v.to_le_bytes()),
        (TypeKind::BigInt, Datum::BigInt(v)) => w.put_slot(i, &v.to_le_bytes()),
        (TypeKind::Float, Datum::Float(v)) => w.put_slot(i, &v.to_le_bytes()),
        (TypeKind::Double, Datum::Double(v)) => w.put_slot(i, &v.to_le_bytes()),
        (
            TypeKind::Decimal { precision, scale },
            Datum::Decimal {
                unscaled,
                scale: value_scale,
                ..
            },
        ) => {
            if value_scale != scale || !fits_precision(*unscaled, *precision) {
                return Err(mismatch(i, d, ty));
            }
            if *precision <= MAX_COMPACT_DECIMAL_PRECISION {
                // |unscaled| < 10^18 fits in an i64.
                let v = i64::try_from(*unscaled).map_err(|_| mismatch(i, d, ty))?;
                w.put_slot(i, &v.to_le_bytes());
            } else {
                let bytes = unscaled_to_be_bytes(*unscaled);
                let offset = w.reserve(16);
                w.buf[offset..offset + bytes.len()].copy_from_slice(&bytes);
                w.put_offset_and_size(i, offset, bytes.len() as u64)?;
            }
        }
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
            w.put_bytes(i, s.as_bytes())?
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), Datum::Bytes(b)) => w.put_bytes(i, b)?,
        (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        | (TypeKind::LocalZonedTimestamp(p), Datum::TimestampLtz { millis, nanos }) => {
            if !(0..=999_999).contains(nanos) {
                return Err(mismatch(i, d, ty));
            }
            if *p <= MAX_COMPACT_TIMESTAMP_PRECISION {
                // Java keeps only the millis of a compact timestamp.
                w.put_slot(i, &millis.to_le_bytes());
            } else {
                let offset = w.reserve(8);
                w.buf[offset..offset + 8].copy_from_slice(&millis.to_le_bytes());
                w.put_offset_and_size(i, offset, *nanos as u64)?;
            }
        }
        (
            TypeKind::Array(_)
            | TypeKind::Multiset(_)
            | TypeKind::Map { .. }
            | TypeKind::Row(_)
            | TypeKind::Variant
            | TypeKind::Blob,
            _,
        ) => return Err(unsupported(i, ty)),
        _ => return Err(mismatch(i, d, ty)),
    }
    Ok(())
}

/// Java `BigInteger.toByteArray()`: big-endian two's complement with the fewest bytes that
/// still carry the sign (at least one byte).
pub(crate) fn unscaled_to_be_bytes(v: i128) -> Vec<u8> {
    let full = v.to_be_bytes();
    let mut start = 0;
    while start < full.len() - 1 {
        let (b, next) = (full[start], full[start + 1]);
        // A leading 0x00 (0xFF) is redundant when the next byte's top bit already says + (−).
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    full[start..].to_vec()
}
