//! The catalog's objects besides databases and tables: [`View`] (Java's `View` / `ViewImpl`)
//! and [`Function`] (Java's `Function` / `FunctionImpl`), with the definitions they hold —
//! [`ViewSchema`], [`FunctionDefinition`] — and their changes ([`ViewChange`],
//! [`FunctionChange`]), which are Paimon's REST JSON types (`strata_spec::rest`) re-exported:
//! they are exactly Java's shapes, so a view or function strata creates is the one Java's
//! engines read back. The catalogs that keep them implement the [`Catalog`](super::Catalog)
//! methods for them — Paimon's REST catalog both, the JDBC catalog views (Java's
//! `paimon_views` table) — and the others refuse by name ([`no_views`], [`no_functions`]),
//! as Java's `FileSystemCatalog` does.

use std::collections::BTreeMap;

use strata_spec::types::DataField;

use crate::table::Identifier;
use crate::{Error, Result};

pub use strata_spec::rest::{
    FunctionChange, FunctionDefinition, FunctionFileResource, ViewChange, ViewSchema,
};

/// The dialect name strata's SQL (DataFusion) reads and writes a view's query under: a view
/// with a `datafusion` dialect is planned from that query, any other from its default `query`.
pub const DATAFUSION_DIALECT: &str = "datafusion";

/// A view: a named query with its output columns (Java's `View`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// `database.view`.
    pub identifier: Identifier,
    /// The columns, the default query, the query per dialect, comment and options.
    pub schema: ViewSchema,
}

impl View {
    /// A view `identifier` of `query` with output columns `fields`, the query also under
    /// `dialect` when given (as Java's Flink and Spark catalogs write `{"flink": query}`).
    pub fn new(
        identifier: Identifier,
        fields: Vec<DataField>,
        query: impl Into<String>,
        dialect: Option<&str>,
    ) -> View {
        let query = query.into();
        let dialects = dialect
            .map(|d| BTreeMap::from([(d.to_string(), query.clone())]))
            .unwrap_or_default();
        View {
            identifier,
            schema: ViewSchema {
                fields,
                query,
                dialects,
                comment: None,
                options: BTreeMap::new(),
            },
        }
    }

    /// The view's name (without its database).
    pub fn name(&self) -> &str {
        &self.identifier.table
    }

    /// The query for `dialect`: its own when the view has one, else the default query (Java's
    /// `View.query(dialect)`).
    pub fn query_for(&self, dialect: &str) -> &str {
        self.schema.query_for(dialect)
    }
}

/// A function kept by the catalog (Java's `Function`): its parameters and a definition per
/// dialect. strata keeps and lists functions; its SQL does not call them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// `database.function` (the name may hold `.`, `_`, `-`: Java's `RESTFunctionValidator`).
    pub identifier: Identifier,
    /// Input parameters (`None`: not declared).
    pub input_params: Option<Vec<DataField>>,
    /// Return parameters (`None`: not declared).
    pub return_params: Option<Vec<DataField>>,
    /// Whether the same input always gives the same output.
    pub deterministic: bool,
    /// Dialect name → the function's definition in it.
    pub definitions: BTreeMap<String, FunctionDefinition>,
    /// The function's comment.
    pub comment: Option<String>,
    /// Function options.
    pub options: BTreeMap<String, String>,
}

impl Function {
    /// A deterministic function `identifier` with `definitions`, no declared parameters, no
    /// comment or options (Java's `FunctionImpl(identifier, definitions)`).
    pub fn new(identifier: Identifier, definitions: BTreeMap<String, FunctionDefinition>) -> Self {
        Function {
            identifier,
            input_params: None,
            return_params: None,
            deterministic: true,
            definitions,
            comment: None,
            options: BTreeMap::new(),
        }
    }

    /// The function's name (without its database).
    pub fn name(&self) -> &str {
        &self.identifier.table
    }
}

/// The identifier `database.name` of a view or function: names checked as table names are,
/// never a branch (`$branch_…` belongs to tables).
pub fn object_identifier(what: &str, database: &str, name: &str) -> Result<Identifier> {
    let id = Identifier {
        database: database.to_string(),
        table: name.to_string(),
        branch: None,
    };
    Identifier::validate_name("database", database)?;
    Identifier::validate_name(what, name)?;
    if name.contains('$') {
        return Err(Error::invalid_argument(format!(
            "{what} name {name:?}: '$' separates a table from its branch or system table and \
             cannot be part of a {what} name"
        )));
    }
    Ok(id)
}

/// The refusal of a view call by a catalog that keeps no views.
pub(crate) fn no_views(location: &str, call: &str) -> Error {
    Error::unsupported(format!(
        "{call}: the catalog at {location} keeps no views — strata keeps views in Paimon's REST \
         catalog (metastore = rest) and the JDBC catalog (metastore = jdbc); the filesystem \
         catalog has none, as Java's FileSystemCatalog"
    ))
}

/// The refusal of a function call by a catalog that keeps no functions.
pub(crate) fn no_functions(location: &str, call: &str) -> Error {
    Error::unsupported(format!(
        "{call}: the catalog at {location} keeps no functions — strata keeps functions in \
         Paimon's REST catalog (metastore = rest); the filesystem and JDBC catalogs have none, \
         as Java's FileSystemCatalog and JdbcCatalog"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_query_per_dialect_and_names() {
        let id = object_identifier("view", "db", "v").unwrap();
        let mut v = View::new(id, vec![], "SELECT 1", Some(DATAFUSION_DIALECT));
        assert_eq!(v.name(), "v");
        assert_eq!(v.query_for("datafusion"), "SELECT 1");
        assert_eq!(v.query_for("spark"), "SELECT 1");
        v.schema.dialects.insert("spark".into(), "SELECT 2".into());
        assert_eq!(v.query_for("spark"), "SELECT 2");
        assert!(object_identifier("view", "db", "v$branch_b").is_err());
        assert!(object_identifier("view", "db", "").is_err());
        assert!(object_identifier("view", "sys", "v").is_err());
        let e = no_views("/wh", "createView");
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert!(e.to_string().contains("createView"), "{e}");
    }

    #[tokio::test]
    async fn the_filesystem_catalog_refuses_views_and_functions_by_name() {
        use crate::catalog::Catalog;
        let dir = tempfile::tempdir().unwrap();
        let c = crate::catalog::FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap();
        c.create_database("db", false).await.unwrap();
        let id = object_identifier("view", "db", "v").unwrap();
        let view = View::new(id.clone(), vec![], "SELECT 1", None);
        for (e, call) in [
            (c.list_views("db").await.unwrap_err(), "listViews"),
            (c.get_view(&id).await.unwrap_err(), "getView"),
            (c.create_view(&view, false).await.unwrap_err(), "createView"),
            (c.drop_view(&id, true).await.unwrap_err(), "dropView"),
            (c.list_functions("db").await.unwrap_err(), "listFunctions"),
            (
                c.create_function(&Function::new(id.clone(), BTreeMap::new()), false)
                    .await
                    .unwrap_err(),
                "createFunction",
            ),
        ] {
            assert_eq!(e.kind(), crate::ErrorKind::Unsupported, "{e}");
            assert!(e.to_string().contains(call), "{e}");
            assert!(e.to_string().contains("FileSystemCatalog"), "{e}");
        }
    }
}
