//! Where `strata serve` keeps a database's views and functions: one JSON file per object in a
//! hidden folder of the database's directory, `<warehouse>/<db>.db/.views/<name>.json` and
//! `<db>.db/.functions/<name>.json`, holding the object's `GetViewResponse` /
//! `GetFunctionResponse` body (definition + audit members) exactly as the server answers it.
//!
//! A warehouse has no place for views or functions (Java's `FileSystemCatalog` keeps neither;
//! Java's `RESTCatalogServer` keeps them in memory, lost on restart). This layout survives
//! restarts and travels with the database, and no catalog mistakes it for a table: table names
//! never start with `.` (refused by strata's name checks), strata's `FileSystemCatalog` and
//! Java's `FileSystemCatalog` / `AbstractCatalog.listTablesInFileSystem` list only directories
//! holding a `schema/schema-N` file, and pypaimon's filesystem catalog skips names starting
//! with `.`. Dropping the database (cascade) removes them with it; like Java's
//! `AbstractCatalog.dropDatabase`, only tables make a database "not empty".
//!
//! Writes are atomic per file: a create is the warehouse's put-if-absent (hard link locally,
//! `If-None-Match` on S3 — the 409 of a lost race), an alter replaces the file with one put
//! (object_store writes a temporary file and renames it locally). The handlers serialize every
//! change of one kind in the server (`lock`), so an alter never loses a concurrent one; a
//! rename is a create under the new name then a delete of the old one (a crash between leaves
//! both, never neither).
//!
//! File names: a name of `[A-Za-z0-9][A-Za-z0-9._-]*` is its own file name (`v1.json`); any
//! other (Unicode, spaces, …) is `=` + the hex of its UTF-8 bytes (`=c3a9.json`), so every
//! name maps to one plain file name and back without the object store's own escaping.

use std::sync::Arc;

use object_store::path::Path;
use serde::de::DeserializeOwned;
use serde::Serialize;
use strata::catalog::Identifier;
use strata::io::FileIO;

use crate::error::{ApiError, ApiResult, ResourceType};
use crate::state::AppState;

/// What a folder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Views (`GetViewResponse` files).
    View,
    /// Functions (`GetFunctionResponse` files).
    Function,
}

impl Kind {
    fn folder(self) -> &'static str {
        match self {
            Kind::View => ".views",
            Kind::Function => ".functions",
        }
    }

    /// The `ErrorResponse` resource type of its objects.
    pub(crate) fn resource(self) -> ResourceType {
        match self {
            Kind::View => ResourceType::View,
            Kind::Function => ResourceType::Function,
        }
    }
}

/// The longest file name written (most filesystems allow 255 bytes).
const MAX_FILE_NAME: usize = 250;

