//! Serialized strata plans, for distributed DataFusion engines (Ballista, or any engine that
//! ships plans with `datafusion-proto`): [`StrataLogicalCodec`] carries a [`StrataTable`]
//! (its catalog's options, table, pinned snapshot), [`StrataPhysicalCodec`] a
//! [`StrataScanExec`] (the same, plus its projection, pushed filter, limit and the `DataSplit`s
//! of every partition in strata's versioned wire form, `strata::commit::wire`). A node that
//! plans once on a scheduler can so be read by executors on other machines, each opening the
//! table through `strata::catalog::open` with the catalog options the node carries.
//!
//! **Catalog options and secrets.** A codec given its catalog's options
//! ([`StrataLogicalCodec::with_catalog_options`]; Paimon's names: `metastore`, `uri`,
//! `warehouse`, ...) writes them into every node *without the secrets*
//! ([`is_secret_catalog_option`]: `token`, `jdbc.password`, every key holding `secret`,
//! `password` or `token`, and `header.*`, which may carry credentials): plan bytes travel
//! through schedulers, logs and shuffle files. The process that decodes supplies the secrets
//! itself: each secret key its own codec's options hold, else `$STRATA_CATALOG_OPTIONS`
//! (`K=V,K=V`, as the `strata` CLI reads it), is added to the node's options before the catalog
//! is opened. A codec without options ships filesystem tables as their warehouse location
//! (the node's only option is `warehouse`, as before) and refuses a table whose catalog decides
//! its commits (REST, JDBC): re-opened by path, its commits would bypass the catalog.
//!
//! The pushed filter travels as a tagged tree (`codec_predicate`), literals with their kinds,
//! so a shipped scan filters exactly as the planned one.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{Result, TableReference};
use datafusion::error::DataFusionError;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use serde::{Deserialize, Serialize};
use strata::catalog::Identifier;
use strata::maintenance::time_travel::TravelTarget;
use strata::scan::DataSplit;
use strata::table::Table;

use super::catalog::block_on;
use super::codec_predicate::PredicateWire;
use super::scan::{ReadRequest, StrataScanExec};
use super::table::StrataTable;
use crate::error::{plan_error, to_df};

/// Version of the serialized nodes written by this build (2: catalog options; 1, a warehouse
/// location, is still read).
pub const CODEC_VERSION: u32 = 2;

