//! `strata view list|show|create|alter|rename|drop` and `strata function
//! list|show|create|alter|drop`: the views and functions a catalog keeps besides tables
//! (Paimon's REST catalog; views also in the JDBC catalog; the filesystem catalog refuses them
//! by name). Output is JSON in Java's REST shapes: a view as `GetViewResponse` (`database`,
//! `name`, `schema`: fields, query, dialects, comment, options), a function as
//! `GetFunctionResponse`.
//!
//! `view create` plans the query with strata's SQL (DataFusion) in the view's database — as
//! `CREATE VIEW` in `strata sql` does — for the view's columns; the query is kept as the default
//! query and as the `datafusion` dialect's, other dialects' queries are added with `--dialect`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use strata::catalog::{
    object_identifier, Catalog, Function, FunctionChange, Identifier, View, ViewChange,
};
use strata_spec::rest::CreateFunctionRequest;

use crate::error::{msg, Result};
use crate::output::println_json;

/// `strata view …`.
#[derive(clap::Subcommand, Debug)]
pub enum ViewCommand {
    /// The views of DB, one JSON object per line.
    List {
        /// Database
        database: String,
    },
    /// A view as JSON: columns, default query, the query per dialect, comment, options.
    Show {
        /// DB.VIEW
        view: String,
    },
    /// Create a view of a query (its columns are what the query gives, planned in DB).
    Create {
        /// DB.VIEW
        view: String,
        /// The query (SELECT …), kept as the default query and the `datafusion` dialect's
        #[arg(long)]
        query: String,
        /// Column names for the query's columns, in order (repeatable)
        #[arg(long = "column", value_name = "NAME")]
        columns: Vec<String>,
        /// Another dialect's query, e.g. --dialect spark='SELECT …' (repeatable)
        #[arg(long = "dialect", value_name = "DIALECT=QUERY")]
        dialects: Vec<String>,
        /// The view's comment
        #[arg(long)]
        comment: Option<String>,
        /// A view option K=V (repeatable)
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
        /// Do nothing if the view exists
        #[arg(long)]
        if_not_exists: bool,
    },
    /// Alter a view: options, comment, dialects (Java's ViewChange), applied in the order
    /// the kinds are listed here.
    Alter {
        /// DB.VIEW
        view: String,
        /// Set option K=V (repeatable)
        #[arg(long = "set-option", value_name = "K=V")]
        set_options: Vec<String>,
        /// Remove option K (repeatable)
        #[arg(long = "remove-option", value_name = "K")]
        remove_options: Vec<String>,
        /// Set the comment
        #[arg(long, conflicts_with = "remove_comment")]
        comment: Option<String>,
        /// Remove the comment
        #[arg(long)]
        remove_comment: bool,
        /// Add a dialect's query (the dialect must not exist) (repeatable)
        #[arg(long = "add-dialect", value_name = "DIALECT=QUERY")]
        add_dialects: Vec<String>,
        /// Replace a dialect's query (repeatable)
        #[arg(long = "update-dialect", value_name = "DIALECT=QUERY")]
        update_dialects: Vec<String>,
        /// Drop a dialect (repeatable)
        #[arg(long = "drop-dialect", value_name = "DIALECT")]
        drop_dialects: Vec<String>,
    },
    /// Rename a view (DB.VIEW to DB.NEW_NAME).
    Rename {
        /// DB.VIEW
        view: String,
        /// DB.NEW_NAME
        to: String,
    },
    /// Drop a view.
    Drop {
        /// DB.VIEW
        view: String,
        /// Do nothing if the view does not exist
        #[arg(long)]
        if_exists: bool,
    },
}