fn plain(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The file name of object `name` (see the module doc).
pub(crate) fn file_name(name: &str) -> String {
    if plain(name) {
        format!("{name}.json")
    } else {
        let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
        format!("={hex}.json")
    }
}

/// The object name of file `file`; `None` for anything else in the folder (temporary files).
pub(crate) fn name_of(file: &str) -> Option<String> {
    let stem = file.strip_suffix(".json")?;
    match stem.strip_prefix('=') {
        Some(hex) => {
            if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let bytes: Option<Vec<u8>> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
                .collect();
            let name = String::from_utf8(bytes?).ok()?;
            (!plain(&name)).then_some(name)
        }
        None => plain(stem).then(|| stem.to_string()),
    }
}

/// The views or the functions of one database.
pub(crate) struct Store {
    io: FileIO,
    dir: Path,
    kind: Kind,
    db: String,
    location: String,
}

impl Store {
    /// The `kind` folder of database `db` (a name already validated).
    pub(crate) fn new(state: &AppState, db: &str, kind: Kind) -> ApiResult<Store> {
        // `<warehouse>/<db>.db/x`, from the catalog itself, then its parent.
        let probe = Identifier::new(db, "x").map_err(|e| {
            ApiError::bad_request(format!("invalid database name: {}", e.message()))
        })?;
        let table = state.inner.catalog.table_path(&probe);
        let n = table.parts().count();
        let dir: Path = table.parts().take(n.saturating_sub(1)).collect();
        Ok(Store {
            io: state.inner.catalog.file_io().clone(),
            dir: dir.join(kind.folder()),
            kind,
            db: db.to_string(),
            location: state.inner.location.clone(),
        })
    }

    /// Serializes every change of `kind` objects in this server.
    pub(crate) fn lock(state: &AppState, kind: Kind) -> Arc<tokio::sync::Mutex<()>> {
        state.table_lock(&format!("\0{}", kind.folder()))
    }

    fn path(&self, name: &str) -> ApiResult<Path> {
        let file = file_name(name);
        if file.len() > MAX_FILE_NAME {
            return Err(ApiError::bad_request(format!(
                "{} name too long to store",
                self.what()
            )));
        }
        Ok(self.dir.clone().join(file))
    }

    fn what(&self) -> &'static str {
        match self.kind {
            Kind::View => "view",
            Kind::Function => "function",
        }
    }

    fn io_err(&self, name: &str, e: &strata::Error) -> ApiError {
        ApiError::from_strata(
            e,
            self.kind.resource(),
            &format!("{}.{name}", self.db),
            &self.location,
        )
    }

    /// Object `name`, or `None`. A file that does not parse is a server fault (500, logged).
    pub(crate) async fn get<T: DeserializeOwned>(&self, name: &str) -> ApiResult<Option<T>> {
        let path = self.path(name)?;
        let bytes = match self.io.get_opt(&path).await {
            Ok(b) => b,
            Err(e) => return Err(self.io_err(name, &e)),
        };
        match bytes {
            None => Ok(None),
            Some(b) => serde_json::from_slice(&b).map(Some).map_err(|e| {
                ApiError::internal(&format!(
                    "{} file {} is corrupt: {e}",
                    self.what(),
                    self.io.display(&path)
                ))
            }),
        }
    }

    /// Object `name` or a 404 naming it.
    pub(crate) async fn require<T: DeserializeOwned>(&self, name: &str) -> ApiResult<T> {
        self.get(name)
            .await?
            .ok_or_else(|| ApiError::not_found(self.kind.resource(), format!("{}.{name}", self.db)))
    }

    fn encode<T: Serialize>(value: &T) -> ApiResult<Vec<u8>> {
        serde_json::to_vec_pretty(value).map_err(|e| ApiError::internal(&e))
    }

    /// Writes `value` as object `name` unless it exists (then `false`).
    pub(crate) async fn create<T: Serialize>(&self, name: &str, value: &T) -> ApiResult<bool> {
        let path = self.path(name)?;
        let bytes = Self::encode(value)?;
        self.io
            .create_dir_all(&self.dir)
            .await
            .map_err(|e| self.io_err(name, &e))?;
        self.io
            .put_if_absent(&path, bytes)
            .await
            .map_err(|e| self.io_err(name, &e))
    }

    /// Replaces object `name` with `value` (one atomic put).
    pub(crate) async fn replace<T: Serialize>(&self, name: &str, value: &T) -> ApiResult<()> {
        let path = self.path(name)?;
        let bytes = Self::encode(value)?;
        self.io
            .put(&path, bytes)
            .await
            .map_err(|e| self.io_err(name, &e))
    }

    /// Deletes object `name`; `false` when it did not exist.
    pub(crate) async fn delete(&self, name: &str) -> ApiResult<bool> {
        let path = self.path(name)?;
        match self.io.exists(&path).await {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(e) => return Err(self.io_err(name, &e)),
        }
        self.io
            .delete(&path)
            .await
            .map_err(|e| self.io_err(name, &e))?;
        Ok(true)
    }

    /// The names of every object in the folder (any order).
    pub(crate) async fn names(&self) -> ApiResult<Vec<String>> {
        let (_, files) = self
            .io
            .list_dir(&self.dir)
            .await
            .map_err(|e| self.io_err("*", &e))?;
        Ok(files
            .iter()
            .filter_map(|f| f.location.filename().and_then(name_of))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        for name in ["v1", "a-b_c.1", "é", "has space", "_x", "x$y", "1", "A.B"] {
            let file = file_name(name);
            assert!(!file.starts_with('.'), "{file}");
            assert!(file
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '=')));
            assert_eq!(name_of(&file).as_deref(), Some(name), "{file}");
        }
        assert_eq!(file_name("v1"), "v1.json");
        assert_eq!(file_name("é"), "=c3a9.json");
        // temporary files, foreign files and non-canonical encodings are not objects
        for other in [
            "v1.json#1",
            "v1",
            "=zz.json",
            "=7631.json",
            "=c3.json",
            ".json",
        ] {
            assert_eq!(name_of(other), None, "{other}");
        }
    }
}
