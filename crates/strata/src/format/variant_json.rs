//! JSON ⇄ Paimon's variant binary (the Parquet variant encoding of VARIANT columns), for front
//! ends that take or print JSON: [`variant_from_json`] (what Java's `GenericVariant.fromJson`
//! and Spark's `parse_json` do) and [`variant_to_json`] (Java's `Variant.toJson`).
//!
//! Encoding: object keys go into the metadata dictionary in order of first appearance (version 1,
//! unsorted, smallest offset size); objects list their fields sorted by key with the smallest id
//! and offset sizes, their values in document order (Java's `finishWritingObject`); integers take the smallest integer type (INT8 … INT64, as Java's
//! `appendLong`); other numbers are DOUBLE (Java keeps a number with a fraction and at most 38
//! digits as a DECIMAL instead — the same value to a JSON reader); strings up to 63 bytes are
//! short strings. Decoding prints every primitive: decimals as numbers, DATE / TIMESTAMP / TIME /
//! UUID as strings, BINARY as base64 (as Java does).

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::variant_encode::{encode_array, encode_object, push_le, size_for};
use crate::error::ErrorDetail;
use crate::Result;

struct Builder {
    keys: Vec<String>,
    ids: HashMap<String, usize>,
}

impl Builder {
    fn key(&mut self, k: &str) -> usize {
        if let Some(id) = self.ids.get(k) {
            return *id;
        }
        self.keys.push(k.to_string());
        self.ids.insert(k.to_string(), self.keys.len() - 1);
        self.keys.len() - 1
    }

    fn value(&mut self, v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Null => out.push(0),
            Value::Bool(b) => out.push(if *b { 1 << 2 } else { 2 << 2 }),
            Value::Number(n) => number(n, out),
            Value::String(s) => {
                let b = s.as_bytes();
                if b.len() < 64 {
                    out.push(((b.len() as u8) << 2) | 1);
                } else {
                    out.push(16 << 2);
                    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                }
                out.extend_from_slice(b);
            }
            Value::Array(items) => {
                let elements: Vec<Vec<u8>> = items
                    .iter()
                    .map(|i| {
                        let mut b = Vec::new();
                        self.value(i, &mut b);
                        b
                    })
                    .collect();
                encode_array(elements, out);
            }
            Value::Object(map) => {
                let fields: Vec<(u32, String, Vec<u8>)> = map
                    .iter()
                    .map(|(k, v)| {
                        let id = self.key(k);
                        let mut b = Vec::new();
                        self.value(v, &mut b);
                        (id as u32, k.clone(), b)
                    })
                    .collect();
                encode_object(fields, out);
            }
        }
    }

    fn metadata(&self) -> Vec<u8> {
        let total: usize = self.keys.iter().map(String::len).sum();
        let size = size_for(total.max(self.keys.len()));
        let mut out = vec![0x01 | (((size - 1) as u8) << 6)];
        push_le(&mut out, self.keys.len(), size);
        let mut offset = 0;
        push_le(&mut out, 0, size);
        for k in &self.keys {
            offset += k.len();
            push_le(&mut out, offset, size);
        }
        for k in &self.keys {
            out.extend_from_slice(k.as_bytes());
        }
        out
    }
}

fn number(n: &Number, out: &mut Vec<u8>) {
    if let Some(v) = n.as_i64() {
        if let Ok(x) = i8::try_from(v) {
            out.push(3 << 2);
            out.extend_from_slice(&x.to_le_bytes());
        } else if let Ok(x) = i16::try_from(v) {
            out.push(4 << 2);
            out.extend_from_slice(&x.to_le_bytes());
        } else if let Ok(x) = i32::try_from(v) {
            out.push(5 << 2);
            out.extend_from_slice(&x.to_le_bytes());
        } else {
            out.push(6 << 2);
            out.extend_from_slice(&v.to_le_bytes());
        }
    } else {
        out.push(7 << 2);
        out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_le_bytes());
    }
}

