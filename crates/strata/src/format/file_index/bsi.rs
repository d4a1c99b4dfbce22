//! The `bsi` file index, Java Paimon's `BitSliceIndexBitmapFileIndex`: a column's integer
//! values (numbers, dates, times, timestamps, decimals as unscaled longs) as two bit-sliced
//! indexes (`BitSliceIndexRoaringBitmap`), one for the values ≥ 0 and one for the absolute
//! values of the negative ones, answering `=`, `<>`, `<`, `<=`, `>`, `>=`, `IN`, `NOT IN`,
//! `IS [NOT] NULL` with row bitmaps (O'Neil's comparison).
//!
//! ```text
//! version u8 (1) | rowCount i32 | hasPositive bool [| bsi] | hasNegative bool [| bsi]
//! bsi: version u8 (1) | min i64 | max i64 | existence bitmap | sliceCount i32 | slices…
//! ```
//! Bitmaps are RoaringBitmap's portable serialization. Java's writer always takes `min` 0.

use std::io::Cursor;

use roaring::RoaringBitmap;
use strata_spec::{Datum, SpecError, TypeKind};

use super::bloom_filter::timestamp_long;
use super::container::JavaReader;
use super::result::IndexResult;
use crate::expr::LeafOp;

/// The index type name in the container and the options.
pub(crate) const IDENTIFIER: &str = "bsi";
/// The family of its options (`.columns`).
pub(crate) const OPTIONS: &str = "file-index.bsi.";
const VERSION_1: u8 = 1;

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid("bsi file index", message)
}

/// Whether Java's bsi index maps values of `kind` to longs.
pub(crate) fn supports(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Date
            | TypeKind::Time(_)
            | TypeKind::Timestamp(_)
            | TypeKind::LocalZonedTimestamp(_)
    ) || matches!(kind, TypeKind::Decimal { precision, .. } if *precision <= 18)
}

/// `BitSliceIndexBitmapFileIndex.getValueMapper`: the long of `value` in a column of `kind`.
pub(crate) fn long_of(kind: &TypeKind, value: &Datum) -> Option<i64> {
    Some(match (kind, value) {
        (TypeKind::TinyInt, Datum::TinyInt(v)) => *v as i64,
        (TypeKind::SmallInt, Datum::SmallInt(v)) => *v as i64,
        (TypeKind::Int, Datum::Int(v))
        | (TypeKind::Date, Datum::Date(v))
        | (TypeKind::Time(_), Datum::Time(v)) => *v as i64,
        (TypeKind::BigInt, Datum::BigInt(v)) => *v,
        (TypeKind::Timestamp(p), Datum::Timestamp { millis, nanos })
        | (TypeKind::LocalZonedTimestamp(p), Datum::TimestampLtz { millis, nanos }) => {
            timestamp_long(*p, *millis, *nanos)
        }
        (
            TypeKind::Decimal { precision, scale },
            Datum::Decimal {
                unscaled, scale: s, ..
            },
        ) if *precision <= 18 && scale == s => i64::try_from(*unscaled).ok()?,
        _ => return None,
    })
}

/// One `BitSliceIndexRoaringBitmap`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Bsi {
    min: i64,
    max: i64,
    ebm: RoaringBitmap,
    slices: Vec<RoaringBitmap>,
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Lt,
    Lte,
    Gt,
    Gte,
}

