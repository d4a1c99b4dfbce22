//! The file-index container, byte-identical to Java Paimon's `FileIndexFormat`: one blob per
//! data file (embedded in the manifest entry as `_EMBEDDED_FILE_INDEX`, or a separate
//! `<data-file>.index` file), holding every index of every indexed column.
//!
//! ```text
//! magic (i64 1493475289347502) | version (i32 1) | head length (i32)
//! column count (i32)
//!   per column: name (Java modified UTF-8) | index count (i32)
//!     per index: type (UTF) | start (i32, from the blob's start; -1: empty index) | length (i32)
//! redundant length (i32 0) | bodies…
//! ```
//! All integers are big-endian (Java's `DataOutputStream`).

use strata_spec::SpecError;

/// `FileIndexFormat.MAGIC`.
const MAGIC: i64 = 1493475289347502;
/// `FileIndexFormat.Version.V_1`.
const VERSION_1: i32 = 1;
/// `FileIndexFormat.EMPTY_INDEX_FLAG`: an index with no body (a MAP key never written).
const EMPTY_INDEX_FLAG: i32 = -1;

const CONTEXT: &str = "file index";

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::invalid(CONTEXT, message)
}

/// One index of one column inside a container: its type and its body (`None` for Java's empty
/// index).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColumnIndex<'a> {
    /// The index type (`bloom-filter`, `bitmap`, `bsi`, `range-bitmap`).
    pub(crate) index_type: String,
    /// The serialized index, `None` when Java wrote the empty flag.
    pub(crate) body: Option<&'a [u8]>,
}

/// A parsed container: the head, bodies borrowed from the blob.
#[derive(Clone, Debug)]
pub(crate) struct FileIndexContainer<'a> {
    columns: Vec<(String, Vec<ColumnIndex<'a>>)>,
}

impl<'a> FileIndexContainer<'a> {
    /// Parses `blob` (Java's `FileIndexFormat.Reader`): magic, version and head; bodies are
    /// checked to lie inside the blob.
    pub(crate) fn parse(blob: &'a [u8]) -> Result<Self, SpecError> {
        let mut r = JavaReader::new(blob);
        if r.i64()? != MAGIC {
            return Err(invalid("not a file index (bad magic)"));
        }
        let version = r.i32()?;
        if version != VERSION_1 {
            return Err(invalid(format!(
                "file index version {version}, not in the supported list [{VERSION_1}]"
            )));
        }
        let head_length = r.i32()?;
        if head_length < 20 || head_length as usize > blob.len() {
            return Err(invalid(format!("head length {head_length} out of range")));
        }
        let column_count = r.i32()?;
        if column_count < 0 {
            return Err(invalid("negative column count"));
        }
        let mut columns = Vec::new();
        for _ in 0..column_count {
            let name = r.utf()?;
            let index_count = r.i32()?;
            if index_count < 0 {
                return Err(invalid("negative index count"));
            }
            let mut indexes = Vec::new();
            for _ in 0..index_count {
                let index_type = r.utf()?;
                let start = r.i32()?;
                let length = r.i32()?;
                let body = if start == EMPTY_INDEX_FLAG {
                    None
                } else {
                    let (s, l) = (start as usize, length as usize);
                    if start < 0 || length < 0 || s.checked_add(l).is_none_or(|e| e > blob.len()) {
                        return Err(invalid(format!(
                            "index {index_type} of column {name} at {start}+{length} lies \
                             outside the {} bytes",
                            blob.len()
                        )));
                    }
                    Some(&blob[s..s + l])
                };
                indexes.push(ColumnIndex { index_type, body });
            }
            columns.push((name, indexes));
        }
        Ok(FileIndexContainer { columns })
    }

    /// The indexes of `column` (none when the column is not indexed).
    pub(crate) fn column(&self, column: &str) -> &[ColumnIndex<'a>] {
        self.columns
            .iter()
            .find(|(name, _)| name == column)
            .map_or(&[], |(_, indexes)| indexes.as_slice())
    }

    /// Every indexed column with its indexes, in the head's order.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn columns(&self) -> &[(String, Vec<ColumnIndex<'a>>)] {
        &self.columns
    }
}

/// The indexes of one column: (index type, body; `None` for Java's empty index).
pub(crate) type ColumnBodies = Vec<(String, Option<Vec<u8>>)>;

