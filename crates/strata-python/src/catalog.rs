//! `strata.Catalog`: the databases and tables of a Paimon catalog, opened from pypaimon's
//! catalog options through `strata::catalog::open` — a warehouse directory (local path,
//! `file://` or `s3://` with Paimon's `s3.*` options, as Paimon's filesystem catalog lays it
//! out), a REST catalog (`metastore = rest`, `uri`, `token`, ...) or a JDBC catalog
//! (`metastore = jdbc`). Every catalog option is honoured or refused by name
//! ([`crate::catalog_options`]); `table-default.*` options are applied by the library catalog
//! at `create_table` (also SQL's CREATE TABLE) as Java's `AbstractCatalog` does.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use strata::table::Identifier;
use strata_spec::schema::Schema;
use strata_spec::types::json::parse_type_text;
use strata_spec::{DataField, DataType, TypeKind};

use crate::catalog_options;
use crate::catalog_views;
use crate::errors::{invalid, to_py, IntoPy};
use crate::runtime::block_on;
use crate::table_handle::Table;

/// A Paimon catalog: a warehouse directory of `DB.db/TABLE/` folders, a REST catalog or a
/// JDBC catalog.
///
/// ``Catalog("/data/warehouse")``, ``Catalog("s3://bucket/wh", {"s3.endpoint": ...})``, or
/// pypaimon's form ``Catalog({"warehouse": "/data/warehouse", ...})``,
/// ``Catalog({"metastore": "rest", "uri": ..., "warehouse": ..., "token.provider": "bear",
/// "token": ...})``.
#[pyclass(module = "strata", frozen)]
pub struct Catalog {
    /// The catalog the Python object wraps (the trait: filesystem, REST or JDBC).
    pub(crate) inner: Arc<dyn strata::catalog::Catalog>,
    /// Every catalog option, `warehouse` included (to pickle the catalog and its tables).
    pub(crate) options: BTreeMap<String, String>,
    /// The SQL session of `sql()`, made on first use.
    pub(crate) sql_session: std::sync::OnceLock<Arc<strata_datafusion::SqlSession>>,
}

impl Catalog {
    /// Opens the catalog of `warehouse` (a path, or `None` when the options name it) and
    /// `options` (pypaimon's keys). Called with the GIL released.
    pub(crate) fn open(
        warehouse: Option<String>,
        options: HashMap<String, String>,
    ) -> PyResult<Catalog> {
        let options = catalog_options::merge(warehouse, options).py_err()?;
        let rt = crate::runtime::runtime()?;
        let inner = rt.block_on(strata::catalog::open(&options)).py_err()?;
        Ok(Catalog {
            inner,
            options,
            sql_session: std::sync::OnceLock::new(),
        })
    }

    pub(crate) fn table_object(&self, inner: strata::table::Table) -> Table {
        Table {
            inner,
            catalog_options: self.options.clone(),
            dynamic_options: HashMap::new(),
        }
    }

    /// The SQL session of this catalog (made on first use; `USE db` carries over).
    fn sql_session(&self) -> Arc<strata_datafusion::SqlSession> {
        self.sql_session
            .get_or_init(|| Arc::new(strata_datafusion::SqlSession::new(self.inner.clone())))
            .clone()
    }
}

fn parse_identifier(text: &str) -> PyResult<Identifier> {
    text.parse::<Identifier>().map_err(to_py)
}

/// Runs SQL statements over `catalog` (a :class:`strata.Catalog` or a warehouse path) and
/// returns the last statement's rows as a ``pyarrow.Table``.
#[pyfunction]
pub(crate) fn sql<'py>(
    py: Python<'py>,
    query: &str,
    catalog: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(c) = catalog.cast::<Catalog>() {
        return crate::sql::run(py, c.get().sql_session(), query);
    }
    let warehouse = catalog.extract::<String>()?;
    let c = py.detach(|| Catalog::open(Some(warehouse), Default::default()))?;
    crate::sql::run(py, c.sql_session(), query)
}

