//! The settings of a Parquet data file writer ([`ParquetWriteOptions`]) and how they are read
//! from a table's options, as Java's `ParquetFileFormat` / `RowDataParquetBuilder` read them:
//! `file.compression` (default zstd, `file.compression.zstd-level` = 1; `parquet.compression`
//! overrides), `file.block-size` (else `parquet.block.size`), the page and dictionary keys,
//! `parquet.writer.version`, and the VARIANT shredding options. Apart from the writer
//! ([`super::parquet_writer`]) so that each file stays small.

use std::collections::BTreeMap;

use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};

use super::variant_shred_infer::InferOptions;
use super::variant_shred_schema::VariantShreddingSchema;
use crate::error::ErrorDetail;
use crate::{Error, Result};

/// parquet-java's default row group size (`ParquetWriter.DEFAULT_BLOCK_SIZE`).
pub(crate) const DEFAULT_ROW_GROUP_BYTES: usize = 128 * 1024 * 1024;
/// Default `file.compression.zstd-level`.
pub(crate) const DEFAULT_ZSTD_LEVEL: i32 = 1;
/// Compression codec of a Parquet data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParquetCompression {
    Uncompressed,
    Snappy,
    Gzip,
    Lz4,
    Lz4Raw,
    Brotli,
    /// zstd with its level.
    Zstd(i32),
}

impl ParquetCompression {
    /// Parses a `file.compression` / `parquet.compression` value the way parquet-java's
    /// `CompressionCodecName` does (case-insensitive; `none` = uncompressed).
    pub(crate) fn parse(codec: &str, zstd_level: i32) -> Result<Self> {
        Ok(match codec.trim().to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => ParquetCompression::Uncompressed,
            "snappy" => ParquetCompression::Snappy,
            "gzip" => ParquetCompression::Gzip,
            "lz4" => ParquetCompression::Lz4,
            "lz4_raw" => ParquetCompression::Lz4Raw,
            "brotli" => ParquetCompression::Brotli,
            "zstd" => ParquetCompression::Zstd(zstd_level),
            other => {
                return Err(ErrorDetail::InvalidOption {
                    key: "file.compression".into(),
                    message: format!(
                        "unsupported Parquet compression {other:?} (none, zstd, snappy, lz4, \
                         lz4_raw, gzip, brotli)"
                    ),
                }
                .into())
            }
        })
    }

    fn to_parquet(self) -> Result<Compression> {
        Ok(match self {
            ParquetCompression::Uncompressed => Compression::UNCOMPRESSED,
            ParquetCompression::Snappy => Compression::SNAPPY,
            ParquetCompression::Gzip => Compression::GZIP(GzipLevel::default()),
            ParquetCompression::Lz4 => Compression::LZ4,
            ParquetCompression::Lz4Raw => Compression::LZ4_RAW,
            ParquetCompression::Brotli => Compression::BROTLI(BrotliLevel::default()),
            ParquetCompression::Zstd(level) => {
                Compression::ZSTD(ZstdLevel::try_new(level).map_err(|e| {
                    ErrorDetail::InvalidOption {
                        key: "file.compression.zstd-level".into(),
                        message: e.to_string(),
                    }
                })?)
            }
        })
    }
}

/// Settings of a Parquet data file writer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ParquetWriteOptions {
    pub compression: ParquetCompression,
    /// Row group size in (estimated encoded) bytes.
    pub row_group_bytes: usize,
    /// Optional cap on rows per row group (parquet-java has none).
    pub row_group_rows: Option<usize>,
    /// Data page size in bytes.
    pub page_size: usize,
    /// Maximum rows per data page.
    pub page_row_count_limit: usize,
    pub dictionary: bool,
    pub dictionary_page_size: usize,
    /// Parquet writer version 2 (`parquet.writer.version` = `v2`); default 1.0 like Java.
    pub writer_version_2: bool,
    /// `variant.shreddingSchema`: the VARIANT columns written shredded.
    pub variant_shredding: Option<VariantShreddingSchema>,
    /// `variant.inferShreddingSchema` (without an explicit schema): each file's VARIANT
    /// columns shredded by the schema inferred from its first rows.
    pub variant_infer: Option<InferOptions>,
}

impl Default for ParquetWriteOptions {
    fn default() -> Self {
        ParquetWriteOptions {
            compression: ParquetCompression::Zstd(DEFAULT_ZSTD_LEVEL),
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
            row_group_rows: None,
            page_size: 1024 * 1024,
            page_row_count_limit: 20_000,
            dictionary: true,
            dictionary_page_size: 1024 * 1024,
            writer_version_2: false,
            variant_shredding: None,
            variant_infer: None,
        }
    }
}