impl Bsi {
    fn read(data: &[u8], pos: &mut usize) -> Result<Bsi, SpecError> {
        let mut r = JavaReader::at(data, *pos)?;
        let version = r.u8()?;
        if version > VERSION_1 {
            return Err(invalid(format!("bsi version {version}")));
        }
        let min = r.i64()?;
        let max = r.i64()?;
        let mut cursor = Cursor::new(&data[r.pos()..]);
        let ebm = RoaringBitmap::deserialize_from(&mut cursor)
            .map_err(|e| invalid(format!("existence bitmap: {e}")))?;
        let mut r = JavaReader::at(data, r.pos() + cursor.position() as usize)?;
        let n = r.i32()?;
        if !(0..=64).contains(&n) {
            return Err(invalid(format!("{n} slices")));
        }
        let mut at = r.pos();
        let mut slices = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let mut cursor = Cursor::new(&data[at..]);
            slices.push(
                RoaringBitmap::deserialize_from(&mut cursor)
                    .map_err(|e| invalid(format!("slice: {e}")))?,
            );
            at += cursor.position() as usize;
        }
        *pos = at;
        Ok(Bsi {
            min,
            max,
            ebm,
            slices,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.push(VERSION_1);
        out.extend_from_slice(&self.min.to_be_bytes());
        out.extend_from_slice(&self.max.to_be_bytes());
        serialize(&self.ebm, out);
        out.extend_from_slice(&(self.slices.len() as i32).to_be_bytes());
        for s in &self.slices {
            serialize(s, out);
        }
    }

    /// `BitSliceIndexRoaringBitmap.compare`: min/max first, then O'Neil's algorithm.
    fn compare(&self, op: Op, predicate: i64) -> RoaringBitmap {
        let (all, empty) = (|| self.ebm.clone(), RoaringBitmap::new);
        let (min, max) = (self.min, self.max);
        match op {
            Op::Eq if min == max && min == predicate => return all(),
            Op::Eq if predicate < min || predicate > max => return empty(),
            Op::Gte if predicate <= min => return all(),
            Op::Gte if predicate > max => return empty(),
            Op::Gt if predicate < min => return all(),
            Op::Gt if predicate >= max => return empty(),
            Op::Lte if predicate >= max => return all(),
            Op::Lte if predicate < min => return empty(),
            Op::Lt if predicate > max => return all(),
            Op::Lt if predicate <= min => return empty(),
            _ => {}
        }
        let predicate = predicate.wrapping_sub(min);
        let mut gt = RoaringBitmap::new();
        let mut lt = RoaringBitmap::new();
        let mut eq = self.ebm.clone();
        for i in (0..self.slices.len()).rev() {
            let slice = &self.slices[i];
            if (predicate >> i) & 1 == 1 {
                lt |= &eq - slice;
                eq &= slice;
            } else {
                gt |= &eq & slice;
                eq -= slice;
            }
        }
        match op {
            Op::Eq => eq,
            Op::Gt => gt,
            Op::Lt => lt,
            Op::Lte => lt | eq,
            Op::Gte => gt | eq,
        }
    }
}

pub(crate) fn serialize(b: &RoaringBitmap, out: &mut Vec<u8>) {
    let mut b = b.clone();
    b.optimize();
    b.serialize_into(out).expect("writing to a Vec");
}

/// A parsed bsi index.
pub(crate) struct BsiIndex {
    row_count: u32,
    positive: Bsi,
    negative: Bsi,
}

impl BsiIndex {
    pub(crate) fn parse(data: &[u8]) -> Result<Self, SpecError> {
        let mut r = JavaReader::new(data);
        let version = r.u8()?;
        if version > VERSION_1 {
            return Err(invalid(format!("version {version} (strata reads 1)")));
        }
        let row_count = r.i32()?;
        let mut pos = r.pos();
        let part = |pos: &mut usize| -> Result<Bsi, SpecError> {
            let mut r = JavaReader::at(data, *pos)?;
            let present = r.u8()? != 0;
            *pos = r.pos();
            if present {
                Bsi::read(data, pos)
            } else {
                Ok(Bsi::default())
            }
        };
        let positive = part(&mut pos)?;
        let negative = part(&mut pos)?;
        Ok(BsiIndex {
            row_count: row_count.max(0) as u32,
            positive,
            negative,
        })
    }

    fn not_null(&self) -> RoaringBitmap {
        &self.positive.ebm | &self.negative.ebm
    }

    fn eq(&self, v: i64) -> RoaringBitmap {
        if v == i64::MIN {
            RoaringBitmap::new()
        } else if v < 0 {
            self.negative.compare(Op::Eq, -v)
        } else {
            self.positive.compare(Op::Eq, v)
        }
    }

    /// The reader's visits (Java's `BitSliceIndexBitmapFileIndex.Reader`).
    pub(crate) fn evaluate(&self, kind: &TypeKind, op: &LeafOp) -> IndexResult {
        let long = |d: &Datum| long_of(kind, d);
        let longs = |ds: &[Datum]| ds.iter().map(long).collect::<Option<Vec<i64>>>();
        let (p, n) = (&self.positive, &self.negative);
        let bitmap = match op {
            LeafOp::IsNull => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..self.row_count);
                all - self.not_null()
            }
            LeafOp::IsNotNull => self.not_null(),
            LeafOp::Equal(v) | LeafOp::NotEqual(v) => {
                let Some(v) = long(v) else {
                    return IndexResult::Remain;
                };
                match op {
                    LeafOp::Equal(_) => self.eq(v),
                    _ => self.not_null() - self.eq(v),
                }
            }
            LeafOp::In(vs) | LeafOp::NotIn(vs) => {
                let Some(vs) = longs(vs) else {
                    return IndexResult::Remain;
                };
                let eq = vs
                    .iter()
                    .fold(RoaringBitmap::new(), |acc, v| acc | self.eq(*v));
                match op {
                    LeafOp::In(_) => eq,
                    _ => self.not_null() - eq,
                }
            }
            LeafOp::LessThan(v) | LeafOp::LessOrEqual(v) => {
                let Some(v) = long(v) else {
                    return IndexResult::Remain;
                };
                let or_equal = matches!(op, LeafOp::LessOrEqual(_));
                if v == i64::MIN {
                    RoaringBitmap::new()
                } else if v < 0 {
                    n.compare(if or_equal { Op::Gte } else { Op::Gt }, -v)
                } else {
                    p.compare(if or_equal { Op::Lte } else { Op::Lt }, v) | &n.ebm
                }
            }
            LeafOp::GreaterThan(v) | LeafOp::GreaterOrEqual(v) => {
                let Some(v) = long(v) else {
                    return IndexResult::Remain;
                };
                let or_equal = matches!(op, LeafOp::GreaterOrEqual(_));
                if v == i64::MIN {
                    self.not_null()
                } else if v < 0 {
                    n.compare(if or_equal { Op::Lte } else { Op::Lt }, -v) | &p.ebm
                } else {
                    p.compare(if or_equal { Op::Gte } else { Op::Gt }, v)
                }
            }
            _ => return IndexResult::Remain,
        };
        IndexResult::Bitmap(bitmap)
    }
}

