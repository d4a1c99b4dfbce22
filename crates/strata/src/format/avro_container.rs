//! The header of an Avro object container file, read and re-encoded, so that [`super::avro_reader`]
//! can decode files whose writer schema arrow-avro does not take as it is.
//!
//! Java Paimon 1.0's Avro writer (`AvroSchemaConverter` on the nullable row type
//! `AvroFileFormat` passes it) declares the top-level record as the union `["null", record]` and
//! writes every datum as the union's branch index (always the record's: `AvroRowDatumWriter`
//! calls `writeIndex(1)`) followed by the record. Later releases write a plain record. arrow-avro
//! only decodes files whose schema is a record. An Avro union index is encoded exactly as an
//! `int`, so the same bytes are a record whose first field is an `int` holding the branch: the
//! header is rewritten to that record ([`unwrap_top_level_union`]), the blocks are read as they
//! are, and the reader checks that every row took the record branch (Java's
//! `AvroRowDatumReader` fails with "Cannot read a null row" otherwise) and drops the column.
//!
//! Layout (Avro specification, "Object Container Files"): the magic `Obj\x01`, the metadata as
//! an Avro `map<bytes>` (blocks of a zig-zag count — negative: followed by the block's byte size
//! — of string keys and bytes values, ended by a zero count), and a 16-byte sync marker; then the
//! data blocks, untouched here.

use serde_json::Value;

const MAGIC: &[u8; 4] = b"Obj\x01";

/// A container file's header: its metadata in file order, its sync marker and its length in
/// bytes (where the first data block starts).
#[derive(Debug)]
pub(super) struct Header {
    pub(super) metadata: Vec<(String, Vec<u8>)>,
    pub(super) sync: [u8; 16],
    pub(super) len: usize,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("the header is truncated at byte {}", self.pos))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn long(&mut self) -> Result<i64, String> {
        let mut z: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            z |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok((z >> 1) as i64 ^ -((z & 1) as i64));
            }
        }
        Err(format!(
            "a varint longer than 10 bytes at byte {}",
            self.pos
        ))
    }

    fn bytes(&mut self) -> Result<&[u8], String> {
        let n = self.long()?;
        let n = usize::try_from(n).map_err(|_| format!("a negative length {n} in the header"))?;
        self.take(n)
    }
}

/// Reads the header at the start of `bytes`.
pub(super) fn read_header(bytes: &[u8]) -> Result<Header, String> {
    let mut c = Cursor { bytes, pos: 0 };
    if c.take(4).ok() != Some(MAGIC.as_slice()) {
        return Err("not an Avro object container file (no Obj\\x01 magic)".to_string());
    }
    let mut metadata = Vec::new();
    loop {
        let mut count = c.long()?;
        if count == 0 {
            break;
        }
        if count < 0 {
            count = count
                .checked_neg()
                .ok_or_else(|| "an invalid metadata block count".to_string())?;
            c.long()?; // the block's size in bytes
        }
        for _ in 0..count {
            let key = String::from_utf8(c.bytes()?.to_vec())
                .map_err(|_| "a metadata key is not UTF-8".to_string())?;
            let value = c.bytes()?.to_vec();
            metadata.push((key, value));
        }
    }
    let sync = c.take(16)?.try_into().expect("took 16 bytes");
    Ok(Header {
        metadata,
        sync,
        len: c.pos,
    })
}

fn put_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

impl Header {
    /// The header's bytes (metadata in one block, in the same order).
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        if !self.metadata.is_empty() {
            put_long(&mut out, self.metadata.len() as i64);
            for (k, v) in &self.metadata {
                put_bytes(&mut out, k.as_bytes());
                put_bytes(&mut out, v);
            }
        }
        put_long(&mut out, 0);
        out.extend_from_slice(&self.sync);
        out
    }

    pub(super) fn schema_json(&self) -> Option<&[u8]> {
        self.metadata
            .iter()
            .find(|(k, _)| k == "avro.schema")
            .map(|(_, v)| v.as_slice())
    }

    fn set_schema_json(&mut self, json: Vec<u8>) {
        if let Some(entry) = self.metadata.iter_mut().find(|(k, _)| k == "avro.schema") {
            entry.1 = json;
        }
    }
}

/// A top-level union `["null", record]` undone: the record's branch index among the union's
/// types, and the name of the `int` column put first in the record to hold each row's branch.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct UnionBranch {
    pub(super) record_branch: i32,
    pub(super) column: String,
}

