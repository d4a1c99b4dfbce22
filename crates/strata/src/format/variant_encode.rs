//! The containers of Paimon's variant binary (the Parquet variant encoding): objects and arrays
//! written byte for byte as Java's `GenericVariantBuilder` writes them (object headers sorted by
//! key in Java's `String` order, field data in the order it was appended, the smallest field-id
//! and offset sizes), the key dictionary of a builder (`addKey`, `result`), Java's
//! `appendVariant` (a value copied into a builder's dictionary), and the readers of value sizes,
//! containers, metadata dictionaries and primitives these need. Shared by the JSON encoder (`variant_json`),
//! the rebuild of shredded files (`variant_shredding`) and the shredding writer
//! (`variant_shred_write`).

use std::cmp::Ordering;
use std::collections::HashMap;

/// The fewest bytes (1 to 4) that hold `max`.
pub(crate) fn size_for(max: usize) -> usize {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

/// `v` as `size` little-endian bytes.
pub(crate) fn push_le(out: &mut Vec<u8>, v: usize, size: usize) {
    out.extend_from_slice(&(v as u64).to_le_bytes()[..size]);
}

/// Java's `String.compareTo` (UTF-16 code units), the order of object headers.
fn java_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// An object of `(field id, key, value bytes)` as Java's `finishWritingObject`: the data in the
/// given order, the header (ids and offsets) sorted by key, the smallest id and offset sizes.
pub(crate) fn encode_object(fields: Vec<(u32, String, Vec<u8>)>, out: &mut Vec<u8>) {
    let n = fields.len();
    let mut entries = Vec::with_capacity(n);
    let mut offset = 0;
    for f in &fields {
        entries.push((f.0, f.1.as_str(), offset));
        offset += f.2.len();
    }
    let data = offset;
    entries.sort_by(|a, b| java_order(a.1, b.1));
    let max_id = fields.iter().map(|f| f.0 as usize).max().unwrap_or(0);
    let (id_size, offset_size) = (size_for(max_id), size_for(data));
    let large = n > 0xff;
    out.push(
        ((u8::from(large) << 4 | ((id_size - 1) as u8) << 2 | (offset_size - 1) as u8) << 2) | 2,
    );
    push_le(out, n, if large { 4 } else { 1 });
    for e in &entries {
        push_le(out, e.0 as usize, id_size);
    }
    for e in &entries {
        push_le(out, e.2, offset_size);
    }
    push_le(out, data, offset_size);
    for f in &fields {
        out.extend_from_slice(&f.2);
    }
}

/// An array of encoded elements, the smallest offset size.
pub(crate) fn encode_array(elements: Vec<Vec<u8>>, out: &mut Vec<u8>) {
    let n = elements.len();
    let data: usize = elements.iter().map(Vec::len).sum();
    let offset_size = size_for(data);
    let large = n > 0xff;
    out.push(((u8::from(large) << 2 | (offset_size - 1) as u8) << 2) | 3);
    push_le(out, n, if large { 4 } else { 1 });
    let mut offset = 0;
    for e in &elements {
        push_le(out, offset, offset_size);
        offset += e.len();
    }
    push_le(out, offset, offset_size);
    for e in elements {
        out.extend_from_slice(&e);
    }
}

/// The key dictionary of a Java `GenericVariantBuilder`: keys numbered in the order added.
#[derive(Default)]
pub(crate) struct KeyDict {
    keys: Vec<String>,
    ids: HashMap<String, u32>,
}

impl KeyDict {
    /// Java's `addKey`: the key's id, added at the end when new.
    pub(crate) fn add(&mut self, key: &str) -> u32 {
        if let Some(id) = self.ids.get(key) {
            return *id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.to_string());
        self.ids.insert(key.to_string(), id);
        id
    }

    /// The metadata binary Java's `result()` writes: version 1, not sorted, the smallest offset
    /// size for the string bytes and the key count.
    pub(crate) fn metadata(&self) -> Vec<u8> {
        let strings: usize = self.keys.iter().map(String::len).sum();
        let offset_size = size_for(strings.max(self.keys.len()));
        let mut out = vec![1 | ((offset_size - 1) as u8) << 6];
        push_le(&mut out, self.keys.len(), offset_size);
        let mut offset = 0;
        for k in &self.keys {
            push_le(&mut out, offset, offset_size);
            offset += k.len();
        }
        push_le(&mut out, offset, offset_size);
        for k in &self.keys {
            out.extend_from_slice(k.as_bytes());
        }
        out
    }
}

/// Java's `appendVariant`: `v` (one value, its object field ids in `file_keys`) copied with
/// its keys added to `dict`: objects and arrays rewritten, primitives copied. `None` when `v`
/// is malformed.
pub(crate) fn append_variant(
    v: &[u8],
    file_keys: &[String],
    dict: &mut KeyDict,
    out: &mut Vec<u8>,
) -> Option<()> {
    match v.first()? & 3 {
        2 => {
            let mut fields = Vec::new();
            for (id, value) in container(v, true)? {
                let key = file_keys.get(id)?;
                let new_id = dict.add(key);
                let mut buf = Vec::new();
                append_variant(value, file_keys, dict, &mut buf)?;
                fields.push((new_id, key.clone(), buf));
            }
            encode_object(fields, out);
        }
        3 => {
            let mut elements = Vec::new();
            for (_, value) in container(v, false)? {
                let mut buf = Vec::new();
                append_variant(value, file_keys, dict, &mut buf)?;
                elements.push(buf);
            }
            encode_array(elements, out);
        }
        _ => out.extend_from_slice(slice(v, 0)?),
    }
    Some(())
}

/// The little-endian unsigned integer of `n` bytes at `at`.
pub(crate) fn le(v: &[u8], at: usize, n: usize) -> Option<usize> {
    Some(
        v.get(at..at + n)?
            .iter()
            .rev()
            .fold(0usize, |acc, b| (acc << 8) | *b as usize),
    )
}

/// The keys of a variant metadata binary, by id.
pub(crate) fn dictionary(m: &[u8]) -> Option<Vec<String>> {
    let header = *m.first()?;
    if header & 0x0f != 1 {
        return None;
    }
    let size = ((header >> 6) & 3) as usize + 1;
    let n = le(m, 1, size)?;
    let start = 1 + size * (n + 2);
    let mut keys = Vec::with_capacity(n.min(m.len()));
    let mut from = le(m, 1 + size, size)?;
    for i in 1..=n {
        let to = le(m, 1 + size * (i + 1), size)?;
        keys.push(String::from_utf8_lossy(m.get(start + from..start + to)?).into_owned());
        from = to;
    }
    Some(keys)
}

/// The bytes of the value starting at `at` (Java's `valueSize`).
pub(crate) fn slice(v: &[u8], at: usize) -> Option<&[u8]> {
    let header = *v.get(at)?;
    let vh = (header >> 2) as usize;
    let size = match header & 3 {
        0 => match vh {
            0..=2 => 1,
            3 => 2,
            4 => 3,
            5 | 11 | 14 => 5,
            6 | 7 | 12 | 13 | 17 | 18 | 19 => 9,
            8 => 6,
            9 => 10,
            10 => 18,
            15 | 16 => 5 + le(v, at + 1, 4)?,
            20 => 17,
            _ => return None,
        },
        1 => 1 + vh,
        kind => {
            let object = kind == 2;
            let large = if object { (vh >> 4) & 1 } else { (vh >> 2) & 1 } == 1;
            let n_size = if large { 4 } else { 1 };
            let id_size = if object { ((vh >> 2) & 3) + 1 } else { 0 };
            let offset_size = (vh & 3) + 1;
            let n = le(v, at + 1, n_size)?;
            let offsets_at = 1 + n_size + n.checked_mul(id_size)?;
            let data_at = offsets_at + n.checked_add(1)?.checked_mul(offset_size)?;
            data_at + le(v, at + offsets_at + n * offset_size, offset_size)?
        }
    };
    v.get(at..at.checked_add(size)?)
}

/// The elements of an array, or the `(field id, value)` of an object, in stored order; `v`
/// starts with the container's header.
pub(crate) fn container(v: &[u8], object: bool) -> Option<Vec<(usize, &[u8])>> {
    let vh = (*v.first()? >> 2) as usize;
    let large = if object { (vh >> 4) & 1 } else { (vh >> 2) & 1 } == 1;
    let n_size = if large { 4 } else { 1 };
    let id_size = if object { ((vh >> 2) & 3) + 1 } else { 0 };
    let offset_size = (vh & 3) + 1;
    let n = le(v, 1, n_size)?;
    let ids_at = 1 + n_size;
    let offsets_at = ids_at + n.checked_mul(id_size)?;
    let data_at = offsets_at + n.checked_add(1)?.checked_mul(offset_size)?;
    if data_at > v.len() {
        return None;
    }
    (0..n)
        .map(|i| {
            let id = if object {
                le(v, ids_at + i * id_size, id_size)?
            } else {
                i
            };
            let offset = le(v, offsets_at + i * offset_size, offset_size)?;
            Some((id, slice(v, data_at + offset)?))
        })
        .collect()
}

/// The variant scalars the shredding writer looks at (`variant_shred_write`), decoded.
pub(crate) enum Primitive<'a> {
    Boolean(bool),
    Long(i64),
    /// Unscaled value and scale.
    Decimal(i128, u32),
    Float(f32),
    Double(f64),
    String(&'a [u8]),
    Binary(&'a [u8]),
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// Digits of an unscaled value (`BigDecimal.precision`: 1 for zero).
fn digits(v: i128) -> u32 {
    let mut v = v.unsigned_abs();
    let mut d = 1;
    while v >= 10 {
        v /= 10;
        d += 1;
    }
    d
}

impl<'a> Primitive<'a> {
    pub(crate) fn decode(v: &'a [u8]) -> Option<Self> {
        let header = *v.first()?;
        let int = |n: usize| -> Option<i128> {
            let b = v.get(1..1 + n)?;
            let mut buf = [0u8; 16];
            buf[..n].copy_from_slice(b);
            if b[n - 1] & 0x80 != 0 {
                buf[n..].fill(0xff);
            }
            Some(i128::from_le_bytes(buf))
        };
        if header & 3 == 1 {
            return Some(Primitive::String(v.get(1..1 + (header >> 2) as usize)?));
        }
        if header & 3 != 0 {
            return None;
        }
        let dec = |n: usize| -> Option<Self> {
            let scale = *v.get(1)? as u32;
            let b = v.get(2..2 + n)?;
            let mut buf = [0u8; 16];
            buf[..n].copy_from_slice(b);
            if b[n - 1] & 0x80 != 0 {
                buf[n..].fill(0xff);
            }
            Some(Primitive::Decimal(i128::from_le_bytes(buf), scale))
        };
        let sized = |at: usize| -> Option<&'a [u8]> {
            let n = u32::from_le_bytes(v.get(at..at + 4)?.try_into().ok()?) as usize;
            v.get(at + 4..at + 4 + n)
        };
        Some(match header >> 2 {
            1 => Primitive::Boolean(true),
            2 => Primitive::Boolean(false),
            3 => Primitive::Long(int(1)? as i64),
            4 => Primitive::Long(int(2)? as i64),
            5 => Primitive::Long(int(4)? as i64),
            6 => Primitive::Long(int(8)? as i64),
            7 => Primitive::Double(f64::from_le_bytes(v.get(1..9)?.try_into().ok()?)),
            8 => dec(4)?,
            9 => dec(8)?,
            10 => dec(16)?,
            14 => Primitive::Float(f32::from_le_bytes(v.get(1..5)?.try_into().ok()?)),
            15 => Primitive::Binary(sized(1)?),
            16 => Primitive::String(sized(1)?),
            _ => return None,
        })
    }

    /// The value as a whole number (integers; decimals without a fraction).
    pub(crate) fn integral(&self) -> Option<i128> {
        match *self {
            Primitive::Long(x) => Some(x as i128),
            Primitive::Decimal(u, s) => {
                let d = pow10(s)?;
                (u % d == 0).then_some(u / d)
            }
            _ => None,
        }
    }

    /// The unscaled value at `scale` when it fits DECIMAL(`precision`, `scale`) exactly.
    pub(crate) fn decimal(&self, precision: u32, scale: u32) -> Option<i128> {
        let (u, s) = match *self {
            Primitive::Long(x) => (x as i128, 0),
            Primitive::Decimal(u, s) => (u, s),
            _ => return None,
        };
        let scaled = if scale >= s {
            u.checked_mul(pow10(scale - s)?)?
        } else {
            let d = pow10(s - scale)?;
            if u % d != 0 {
                return None;
            }
            u / d
        };
        (digits(scaled) <= precision).then_some(scaled)
    }
}