impl ParquetWriteOptions {
    /// Reads the writer settings from table options: `file.compression`,
    /// `file.compression.zstd-level`, `file.block-size`, and the `parquet.*` keys Java passes
    /// through (`parquet.compression`, `parquet.compression.codec.zstd.level`,
    /// `parquet.block.size`, `parquet.page.size`, `parquet.page.row.count.limit`,
    /// `parquet.enable.dictionary`, `parquet.dictionary.page.size`, `parquet.writer.version`).
    #[cfg(test)]
    pub(crate) fn from_table_options(
        options: &std::collections::HashMap<String, String>,
    ) -> Result<Self> {
        Self::parse(|k| options.get(k).map(String::as_str))
    }

    /// [`Self::from_table_options`] over a schema's ordered option map.
    pub(crate) fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        Self::parse(|k| options.get(k).map(String::as_str))
    }

    fn parse<'a>(lookup: impl Fn(&str) -> Option<&'a str>) -> Result<Self> {
        let mut out = ParquetWriteOptions::default();
        let get = |k: &str| lookup(k).map(str::trim);
        let int = |k: &str| -> Result<Option<i64>> {
            get(k)
                .map(|v| {
                    v.parse::<i64>().map_err(|_| {
                        ErrorDetail::InvalidOption {
                            key: k.into(),
                            message: format!("{v:?} is not an integer"),
                        }
                        .into()
                    })
                })
                .transpose()
        };
        let positive = |k: &str| -> Result<Option<usize>> {
            match int(k)? {
                None => Ok(None),
                Some(v) if v > 0 => Ok(Some(v as usize)),
                Some(v) => Err(ErrorDetail::InvalidOption {
                    key: k.into(),
                    message: format!("{v} must be positive"),
                }
                .into()),
            }
        };
        let level = match int("parquet.compression.codec.zstd.level")? {
            Some(l) => l,
            None => int("file.compression.zstd-level")?.unwrap_or(DEFAULT_ZSTD_LEVEL as i64),
        };
        let level = i32::try_from(level).map_err(|_| ErrorDetail::InvalidOption {
            key: "file.compression.zstd-level".into(),
            message: format!("{level} is out of range"),
        })?;
        let codec = get("parquet.compression")
            .or_else(|| get("file.compression"))
            .unwrap_or("zstd");
        out.compression = ParquetCompression::parse(codec, level)?;
        // Validate the level now rather than at the first file.
        out.compression.to_parquet()?;
        if let Some(v) = get("file.block-size") {
            out.row_group_bytes = parse_memory_size("file.block-size", v)?;
        } else if let Some(v) = positive("parquet.block.size")? {
            out.row_group_bytes = v;
        }
        if let Some(v) = positive("parquet.page.size")? {
            out.page_size = v;
        }
        if let Some(v) = positive("parquet.page.row.count.limit")? {
            out.page_row_count_limit = v;
        }
        if let Some(v) = positive("parquet.dictionary.page.size")? {
            out.dictionary_page_size = v;
        }
        if let Some(v) = get("parquet.enable.dictionary") {
            out.dictionary = parse_bool("parquet.enable.dictionary", v)?;
        }
        if let Some(v) = get("parquet.writer.version") {
            out.writer_version_2 = match v.to_ascii_lowercase().as_str() {
                "v1" | "parquet_1_0" | "1.0" => false,
                "v2" | "parquet_2_0" | "2.0" => true,
                _ => {
                    return Err(ErrorDetail::InvalidOption {
                        key: "parquet.writer.version".into(),
                        message: format!("{v:?} is not v1 or v2"),
                    }
                    .into())
                }
            };
        }
        out.variant_infer = InferOptions::from_options(get)?;
        out.variant_shredding = VariantShreddingSchema::from_options(get)?;
        Ok(out)
    }

    pub(crate) fn writer_properties_builder(&self) -> Result<WriterPropertiesBuilder> {
        Ok(WriterProperties::builder()
            .set_compression(self.compression.to_parquet()?)
            .set_writer_version(if self.writer_version_2 {
                WriterVersion::PARQUET_2_0
            } else {
                WriterVersion::PARQUET_1_0
            })
            .set_dictionary_enabled(self.dictionary)
            .set_dictionary_page_size_limit(self.dictionary_page_size.max(1))
            .set_data_page_size_limit(self.page_size.max(1))
            .set_data_page_row_count_limit(self.page_row_count_limit.max(1))
            .set_max_row_group_bytes(Some(self.row_group_bytes.max(1)))
            .set_max_row_group_row_count(self.row_group_rows.filter(|r| *r > 0)))
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ErrorDetail::InvalidOption {
            key: key.into(),
            message: format!("{v:?} is not true or false"),
        }
        .into()),
    }
}

/// Parses a Paimon `MemorySize` text (`134217728`, `128 mb`, `64kb`, `1 gb`...).
fn parse_memory_size(key: &str, text: &str) -> Result<usize> {
    let bad = || {
        Error::from(ErrorDetail::InvalidOption {
            key: key.into(),
            message: format!("{text:?} is not a memory size (e.g. 128 mb)"),
        })
    };
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tebibytes" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = n.checked_mul(mult).ok_or_else(bad)?;
    if bytes == 0 {
        return Err(bad());
    }
    usize::try_from(bytes).map_err(|_| bad())
}
