//! JSON lines into VARIANT columns: a reader that rewrites each line's value of every VARIANT
//! column (any JSON: object, array, string, number, boolean) into the variant binary
//! `{"value": hex, "metadata": hex}` that the table's Arrow form (`Struct{value, metadata}`)
//! decodes, through `strata::arrow::variant_from_json` (what Java's `GenericVariant.fromJson`
//! does). A JSON `null` stays NULL; other columns pass unchanged.

use std::io::{BufRead, Read};

use serde_json::Value;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Rewrites one JSON line (kept as is when it names no VARIANT column).
fn rewrite(line: &str, columns: &[String]) -> std::io::Result<String> {
    if line.trim().is_empty() {
        return Ok(line.to_string());
    }
    let mut row: Value = serde_json::from_str(line)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let Some(obj) = row.as_object_mut() else {
        return Ok(line.to_string());
    };
    for c in columns {
        if let Some(v) = obj.get_mut(c) {
            if !v.is_null() {
                let (value, metadata) = strata::arrow::variant_from_json(v);
                *v = serde_json::json!({"value": hex(&value), "metadata": hex(&metadata)});
            }
        }
    }
    let mut out = serde_json::to_string(&row)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    out.push('\n');
    Ok(out)
}

/// A JSON-lines reader whose VARIANT columns (`columns`) are rewritten line by line.
pub struct VariantLines<R> {
    inner: R,
    columns: Vec<String>,
    buf: Vec<u8>,
    pos: usize,
}

impl<R: BufRead> VariantLines<R> {
    pub fn new(inner: R, columns: Vec<String>) -> Self {
        VariantLines {
            inner,
            columns,
            buf: Vec::new(),
            pos: 0,
        }
    }
}

impl<R: BufRead> Read for VariantLines<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.buf.len() {
            let mut line = String::new();
            if self.inner.read_line(&mut line)? == 0 {
                return Ok(0);
            }
            self.buf = rewrite(&line, &self.columns)?.into_bytes();
            self.pos = 0;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_columns_are_encoded_and_others_kept() {
        let cols = vec!["v".to_string()];
        let out = rewrite(r#"{"id": 1, "v": {"a": 1}, "w": {"a": 1}}"#, &cols).unwrap();
        let row: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(row["v"]["value"], "0201000002".to_string() + "0c01");
        assert_eq!(row["v"]["metadata"], "0101000161");
        assert_eq!(row["w"], serde_json::json!({"a": 1}));
        let null = rewrite(r#"{"id": 2, "v": null}"#, &cols).unwrap();
        assert!(serde_json::from_str::<Value>(&null).unwrap()["v"].is_null());
    }
}
