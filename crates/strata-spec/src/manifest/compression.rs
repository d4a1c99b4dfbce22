//! [`ManifestCompression`]: the Avro block codec of manifest, manifest-list and index-manifest
//! files, chosen from the table options `manifest.compression` and
//! `file.compression.zstd-level` the way Java's `AvroFileFormat.createCodecFactory` does.

use crate::error::{Result, SpecError};

/// Default of `file.compression.zstd-level`.
pub const DEFAULT_ZSTD_LEVEL: i32 = 1;

/// Level Avro uses for an explicit `zstandard` codec name (`CodecFactory.fromString`).
const AVRO_DEFAULT_ZSTD_LEVEL: i32 = 3;

/// Block codec of an Avro metadata file. The Avro codec names (`null`, `deflate`, `snappy`,
/// `zstandard`) are what goes into the `avro.codec` header entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManifestCompression {
    /// `null`: blocks are stored as is.
    Null,
    /// `deflate` (raw deflate, zlib's default level 6 as Avro Java uses).
    Deflate,
    /// `snappy` (raw snappy + big-endian CRC32 of the uncompressed block).
    Snappy,
    /// `zstandard` at the given level.
    Zstandard { level: i32 },
}

impl Default for ManifestCompression {
    /// Paimon's default: `manifest.compression = zstd` at level 1.
    fn default() -> Self {
        ManifestCompression::Zstandard {
            level: DEFAULT_ZSTD_LEVEL,
        }
    }
}

impl ManifestCompression {
    /// From the `manifest.compression` option value and `file.compression.zstd-level`.
    ///
    /// `zstd` uses `zstd_level` (as Java does); Avro codec names are accepted as well
    /// (`zstandard` then means Avro's default level 3). `none` is accepted as `null`.
    /// `bzip2` and `xz` are valid in Java but not compiled into strata: `Unsupported`.
    pub fn from_options(value: &str, zstd_level: i32) -> Result<ManifestCompression> {
        match value.trim().to_ascii_lowercase().as_str() {
            "zstd" => ManifestCompression::zstandard(zstd_level),
            "zstandard" => ManifestCompression::zstandard(AVRO_DEFAULT_ZSTD_LEVEL),
            "none" | "null" | "uncompressed" => Ok(ManifestCompression::Null),
            "deflate" => Ok(ManifestCompression::Deflate),
            "snappy" => Ok(ManifestCompression::Snappy),
            "bzip2" | "xz" => Err(SpecError::Unsupported(format!(
                "manifest.compression '{value}': the {value} Avro codec is not built into strata"
            ))),
            _ => Err(SpecError::invalid(
                "manifest.compression",
                format!(
                    "unknown codec '{value}' (expected zstd, none, deflate, snappy, or an Avro codec name)"
                ),
            )),
        }
    }

    /// Zstandard at `level` (1..=22; zstd's negative fast levels are not supported by the
    /// Avro codec library).
    pub fn zstandard(level: i32) -> Result<ManifestCompression> {
        if (1..=22).contains(&level) {
            Ok(ManifestCompression::Zstandard { level })
        } else {
            Err(SpecError::invalid(
                "file.compression.zstd-level",
                format!("zstd level {level} is outside 1..=22"),
            ))
        }
    }

    /// The Avro codec name written to the `avro.codec` header entry.
    pub fn avro_codec_name(self) -> &'static str {
        match self {
            ManifestCompression::Null => "null",
            ManifestCompression::Deflate => "deflate",
            ManifestCompression::Snappy => "snappy",
            ManifestCompression::Zstandard { .. } => "zstandard",
        }
    }

    /// The apache-avro codec that compresses blocks.
    pub(crate) fn avro_codec(self) -> apache_avro::Codec {
        match self {
            ManifestCompression::Null => apache_avro::Codec::Null,
            ManifestCompression::Deflate => {
                apache_avro::Codec::Deflate(apache_avro::DeflateSettings::default())
            }
            ManifestCompression::Snappy => apache_avro::Codec::Snappy,
            ManifestCompression::Zstandard { level } => {
                // Invariant: `zstandard()` keeps levels in 1..=22; clamp defensively for
                // values built directly.
                let level = level.clamp(1, 22) as u8;
                apache_avro::Codec::Zstandard(apache_avro::ZstandardSettings::new(level))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_map_like_java() {
        assert_eq!(
            ManifestCompression::from_options("zstd", 1).unwrap(),
            ManifestCompression::Zstandard { level: 1 }
        );
        assert_eq!(
            ManifestCompression::from_options("ZSTD", 9).unwrap(),
            ManifestCompression::Zstandard { level: 9 }
        );
        assert_eq!(
            ManifestCompression::from_options("zstandard", 1).unwrap(),
            ManifestCompression::Zstandard { level: 3 }
        );
        assert_eq!(
            ManifestCompression::from_options("none", 1).unwrap(),
            ManifestCompression::Null
        );
        assert_eq!(
            ManifestCompression::from_options("null", 1).unwrap(),
            ManifestCompression::Null
        );
        assert_eq!(
            ManifestCompression::from_options("snappy", 1).unwrap(),
            ManifestCompression::Snappy
        );
        assert_eq!(
            ManifestCompression::from_options("deflate", 1).unwrap(),
            ManifestCompression::Deflate
        );
        assert!(matches!(
            ManifestCompression::from_options("xz", 1),
            Err(SpecError::Unsupported(_))
        ));
        assert!(matches!(
            ManifestCompression::from_options("lz4", 1),
            Err(SpecError::Invalid { .. })
        ));
        assert!(ManifestCompression::from_options("zstd", 0).is_err());
        assert_eq!(
            ManifestCompression::default().avro_codec_name(),
            "zstandard"
        );
    }
}
