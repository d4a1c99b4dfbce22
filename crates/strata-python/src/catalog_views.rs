//! What `strata.Catalog`'s view and function methods (`list_views`, `get_view`, `create_view`,
//! `drop_view`, `list_functions`, `get_function`, `create_function`, `drop_function`, in
//! [`crate::catalog`]) do: views and functions of a REST catalog (the filesystem and JDBC
//! catalogs refuse them by name), handed to Python as plain dicts in Java's REST JSON shapes
//! (`GetViewResponse`'s schema members, `GetFunctionResponse`) and read back from them — the
//! JSON text is the bridge (serde on this side, `json` on Python's), so every definition type
//! Paimon has (`file`, `sql`, `lambda`) passes unchanged.
//!
//! `create_view` plans the query with strata's SQL (DataFusion) in the view's database for its
//! columns, as `CREATE VIEW` in `strata.sql` does.

use std::collections::BTreeMap;
use std::sync::Arc;

use pyo3::prelude::*;
use serde_json::{json, Value};
use strata::catalog::{object_identifier, Catalog, Function, FunctionDefinition, Identifier};
use strata_spec::rest::CreateFunctionRequest;
use strata_spec::DataField;

use crate::errors::{invalid, IntoPy};
use crate::runtime::block_on;

/// `"db.name"` (a name without a dot is in database `default`) as a view's identifier.
pub(crate) fn view_id(text: &str) -> PyResult<Identifier> {
    let (db, name) = text.split_once('.').unwrap_or(("default", text));
    object_identifier("view", db, name).py_err()
}

/// `"db.name"` as a function's identifier (split at the first dot: names may hold dots).
pub(crate) fn function_id(text: &str) -> PyResult<Identifier> {
    let (db, name) = text.split_once('.').unwrap_or(("default", text));
    Identifier::validate_name("database", db).py_err()?;
    Ok(Identifier {
        database: db.to_string(),
        table: name.to_string(),
        branch: None,
    })
}

/// A JSON value as the Python object `json.loads` makes of it.
fn to_python<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// A Python object as JSON (`json.dumps`).
fn from_python(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = obj
        .py()
        .import("json")?
        .call_method1("dumps", (obj,))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| invalid(format!("not JSON: {e}")))
}

/// View `id` as `{"database", "name", "fields", "query", "dialects", "comment", "options"}`.
pub(crate) fn get_view<'py>(
    py: Python<'py>,
    catalog: &Arc<dyn Catalog>,
    id: Identifier,
) -> PyResult<Bound<'py, PyAny>> {
    let catalog = catalog.clone();
    let view = block_on(py, async move { catalog.get_view(&id).await })?.py_err()?;
    let mut v = serde_json::to_value(&view.schema).map_err(|e| invalid(e.to_string()))?;
    if let Value::Object(m) = &mut v {
        m.insert("database".into(), json!(view.identifier.database));
        m.insert("name".into(), json!(view.name()));
    }
    to_python(py, &v)
}

/// Creates view `id` of `query` (columns from the planned query, renamed by `columns`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_view(
    py: Python<'_>,
    catalog: &Arc<dyn Catalog>,
    id: Identifier,
    query: String,
    columns: Option<Vec<String>>,
    dialects: Option<BTreeMap<String, String>>,
    comment: Option<String>,
    options: Option<BTreeMap<String, String>>,
    ignore_if_exists: bool,
) -> PyResult<()> {
    let catalog = catalog.clone();
    block_on(py, async move {
        let mut view = strata_datafusion::plan_view(&catalog, id.clone(), &query)
            .await
            .map_err(strata_datafusion::error::from_df)?;
        if let Some(columns) = columns {
            if columns.len() != view.schema.fields.len() {
                return Err(strata::Error::invalid_argument(format!(
                    "view {id}: {} column names for a query of {} columns",
                    columns.len(),
                    view.schema.fields.len()
                )));
            }
            for (f, c) in view.schema.fields.iter_mut().zip(columns) {
                f.name = c;
            }
        }
        view.schema.dialects.extend(dialects.unwrap_or_default());
        view.schema.comment = comment;
        view.schema.options = options.unwrap_or_default();
        catalog.create_view(&view, ignore_if_exists).await
    })?
    .py_err()
}

/// Function `id` in Java's `GetFunctionResponse` shape, plus `database`.
pub(crate) fn get_function<'py>(
    py: Python<'py>,
    catalog: &Arc<dyn Catalog>,
    id: Identifier,
) -> PyResult<Bound<'py, PyAny>> {
    let catalog = catalog.clone();
    let f = block_on(py, async move { catalog.get_function(&id).await })?.py_err()?;
    let body = CreateFunctionRequest {
        name: f.name().to_string(),
        input_params: f.input_params.clone(),
        return_params: f.return_params.clone(),
        deterministic: f.deterministic,
        definitions: f.definitions.clone(),
        comment: f.comment.clone(),
        options: f.options.clone(),
    };
    let mut v = serde_json::to_value(&body).map_err(|e| invalid(e.to_string()))?;
    if let Value::Object(m) = &mut v {
        m.insert("database".into(), json!(f.identifier.database));
    }
    to_python(py, &v)
}

/// Parameters as Java's `DataField` JSON list (`[{"id": 0, "name": "x", "type": "INT"}]`).
fn params(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<DataField>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let v = from_python(obj)?;
    let list = v.as_array().ok_or_else(|| {
        invalid(format!(
            "{what}: a list of {{\"id\", \"name\", \"type\"}} dicts"
        ))
    })?;
    strata_spec::types::json::parse_fields(list)
        .map(Some)
        .map_err(|e| invalid(format!("{what}: {e}")))
}

/// Creates function `id`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_function(
    py: Python<'_>,
    catalog: &Arc<dyn Catalog>,
    id: Identifier,
    definitions: &Bound<'_, PyAny>,
    input_params: Option<&Bound<'_, PyAny>>,
    return_params: Option<&Bound<'_, PyAny>>,
    deterministic: bool,
    comment: Option<String>,
    options: Option<BTreeMap<String, String>>,
    ignore_if_exists: bool,
) -> PyResult<()> {
    let definitions: BTreeMap<String, FunctionDefinition> =
        serde_json::from_value(from_python(definitions)?).map_err(|e| {
            invalid(format!(
                "definitions (dialect → {{\"type\": \"sql\" | \"lambda\" | \"file\", …}}): {e}"
            ))
        })?;
    let function = Function {
        identifier: id,
        input_params: params(input_params, "input_params")?,
        return_params: params(return_params, "return_params")?,
        deterministic,
        definitions,
        comment,
        options: options.unwrap_or_default(),
    };
    let catalog = catalog.clone();
    block_on(py, async move {
        catalog.create_function(&function, ignore_if_exists).await
    })?
    .py_err()
}