/// Whether catalog option `key` holds a secret, kept out of plan bytes: `token`,
/// `jdbc.password`, any key holding `secret`, `password` or `token` (`s3.secret-key`,
/// `s3.session-token`, `dlf.access-key-secret`, ...) except `token.provider` and
/// `data-token.enabled` (names, not secrets), and every `header.*` (headers may carry
/// credentials).
pub fn is_secret_catalog_option(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    if k == "token.provider" || k == "data-token.enabled" {
        return false;
    }
    k.starts_with("header.")
        || k.contains("token")
        || k.contains("secret")
        || k.contains("password")
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TableWire {
    version: u32,
    /// Version 1: the filesystem warehouse of the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    warehouse: Option<String>,
    /// Version 2: the catalog's options, secrets left out.
    #[serde(default)]
    catalog_options: BTreeMap<String, String>,
    database: String,
    table: String,
    /// The snapshot a time-travel provider reads.
    pinned_snapshot: Option<i64>,
    /// `StrataTable::with_scan_partitions`.
    #[serde(default)]
    scan_partitions: Option<usize>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScanWire {
    table: TableWire,
    snapshot_id: Option<i64>,
    columns: Option<Vec<String>>,
    filter: Option<PredicateWire>,
    limit: Option<usize>,
    #[serde(default)]
    row_kinds: bool,
    groups: Vec<Vec<DataSplit>>,
}

fn json_error(e: serde_json::Error) -> DataFusionError {
    plan_error(format!("strata plan node: {e}"))
}

/// The warehouse a table lives in: its location without `/<db>.db/<table>`.
fn warehouse_of(table: &Table) -> Result<String> {
    let id = table.identifier();
    let location = table.location();
    let suffix = format!("/{}.db/{}", id.database, id.table);
    location
        .trim_end_matches('/')
        .strip_suffix(&suffix)
        .map(str::to_string)
        .ok_or_else(|| {
            plan_error(format!(
                "table {id} at {location} is not in a warehouse layout (…{suffix})"
            ))
        })
}

/// The options of `table`'s catalog for a node: `configured` without its secrets, or, when the
/// codec has none, the warehouse of a table whose commits its files decide.
fn wire_options(
    table: &Table,
    configured: Option<&BTreeMap<String, String>>,
) -> Result<BTreeMap<String, String>> {
    if let Some(options) = configured {
        return Ok(options
            .iter()
            .filter(|(k, _)| !is_secret_catalog_option(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect());
    }
    // A table whose commits are not the warehouse's own create-if-absent (a REST catalog
    // deciding them, a JDBC catalog's lock) cannot be reopened by its path.
    if !table.snapshot_commit().is_file_commit() {
        return Err(plan_error(format!(
            "table {} is committed through its catalog, not its files: give the codec the \
             catalog's options (StrataLogicalCodec / StrataPhysicalCodec::with_catalog_options) \
             to ship it",
            table.identifier()
        )));
    }
    Ok(BTreeMap::from([(
        "warehouse".to_string(),
        warehouse_of(table)?,
    )]))
}

/// `K=V,K=V` text (`$STRATA_CATALOG_OPTIONS`): a comma starts a new pair only when the text
/// after it has a `=`, so values may hold commas.
fn parse_option_text(text: &str) -> BTreeMap<String, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for piece in text.split(',') {
        match piece.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => out.push((k.trim().to_string(), v.into())),
            _ => {
                if let Some((_, v)) = out.last_mut() {
                    v.push(',');
                    v.push_str(piece);
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The catalog options to open a node's table with: the node's, plus the secret keys the
/// decoding process holds (`own`, then `$STRATA_CATALOG_OPTIONS`) that the node lacks.
fn open_options(w: &TableWire, own: Option<&BTreeMap<String, String>>) -> BTreeMap<String, String> {
    let mut options = w.catalog_options.clone();
    if let Some(warehouse) = &w.warehouse {
        options.insert("warehouse".to_string(), warehouse.clone());
    }
    let env = std::env::var("STRATA_CATALOG_OPTIONS")
        .map(|t| parse_option_text(&t))
        .unwrap_or_default();
    for source in own.into_iter().chain(std::iter::once(&env)) {
        for (k, v) in source {
            if is_secret_catalog_option(k) && !options.contains_key(k) {
                options.insert(k.clone(), v.clone());
            }
        }
    }
    options
}

fn table_wire(
    table: &Table,
    pinned: Option<i64>,
    configured: Option<&BTreeMap<String, String>>,
) -> Result<TableWire> {
    Ok(TableWire {
        version: CODEC_VERSION,
        warehouse: None,
        catalog_options: wire_options(table, configured)?,
        database: table.identifier().database.clone(),
        table: table.identifier().table.clone(),
        pinned_snapshot: pinned,
        scan_partitions: None,
    })
}

async fn open(w: &TableWire, own: Option<&BTreeMap<String, String>>) -> Result<StrataTable> {
    if w.version != CODEC_VERSION && w.version != 1 {
        return Err(plan_error(format!(
            "strata plan node version {} (this build reads 1 and {CODEC_VERSION})",
            w.version
        )));
    }
    let catalog = strata::catalog::open(&open_options(w, own))
        .await
        .map_err(to_df)?;
    let id = Identifier::new(w.database.clone(), w.table.clone()).map_err(to_df)?;
    let table = catalog.get_table(&id).await.map_err(to_df)?;
    let t = match w.pinned_snapshot {
        Some(s) => StrataTable::at(&table, &TravelTarget::Snapshot(s)).await,
        None => StrataTable::new(table).await,
    }
    .map_err(to_df)?;
    Ok(match w.scan_partitions {
        Some(n) => t.with_scan_partitions(n),
        None => t,
    })
}

/// First byte of a node this codec wrote itself; anything else is the inner codec's.
const STRATA_TAG: u8 = b'S';
const INNER_TAG: u8 = b'I';

fn split_tag(buf: &[u8]) -> Result<(u8, &[u8])> {
    match buf.split_first() {
        Some((t, rest)) if *t == STRATA_TAG || *t == INNER_TAG => Ok((*t, rest)),
        _ => Err(plan_error("strata codec: a node without its tag byte")),
    }
}

/// Serializes strata table providers in logical plans; every other node goes to the codec it
/// wraps (Ballista's, or DataFusion's default).
pub struct StrataLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
    catalog_options: Option<BTreeMap<String, String>>,
}

impl std::fmt::Debug for StrataLogicalCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The catalog options may hold secrets: only their names.
        f.debug_struct("StrataLogicalCodec")
            .field("inner", &self.inner)
            .field(
                "catalog_options",
                &self
                    .catalog_options
                    .as_ref()
                    .map(|o| o.keys().collect::<Vec<_>>()),
            )
            .finish()
    }
}

impl Default for StrataLogicalCodec {
    fn default() -> Self {
        Self::wrapping(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

impl StrataLogicalCodec {
    /// This codec in front of `inner` (e.g. Ballista's `BallistaLogicalExtensionCodec`).
    pub fn wrapping(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        StrataLogicalCodec {
            inner,
            catalog_options: None,
        }
    }

    /// This codec for tables of the catalog `options` open (Paimon's catalog options, as
    /// `strata::catalog::open` takes them): encoding writes them without their secrets,
    /// decoding adds this process's secrets to a node's options (see the module doc).
    pub fn with_catalog_options(mut self, options: BTreeMap<String, String>) -> Self {
        self.catalog_options = Some(options);
        self
    }
}

impl LogicalExtensionCodec for StrataLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn datafusion::datasource::file_format::FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn datafusion::datasource::file_format::FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let (tag, buf) = split_tag(buf)?;
        if tag == INNER_TAG {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        }
        let w: TableWire = serde_json::from_slice(buf).map_err(json_error)?;
        let own = self.catalog_options.as_ref();
        let t = block_on(async move { open(&w, own).await })??;
        Ok(Arc::new(t))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(t) = node.downcast_ref::<StrataTable>() else {
            buf.push(INNER_TAG);
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let mut w = table_wire(
            t.table(),
            t.snapshot().map(|s| s.id),
            self.catalog_options.as_ref(),
        )?;
        w.scan_partitions = t.scan_partitions();
        buf.push(STRATA_TAG);
        serde_json::to_writer(buf, &w).map_err(json_error)
    }
}

/// Serializes [`StrataScanExec`] in physical plans; every other node goes to the codec it wraps
/// (Ballista's, or DataFusion's default).
pub struct StrataPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
    catalog_options: Option<BTreeMap<String, String>>,
}

impl std::fmt::Debug for StrataPhysicalCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The catalog options may hold secrets: only their names.
        f.debug_struct("StrataPhysicalCodec")
            .field("inner", &self.inner)
            .field(
                "catalog_options",
                &self
                    .catalog_options
                    .as_ref()
                    .map(|o| o.keys().collect::<Vec<_>>()),
            )
            .finish()
    }
}

impl Default for StrataPhysicalCodec {
    fn default() -> Self {
        Self::wrapping(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl StrataPhysicalCodec {
    /// This codec in front of `inner` (e.g. Ballista's `BallistaPhysicalExtensionCodec`).
    pub fn wrapping(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        StrataPhysicalCodec {
            inner,
            catalog_options: None,
        }
    }

    /// This codec for tables of the catalog `options` open: see
    /// [`StrataLogicalCodec::with_catalog_options`].
    pub fn with_catalog_options(mut self, options: BTreeMap<String, String>) -> Self {
        self.catalog_options = Some(options);
        self
    }
}

impl PhysicalExtensionCodec for StrataPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let (tag, buf) = split_tag(buf)?;
        if tag == INNER_TAG {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        }
        let w: ScanWire = serde_json::from_slice(buf).map_err(json_error)?;
        let own = self.catalog_options.as_ref();
        let exec = block_on(async move {
            let provider = open(&w.table, own).await?;
            let full = provider.schema();
            let mut schema: SchemaRef = match &w.columns {
                Some(cols) => {
                    let indices = cols
                        .iter()
                        .map(|c| full.index_of(c))
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    Arc::new(full.project(&indices)?)
                }
                None => full,
            };
            if w.row_kinds {
                schema = strata::read::row_kinds::with_kind_column(&schema);
            }
            let filter = w
                .filter
                .as_ref()
                .map(|p| p.to_predicate().map_err(plan_error))
                .transpose()?;
            let partitions = w.groups.len();
            Ok::<_, DataFusionError>(StrataScanExec::from_groups(
                provider.table().clone(),
                w.snapshot_id,
                ReadRequest {
                    columns: w.columns,
                    filter,
                    limit: w.limit,
                    row_kinds: w.row_kinds,
                },
                w.groups,
                partitions,
                schema,
            ))
        })??;
        Ok(Arc::new(exec))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(scan) = node.downcast_ref::<StrataScanExec>() else {
            buf.push(INNER_TAG);
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let w = ScanWire {
            table: table_wire(
                scan.table(),
                scan.pinned_snapshot(),
                self.catalog_options.as_ref(),
            )?,
            snapshot_id: scan.snapshot_id(),
            columns: scan.columns().map(<[String]>::to_vec),
            filter: scan.filter().map(PredicateWire::from),
            limit: scan.limit(),
            row_kinds: scan.row_kinds(),
            groups: scan.split_groups().to_vec(),
        };
        buf.push(STRATA_TAG);
        serde_json::to_writer(buf, &w).map_err(json_error)
    }
}
