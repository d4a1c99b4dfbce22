//! The output side of rebuilding logical maps from shredded columns: per entry the index of
//! its key's name and where its value is, collected while the rows are walked
//! ([`super::read`]), then turned into a `MapArray`.
//!
//! Values of a primitive type are copied as they are found ([`Primitive`]: a typed push and a
//! validity bit), which costs a few instructions per entry; other types record (source,
//! element) pairs and are gathered once with `interleave` ([`Picks`]). Keys are built from
//! the few distinct names in one pass, without a per-entry allocation or `take`.

use std::sync::Arc;

use arrow::buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_array::cast::AsArray;
use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{
    new_empty_array, Array, ArrayRef, MapArray, PrimitiveArray, StringArray, StructArray,
};
use arrow_schema::{ArrowError, DataType as ArrowType, FieldRef, Fields};

use crate::{Error, Result};

/// The name index of a field id that is not read.
pub(super) const NOT_WANTED: u32 = u32::MAX;

/// Where the values of the rebuilt entries go.
pub(super) trait ValueSink {
    fn reserve(&mut self, entries: usize);
    /// The entry's value is element `index` of source `src`.
    fn push(&mut self, src: usize, index: usize);

    /// The entries' values are elements `start..start + len` of source `src`.
    fn push_run(&mut self, src: usize, start: usize, len: usize) {
        for i in start..start + len {
            self.push(src, i);
        }
    }
}

/// (source, element) of every value, gathered at the end.
#[derive(Default)]
pub(super) struct Picks(Vec<(usize, usize)>);

impl ValueSink for Picks {
    fn reserve(&mut self, entries: usize) {
        self.0.reserve(entries);
    }

    #[inline]
    fn push(&mut self, src: usize, index: usize) {
        self.0.push((src, index));
    }
}

impl Picks {
    pub(super) fn finish(
        self,
        sources: &[ArrayRef],
        value_type: &ArrowType,
    ) -> std::result::Result<ArrayRef, ArrowError> {
        if sources.is_empty() || self.0.is_empty() {
            return Ok(new_empty_array(value_type));
        }
        let refs: Vec<&dyn Array> = sources.iter().map(|a| a.as_ref()).collect();
        arrow_select::interleave::interleave(&refs, &self.0)
    }
}

/// Primitive values copied as they are pushed.
pub(super) struct Primitive<'a, T: ArrowPrimitiveType> {
    data_type: ArrowType,
    values: Vec<&'a [T::Native]>,
    nulls: Vec<Option<&'a NullBuffer>>,
    out: Vec<T::Native>,
    /// Validity (only when a source has NULLs).
    valid: Option<BitWriter>,
}

impl<'a, T: ArrowPrimitiveType> Primitive<'a, T> {
    /// Sources must all be `PrimitiveArray<T>` (the caller checked their type).
    pub(super) fn new(sources: &'a [ArrayRef]) -> Self {
        let typed = || sources.iter().map(|a| a.as_primitive::<T>());
        Primitive {
            data_type: sources[0].data_type().clone(),
            values: typed().map(|t| t.values().as_ref()).collect(),
            nulls: typed().map(|t| t.nulls()).collect(),
            out: Vec::new(),
            valid: typed().any(|t| t.null_count() > 0).then(BitWriter::default),
        }
    }

    pub(super) fn finish(self) -> ArrayRef {
        let len = self.out.len();
        let nulls = self.valid.map(|v| NullBuffer::new(v.finish(len)));
        // Same type as the sources (a timestamp keeps its zone, a decimal its precision).
        Arc::new(PrimitiveArray::<T>::new(self.out.into(), nulls).with_data_type(self.data_type))
    }
}

impl<T: ArrowPrimitiveType> ValueSink for Primitive<'_, T> {
    fn reserve(&mut self, entries: usize) {
        self.out.reserve(entries);
    }

    fn push_run(&mut self, src: usize, start: usize, len: usize) {
        self.copy_run(src, start, len);
    }

    #[inline(always)]
    fn push(&mut self, src: usize, index: usize) {
        self.out.push(self.values[src][index]);
        if let Some(v) = &mut self.valid {
            v.push(match self.nulls[src] {
                None => true,
                Some(n) => n.is_valid(index),
            });
        }
    }
}

