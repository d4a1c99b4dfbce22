//! Jackson-compatible JSON pretty printing.
//!
//! Java Paimon writes `schema/schema-N`, `snapshot/snapshot-N` (and tags, statistics, ...) with
//! Jackson's `writerWithDefaultPrettyPrinter()`. Readers do not care about whitespace, but strata
//! writes the same bytes so that files diff cleanly against Java's and golden-byte tests are
//! meaningful. Jackson's default pretty printer (`DefaultPrettyPrinter`) lays JSON out as:
//!
//! * objects: `{`, each member on its own line indented two spaces per *object* nesting level,
//!   written `"key" : value`, members separated by `,`; an empty object is `{ }`;
//! * arrays stay inline: `[ a, b ]`, an empty array is `[ ]`; an object inside an array opens on
//!   the array's line, hence `[ {` … `}, {` … `} ]`;
//! * strings escape `"`, `\`, and control characters (short forms `\b \t \n \f \r`, otherwise
//!   `\u00XX` with uppercase hex); non-ASCII and `/` are written as is;
//! * no trailing newline.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

use crate::error::{Result, SpecError};

/// A [`serde_json`] formatter producing the layout of Jackson's `DefaultPrettyPrinter`.
#[derive(Debug, Default, Clone)]
pub struct JacksonPrettyFormatter {
    /// Object nesting depth: indentation is two spaces per open object (arrays do not indent).
    depth: usize,
    /// Whether the innermost open object received a member (decides `{ }` vs a closing line).
    object_has_member: Vec<bool>,
}

impl JacksonPrettyFormatter {
    pub fn new() -> Self {
        Self::default()
    }

    fn newline_indent<W: ?Sized + io::Write>(&self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b"\n")?;
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Formatter for JacksonPrettyFormatter {
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        // Jackson writes a single space before `]` whether or not the array had values.
        writer.write_all(b" ]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        writer.write_all(if first { b" " } else { b", " })
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.object_has_member.push(false);
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        let had_member = self.object_has_member.pop().unwrap_or(false);
        if had_member {
            self.newline_indent(writer)?;
        } else {
            writer.write_all(b" ")?;
        }
        writer.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        if let Some(has) = self.object_has_member.last_mut() {
            *has = true;
        }
        self.newline_indent(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b" : ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let bytes: &[u8] = match char_escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => {
                let buf = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(byte >> 4) as usize],
                    HEX[(byte & 0xF) as usize],
                ];
                return writer.write_all(&buf);
            }
        };
        writer.write_all(bytes)
    }
}

/// Serializes `value` exactly as Jackson's default pretty printer would (no trailing newline).
pub fn to_jackson_pretty(value: &impl Serialize) -> Result<String> {
    let mut out = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, JacksonPrettyFormatter::new());
    value
        .serialize(&mut ser)
        .map_err(|source| SpecError::Json {
            context: "Jackson pretty printing".to_string(),
            source,
        })?;
    String::from_utf8(out).map_err(|e| {
        SpecError::invalid(
            "Jackson pretty printing",
            format!("output is not UTF-8: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pretty(v: &serde_json::Value) -> String {
        to_jackson_pretty(v).unwrap()
    }

    #[test]
    fn scalars_and_empty_containers() {
        assert_eq!(pretty(&json!(5)), "5");
        assert_eq!(pretty(&json!("a")), "\"a\"");
        assert_eq!(pretty(&json!([])), "[ ]");
        assert_eq!(pretty(&json!({})), "{ }");
        assert_eq!(pretty(&json!(["a", "b"])), "[ \"a\", \"b\" ]");
        assert_eq!(pretty(&json!({"a": {}})), "{\n  \"a\" : { }\n}");
        assert_eq!(pretty(&json!({"a": []})), "{\n  \"a\" : [ ]\n}");
    }

    #[test]
    fn objects_inside_arrays() {
        let v = json!({"xs": [{"a": 1}, {"b": [1, 2]}]});
        assert_eq!(
            pretty(&v),
            "{\n  \"xs\" : [ {\n    \"a\" : 1\n  }, {\n    \"b\" : [ 1, 2 ]\n  } ]\n}"
        );
        // Nested arrays stay inline and do not indent.
        assert_eq!(pretty(&json!([[1], [{}]])), "[ [ 1 ], [ { } ] ]");
    }

    #[test]
    fn string_escapes_like_jackson() {
        let v = json!("q\"b\\s/\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}é€");
        assert_eq!(
            pretty(&v),
            "\"q\\\"b\\\\s/\\n\\t\\r\\b\\f\\u0001\\u001F\u{7f}é€\""
        );
    }

    /// A schema file as Java's `SchemaManager` writes it, byte for byte.
    #[test]
    fn schema_example_is_byte_exact() {
        let expected = r#"{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "k",
    "type" : "INT NOT NULL"
  }, {
    "id" : 1,
    "name" : "dt",
    "type" : "STRING"
  }, {
    "id" : 2,
    "name" : "tags",
    "type" : {
      "type" : "ARRAY",
      "element" : "STRING"
    }
  }, {
    "id" : 3,
    "name" : "attrs",
    "type" : {
      "type" : "MAP NOT NULL",
      "key" : "STRING NOT NULL",
      "value" : "DECIMAL(10, 2)"
    }
  }, {
    "id" : 6,
    "name" : "nested",
    "type" : {
      "type" : "ROW",
      "fields" : [ {
        "id" : 4,
        "name" : "a",
        "type" : "BIGINT"
      }, {
        "id" : 5,
        "name" : "b",
        "type" : "TIMESTAMP(3) WITH LOCAL TIME ZONE",
        "description" : "event time"
      } ]
    }
  } ],
  "highestFieldId" : 6,
  "partitionKeys" : [ "dt" ],
  "primaryKeys" : [ "k", "dt" ],
  "options" : {
    "bucket" : "4"
  },
  "timeMillis" : 1720496663041
}"#;
        // Parsing keeps member order (serde_json's preserve_order), so re-printing must
        // reproduce the input exactly.
        let v: serde_json::Value = serde_json::from_str(expected).unwrap();
        assert_eq!(pretty(&v), expected);
    }
}
