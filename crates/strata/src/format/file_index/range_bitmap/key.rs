//! The keys of a range bitmap (Java's `KeyFactory` keys): their order (Java's comparator per
//! type), their byte form in the dictionary, and the small bounds-checked readers the index
//! and its dictionary share. A leaf file, so that `range_bitmap.rs` and `dictionary.rs`
//! import it one way.

use std::cmp::Ordering;

use strata_spec::SpecError;

use crate::format::file_index::container::JavaReader;

pub(crate) const VERSION_1: u8 = 1;

pub(crate) fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid("range-bitmap file index", message)
}

/// A value as Java's `KeyFactory` converts it; ordered by Java's comparator of its type.
#[derive(Clone, Debug)]
pub(crate) enum Key {
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Str(Vec<u8>),
}

/// Java's `Float.compare` / `Double.compare`: -0.0 below 0.0, every NaN equal and above all.
fn java_float_cmp<F: PartialOrd + Copy>(
    a: F,
    b: F,
    nan: fn(F) -> bool,
    total: Ordering,
) -> Ordering {
    match (nan(a), nan(b)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => total,
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        use Key::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a.cmp(b),
            (Byte(a), Byte(b)) => a.cmp(b),
            (Short(a), Short(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Long(a), Long(b)) => a.cmp(b),
            (Float(a), Float(b)) => java_float_cmp(*a, *b, f32::is_nan, a.total_cmp(b)),
            (Double(a), Double(b)) => java_float_cmp(*a, *b, f64::is_nan, a.total_cmp(b)),
            // `BinaryString.compareTo`: unsigned bytes, then length.
            (Str(a), Str(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl Key {
    pub(super) fn rank(&self) -> u8 {
        match self {
            Key::Bool(_) => 0,
            Key::Byte(_) => 1,
            Key::Short(_) => 2,
            Key::Int(_) => 3,
            Key::Long(_) => 4,
            Key::Float(_) => 5,
            Key::Double(_) => 6,
            Key::Str(_) => 7,
        }
    }

    pub(super) fn size(&self) -> usize {
        match self {
            Key::Bool(_) | Key::Byte(_) => 1,
            Key::Short(_) => 2,
            Key::Int(_) | Key::Float(_) => 4,
            Key::Long(_) | Key::Double(_) => 8,
            Key::Str(s) => 4 + s.len(),
        }
    }

    pub(super) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Key::Bool(b) => out.push(*b as u8),
            Key::Byte(v) => out.push(*v as u8),
            Key::Short(v) => out.extend_from_slice(&v.to_be_bytes()),
            Key::Int(v) => out.extend_from_slice(&v.to_be_bytes()),
            Key::Long(v) => out.extend_from_slice(&v.to_be_bytes()),
            Key::Float(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
            Key::Double(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
            Key::Str(s) => {
                out.extend_from_slice(&(s.len() as i32).to_be_bytes());
                out.extend_from_slice(s);
            }
        }
    }
}

/// The key kind of a column type (`KeyFactory.create`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum KeyKind {
    Bool,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Str,
}

pub(crate) fn read_key(r: &mut JavaReader<'_>, kind: KeyKind) -> Result<Key, SpecError> {
    Ok(match kind {
        KeyKind::Bool => Key::Bool(r.u8()? == 1),
        KeyKind::Byte => Key::Byte(r.u8()? as i8),
        KeyKind::Short => Key::Short(r.i16()?),
        KeyKind::Int => Key::Int(r.i32()?),
        KeyKind::Long => Key::Long(r.i64()?),
        KeyKind::Float => Key::Float(f32::from_bits(r.i32()? as u32)),
        KeyKind::Double => Key::Double(f64::from_bits(r.i64()? as u64)),
        KeyKind::Str => Key::Str(r.sized_bytes()?.to_vec()),
    })
}

pub(crate) fn sub(data: &[u8], start: usize, len: usize) -> Result<&[u8], SpecError> {
    start
        .checked_add(len)
        .filter(|e| *e <= data.len())
        .map(|e| &data[start..e])
        .ok_or_else(|| invalid(format!("section {start}+{len} past {} bytes", data.len())))
}

pub(crate) fn usize_of(v: i32, what: &str) -> Result<usize, SpecError> {
    usize::try_from(v).map_err(|_| invalid(format!("negative {what} {v}")))
}