impl<T: ArrowPrimitiveType> Primitive<'_, T> {
    fn copy_run(&mut self, src: usize, start: usize, len: usize) {
        self.out
            .extend_from_slice(&self.values[src][start..start + len]);
        if let Some(v) = &mut self.valid {
            match self.nulls[src] {
                None => (0..len).for_each(|_| v.push(true)),
                Some(n) => (start..start + len).for_each(|i| v.push(n.is_valid(i))),
            }
        }
    }
}

/// Appends bits a word at a time (a few instructions a bit, where `BooleanBufferBuilder`
/// re-checks its capacity for each).
#[derive(Default)]
pub(super) struct BitWriter {
    words: Vec<u64>,
    word: u64,
    bit: u32,
}

impl BitWriter {
    #[inline(always)]
    fn push(&mut self, on: bool) {
        self.word |= u64::from(on) << self.bit;
        self.bit += 1;
        if self.bit == 64 {
            self.words.push(self.word);
            self.word = 0;
            self.bit = 0;
        }
    }

    fn finish(mut self, len: usize) -> BooleanBuffer {
        if self.bit > 0 {
            self.words.push(self.word);
        }
        BooleanBuffer::new(ScalarBuffer::<u64>::from(self.words).into_inner(), 0, len)
    }
}

/// The entries of the rebuilt maps of one batch.
pub(super) struct EntryBuilder<V> {
    names: Vec<u32>,
    sink: V,
    offsets: Vec<i32>,
}

impl<V: ValueSink> EntryBuilder<V> {
    pub(super) fn new(rows: usize, sink: V) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        EntryBuilder {
            names: Vec::new(),
            sink,
            offsets,
        }
    }

    /// Room for `entries` more entries.
    pub(super) fn reserve(&mut self, entries: usize) {
        self.names.reserve(entries);
        self.sink.reserve(entries);
    }

    /// An entry whose key is name `name` and whose value is element `index` of source `src`.
    #[inline(always)]
    pub(super) fn push(&mut self, name: u32, src: usize, index: usize) {
        self.names.push(name);
        self.sink.push(src, index);
    }

    /// The entries of field ids `ids` whose values are elements `start..` of source `src`,
    /// if every id is wanted by `name_of` (`false`, and nothing pushed, otherwise).
    pub(super) fn push_run(
        &mut self,
        ids: &[i32],
        name_index: &[u32],
        src: usize,
        start: usize,
    ) -> bool {
        let before = self.names.len();
        let mut all = true;
        self.names.reserve(ids.len());
        for &id in ids {
            // A negative id reads as a huge index: not wanted.
            let name = name_index
                .get(id as u32 as usize)
                .copied()
                .unwrap_or(NOT_WANTED);
            all &= name != NOT_WANTED;
            self.names.push(name);
        }
        if !all {
            self.names.truncate(before);
            return false;
        }
        self.sink.push_run(src, start, ids.len());
        true
    }

    pub(super) fn end_row(&mut self) {
        self.offsets.push(self.names.len() as i32);
    }

    /// (name index per entry, row offsets, values).
    pub(super) fn into_parts(self) -> (Vec<u32>, Vec<i32>, V) {
        (self.names, self.offsets, self.sink)
    }
}

/// The `MapArray` of rebuilt rows: keys from `names` (by `key_names`), `values`, row
/// `offsets` and the rows' `nulls`.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_maps(
    names: &KeyNames,
    key_names: Vec<u32>,
    offsets: Vec<i32>,
    values: ArrayRef,
    entries_field: &FieldRef,
    entry_fields: &Fields,
    nulls: Option<NullBuffer>,
    column: &str,
) -> Result<ArrayRef> {
    let err = |e| Error::arrow(format!("rebuilding MAP column {column}"), e);
    let keys = names.repeat(&key_names).map_err(err)?;
    let entries = StructArray::try_new(entry_fields.clone(), vec![Arc::new(keys), values], None)
        .map_err(err)?;
    let map = MapArray::try_new(
        entries_field.clone(),
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        entries,
        nulls,
        false,
    )
    .map_err(err)?;
    Ok(Arc::new(map))
}