/// `strata function …`.
#[derive(clap::Subcommand, Debug)]
pub enum FunctionCommand {
    /// The functions of DB, one JSON object per line.
    List {
        /// Database
        database: String,
    },
    /// A function as JSON (Java's GetFunctionResponse shape).
    Show {
        /// DB.FUNCTION
        function: String,
    },
    /// Create a function from a JSON file in Java's CreateFunctionRequest shape (without
    /// `name`): inputParams, returnParams, deterministic, definitions (dialect → {"type":
    /// "sql"|"lambda"|"file", …}), comment, options.
    Create {
        /// DB.FUNCTION (letters, digits, '.', '_', '-')
        function: String,
        /// The function's JSON file
        #[arg(long, value_name = "FILE")]
        json: PathBuf,
        /// Do nothing if the function exists
        #[arg(long)]
        if_not_exists: bool,
    },
    /// Alter a function with a JSON file holding a list of Java's FunctionChange objects
    /// (`{"action": "setOption", "key": …, "value": …}`, `removeOption`, `updateComment`,
    /// `addDefinition` / `updateDefinition` with `name` and `definition`, `dropDefinition`).
    Alter {
        /// DB.FUNCTION
        function: String,
        /// The changes' JSON file
        #[arg(long, value_name = "FILE")]
        json: PathBuf,
    },
    /// Drop a function.
    Drop {
        /// DB.FUNCTION
        function: String,
        /// Do nothing if the function does not exist
        #[arg(long)]
        if_exists: bool,
    },
}

/// `DB.NAME` (a name without a dot is in database `default`), the name checked as a view's.
fn view_id(text: &str) -> Result<Identifier> {
    let (db, name) = text.split_once('.').unwrap_or(("default", text));
    Ok(object_identifier("view", db, name)?)
}

/// `DB.NAME` of a function: split at the first dot (function names may hold dots).
fn function_id(text: &str) -> Result<Identifier> {
    let (db, name) = text.split_once('.').unwrap_or(("default", text));
    Identifier::validate_name("database", db)?;
    Ok(Identifier {
        database: db.to_string(),
        table: name.to_string(),
        branch: None,
    })
}

fn key_value(text: &str, what: &str) -> Result<(String, String)> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| msg(format!("{what} {text:?}: expected NAME=VALUE")))
}

/// A view in Java's `GetViewResponse` shape (without the server's audit fields).
fn view_json(v: &View) -> Result<Value> {
    let schema = serde_json::to_value(&v.schema).map_err(|e| msg(e.to_string()))?;
    Ok(json!({ "database": v.identifier.database, "name": v.name(), "schema": schema }))
}

/// A function in Java's `GetFunctionResponse` shape (without the server's audit fields).
fn function_json(f: &Function) -> Result<Value> {
    let body = CreateFunctionRequest {
        name: f.name().to_string(),
        input_params: f.input_params.clone(),
        return_params: f.return_params.clone(),
        deterministic: f.deterministic,
        definitions: f.definitions.clone(),
        comment: f.comment.clone(),
        options: f.options.clone(),
    };
    let mut v = serde_json::to_value(&body).map_err(|e| msg(e.to_string()))?;
    if let Value::Object(m) = &mut v {
        m.insert("database".into(), json!(f.identifier.database));
    }
    Ok(v)
}

