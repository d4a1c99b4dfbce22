//! Which MAP columns are shredded, and how: the `fields.<col>.map.*` options and their
//! validation (Java's `CoreOptions` map-layout getters and `SchemaValidation`'s
//! map-storage-layout rules).

use crate::error::{Result, SpecError};
use crate::options::{CoreOptions, OptionEnum, FIELDS_PREFIX};
use crate::types::{DataField, DataType, TypeKind};

/// Default `max-dedicated-columns`.
pub const DEFAULT_MAX_DEDICATED: usize = 32;

/// Suffix of `fields.<col>.map.storage-layout`.
pub const STORAGE_LAYOUT_SUFFIX: &str = "map.storage-layout";
/// Suffix of `fields.<col>.map.shared-shredding.max-columns`.
pub const MAX_COLUMNS_SUFFIX: &str = "map.shared-shredding.max-columns";
/// Suffix of `fields.<col>.map.shared-shredding.column-placement-policy`.
pub const PLACEMENT_POLICY_SUFFIX: &str = "map.shared-shredding.column-placement-policy";
/// Suffix of `fields.<col>.map.shared-shredding.max-dedicated-columns` (a strata extension:
/// Java and pypaimon ignore it and place keys their own way; see [`super::plan`]).
pub const MAX_DEDICATED_SUFFIX: &str = "map.shared-shredding.max-dedicated-columns";
/// Default K_max (`max-columns`).
pub const DEFAULT_MAX_COLUMNS: usize = 256;
/// Upper bound strata accepts for `max-columns` (readers cap a file's K at 16 Ki).
pub const MAX_MAX_COLUMNS: usize = 16 * 1024;

/// `fields.<col>.map.storage-layout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapStorageLayout {
    /// Two key/value arrays (Parquet's MAP).
    Default,
    /// PIP-43: K shared typed columns, a per-row field mapping and an overflow map.
    SharedShredding,
}

impl OptionEnum for MapStorageLayout {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("default", MapStorageLayout::Default),
        ("shared-shredding", MapStorageLayout::SharedShredding),
    ];
}

/// `fields.<col>.map.shared-shredding.column-placement-policy`.
///
/// The default is `lru`, as Java and paimon-cpp ship it (the PIP text proposed `plain`):
/// `lru` keeps a key in the same physical column from row to row, so each `__col_i` mostly
/// holds one key's values and its Parquet statistics stay tight enough to prune on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PlacementPolicy {
    /// The row's entries in row order: first K to columns 0..K-1, the rest overflow.
    Plain,
    /// The row's field ids ascending (first-seen order in the file), then as plain.
    Sequential,
    /// Keys keep their column across rows; new keys take a never-used column, else the
    /// least recently used one.
    #[default]
    Lru,
}

impl OptionEnum for PlacementPolicy {
    const VALUES: &'static [(&'static str, Self)] = &[
        ("plain", PlacementPolicy::Plain),
        ("sequential", PlacementPolicy::Sequential),
        ("lru", PlacementPolicy::Lru),
    ];
}

/// One MAP column stored in the shared-shredding layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShreddedMapColumn {
    /// Index of the column among the fields it was resolved against.
    pub index: usize,
    pub name: String,
    pub field_id: i32,
    /// K_max.
    pub max_columns: usize,
    pub policy: PlacementPolicy,
    /// Most columns a file may dedicate to single frequent keys (0: none, Java's placement).
    pub max_dedicated: usize,
}

fn option_key(column: &str, suffix: &str) -> String {
    format!("{FIELDS_PREFIX}{column}.{suffix}")
}

fn invalid(key: &str, message: impl Into<String>) -> SpecError {
    SpecError::invalid(format!("table option `{key}`"), message)
}

/// Whether `t` is `MAP<VARCHAR/STRING, T>` (Java accepts only the VARCHAR root as key).
pub fn is_string_key_map(t: &DataType) -> bool {
    matches!(&t.kind, TypeKind::Map { key, .. } if matches!(key.kind, TypeKind::VarChar(_)))
}