/// Re-opens a table (what unpickling a :class:`Table` does).
#[pyfunction]
#[pyo3(signature = (warehouse, options, identifier, dynamic_options = None))]
pub(crate) fn open_table(
    py: Python<'_>,
    warehouse: Option<String>,
    options: HashMap<String, String>,
    identifier: &str,
    dynamic_options: Option<HashMap<String, String>>,
) -> PyResult<Table> {
    let catalog = py.detach(|| Catalog::open(warehouse, options))?;
    let id = parse_identifier(identifier)?;
    let inner = catalog.inner.clone();
    let mut table = block_on(py, async move { inner.get_table(&id).await })?.py_err()?;
    let dynamic = dynamic_options.unwrap_or_default();
    if !dynamic.is_empty() {
        table = table.with_dynamic_options(dynamic.clone()).py_err()?;
    }
    let mut t = catalog.table_object(table);
    t.dynamic_options = dynamic;
    Ok(t)
}

#[pymethods]
impl Catalog {
    #[new]
    #[pyo3(signature = (warehouse, options = None))]
    fn new(
        warehouse: &Bound<'_, PyAny>,
        options: Option<HashMap<String, String>>,
    ) -> PyResult<Self> {
        let mut options = options.unwrap_or_default();
        let location = if let Ok(dict) = warehouse.cast::<PyDict>() {
            // pypaimon's form: every option in one dict (`warehouse` among them, if any).
            let mut all = option_strings(dict)?;
            all.extend(options.drain());
            options = all;
            None
        } else if let Ok(s) = warehouse.extract::<String>() {
            Some(s)
        } else {
            // pathlib.Path and other os.PathLike objects.
            let os = warehouse.py().import("os")?;
            Some(os.call_method1("fspath", (warehouse,))?.extract()?)
        };
        let py = warehouse.py();
        py.detach(|| Catalog::open(location, options))
    }

    /// The warehouse this catalog was opened with (a location; for a REST catalog the
    /// server's catalog name), or ``None`` when the options gave none.
    #[getter]
    fn warehouse(&self) -> Option<&str> {
        self.options.get("warehouse").map(String::as_str)
    }

    /// The catalog options this catalog was opened with (``metastore``, ``warehouse``, ``uri``,
    /// ...), secrets (``token``, ``jdbc.password``, ``header.*``, ``*secret*``) shown as
    /// ``"***"``.
    #[getter]
    fn options(&self) -> BTreeMap<String, String> {
        self.options
            .iter()
            .map(|(k, v)| {
                let v = if strata_datafusion::codec::is_secret_catalog_option(k) {
                    "***".to_string()
                } else {
                    v.clone()
                };
                (k.clone(), v)
            })
            .collect()
    }

    /// Names of the databases, sorted.
    fn list_databases(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        block_on(py, self.inner.list_databases())?.py_err()
    }

    /// Creates a database (a `NAME.db` directory).
    #[pyo3(signature = (name, ignore_if_exists = false, properties = None))]
    fn create_database(
        &self,
        py: Python<'_>,
        name: &str,
        ignore_if_exists: bool,
        properties: Option<HashMap<String, String>>,
    ) -> PyResult<()> {
        if properties.is_some_and(|p| !p.is_empty()) {
            return Err(to_py(strata::Error::unsupported(
                "database properties: strata creates databases without them (a filesystem \
                 catalog has nowhere to keep them; REST and JDBC database properties are not \
                 passed through yet)",
            )));
        }
        block_on(py, self.inner.create_database(name, ignore_if_exists))?.py_err()
    }

