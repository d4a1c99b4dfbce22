//! The operations of Paimon's REST catalog API ([`Op`], one per `operationId` of Paimon's
//! `rest-catalog-open-api.yaml` / method of Java's `RESTApi`), what the router's guard hands to
//! authorization (`authz::check`), the audit log and the metrics. The route → `Op` table itself
//! is the router (`router.rs`): every route is registered with its `Op`.

/// One operation of the REST catalog API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Op {
    GetConfig,
    ListDatabases,
    CreateDatabase,
    GetDatabase,
    AlterDatabase,
    DropDatabase,
    ListTables,
    ListTableDetails,
    ListTablesGlobally,
    CreateTable,
    GetTable,
    GetTableById,
    AlterTable,
    DropTable,
    RenameTable,
    RegisterTable,
    CommitTable,
    RollbackTable,
    RollbackSchema,
    GetTableToken,
    AuthTableQuery,
    GetTableSnapshot,
    GetVersionSnapshot,
    ListSnapshots,
    ListPartitions,
    CreatePartitions,
    DropPartitions,
    MarkDonePartitions,
    ListPartitionsByNames,
    ListPartitionsByFilter,
    ListBranches,
    CreateBranch,
    DropBranch,
    RenameBranch,
    ForwardBranch,
    ListTags,
    CreateTag,
    GetTag,
    DeleteTag,
    ListConsumers,
    ResetConsumer,
    ListViews,
    ListViewDetails,
    ListViewsGlobally,
    CreateView,
    GetView,
    AlterView,
    DropView,
    RenameView,
    ListFunctions,
    ListFunctionDetails,
    ListFunctionsGlobally,
    CreateFunction,
    GetFunction,
    AlterFunction,
    DropFunction,
}

impl Op {
    /// The OpenAPI `operationId` (Java's `RESTApi` method), for logs and metrics labels.
    pub fn operation_id(self) -> &'static str {
        match self {
            Op::GetConfig => "getConfig",
            Op::ListDatabases => "listDatabases",
            Op::CreateDatabase => "createDatabase",
            Op::GetDatabase => "getDatabase",
            Op::AlterDatabase => "alterDatabase",
            Op::DropDatabase => "dropDatabase",
            Op::ListTables => "listTables",
            Op::ListTableDetails => "listTableDetails",
            Op::ListTablesGlobally => "listTablesGlobally",
            Op::CreateTable => "createTable",
            Op::GetTable => "getTable",
            Op::GetTableById => "getTableById",
            Op::AlterTable => "alterTable",
            Op::DropTable => "dropTable",
            Op::RenameTable => "renameTable",
            Op::RegisterTable => "registerTable",
            Op::CommitTable => "commitTable",
            Op::RollbackTable => "rollbackTable",
            Op::RollbackSchema => "rollbackSchema",
            Op::GetTableToken => "getTableToken",
            Op::AuthTableQuery => "authTableQuery",
            Op::GetTableSnapshot => "getTableSnapshot",
            Op::GetVersionSnapshot => "getVersionSnapshot",
            Op::ListSnapshots => "listSnapshots",
            Op::ListPartitions => "listPartitions",
            Op::CreatePartitions => "createPartitions",
            Op::DropPartitions => "dropPartitions",
            Op::MarkDonePartitions => "markDonePartitions",
            Op::ListPartitionsByNames => "listPartitionsByNames",
            Op::ListPartitionsByFilter => "listPartitionsByFilter",
            Op::ListBranches => "listBranches",
            Op::CreateBranch => "createBranch",
            Op::DropBranch => "dropBranch",
            Op::RenameBranch => "renameBranch",
            Op::ForwardBranch => "forwardBranch",
            Op::ListTags => "listTags",
            Op::CreateTag => "createTag",
            Op::GetTag => "getTag",
            Op::DeleteTag => "deleteTag",
            Op::ListConsumers => "listConsumers",
            Op::ResetConsumer => "resetConsumer",
            Op::ListViews => "listViews",
            Op::ListViewDetails => "listViewDetails",
            Op::ListViewsGlobally => "listViewsGlobally",
            Op::CreateView => "createView",
            Op::GetView => "getView",
            Op::AlterView => "alterView",
            Op::DropView => "dropView",
            Op::RenameView => "renameView",
            Op::ListFunctions => "listFunctions",
            Op::ListFunctionDetails => "listFunctionDetails",
            Op::ListFunctionsGlobally => "listFunctionsGlobally",
            Op::CreateFunction => "createFunction",
            Op::GetFunction => "getFunction",
            Op::AlterFunction => "alterFunction",
            Op::DropFunction => "dropFunction",
        }
    }

    /// Whether the operation changes the warehouse (anything but a read).
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Op::GetConfig
                | Op::ListDatabases
                | Op::GetDatabase
                | Op::ListTables
                | Op::ListTableDetails
                | Op::ListTablesGlobally
                | Op::GetTable
                | Op::GetTableById
                | Op::GetTableToken
                | Op::AuthTableQuery
                | Op::GetTableSnapshot
                | Op::GetVersionSnapshot
                | Op::ListSnapshots
                | Op::ListPartitions
                | Op::ListPartitionsByNames
                | Op::ListPartitionsByFilter
                | Op::ListBranches
                | Op::ListTags
                | Op::GetTag
                | Op::ListConsumers
                | Op::ListViews
                | Op::ListViewDetails
                | Op::ListViewsGlobally
                | Op::GetView
                | Op::ListFunctions
                | Op::ListFunctionDetails
                | Op::ListFunctionsGlobally
                | Op::GetFunction
        )
    }
}
