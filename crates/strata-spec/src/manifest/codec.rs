//! The three writer schemas exactly as Java renders them, and the shared encode/decode loop
//! (domain struct ⇄ apache-avro `Value` ⇄ datum bytes ⇄ container).
//!
//! The schema texts are byte copies of the schemas Java writes into manifest headers (Avro's compact rendering
//! of what Java's `AvroSchemaConverter` builds); the copies keep the files' trailing newline,
//! which is not part of the header text.

use std::sync::OnceLock;

use apache_avro::schema::Schema;
use apache_avro::types::Value;

use super::compression::ManifestCompression;
use super::ocf::{parse_ocf, write_ocf, EncodedRecords};
use super::wire::in_record;
use crate::error::{Result, SpecError};

const ENTRY_SCHEMA_FILE: &str = include_str!("schema/avro-schema-entry.json");
const LIST_SCHEMA_FILE: &str = include_str!("schema/avro-schema-list.json");
const INDEX_SCHEMA_FILE: &str = include_str!("schema/avro-schema-index.json");

/// A writer schema: the exact header text and its parsed form.
pub(crate) struct WriterSchema {
    json: &'static str,
    parsed: OnceLock<Schema>,
    name: &'static str,
}

impl WriterSchema {
    const fn new(file: &'static str, name: &'static str) -> Self {
        WriterSchema {
            json: file,
            parsed: OnceLock::new(),
            name,
        }
    }

    /// The `avro.schema` header text (Java's compact rendering, no trailing newline).
    pub(crate) fn json(&self) -> &'static str {
        self.json.trim_end_matches(['\n', '\r'])
    }

    pub(crate) fn schema(&self) -> &Schema {
        self.parsed.get_or_init(|| {
            Schema::parse_str(self.json())
                .expect("embedded Paimon writer schema is valid Avro (checked by tests)")
        })
    }
}

/// Java's manifest-entry schema (`ManifestEntry` with `_VERSION`).
pub(crate) static ENTRY_SCHEMA: WriterSchema =
    WriterSchema::new(ENTRY_SCHEMA_FILE, "manifest entry");
/// Java's manifest-list schema (`ManifestFileMeta` with `_VERSION`).
pub(crate) static LIST_SCHEMA: WriterSchema =
    WriterSchema::new(LIST_SCHEMA_FILE, "manifest list entry");
/// Java's index-manifest schema (`IndexManifestEntry` with `_VERSION`).
pub(crate) static INDEX_SCHEMA: WriterSchema =
    WriterSchema::new(INDEX_SCHEMA_FILE, "index manifest entry");

/// `avro.schema` text strata writes into manifest files.
pub fn manifest_entry_schema_json() -> &'static str {
    ENTRY_SCHEMA.json()
}

/// `avro.schema` text strata writes into manifest lists.
pub fn manifest_list_schema_json() -> &'static str {
    LIST_SCHEMA.json()
}

/// `avro.schema` text strata writes into index manifests.
pub fn index_manifest_schema_json() -> &'static str {
    INDEX_SCHEMA.json()
}

/// Encodes `items` as datums of `schema` and frames them into a container.
pub(crate) fn encode_records<T>(
    schema: &WriterSchema,
    items: &[T],
    compression: ManifestCompression,
    to_value: impl Fn(&T) -> Value,
) -> Result<Vec<u8>> {
    let parsed = schema.schema();
    let mut records = EncodedRecords::default();
    for (i, item) in items.iter().enumerate() {
        let datum =
            apache_avro::to_avro_datum(parsed, to_value(item)).map_err(|e| SpecError::Avro {
                context: format!("encoding {} #{i}", schema.name),
                message: e.to_string(),
            })?;
        records.push(&datum);
    }
    write_ocf(schema.json(), compression, &records)
}

/// Decodes every record of a container with `from_value`, resolving fields by name.
pub(crate) fn decode_records<T>(
    bytes: &[u8],
    what: &str,
    from_value: impl Fn(&Value) -> Result<T>,
) -> Result<Vec<T>> {
    let ocf = parse_ocf(bytes)?;
    let mut out = Vec::new();
    ocf.for_each_record(what, |i, v| {
        out.push(from_value(&v).map_err(|e| in_record(e, what, i))?);
        Ok(())
    })?;
    Ok(out)
}
