//! The containers of Paimon's variant binary (the Parquet variant encoding): objects (fields
//! sorted by key, the smallest field-id and offset sizes) and arrays, and the little-endian
//! sized integers they are made of. Shared by the JSON encoder (`variant_json`) and the
//! rebuild of shredded files (`variant_shredding`), which must write them byte for byte as
//! Java's `GenericVariantBuilder` does.

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

/// An object of `(field id, key, value bytes)`, fields sorted by key, the smallest id and
/// offset sizes.
pub(crate) fn encode_object(mut fields: Vec<(u32, String, Vec<u8>)>, out: &mut Vec<u8>) {
    fields.sort_by(|a, b| a.1.as_bytes().cmp(b.1.as_bytes()));
    let n = fields.len();
    let data: usize = fields.iter().map(|f| f.2.len()).sum();
    let max_id = fields.iter().map(|f| f.0 as usize).max().unwrap_or(0);
    let (id_size, offset_size) = (size_for(max_id), size_for(data));
    let large = n > 0xff;
    out.push(
        ((u8::from(large) << 4 | ((id_size - 1) as u8) << 2 | (offset_size - 1) as u8) << 2) | 2,
    );
    push_le(out, n, if large { 4 } else { 1 });
    for f in &fields {
        push_le(out, f.0 as usize, id_size);
    }
    let mut offset = 0;
    for f in &fields {
        push_le(out, offset, offset_size);
        offset += f.2.len();
    }
    push_le(out, offset, offset_size);
    for f in fields {
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
