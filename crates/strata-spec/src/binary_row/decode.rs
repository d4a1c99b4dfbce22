//! Decoding fields of a [`BinaryRow`] (Java `BinaryRow.getXxx` + `MemorySegmentUtils.readXxx`),
//! with every offset and length checked against the row bytes.

use super::encode::{MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION};
use super::row::{BinaryRow, MAX_INLINE_LEN};
use crate::error::{Result, SpecError};
use crate::value_text::fits_precision;
use crate::{DataType, Datum, TypeKind};

/// Bit 63 of a slot: the value is inlined in the slot.
const INLINE_MARK: u64 = 1 << 63;

fn corrupt(i: usize, ty: &DataType, message: impl std::fmt::Display) -> SpecError {
    SpecError::invalid(
        format!("BinaryRow field {i} of type {ty}"),
        message.to_string(),
    )
}

/// See [`BinaryRow::get`].
pub(super) fn get(row: &BinaryRow, i: usize, ty: &DataType) -> Result<Option<Datum>> {
    if i >= row.arity {
        return Err(SpecError::invalid(
            format!("BinaryRow field {i} of type {ty}"),
            format!("index out of range for a row of arity {}", row.arity),
        ));
    }
    if ty.is_nested() || matches!(ty.kind, TypeKind::Blob) {
        return Err(SpecError::Unsupported(format!(
            "BinaryRow field {i} of type {ty}"
        )));
    }
    if row.is_null_at(i) {
        return Ok(None);
    }
    let off = row.slot_offset(i);
    let slot_bytes = &row.data[off..off + 8];
    let slot = row.slot(i);
    let datum = match &ty.kind {
        TypeKind::Boolean => Datum::Boolean(slot_bytes[0] != 0),
        TypeKind::TinyInt => Datum::TinyInt(slot_bytes[0] as i8),
        TypeKind::SmallInt => Datum::SmallInt(i16::from_le_bytes([slot_bytes[0], slot_bytes[1]])),
        TypeKind::Int => Datum::Int(low_i32(slot)),
        TypeKind::Date => Datum::Date(low_i32(slot)),
        TypeKind::Time(_) => Datum::Time(low_i32(slot)),
        TypeKind::BigInt => Datum::BigInt(slot),
        TypeKind::Float => Datum::Float(f32::from_bits(low_i32(slot) as u32)),
        TypeKind::Double => Datum::Double(f64::from_bits(slot as u64)),
        TypeKind::Decimal { precision, scale } => {
            let unscaled = if *precision <= MAX_COMPACT_DECIMAL_PRECISION {
                slot as i128
            } else {
                let bytes = var_part(row, i, ty, slot)?;
                be_bytes_to_unscaled(bytes).ok_or_else(|| {
                    corrupt(
                        i,
                        ty,
                        format!("decimal of {} bytes (expected 1..=16)", bytes.len()),
                    )
                })?
            };
            // Java reads a compact decimal's long as is; a non-compact one that exceeds the
            // precision would become NULL there, which here is reported as corrupt.
            if *precision > MAX_COMPACT_DECIMAL_PRECISION && !fits_precision(unscaled, *precision) {
                return Err(corrupt(
                    i,
                    ty,
                    format!("unscaled value {unscaled} exceeds the precision"),
                ));
            }
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let bytes = var_or_inline(row, i, ty, slot)?;
            // Java decodes invalid UTF-8 with replacement characters rather than failing.
            Datum::String(String::from_utf8_lossy(bytes).into_owned())
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            Datum::Bytes(var_or_inline(row, i, ty, slot)?.to_vec())
        }
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let (millis, nanos) = if *p <= MAX_COMPACT_TIMESTAMP_PRECISION {
                (slot, 0)
            } else {
                let offset = var_offset(row, i, ty, slot, 8)?;
                let mut b = [0u8; 8];
                b.copy_from_slice(&row.data[offset..offset + 8]);
                let nanos = low_i32(slot);
                if !(0..=999_999).contains(&nanos) {
                    return Err(corrupt(i, ty, format!("nano of millisecond {nanos}")));
                }
                (i64::from_le_bytes(b), nanos)
            };
            if matches!(ty.kind, TypeKind::Timestamp(_)) {
                Datum::Timestamp { millis, nanos }
            } else {
                Datum::TimestampLtz { millis, nanos }
            }
        }
        // Nested, VARIANT and BLOB were rejected above.
        _ => {
            return Err(SpecError::Unsupported(format!(
                "BinaryRow field {i} of type {ty}"
            )))
        }
    };
    Ok(Some(datum))
}

fn low_i32(slot: i64) -> i32 {
    slot as i32
}

/// Offset of a variable-length value of `len` bytes, checked against the row size.
fn var_offset(row: &BinaryRow, i: usize, ty: &DataType, slot: i64, len: usize) -> Result<usize> {
    let offset = ((slot as u64) >> 32) as usize;
    match offset.checked_add(len) {
        Some(end) if end <= row.data.len() => Ok(offset),
        _ => Err(corrupt(
            i,
            ty,
            format!(
                "variable-length value at offset {offset} with {len} bytes runs past the row end ({} bytes)",
                row.data.len()
            ),
        )),
    }
}

/// Bytes of a variable-length value whose slot is `offset << 32 | len`.
fn var_part<'a>(row: &'a BinaryRow, i: usize, ty: &DataType, slot: i64) -> Result<&'a [u8]> {
    let len = (slot as u64 & 0xFFFF_FFFF) as usize;
    let offset = var_offset(row, i, ty, slot, len)?;
    Ok(&row.data[offset..offset + len])
}

/// Strings/binaries: inline in the slot when bit 63 is set, else in the variable part.
fn var_or_inline<'a>(row: &'a BinaryRow, i: usize, ty: &DataType, slot: i64) -> Result<&'a [u8]> {
    let s = slot as u64;
    if s & INLINE_MARK != 0 {
        let len = ((s >> 56) & 0x7F) as usize;
        if len > MAX_INLINE_LEN {
            return Err(corrupt(i, ty, format!("inline length {len} exceeds 7")));
        }
        let off = row.slot_offset(i);
        Ok(&row.data[off..off + len])
    } else {
        var_part(row, i, ty, slot)
    }
}

/// Java `new BigInteger(bytes)`: big-endian two's complement, 1..=16 bytes.
pub(crate) fn be_bytes_to_unscaled(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0x00 };
    let mut full = [fill; 16];
    full[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(full))
}
