//! [`BinaryRow`]: Paimon's compact row encoding, byte-identical to Java's `BinaryRow` /
//! `BinaryRowWriter`.
//!
//! Manifests store partitions (`_PARTITION`), min/max keys (`_MIN_KEY`, `_MAX_KEY`) and
//! statistics (`_MIN_VALUES`, `_MAX_VALUES`) as BinaryRows, and fixed-bucket writers hash the
//! BinaryRow of the bucket key ([`crate::bucket`]). The row itself carries no types: readers take
//! the column types from the schema (format reference §6.6).
//!
//! Layout of one row (all multi-byte values little-endian):
//!
//! ```text
//! [ header byte (RowKind) + null bits : W bytes ][ 8-byte slot × arity ][ variable-length part ]
//! W = ((arity + 63 + 8) / 64) * 8
//! ```
//!
//! * fixed-width values (BOOLEAN..DOUBLE, DATE, TIME, compact DECIMAL p ≤ 18, compact
//!   TIMESTAMP p ≤ 3) live in their slot;
//! * strings and binaries of at most 7 bytes are inlined in the slot (byte 7 = `0x80 | len`),
//!   longer ones go to the variable part with slot `offset << 32 | len`;
//! * DECIMAL p > 18 always reserves 16 bytes in the variable part (big-endian minimal two's
//!   complement at its start), TIMESTAMP p > 3 reserves 8 bytes (epoch millis) and keeps the
//!   nanos of the millisecond in the slot. A NULL of those two kinds still reserves its bytes
//!   and keeps `offset << 32` in the slot, as Java's `RowHelper` does;
//! * every variable-length value starts 8-byte aligned and is zero-padded.
//!
//! In Avro (`SerializationUtils.serializeBinaryRow`) a row is prefixed by its arity as a 4-byte
//! big-endian int: [`BinaryRow::from_serialized`] / [`BinaryRow::to_serialized`].
//!
//! Encoding lives in `encode`, decoding in `decode`. Nested types (ARRAY, MAP, MULTISET, ROW),
//! VARIANT and BLOB are not supported yet and give [`SpecError::Unsupported`].

mod decode;
mod encode;
mod row;
#[cfg(test)]
mod tests;

pub use row::{fixed_part_size_in_bytes, null_bits_size_in_bytes, BinaryRow, RowKind};

use crate::error::{Result, SpecError};
use crate::{DataType, Datum};

/// Typed access: decoding goes down into `decode`, encoding into `encode`.
impl BinaryRow {
    /// Field `i` decoded as `ty`; `Ok(None)` for NULL. Errors name the field index and type
    /// when `i` is out of range, the type is unsupported or the bytes are inconsistent.
    pub fn get(&self, i: usize, ty: &DataType) -> Result<Option<Datum>> {
        decode::get(self, i, ty)
    }

    /// All fields decoded with `types` (one per field; the count must equal the arity).
    pub fn to_datums(&self, types: &[DataType]) -> Result<Vec<Option<Datum>>> {
        if types.len() != self.arity() {
            return Err(SpecError::invalid(
                "BinaryRow",
                format!(
                    "row has arity {} but {} types were given",
                    self.arity(),
                    types.len()
                ),
            ));
        }
        types
            .iter()
            .enumerate()
            .map(|(i, ty)| self.get(i, ty))
            .collect()
    }

    /// Encodes `values` (one per type, NULL = `None`) as Java's `BinaryRowWriter` would, with
    /// RowKind `+I`. Errors when the counts differ or a datum does not match its type.
    pub fn from_datums(values: &[Option<Datum>], types: &[DataType]) -> Result<BinaryRow> {
        encode::encode(values, types)
    }
}