    /// Drops a database; with ``cascade=False`` it must hold no table.
    #[pyo3(signature = (name, ignore_if_not_exists = false, cascade = false))]
    fn drop_database(
        &self,
        py: Python<'_>,
        name: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> PyResult<()> {
        block_on(
            py,
            self.inner
                .drop_database(name, ignore_if_not_exists, cascade),
        )?
        .py_err()
    }

    /// Names of the tables of `database`, sorted.
    fn list_tables(&self, py: Python<'_>, database: &str) -> PyResult<Vec<String>> {
        block_on(py, self.inner.list_tables(database))?.py_err()
    }

    /// Creates a table and returns it.
    ///
    /// `schema`: a pyarrow schema (or anything with ``__arrow_c_schema__``), a list of
    /// ``(name, "PAIMON TYPE")`` pairs, a ``{name: "PAIMON TYPE"}`` dict, or a
    /// :class:`strata.Schema` (whose keys, options and comment are used unless given here).
    /// The catalog's ``table-default.K`` options set ``K`` where the table's options do not.
    #[pyo3(signature = (identifier, schema, partition_keys = None, primary_keys = None, options = None, comment = None, ignore_if_exists = false))]
    #[allow(clippy::too_many_arguments)]
    fn create_table(
        &self,
        py: Python<'_>,
        identifier: &str,
        schema: &Bound<'_, PyAny>,
        partition_keys: Option<Vec<String>>,
        primary_keys: Option<Vec<String>>,
        options: Option<BTreeMap<String, String>>,
        comment: Option<String>,
        ignore_if_exists: bool,
    ) -> PyResult<Table> {
        let id = parse_identifier(identifier)?;
        let mut spec = to_schema(schema)?;
        if let Some(k) = partition_keys {
            spec.partition_keys = k;
        }
        if let Some(k) = primary_keys {
            spec.primary_keys = k;
        }
        if let Some(o) = options {
            spec.options.extend(o);
        }
        if comment.is_some() {
            spec.comment = comment;
        }
        // The catalog applies `table-default.*` (Java's AbstractCatalog.copyTableDefaultOptions).
        let catalog = self.inner.clone();
        let table = block_on(py, async move {
            catalog.create_table(&id, &spec, ignore_if_exists).await?;
            catalog.get_table(&id).await
        })?
        .py_err()?;
        Ok(self.table_object(table))
    }

    /// The table `identifier` (``"db.table"``).
    fn get_table(&self, py: Python<'_>, identifier: &str) -> PyResult<Table> {
        let id = parse_identifier(identifier)?;
        let table = block_on(py, self.inner.get_table(&id))?.py_err()?;
        Ok(self.table_object(table))
    }

    /// Drops a table and deletes its directory.
    #[pyo3(signature = (identifier, ignore_if_not_exists = false))]
    fn drop_table(
        &self,
        py: Python<'_>,
        identifier: &str,
        ignore_if_not_exists: bool,
    ) -> PyResult<()> {
        let id = parse_identifier(identifier)?;
        block_on(py, self.inner.drop_table(&id, ignore_if_not_exists))?.py_err()
    }

    /// Names of the views of `database`, sorted (REST catalogs; others refuse by name).
    fn list_views(&self, py: Python<'_>, database: &str) -> PyResult<Vec<String>> {
        block_on(py, self.inner.list_views(database))?.py_err()
    }

    /// The view `identifier` (``"db.view"``) as a dict: database, name, fields, query,
    /// dialects, comment, options.
    fn get_view<'py>(&self, py: Python<'py>, identifier: &str) -> PyResult<Bound<'py, PyAny>> {
        catalog_views::get_view(py, &self.inner, catalog_views::view_id(identifier)?)
    }

    /// Creates view `identifier` of `query`; its columns are what the query gives (renamed by
    /// `columns`), the query is also kept as the ``datafusion`` dialect's.
    #[pyo3(signature = (identifier, query, columns = None, dialects = None, comment = None, options = None, ignore_if_exists = false))]
    #[allow(clippy::too_many_arguments)]
    fn create_view(
        &self,
        py: Python<'_>,
        identifier: &str,
        query: String,
        columns: Option<Vec<String>>,
        dialects: Option<BTreeMap<String, String>>,
        comment: Option<String>,
        options: Option<BTreeMap<String, String>>,
        ignore_if_exists: bool,
    ) -> PyResult<()> {
        let id = catalog_views::view_id(identifier)?;
        catalog_views::create_view(
            py,
            &self.inner,
            id,
            query,
            columns,
            dialects,
            comment,
            options,
            ignore_if_exists,
        )
    }

    /// Drops view `identifier`.
    #[pyo3(signature = (identifier, ignore_if_not_exists = false))]
    fn drop_view(
        &self,
        py: Python<'_>,
        identifier: &str,
        ignore_if_not_exists: bool,
    ) -> PyResult<()> {
        let id = catalog_views::view_id(identifier)?;
        block_on(py, self.inner.drop_view(&id, ignore_if_not_exists))?.py_err()
    }

    /// Names of the functions of `database`, sorted (REST catalogs; others refuse by name).
    fn list_functions(&self, py: Python<'_>, database: &str) -> PyResult<Vec<String>> {
        block_on(py, self.inner.list_functions(database))?.py_err()
    }

    /// The function `identifier` (``"db.fn"``) as a dict in Java's GetFunctionResponse shape.
    fn get_function<'py>(&self, py: Python<'py>, identifier: &str) -> PyResult<Bound<'py, PyAny>> {
        catalog_views::get_function(py, &self.inner, catalog_views::function_id(identifier)?)
    }

    /// Creates function `identifier` from its `definitions` (dialect → Paimon's
    /// FunctionDefinition dict: ``{"type": "sql", "definition": "x + 1"}``, ``lambda``,
    /// ``file``).
    #[pyo3(signature = (identifier, definitions, input_params = None, return_params = None, deterministic = true, comment = None, options = None, ignore_if_exists = false))]
    #[allow(clippy::too_many_arguments)]
    fn create_function(
        &self,
        py: Python<'_>,
        identifier: &str,
        definitions: &Bound<'_, PyAny>,
        input_params: Option<&Bound<'_, PyAny>>,
        return_params: Option<&Bound<'_, PyAny>>,
        deterministic: bool,
        comment: Option<String>,
        options: Option<BTreeMap<String, String>>,
        ignore_if_exists: bool,
    ) -> PyResult<()> {
        let id = catalog_views::function_id(identifier)?;
        catalog_views::create_function(
            py,
            &self.inner,
            id,
            definitions,
            input_params,
            return_params,
            deterministic,
            comment,
            options,
            ignore_if_exists,
        )
    }

    /// Drops function `identifier`.
    #[pyo3(signature = (identifier, ignore_if_not_exists = false))]
    fn drop_function(
        &self,
        py: Python<'_>,
        identifier: &str,
        ignore_if_not_exists: bool,
    ) -> PyResult<()> {
        let id = catalog_views::function_id(identifier)?;
        block_on(py, self.inner.drop_function(&id, ignore_if_not_exists))?.py_err()
    }

    /// Runs SQL statements over this warehouse (see :func:`strata.sql`).
    fn sql<'py>(&self, py: Python<'py>, query: &str) -> PyResult<Bound<'py, PyAny>> {
        crate::sql::run(py, self.sql_session(), query)
    }

    fn __repr__(&self) -> String {
        match (self.options.get("metastore"), self.options.get("warehouse")) {
            (Some(m), w) if m != "filesystem" => match self.options.get("uri") {
                Some(uri) => {
                    format!("strata.Catalog(metastore={m:?}, uri={uri:?}, warehouse={w:?})")
                }
                None => format!("strata.Catalog(metastore={m:?}, warehouse={w:?})"),
            },
            (_, Some(w)) => format!("strata.Catalog({w:?})"),
            (_, None) => "strata.Catalog()".to_string(),
        }
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let class = py.import("strata")?.getattr("Catalog")?;
        // Every option, secrets included: unpickling (a Ray worker) must open the same
        // catalog. Pickles of a catalog holding a token are as secret as the token.
        let args = PyTuple::new(py, [self.options.clone().into_pyobject(py)?.into_any()])?;
        PyTuple::new(py, [class, args.into_any()])
    }
}