/// The names of the keys a read rebuilds, prepared once per file: names up to 16 bytes are
/// kept as zero-padded 16-byte chunks, so each rebuilt key is one fixed-size copy (no
/// per-entry `memcpy` call); with any longer name keys are taken with `take`.
#[derive(Debug)]
pub(super) struct KeyNames {
    names: StringArray,
    lens: Vec<usize>,
    padded: Option<Vec<[u8; CHUNK]>>,
}

const CHUNK: usize = 16;

impl KeyNames {
    pub(super) fn new(names: StringArray) -> Self {
        let lens: Vec<usize> = (0..names.len()).map(|i| names.value(i).len()).collect();
        let padded = lens.iter().all(|&l| l <= CHUNK).then(|| {
            (0..names.len())
                .map(|i| {
                    let mut p = [0u8; CHUNK];
                    p[..lens[i]].copy_from_slice(names.value(i).as_bytes());
                    p
                })
                .collect()
        });
        KeyNames {
            names,
            lens,
            padded,
        }
    }

    /// Name `i` (`i` < the number of names).
    pub(super) fn get(&self, i: usize) -> &str {
        self.names.value(i)
    }

    /// `names[idx[0]], names[idx[1]], …` as a string array, in one pass.
    fn repeat(&self, idx: &[u32]) -> std::result::Result<StringArray, ArrowError> {
        let Some(padded) = &self.padded else {
            let taken = arrow_select::take::take(
                &self.names,
                &arrow_array::UInt32Array::from(idx.to_vec()),
                None,
            )?;
            return Ok(taken.as_string::<i32>().clone());
        };
        let mut offsets = Vec::with_capacity(idx.len() + 1);
        offsets.push(0i32);
        let mut bytes: Vec<u8> = Vec::with_capacity(idx.len() * CHUNK);
        for &i in idx {
            let i = i as usize;
            let at = bytes.len();
            bytes.extend_from_slice(&padded[i]);
            bytes.truncate(at + self.lens[i]);
            offsets.push(i32::try_from(bytes.len()).map_err(|_| {
                ArrowError::ComputeError("rebuilt MAP keys exceed 2 GiB in one batch".into())
            })?);
        }
        // SAFETY: `offsets` start at 0, never decrease and end at `bytes.len()`; every range
        // between two offsets is a whole value of the StringArray `names`, hence valid UTF-8.
        Ok(unsafe {
            StringArray::new_unchecked(
                OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
                bytes.into(),
                None,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_repeat_short_and_long() {
        let names = KeyNames::new(StringArray::from(vec!["a", "usage", "ünïcödé", ""]));
        let got = names.repeat(&[1, 0, 2, 3, 1]).unwrap();
        let got: Vec<&str> = got.iter().flatten().collect();
        assert_eq!(got, ["usage", "a", "ünïcödé", "", "usage"]);
        let long = KeyNames::new(StringArray::from(vec![
            "a-key-longer-than-sixteen-bytes",
            "b",
        ]));
        let got = long.repeat(&[0, 1, 0]).unwrap();
        assert_eq!(got.value(2), "a-key-longer-than-sixteen-bytes");
        assert_eq!(got.value(1), "b");
    }

    #[test]
    fn bit_writer_packs_words() {
        let mut w = BitWriter::default();
        let bits: Vec<bool> = (0..130).map(|i| i % 3 == 0).collect();
        for &b in &bits {
            w.push(b);
        }
        let buf = w.finish(bits.len());
        assert_eq!(buf.iter().collect::<Vec<_>>(), bits);
    }
}