/// Builds a bsi index (Java's `BitSliceIndexBitmapFileIndex.Writer`).
pub(crate) struct BsiWriter {
    kind: TypeKind,
    values: Vec<Option<i64>>,
}

impl BsiWriter {
    pub(crate) fn new(kind: TypeKind) -> Result<Self, SpecError> {
        if !supports(&kind) {
            return Err(invalid(format!(
                "type {kind:?} is not supported (Java's bsi value mapper)"
            )));
        }
        Ok(BsiWriter {
            kind,
            values: Vec::new(),
        })
    }

    pub(crate) fn write(&mut self, value: Option<&Datum>) {
        self.values.push(value.and_then(|v| long_of(&self.kind, v)));
    }

    pub(crate) fn finish(&self) -> Vec<u8> {
        // `StatsCollectList`: min starts at 0 and stays there.
        let (mut pmax, mut nmax) = (0i64, 0i64);
        for v in self.values.iter().flatten() {
            if *v < 0 {
                nmax = nmax.max(v.unsigned_abs().min(i64::MAX as u64) as i64);
            } else {
                pmax = pmax.max(*v);
            }
        }
        let appender = |max: i64| Bsi {
            min: 0,
            max,
            ebm: RoaringBitmap::new(),
            slices: vec![RoaringBitmap::new(); 64 - max.leading_zeros() as usize],
        };
        let (mut pos, mut neg) = (appender(pmax), appender(nmax));
        for (row, v) in self.values.iter().enumerate() {
            let Some(v) = *v else { continue };
            let (bsi, mut value) = if v < 0 {
                (&mut neg, v.unsigned_abs().min(i64::MAX as u64) as i64)
            } else {
                (&mut pos, v)
            };
            while value != 0 {
                bsi.slices[value.trailing_zeros() as usize].insert(row as u32);
                value &= value - 1;
            }
            bsi.ebm.insert(row as u32);
        }
        let mut out = vec![VERSION_1];
        out.extend_from_slice(&(self.values.len() as i32).to_be_bytes());
        for bsi in [&pos, &neg] {
            let present = !bsi.ebm.is_empty();
            out.push(present as u8);
            if present {
                bsi.write(&mut out);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bsi_answers_exactly(values in proptest::collection::vec(proptest::option::of(-50i64..50), 1..120),
                               probe in -60i64..60) {
            let mut w = BsiWriter::new(TypeKind::BigInt).unwrap();
            for v in &values { w.write(v.map(Datum::BigInt).as_ref()); }
            let idx = BsiIndex::parse(&w.finish()).unwrap();
            let rows = |f: &dyn Fn(i64) -> bool| -> RoaringBitmap {
                values.iter().enumerate().filter(|(_, v)| v.is_some_and(f)).map(|(i, _)| i as u32).collect()
            };
            let check = |op: LeafOp, f: &dyn Fn(i64) -> bool| {
                assert_eq!(idx.evaluate(&TypeKind::BigInt, &op), IndexResult::Bitmap(rows(f)), "{op:?}");
            };
            let d = Datum::BigInt(probe);
            check(LeafOp::Equal(d.clone()), &|v| v == probe);
            check(LeafOp::NotEqual(d.clone()), &|v| v != probe);
            check(LeafOp::LessThan(d.clone()), &|v| v < probe);
            check(LeafOp::LessOrEqual(d.clone()), &|v| v <= probe);
            check(LeafOp::GreaterThan(d.clone()), &|v| v > probe);
            check(LeafOp::GreaterOrEqual(d), &|v| v >= probe);
            check(LeafOp::IsNotNull, &|_| true);
        }
    }
}