/// A dict of catalog options as strings: `str` values as they are, `bool` as `true`/`false`
/// (pypaimon's `{"data-token.enabled": True}`), numbers as `str()` writes them.
fn option_strings(dict: &Bound<'_, PyDict>) -> PyResult<HashMap<String, String>> {
    let mut out = HashMap::new();
    for (k, v) in dict.iter() {
        let key: String = k
            .extract()
            .map_err(|_| invalid(format!("a catalog option name must be a string, not {k:?}")))?;
        let value = if let Ok(b) = v.extract::<bool>() {
            if b { "true" } else { "false" }.to_string()
        } else if let Ok(s) = v.extract::<String>() {
            s
        } else if v.extract::<i64>().is_ok() || v.extract::<f64>().is_ok() {
            v.str()?.to_string()
        } else {
            return Err(invalid(format!(
                "catalog option {key}: a string, bool or number, not a {}",
                v.get_type().name()?
            )));
        };
        out.insert(key, value);
    }
    Ok(out)
}

const UNASSIGNED: i32 = strata_spec::types::json::UNASSIGNED_FIELD_ID;

/// `t` with every nested field id unassigned (Paimon numbers them at creation, after the
/// top-level columns), as the Arrow import numbered them on its own.
fn unassigned(t: DataType) -> DataType {
    let kind = match t.kind {
        TypeKind::Row(fields) => TypeKind::Row(
            fields
                .into_iter()
                .map(|f| DataField::new(UNASSIGNED, f.name, unassigned(f.data_type)))
                .collect(),
        ),
        TypeKind::Array(e) => TypeKind::Array(Box::new(unassigned(*e))),
        TypeKind::Multiset(e) => TypeKind::Multiset(Box::new(unassigned(*e))),
        TypeKind::Map { key, value } => TypeKind::Map {
            key: Box::new(unassigned(*key)),
            value: Box::new(unassigned(*value)),
        },
        other => other,
    };
    DataType::new(kind, t.nullable)
}