/// Serializes `indexes` (column → index type → body, in the given order) as Java's
/// `FileIndexFormat.Writer.writeColumnIndexes` does.
pub(crate) fn write_container(indexes: &[(String, ColumnBodies)]) -> Vec<u8> {
    let n_entries: usize = indexes.iter().map(|(_, v)| v.len()).sum();
    let mut names = Vec::new();
    for (column, types) in indexes {
        write_utf(&mut names, column);
        for (t, _) in types {
            write_utf(&mut names, t);
        }
    }
    let head_length = (8 + 4 + 4 + 4 + n_entries * 8 + indexes.len() * 4 + 4 + names.len()) as i32;
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC.to_be_bytes());
    out.extend_from_slice(&VERSION_1.to_be_bytes());
    out.extend_from_slice(&head_length.to_be_bytes());
    out.extend_from_slice(&(indexes.len() as i32).to_be_bytes());
    let mut body = Vec::new();
    for (column, types) in indexes {
        write_utf(&mut out, column);
        out.extend_from_slice(&(types.len() as i32).to_be_bytes());
        for (t, bytes) in types {
            write_utf(&mut out, t);
            match bytes {
                None => {
                    out.extend_from_slice(&EMPTY_INDEX_FLAG.to_be_bytes());
                    out.extend_from_slice(&0i32.to_be_bytes());
                }
                Some(b) => {
                    out.extend_from_slice(&(body.len() as i32 + head_length).to_be_bytes());
                    out.extend_from_slice(&(b.len() as i32).to_be_bytes());
                    body.extend_from_slice(b);
                }
            }
        }
    }
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// Java's `DataOutput.writeUTF`: a u16 length, then modified UTF-8 (NUL as two bytes,
/// supplementary characters as two 3-byte surrogates).
pub(crate) fn write_utf(out: &mut Vec<u8>, s: &str) {
    let mut enc = Vec::with_capacity(s.len());
    for unit in s.encode_utf16() {
        let c = unit as u32;
        if (1..=0x7f).contains(&c) {
            enc.push(c as u8);
        } else if c <= 0x7ff {
            enc.push((0xc0 | (c >> 6)) as u8);
            enc.push((0x80 | (c & 0x3f)) as u8);
        } else {
            enc.push((0xe0 | (c >> 12)) as u8);
            enc.push((0x80 | ((c >> 6) & 0x3f)) as u8);
            enc.push((0x80 | (c & 0x3f)) as u8);
        }
    }
    out.extend_from_slice(&(enc.len() as u16).to_be_bytes());
    out.extend_from_slice(&enc);
}

/// A big-endian cursor reading what Java's `DataInputStream` writes; every read is bounds
/// checked.
pub(crate) struct JavaReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> JavaReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        JavaReader { data, pos: 0 }
    }

    pub(crate) fn at(data: &'a [u8], pos: usize) -> Result<Self, SpecError> {
        if pos > data.len() {
            return Err(invalid(format!(
                "offset {pos} past the end ({} bytes)",
                data.len()
            )));
        }
        Ok(JavaReader { data, pos })
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], SpecError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| invalid(format!("truncated at byte {}", self.pos)))?;
        let b = &self.data[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], SpecError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, SpecError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn i16(&mut self) -> Result<i16, SpecError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, SpecError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, SpecError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A length-prefixed (i32) byte string.
    pub(crate) fn sized_bytes(&mut self) -> Result<&'a [u8], SpecError> {
        let n = self.i32()?;
        if n < 0 {
            return Err(invalid(format!("negative length {n}")));
        }
        self.bytes(n as usize)
    }

    /// Java's `DataInput.readUTF` (modified UTF-8).
    pub(crate) fn utf(&mut self) -> Result<String, SpecError> {
        let n = u16::from_be_bytes(self.array()?) as usize;
        let b = self.bytes(n)?;
        let mut units = Vec::with_capacity(n);
        let mut i = 0;
        while i < b.len() {
            let c = b[i] as u32;
            let (unit, len) = if c < 0x80 {
                (c, 1)
            } else if c & 0xe0 == 0xc0 && i + 1 < b.len() {
                (((c & 0x1f) << 6) | (b[i + 1] as u32 & 0x3f), 2)
            } else if c & 0xf0 == 0xe0 && i + 2 < b.len() {
                (
                    ((c & 0x0f) << 12) | ((b[i + 1] as u32 & 0x3f) << 6) | (b[i + 2] as u32 & 0x3f),
                    3,
                )
            } else {
                return Err(invalid("malformed modified UTF-8 string"));
            };
            units.push(unit as u16);
            i += len;
        }
        String::from_utf16(&units).map_err(|_| invalid("malformed modified UTF-8 string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_roundtrip_and_head_length() {
        let indexes = vec![
            (
                "name".to_string(),
                vec![
                    ("bloom-filter".to_string(), Some(vec![1, 2, 3])),
                    ("bitmap".to_string(), None),
                ],
            ),
            ("é\0".to_string(), vec![("bsi".to_string(), Some(vec![9]))]),
        ];
        let blob = write_container(&indexes);
        let head_length = i32::from_be_bytes(blob[12..16].try_into().unwrap()) as usize;
        // The bodies follow the head directly: 3 + 1 bytes.
        assert_eq!(blob.len(), head_length + 4);
        let c = FileIndexContainer::parse(&blob).unwrap();
        assert_eq!(c.column("name")[0].body, Some(&[1u8, 2, 3][..]));
        assert_eq!(c.column("name")[1].body, None);
        assert_eq!(c.column("é\0")[0].body, Some(&[9u8][..]));
        assert!(c.column("other").is_empty());
        assert_eq!(c.columns().len(), 2);
    }

    #[test]
    fn corrupt_containers_are_errors() {
        assert!(FileIndexContainer::parse(&[]).is_err());
        assert!(FileIndexContainer::parse(&[0; 40]).is_err());
        let mut blob = write_container(&[("a".into(), vec![("bitmap".into(), Some(vec![1]))])]);
        let n = blob.len();
        blob.truncate(n - 1);
        assert!(FileIndexContainer::parse(&blob).is_err());
    }
}