pub(crate) async fn run_view(catalog: &Arc<dyn Catalog>, cmd: ViewCommand) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match cmd {
        ViewCommand::List { database } => {
            for v in catalog.list_views(&database).await? {
                println_json(&mut out, &json!({ "database": database, "view": v }))?;
            }
        }
        ViewCommand::Show { view } => {
            let v = catalog.get_view(&view_id(&view)?).await?;
            println_json(&mut out, &view_json(&v)?)?;
        }
        ViewCommand::Create {
            view,
            query,
            columns,
            dialects,
            comment,
            options,
            if_not_exists,
        } => {
            let id = view_id(&view)?;
            let mut v = strata_datafusion::plan_view(catalog, id.clone(), &query)
                .await
                .map_err(strata_datafusion::error::from_df)?;
            if !columns.is_empty() {
                if columns.len() != v.schema.fields.len() {
                    return Err(msg(format!(
                        "view {id}: {} --column names for a query of {} columns",
                        columns.len(),
                        v.schema.fields.len()
                    )));
                }
                for (f, c) in v.schema.fields.iter_mut().zip(columns) {
                    f.name = c;
                }
            }
            for d in &dialects {
                let (dialect, q) = key_value(d, "--dialect")?;
                v.schema.dialects.insert(dialect, q);
            }
            v.schema.comment = comment;
            v.schema.options = options
                .iter()
                .map(|o| key_value(o, "--option"))
                .collect::<Result<BTreeMap<_, _>>>()?;
            catalog.create_view(&v, if_not_exists).await?;
            eprintln!("created view {id}");
        }
        ViewCommand::Alter {
            view,
            set_options,
            remove_options,
            comment,
            remove_comment,
            add_dialects,
            update_dialects,
            drop_dialects,
        } => {
            let id = view_id(&view)?;
            let mut changes = Vec::new();
            for o in &set_options {
                let (key, value) = key_value(o, "--set-option")?;
                changes.push(ViewChange::SetOption { key, value });
            }
            for key in remove_options {
                changes.push(ViewChange::RemoveOption { key });
            }
            if comment.is_some() || remove_comment {
                changes.push(ViewChange::UpdateComment { comment });
            }
            for d in &add_dialects {
                let (dialect, query) = key_value(d, "--add-dialect")?;
                changes.push(ViewChange::AddDialect { dialect, query });
            }
            for d in &update_dialects {
                let (dialect, query) = key_value(d, "--update-dialect")?;
                changes.push(ViewChange::UpdateDialect { dialect, query });
            }
            for dialect in drop_dialects {
                changes.push(ViewChange::DropDialect { dialect });
            }
            if changes.is_empty() {
                return Err(msg("view alter: no change given (see --help)"));
            }
            catalog.alter_view(&id, changes, false).await?;
            eprintln!("altered view {id}");
        }
        ViewCommand::Rename { view, to } => {
            let (from, to) = (view_id(&view)?, view_id(&to)?);
            catalog.rename_view(&from, &to, false).await?;
            eprintln!("renamed view {from} to {to}");
        }
        ViewCommand::Drop { view, if_exists } => {
            let id = view_id(&view)?;
            catalog.drop_view(&id, if_exists).await?;
            eprintln!("dropped view {id}");
        }
    }
    Ok(())
}

pub(crate) async fn run_function(catalog: &dyn Catalog, cmd: FunctionCommand) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match cmd {
        FunctionCommand::List { database } => {
            for f in catalog.list_functions(&database).await? {
                println_json(&mut out, &json!({ "database": database, "function": f }))?;
            }
        }
        FunctionCommand::Show { function } => {
            let f = catalog.get_function(&function_id(&function)?).await?;
            println_json(&mut out, &function_json(&f)?)?;
        }
        FunctionCommand::Create {
            function,
            json,
            if_not_exists,
        } => {
            let id = function_id(&function)?;
            let text = std::fs::read_to_string(&json)
                .map_err(|e| msg(format!("cannot read {}: {e}", json.display())))?;
            let mut value: Value = serde_json::from_str(&text)
                .map_err(|e| msg(format!("{}: not JSON: {e}", json.display())))?;
            let Value::Object(m) = &mut value else {
                return Err(msg(format!("{}: expected a JSON object", json.display())));
            };
            m.insert("name".into(), json!(id.table));
            let body: CreateFunctionRequest = serde_json::from_value(value)
                .map_err(|e| msg(format!("{}: not a function: {e}", json.display())))?;
            let f = Function {
                identifier: id.clone(),
                input_params: body.input_params,
                return_params: body.return_params,
                deterministic: body.deterministic,
                definitions: body.definitions,
                comment: body.comment,
                options: body.options,
            };
            catalog.create_function(&f, if_not_exists).await?;
            eprintln!("created function {id}");
        }
        FunctionCommand::Alter { function, json } => {
            let id = function_id(&function)?;
            let text = std::fs::read_to_string(&json)
                .map_err(|e| msg(format!("cannot read {}: {e}", json.display())))?;
            let changes: Vec<FunctionChange> = serde_json::from_str(&text).map_err(|e| {
                msg(format!(
                    "{}: not a list of function changes: {e}",
                    json.display()
                ))
            })?;
            catalog.alter_function(&id, changes, false).await?;
            eprintln!("altered function {id}");
        }
        FunctionCommand::Drop {
            function,
            if_exists,
        } => {
            let id = function_id(&function)?;
            catalog.drop_function(&id, if_exists).await?;
            eprintln!("dropped function {id}");
        }
    }
    Ok(())
}