/// The variant binary `(value, metadata)` of a JSON document.
pub fn variant_from_json(json: &Value) -> (Vec<u8>, Vec<u8>) {
    let mut b = Builder {
        keys: Vec::new(),
        ids: HashMap::new(),
    };
    let mut value = Vec::new();
    b.value(json, &mut value);
    (value, b.metadata())
}

fn bad(why: &str) -> crate::Error {
    ErrorDetail::InvalidArgument(format!("malformed variant binary: {why}")).into()
}

fn le(bytes: &[u8], at: usize, size: usize) -> Result<usize> {
    let b = bytes.get(at..at + size).ok_or_else(|| bad("truncated"))?;
    Ok(b.iter()
        .rev()
        .fold(0usize, |acc, x| (acc << 8) | *x as usize))
}

fn keys(metadata: &[u8]) -> Result<Vec<String>> {
    let header = *metadata.first().ok_or_else(|| bad("empty metadata"))?;
    if header & 0x0f != 1 {
        return Err(bad("metadata version is not 1"));
    }
    let size = ((header >> 6) & 3) as usize + 1;
    let n = le(metadata, 1, size)?;
    let start = 1 + size * (n + 2);
    (0..n)
        .map(|i| {
            let (a, b) = (
                le(metadata, 1 + size * (i + 1), size)?,
                le(metadata, 1 + size * (i + 2), size)?,
            );
            let bytes = metadata
                .get(start + a..start + b)
                .ok_or_else(|| bad("truncated key"))?;
            String::from_utf8(bytes.to_vec()).map_err(|_| bad("a key is not UTF-8"))
        })
        .collect()
}

fn fixed<const N: usize>(v: &[u8], at: usize) -> Result<[u8; N]> {
    v.get(at..at + N)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("truncated primitive"))
}