/// When `header`'s schema is a union of `"null"` and a record (Java Paimon 1.0), rewrites it to
/// that record with a first `int` field holding the branch index (see the module docs) and
/// returns the branch to expect; a record schema is left alone (`None`); any other top-level
/// schema is an error.
pub(super) fn unwrap_top_level_union(header: &mut Header) -> Result<Option<UnionBranch>, String> {
    let json = header
        .schema_json()
        .ok_or_else(|| "the header has no avro.schema".to_string())?;
    let schema: Value = serde_json::from_slice(json)
        .map_err(|e| format!("the header's avro.schema is not JSON: {e}"))?;
    let Value::Array(branches) = schema else {
        return Ok(None);
    };
    let is_record = |v: &Value| v.get("type").and_then(Value::as_str) == Some("record");
    let is_null = |v: &Value| v.as_str() == Some("null");
    let shape_error = || {
        format!(
            "the top-level schema is a union of {} branches; strata reads a record, or the \
             union of \"null\" and a record that Java Paimon 1.0 writes",
            branches.len()
        )
    };
    if branches.len() != 2 || !branches.iter().any(is_null) {
        return Err(shape_error());
    }
    let Some(record_branch) = branches.iter().position(is_record) else {
        return Err(shape_error());
    };
    let mut record = branches[record_branch].clone();
    let fields = record
        .get_mut("fields")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| "the top-level record has no fields array".to_string())?;
    let taken = |name: &str| {
        fields
            .iter()
            .any(|f| f.get("name").and_then(Value::as_str) == Some(name))
    };
    let mut column = "_strata_union_branch".to_string();
    while taken(&column) {
        column.push('_');
    }
    fields.insert(
        0,
        serde_json::json!({"name": column.as_str(), "type": "int"}),
    );
    header.set_schema_json(serde_json::to_vec(&record).expect("a JSON value serializes"));
    Ok(Some(UnionBranch {
        record_branch: record_branch as i32,
        column,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(schema: &str) -> Header {
        Header {
            metadata: vec![
                ("avro.schema".into(), schema.as_bytes().to_vec()),
                ("avro.codec".into(), b"zstandard".to_vec()),
            ],
            sync: [9; 16],
            len: 0,
        }
    }

    #[test]
    fn a_header_round_trips_and_its_length_is_where_the_blocks_start() {
        let h = header(r#"{"type":"record","name":"r","fields":[]}"#);
        let mut bytes = h.encode();
        let len = bytes.len();
        bytes.extend_from_slice(b"blocks");
        let back = read_header(&bytes).unwrap();
        assert_eq!(
            (back.metadata, back.sync, back.len),
            (h.metadata, h.sync, len)
        );
    }

    #[test]
    fn a_metadata_block_with_a_byte_size_is_read() {
        // count -1 then the block's byte size, as some writers encode maps
        let mut bytes = MAGIC.to_vec();
        put_long(&mut bytes, -1);
        put_long(&mut bytes, 7);
        put_bytes(&mut bytes, b"k");
        put_bytes(&mut bytes, b"vals");
        put_long(&mut bytes, 0);
        bytes.extend_from_slice(&[1; 16]);
        let h = read_header(&bytes).unwrap();
        assert_eq!(h.metadata, vec![("k".to_string(), b"vals".to_vec())]);
        assert_eq!(h.len, bytes.len());
    }

    #[test]
    fn truncated_or_foreign_bytes_are_errors() {
        assert!(read_header(b"PAR1").unwrap_err().contains("magic"));
        let h = header("{}").encode();
        let err = read_header(&h[..h.len() - 3]).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
    }

    #[test]
    fn the_union_becomes_its_record_with_a_first_branch_column() {
        let mut h = header(
            r#"["null",{"type":"record","name":"record","namespace":"n","fields":[{"name":"_strata_union_branch","type":"long"}]}]"#,
        );
        let branch = unwrap_top_level_union(&mut h).unwrap().unwrap();
        assert_eq!(branch.record_branch, 1);
        assert_eq!(branch.column, "_strata_union_branch_");
        let schema: Value = serde_json::from_slice(h.schema_json().unwrap()).unwrap();
        assert_eq!(schema["name"], "record");
        assert_eq!(schema["namespace"], "n");
        assert_eq!(schema["fields"][0]["name"], "_strata_union_branch_");
        assert_eq!(schema["fields"][0]["type"], "int");
        assert_eq!(schema["fields"][1]["name"], "_strata_union_branch");
        assert_eq!(h.metadata[1].1, b"zstandard");
    }

    #[test]
    fn a_record_is_left_alone_and_other_unions_are_refused() {
        let record = r#"{"type":"record","name":"r","fields":[]}"#;
        let mut h = header(record);
        assert_eq!(unwrap_top_level_union(&mut h).unwrap(), None);
        assert_eq!(h.schema_json().unwrap(), record.as_bytes());
        for schema in [
            r#"["null","int"]"#,
            r#"["int",{"type":"record","name":"r","fields":[]}]"#,
            r#"["null",{"type":"record","name":"r","fields":[]},"int"]"#,
        ] {
            let err = unwrap_top_level_union(&mut header(schema)).unwrap_err();
            assert!(err.contains("union"), "{schema}: {err}");
        }
    }
}
