//! The command line: [`Cli`] (the global `--warehouse` and `--catalog-option`, resolved by
//! `crate::catalog_args`) and its [`Command`]s, parsed by clap.
//! The arguments of the larger commands are defined beside them in `commands/`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "strata",
    version,
    about = "A Rust engine for Apache Paimon tables"
)]
pub struct Cli {
    /// Warehouse: a directory, s3://bucket/path (configured by the AWS_* environment), or
    /// memory://name; for a REST catalog the server's catalog name. Same as
    /// --catalog-option warehouse=X. Default: $STRATA_WAREHOUSE, else ./warehouse (filesystem)
    #[arg(long, global = true)]
    pub warehouse: Option<String>,
    /// A Paimon catalog option K=V (repeatable; K=V,K=V in one): metastore=filesystem|rest|jdbc,
    /// uri, token.provider, token, header.NAME, catalog-key, jdbc.*, lock.*, s3.*,
    /// table-default.*. Also $STRATA_CATALOG_OPTIONS (K=V,K=V; flags override it). See
    /// docs/catalogs.md
    #[arg(long = "catalog-option", global = true, value_name = "K=V")]
    pub catalog_option: Vec<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create a table from a schema JSON file (Paimon's schema-N shape). Creates DB if missing.
    CreateTable {
        /// DB.TABLE
        table: String,
        /// JSON file: fields (name, type), partitionKeys, primaryKeys, options, comment
        #[arg(long)]
        schema: PathBuf,
        /// Do nothing if the table exists
        #[arg(long)]
        if_not_exists: bool,
    },
    /// Drop a table and all its files.
    DropTable {
        table: String,
        #[arg(long)]
        if_exists: bool,
    },
    /// Append (or overwrite with) rows from .parquet, .jsonl or .csv files: one commit.
    Write {
        /// DB.TABLE
        table: String,
        /// Input files; columns are matched to the table by name
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// INSERT OVERWRITE: replace the partitions present in the input (whole table if
        /// unpartitioned), or the partition given by --partition
        #[arg(long)]
        overwrite: bool,
        /// With --overwrite: the partition to replace, k=v (repeat for several keys)
        #[arg(long, value_name = "K=V", requires = "overwrite")]
        partition: Vec<String>,
        /// Print the compaction metrics of this write as JSON lines on stdout (one per
        /// compaction task) instead of readable lines on stderr
        #[arg(long)]
        metrics: bool,
    },
    /// Write some columns of existing rows of a data-evolution table by row id: each Parquet
    /// file holds `_ROW_ID` and the columns to write (one file of those columns per row-id
    /// range touched, as Java's partial-column writes; see docs/row-tracking.md)
    UpdateColumns {
        /// DB.TABLE
        table: String,
        /// Parquet files with `_ROW_ID` and the columns to write
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compact a table (primary-key, or append as Java's append compaction), per partition and
    /// bucket, and commit a COMPACT snapshot.
    Compact {
        /// DB.TABLE
        table: String,
        /// Only this partition: k=v[,k2=v2] (a subset of the partition columns is allowed)
        #[arg(long, value_name = "K=V[,K=V]")]
        partition: Vec<String>,
        /// Only this bucket
        #[arg(long)]
        bucket: Option<i32>,
        /// Compact everything into the max level (default: the table's normal picking)
        #[arg(long)]
        full: bool,
        /// Print one JSON line per compaction task on stdout instead of readable lines on
        /// stderr
        #[arg(long)]
        metrics: bool,
    },
    /// (Re)build the file indexes (file-index.* options: bloom-filter, bitmap, bsi,
    /// range-bitmap, MAP keys) of the live data files of a table in one COMPACT snapshot, as
    /// Paimon's rewrite_file_index.
    RewriteFileIndex {
        /// DB.TABLE
        table: String,
        /// Only these partitions: k=v[,k2=v2] (repeat for several)
        #[arg(long, value_name = "K=V[,K=V]")]
        partition: Vec<String>,
    },
    /// Rewrite partitions into a new bucket count (after ALTER TABLE ... SET ('bucket' = 'N'),
    /// or of a postpone-bucket table) in one OVERWRITE commit, as Paimon's rescale procedure.
    Rescale {
        /// DB.TABLE
        table: String,
        /// The new bucket count (default: the table's `bucket`; required for bucket = -2)
        #[arg(long)]
        bucket_num: Option<i32>,
        /// The partition to rewrite: k=v[,k2=v2] (a subset of the partition columns is allowed;
        /// default: every partition)
        #[arg(long, value_name = "K=V[,K=V]")]
        partition: Vec<String>,
    },
    /// Read rows. --columns and --where accept MAP keys as m['key']; --metrics prints one
    /// JSON line of read counters to stderr after the rows.
    Read(crate::commands::read::ReadArgs),
    /// SQL over the warehouse: a shell, or -e "..." / -f FILE (CREATE TABLE, INSERT, UPDATE,
    /// DELETE, SELECT with time travel, CALL sys.compact(...), system tables t$files, ...)
    Sql(crate::commands::sql::SqlArgs),
    /// Plan a scan (no data is read): one JSON object per split, or per scan with --metrics.
    /// All --repeat scans run in this process and share one in-memory cache, so with
    /// `-o scan.manifest-entry-cache.max-snapshots=N` the first scan fills the snapshot live
    /// manifest entry cache and the later ones are served from it.
    Scan(crate::commands::scan::ScanArgs),
    /// Follow a table like `tail -f`: every change as a JSON line with its row kind
    /// (the changelog when the table has a changelog-producer, else the rows each commit
    /// added); --consumer-id records progress so expiry keeps what the tail still needs
    Tail(crate::commands::tail::TailArgs),
    /// Snapshots of a table, one JSON object per line.
    Snapshots { table: String },
    /// Live data files of a snapshot (default latest), ordered by partition, bucket, level and
    /// min key: one JSON object per line, or an aligned table with --format text.
    Files {
        table: String,
        #[arg(long)]
        snapshot: Option<i64>,
        /// jsonl: one JSON object per file (the default); text: an aligned table
        #[arg(long, value_enum, default_value_t = crate::commands::levels::FilesFormat::Jsonl)]
        format: crate::commands::levels::FilesFormat,
        /// Same as --format jsonl
        #[arg(long, conflicts_with = "format")]
        json: bool,
    },
    /// The LSM tree of each (partition, bucket): one line per level with its files in key
    /// order, or an SVG drawing with --svg.
    Levels {
        /// DB.TABLE
        table: String,
        /// Only this partition: k=v[,k2=v2] (a subset of the partition columns is allowed)
        #[arg(long, value_name = "K=V[,K=V]", value_delimiter = ',')]
        partition: Vec<String>,
        /// Only this bucket
        #[arg(long)]
        bucket: Option<i32>,
        /// Snapshot id (default latest)
        #[arg(long)]
        snapshot: Option<i64>,
        /// Write an SVG drawing of the selected buckets' LSM trees to this file
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// The table's current schema as JSON.
    Schema { table: String },
    /// Databases, or the tables of DB, one JSON object per line.
    List { database: Option<String> },
    /// Snapshot expiry, tags, rollback and orphan file cleanup.
    #[command(flatten)]
    Maintenance(crate::commands::maintenance::MaintenanceCommand),
    /// Branches: create-branch, delete-branch, fast-forward, rename-branch, branches.
    #[command(flatten)]
    Branch(crate::commands::branches::BranchCommand),
    /// Views of a REST catalog: list, show, create, rename, drop.
    #[command(subcommand)]
    View(crate::commands::views::ViewCommand),
    /// Functions of a REST catalog: list, show, create, drop.
    #[command(subcommand)]
    Function(crate::commands::views::FunctionCommand),
    /// Serve Paimon's REST catalog API over the warehouse (--warehouse DIR|s3://…; its folder
    /// name is the catalog's `warehouse`) until Ctrl-C.
    #[command(after_long_help = strata_rest_server::TOKEN_FILE_GRAMMAR)]
    Serve(crate::commands::serve::ServeArgs),
    /// Build a demo table over several commits in the warehouse and read it back.
    Demo {
        /// Rows per commit
        #[arg(long, default_value_t = 100_000)]
        rows: usize,
    },
}