fn decimal(unscaled: i128, scale: u8) -> Value {
    let text = if scale == 0 {
        unscaled.to_string()
    } else {
        let digits = unscaled.unsigned_abs().to_string();
        let s = scale as usize;
        let padded = format!("{digits:0>width$}", width = s + 1);
        let (i, f) = padded.split_at(padded.len() - s);
        format!("{}{i}.{f}", if unscaled < 0 { "-" } else { "" })
    };
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

fn decode(v: &[u8], keys: &[String]) -> Result<Value> {
    let header = *v.first().ok_or_else(|| bad("empty value"))?;
    let vh = header >> 2;
    Ok(match header & 3 {
        1 => {
            let len = vh as usize;
            let b = v.get(1..1 + len).ok_or_else(|| bad("truncated string"))?;
            Value::String(String::from_utf8_lossy(b).into_owned())
        }
        2 => {
            let offset_size = (vh & 3) as usize + 1;
            let id_size = ((vh >> 2) & 3) as usize + 1;
            let n_size = if (vh >> 4) & 1 == 1 { 4 } else { 1 };
            let n = le(v, 1, n_size)?;
            let ids_at = 1 + n_size;
            let offsets_at = ids_at + n * id_size;
            let data_at = offsets_at + (n + 1) * offset_size;
            let mut map = Map::new();
            for i in 0..n {
                let id = le(v, ids_at + i * id_size, id_size)?;
                let off = le(v, offsets_at + i * offset_size, offset_size)?;
                let key = keys.get(id).ok_or_else(|| bad("field id out of range"))?;
                let child = v
                    .get(data_at + off..)
                    .ok_or_else(|| bad("truncated field"))?;
                map.insert(key.clone(), decode(child, keys)?);
            }
            Value::Object(map)
        }
        3 => {
            let offset_size = (vh & 3) as usize + 1;
            let n_size = if (vh >> 2) & 1 == 1 { 4 } else { 1 };
            let n = le(v, 1, n_size)?;
            let offsets_at = 1 + n_size;
            let data_at = offsets_at + (n + 1) * offset_size;
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                let off = le(v, offsets_at + i * offset_size, offset_size)?;
                let child = v
                    .get(data_at + off..)
                    .ok_or_else(|| bad("truncated element"))?;
                items.push(decode(child, keys)?);
            }
            Value::Array(items)
        }
        _ => match vh {
            0 => Value::Null,
            1 => Value::Bool(true),
            2 => Value::Bool(false),
            3 => (i8::from_le_bytes(fixed(v, 1)?)).into(),
            4 => (i16::from_le_bytes(fixed(v, 1)?)).into(),
            5 => (i32::from_le_bytes(fixed(v, 1)?)).into(),
            6 => (i64::from_le_bytes(fixed(v, 1)?)).into(),
            7 => f64::from_le_bytes(fixed(v, 1)?).into(),
            14 => f64::from(f32::from_le_bytes(fixed(v, 1)?)).into(),
            8 => decimal(
                i32::from_le_bytes(fixed(v, 2)?) as i128,
                *v.get(1).unwrap_or(&0),
            ),
            9 => decimal(
                i64::from_le_bytes(fixed(v, 2)?) as i128,
                *v.get(1).unwrap_or(&0),
            ),
            10 => decimal(i128::from_le_bytes(fixed(v, 2)?), *v.get(1).unwrap_or(&0)),
            11 => {
                let days = i32::from_le_bytes(fixed(v, 1)?);
                let d = chrono::NaiveDate::from_num_days_from_ce_opt(days + 719_163)
                    .ok_or_else(|| bad("date out of range"))?;
                Value::String(d.to_string())
            }
            12 | 13 | 18 | 19 => {
                let raw = i64::from_le_bytes(fixed(v, 1)?);
                let nanos = if vh >= 18 {
                    raw
                } else {
                    raw.saturating_mul(1000)
                };
                let t = chrono::DateTime::from_timestamp_nanos(nanos);
                Value::String(if vh == 12 || vh == 18 {
                    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
                } else {
                    t.naive_utc().to_string()
                })
            }
            17 => {
                let micros = i64::from_le_bytes(fixed(v, 1)?);
                let t = chrono::NaiveTime::from_num_seconds_from_midnight_opt(
                    (micros / 1_000_000) as u32,
                    ((micros % 1_000_000) * 1000) as u32,
                )
                .ok_or_else(|| bad("time out of range"))?;
                Value::String(t.to_string())
            }
            15 | 16 => {
                let len = u32::from_le_bytes(fixed(v, 1)?) as usize;
                let b = v.get(5..5 + len).ok_or_else(|| bad("truncated bytes"))?;
                if vh == 16 {
                    Value::String(String::from_utf8_lossy(b).into_owned())
                } else {
                    use base64::Engine;
                    Value::String(base64::engine::general_purpose::STANDARD.encode(b))
                }
            }
            20 => {
                let b: [u8; 16] = fixed(v, 1)?;
                Value::String(uuid_text(&b))
            }
            other => return Err(bad(&format!("unknown primitive type {other}"))),
        },
    })
}

fn uuid_text(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// The JSON document of a variant binary `(value, metadata)`.
pub fn variant_to_json(value: &[u8], metadata: &[u8]) -> Result<Value> {
    decode(value, &keys(metadata)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_and_matches_java_bytes() {
        // Java's GenericVariant.fromJson("{\"a\":1}").
        let (v, m) = variant_from_json(&serde_json::json!({"a": 1}));
        assert_eq!(v, [0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01]);
        assert_eq!(m, [0x01, 0x01, 0x00, 0x01, b'a']);
        let doc = serde_json::json!({"user": {"id": 1001, "tags": ["a", "b"]}, "n": -12345678901i64,
            "f": 1.5, "s": "x".repeat(70), "t": true, "z": null, "e": {}, "l": []});
        let (v, m) = variant_from_json(&doc);
        assert_eq!(variant_to_json(&v, &m).unwrap(), doc);
        assert_eq!(decimal(-125, 2), serde_json::json!(-1.25));
        assert_eq!(decimal(5, 3), serde_json::json!(0.005));
    }
}