/// The create-table schema from what Python gave.
fn to_schema(schema: &Bound<'_, PyAny>) -> PyResult<Schema> {
    if schema.hasattr("pa_schema")? && schema.hasattr("primary_keys")? {
        // strata.Schema (pypaimon's Schema shape).
        let mut spec = to_schema(&schema.getattr("pa_schema")?)?;
        spec.partition_keys = schema
            .getattr("partition_keys")?
            .extract::<Option<Vec<String>>>()?
            .unwrap_or_default();
        spec.primary_keys = schema
            .getattr("primary_keys")?
            .extract::<Option<Vec<String>>>()?
            .unwrap_or_default();
        spec.options = schema
            .getattr("options")?
            .extract::<Option<BTreeMap<String, String>>>()?
            .unwrap_or_default();
        spec.comment = schema.getattr("comment")?.extract()?;
        return Ok(spec);
    }
    if schema.hasattr("__arrow_c_schema__")? {
        let arrow: pyo3_arrow::PySchema = schema.extract()?;
        let row = strata::arrow::from_arrow_schema(arrow.into_inner().as_ref()).py_err()?;
        let fields = row
            .fields
            .into_iter()
            .map(|f| DataField::new(UNASSIGNED, f.name, unassigned(f.data_type)))
            .collect();
        return Ok(Schema::new(fields));
    }
    let pairs: Vec<(String, String)> = if let Ok(dict) = schema.cast::<PyDict>() {
        dict.extract::<Vec<(String, String)>>()
            .or_else(|_| dict.items().extract())
            .map_err(|_| invalid("a schema dict maps column names to Paimon type strings, e.g. {'id': 'BIGINT NOT NULL'}"))?
    } else if let Ok(list) = schema.cast::<PyList>() {
        list.extract().map_err(|_| {
            invalid(
                "a schema list holds (name, 'PAIMON TYPE') pairs, e.g. [('id', 'BIGINT NOT NULL')]",
            )
        })?
    } else {
        return Err(invalid(format!(
            "cannot make a table schema of a {}: give a pyarrow schema, a list of (name, type) pairs, a {{name: type}} dict or a strata.Schema",
            schema.get_type().name()?
        )));
    };
    let mut fields = Vec::new();
    for (name, text) in pairs {
        let ty = parse_type_text(&text)
            .map_err(|e| invalid(format!("column {name}: type {text:?}: {e}")))?;
        fields.push(DataField::new(UNASSIGNED, name, unassigned(ty)));
    }
    Ok(Schema::new(fields))
}