/// The shredded MAP columns of a table (or of the fields a writer writes), validated:
///
/// * every `fields.<col>.map.*` option names an existing column of type
///   `MAP<STRING NOT NULL, T>` (a nullable key is rejected, as Paimon does);
/// * `map.storage-layout` is `default` or `shared-shredding`; `max-columns` is an int in
///   `1..=16384`; the policy is `plain`, `sequential` or `lru`;
/// * for a shredded column: `file.format` is parquet, `file.compression` is none, lz4 or zstd
///   (the field dictionary is compressed with it), the value type has no VARIANT/BLOB, and the
///   table has no VARIANT column.
///
/// Columns with the default layout are not returned.
pub fn shredded_map_columns(
    fields: &[DataField],
    options: &CoreOptions,
) -> Result<Vec<ShreddedMapColumn>> {
    // Options naming columns that are not MAPs, or do not exist.
    for key in options.as_map().keys() {
        let Some(rest) = key.strip_prefix(FIELDS_PREFIX) else {
            continue;
        };
        let Some(suffix_at) = rest.find(".map.") else {
            continue;
        };
        let (column, suffix) = (&rest[..suffix_at], &rest[suffix_at + 1..]);
        if ![
            STORAGE_LAYOUT_SUFFIX,
            MAX_COLUMNS_SUFFIX,
            PLACEMENT_POLICY_SUFFIX,
            MAX_DEDICATED_SUFFIX,
        ]
        .contains(&suffix)
        {
            return Err(invalid(
                key,
                format!(
                    "unknown MAP layout option `{suffix}` (expected {STORAGE_LAYOUT_SUFFIX}, \
                     {MAX_COLUMNS_SUFFIX}, {PLACEMENT_POLICY_SUFFIX} or {MAX_DEDICATED_SUFFIX})"
                ),
            ));
        }
        let Some(field) = fields.iter().find(|f| f.name == column) else {
            return Err(invalid(key, format!("column `{column}` does not exist")));
        };
        if !matches!(field.data_type.kind, TypeKind::Map { .. }) {
            return Err(invalid(
                key,
                format!(
                    "column `{column}` is {}, but MAP layouts apply only to MAP columns",
                    field.data_type
                ),
            ));
        }
    }

    let mut out = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let layout_key = option_key(&field.name, STORAGE_LAYOUT_SUFFIX);
        let layout = options
            .get_enum::<MapStorageLayout>(&layout_key)?
            .unwrap_or(MapStorageLayout::Default);
        let max_key = option_key(&field.name, MAX_COLUMNS_SUFFIX);
        let max_columns = match options.get(&max_key) {
            None => DEFAULT_MAX_COLUMNS,
            Some(v) => match v.trim().parse::<i64>() {
                Ok(n) if n >= 1 && n as usize <= MAX_MAX_COLUMNS => n as usize,
                _ => {
                    return Err(invalid(
                        &max_key,
                        format!("`{v}` is not an int between 1 and {MAX_MAX_COLUMNS}"),
                    ))
                }
            },
        };
        let dedicated_key = option_key(&field.name, MAX_DEDICATED_SUFFIX);
        let max_dedicated = match options.get(&dedicated_key) {
            None => DEFAULT_MAX_DEDICATED,
            Some(v) => match v.trim().parse::<i64>() {
                Ok(n) if n >= 0 && n as usize <= MAX_MAX_COLUMNS => n as usize,
                _ => {
                    return Err(invalid(
                        &dedicated_key,
                        format!(
                            "`{v}` is not an int between 0 (no dedicated columns) and \
                             {MAX_MAX_COLUMNS}"
                        ),
                    ))
                }
            },
        };
        let policy_key = option_key(&field.name, PLACEMENT_POLICY_SUFFIX);
        let policy = options
            .get_enum::<PlacementPolicy>(&policy_key)?
            .unwrap_or_default();
        if layout != MapStorageLayout::SharedShredding {
            continue;
        }
        let TypeKind::Map { key, value } = &field.data_type.kind else {
            unreachable!("checked above: layout options name MAP columns only");
        };
        if !is_string_key_map(&field.data_type) {
            return Err(invalid(
                &layout_key,
                format!(
                    "shared-shredding requires MAP<STRING NOT NULL, T>, column `{}` is {}",
                    field.name, field.data_type
                ),
            ));
        }
        if key.nullable {
            return Err(invalid(
                &layout_key,
                format!(
                    "shared-shredding requires MAP<STRING NOT NULL, T>: the key of column `{}` \
                     is nullable",
                    field.name
                ),
            ));
        }
        if options.bucket()? == crate::options::POSTPONE_BUCKET {
            return Err(invalid(
                &layout_key,
                "MAP shared-shredding does not support the postpone bucket mode (bucket = -2)",
            ));
        }
        if contains_kind(value, &|k| matches!(k, TypeKind::Variant | TypeKind::Blob)) {
            return Err(invalid(
                &layout_key,
                format!(
                    "shared-shredding cannot store VARIANT or BLOB values (column `{}`)",
                    field.name
                ),
            ));
        }
        let format = options.file_format();
        if format != "parquet" && format != "orc" {
            return Err(invalid(
                &layout_key,
                format!(
                    "shared-shredding needs parquet or orc data files, file.format is {format}"
                ),
            ));
        }
        dictionary_compression(options.file_compression()).map_err(|_| {
            invalid(
                &layout_key,
                format!(
                    "shared-shredding compresses its field dictionary with file.compression, \
                     which must be none, lz4 or zstd (is {})",
                    options.file_compression()
                ),
            )
        })?;
        out.push(ShreddedMapColumn {
            index,
            name: field.name.clone(),
            field_id: field.id,
            max_columns,
            policy,
            max_dedicated,
        });
    }
    if !out.is_empty() {
        if let Some(f) = fields.iter().find(|f| {
            contains_kind(&f.data_type, &|k| {
                matches!(k, TypeKind::Variant | TypeKind::Multiset(_))
            })
        }) {
            return Err(invalid(
                &option_key(&out[0].name, STORAGE_LAYOUT_SUFFIX),
                format!(
                    "MAP shared-shredding cannot be used with VARIANT or MULTISET fields \
                     (column `{}`)",
                    f.name
                ),
            ));
        }
    }
    Ok(out)
}

/// The field-dictionary codec for `file.compression`: `none`, `lz4` or `zstd`
/// (case-insensitive).
pub fn dictionary_compression(file_compression: &str) -> Result<super::DictCompression> {
    use super::DictCompression;
    match file_compression.trim().to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Ok(DictCompression::None),
        "lz4" => Ok(DictCompression::Lz4),
        "zstd" => Ok(DictCompression::Zstd),
        other => Err(SpecError::invalid(
            "MAP shared-shredding",
            format!("only none/lz4/zstd compression is supported, got {other}"),
        )),
    }
}

fn contains_kind(t: &DataType, pred: &dyn Fn(&TypeKind) -> bool) -> bool {
    if pred(&t.kind) {
        return true;
    }
    match &t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) => contains_kind(e, pred),
        TypeKind::Map { key, value } => contains_kind(key, pred) || contains_kind(value, pred),
        TypeKind::Row(fields) => fields.iter().any(|f| contains_kind(&f.data_type, pred)),
        _ => false,
    }
}
