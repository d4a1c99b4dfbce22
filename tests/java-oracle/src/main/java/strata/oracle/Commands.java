package strata.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.FileStoreScan;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableWrite;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle's commands, each on Paimon's public Java API (catalog, {@code BatchWriteBuilder} /
 * {@code StreamWriteBuilder}, {@code ReadBuilder}, {@code FileStoreScan}, tags, expiry,
 * rollback). Every request names a {@code warehouse} (a filesystem catalog path) and a {@code
 * table} ({@code db.t}); see tests/interop/interop_support/java_oracle.py for the arguments.
 *
 * <p>Catalogs are opened with {@code cache-enabled=false} and tables loaded afresh for every
 * request: strata commits to the same tables between requests.
 */
final class Commands {
    private final Map<String, Catalog> catalogs = new HashMap<>();

    /** Spill and lookup files of the writers (lookup compaction of first-row tables and
     * {@code changelog-producer=lookup} needs one, as Flink's task managers give it). */
    private final IOManager ioManager;

    Commands() {
        try {
            java.nio.file.Path tmp = java.nio.file.Files.createTempDirectory("strata-java-oracle-");
            tmp.toFile().deleteOnExit();
            ioManager = IOManager.create(tmp.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String paimonVersion() {
        String v = System.getProperty("strata.paimon.version");
        return v != null ? v : "unknown";
    }

    Object run(Map<String, Object> req) throws Exception {
        String cmd = (String) req.get("cmd");
        if (cmd == null) {
            throw new IllegalArgumentException("request without 'cmd'");
        }
        switch (cmd) {
            case "ping":
                return info();
            case "createTable":
                return createTable(req);
            case "alterTable":
                return alterTable(req);
            case "dropTable":
                catalog(req).dropTable(ident(req), true);
                return null;
            case "write":
                return write(req);
            case "read":
                return read(req);
            case "incrementalRead":
                return Incremental.read(table(req));
            case "files":
                return files(req);
            case "snapshots":
                return snapshots(req);
            case "schema":
                // TableSchema.toString is Paimon's (pretty-printed) schema-file JSON
                return Json.parse(table(req).schema().toString());
            case "compact":
                return compact(req);
            case "expireSnapshots":
                return expireSnapshots(req);
            case "expireChangelogs":
                return expireChangelogs(req);
            case "streamRead":
                return Incremental.stream(table(req), optLong(req, "until"));
            case "createTag":
                return createTag(req);
            case "deleteTag":
                table(req).deleteTag(str(req, "name"));
                return null;
            case "rollbackTo":
                return rollbackTo(req);
            case "tags":
                return tags(req);
            default:
                return Extensions.run(this, cmd, req);
        }
    }

    private Map<String, Object> info() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("paimon", paimonVersion());
        out.put("jar", String.valueOf(Snapshot.class.getProtectionDomain().getCodeSource().getLocation()));
        out.put("java", System.getProperty("java.version"));
        return out;
    }

    // ---- helpers ------------------------------------------------------------------------------

    static String str(Map<String, Object> req, String key) {
        Object v = req.get(key);
        if (!(v instanceof String)) {
            throw new IllegalArgumentException("'" + key + "' must be a string, got " + v);
        }
        return (String) v;
    }

    static Long optLong(Map<String, Object> req, String key) {
        Object v = req.get(key);
        return v == null ? null : ((Json.Num) v).asLong();
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> stringMap(Object v) {
        Map<String, String> out = new LinkedHashMap<>();
        if (v != null) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                Object x = e.getValue();
                out.put(e.getKey(), x instanceof Json.Num ? ((Json.Num) x).text() : String.valueOf(x));
            }
        }
        return out;
    }

    /**
     * The catalog of a request: {@code catalogOptions} (any catalog by Paimon's option names, for
     * example {@code metastore=rest, uri, warehouse, token.provider, token}), else the filesystem
     * catalog of {@code warehouse}. Kept open for the JVM's life, one per distinct option set.
     */
    Catalog catalog(Map<String, Object> req) {
        if (req.get("catalogOptions") != null) {
            Map<String, String> opts = new java.util.TreeMap<>(stringMap(req.get("catalogOptions")));
            return catalogs.computeIfAbsent("options:" + opts, k -> {
                Options o = Options.fromMap(opts);
                o.setString("cache-enabled", opts.getOrDefault("cache-enabled", "false"));
                return CatalogFactory.createCatalog(CatalogContext.create(o));
            });
        }
        String wh = str(req, "warehouse");
        return catalogs.computeIfAbsent(wh, w -> {
            Options o = new Options();
            o.set("warehouse", w);
            o.set("cache-enabled", "false");
            return CatalogFactory.createCatalog(CatalogContext.create(o));
        });
    }

    static Identifier ident(Map<String, Object> req) {
        return Identifier.fromString(str(req, "table"));
    }

    /** The table, with the request's dynamic {@code options} applied. */
    FileStoreTable table(Map<String, Object> req) throws Exception {
        Table t = catalog(req).getTable(ident(req));
        Map<String, String> opts = stringMap(req.get("options"));
        if (!opts.isEmpty()) {
            t = t.copy(opts);
        }
        return (FileStoreTable) t;
    }

    private static Long latestSnapshotId(FileStoreTable t) {
        return t.snapshotManager().latestSnapshotId();
    }

    // ---- DDL ----------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private Object createTable(Map<String, Object> req) throws Exception {
        Map<String, Object> s = (Map<String, Object>) req.get("schema");
        TypeParser types = new TypeParser();
        Schema.Builder b = Schema.newBuilder();
        for (Object f : (List<Object>) s.get("fields")) {
            Map<String, Object> fm = (Map<String, Object>) f;
            Compat.column(b, (String) fm.get("name"), types.parse(fm.get("type")),
                    (String) fm.get("description"), (String) fm.get("defaultValue"));
        }
        List<String> pks = (List<String>) s.getOrDefault("partitionKeys", List.of());
        b.partitionKeys(pks == null ? List.of() : pks);
        List<String> keys = (List<String>) s.get("primaryKeys");
        if (keys != null && !keys.isEmpty()) {
            b.primaryKey(keys);
        }
        b.options(stringMap(s.get("options")));
        if (s.get("comment") != null) {
            b.comment((String) s.get("comment"));
        }
        Catalog c = catalog(req);
        Identifier id = ident(req);
        c.createDatabase(id.getDatabaseName(), true);
        c.createTable(id, b.build(), Boolean.TRUE.equals(req.get("ignoreIfExists")));
        return null;
    }

    @SuppressWarnings("unchecked")
    private Object alterTable(Map<String, Object> req) throws Exception {
        TypeParser types = new TypeParser();
        List<SchemaChange> changes = new ArrayList<>();
        for (Object o : (List<Object>) req.get("changes")) {
            Map<String, Object> c = (Map<String, Object>) o;
            String op = str(c, "op");
            String[] path = path(c);
            switch (op) {
                case "addColumn":
                    SchemaChange.Move move = null;
                    if (c.get("after") != null) {
                        move = SchemaChange.Move.after(path[path.length - 1], (String) c.get("after"));
                    } else if (Boolean.TRUE.equals(c.get("first"))) {
                        move = SchemaChange.Move.first(path[path.length - 1]);
                    }
                    changes.add(SchemaChange.addColumn(path, types.parse(c.get("type")),
                            (String) c.get("description"), move));
                    break;
                case "renameColumn":
                    changes.add(SchemaChange.renameColumn(path, str(c, "newName")));
                    break;
                case "dropColumn":
                    changes.add(SchemaChange.dropColumn(path));
                    break;
                case "updateColumnType":
                    changes.add(SchemaChange.updateColumnType(path, types.parse(c.get("type")),
                            Boolean.TRUE.equals(c.get("keepNullability"))));
                    break;
                case "setOption":
                    changes.add(SchemaChange.setOption(str(c, "key"), str(c, "value")));
                    break;
                case "removeOption":
                    changes.add(SchemaChange.removeOption(str(c, "key")));
                    break;
                default:
                    throw new IllegalArgumentException("unknown alterTable op '" + op + "'");
            }
        }
        catalog(req).alterTable(ident(req), changes, false);
        return null;
    }

    @SuppressWarnings("unchecked")
    private static String[] path(Map<String, Object> c) {
        Object p = c.get("path");
        if (p != null) {
            return ((List<String>) p).toArray(new String[0]);
        }
        Object n = c.get("name");
        return n == null ? new String[0] : new String[] {(String) n};
    }

    // ---- writing ------------------------------------------------------------------------------

    /**
     * {@code rows}: one commit through {@code BatchWriteBuilder} (optionally {@code overwrite}:
     * {@code true} = INSERT OVERWRITE, dynamic or whole-table per {@code
     * dynamic-partition-overwrite}; an object = that static partition); or {@code commits}: a
     * list of row lists, each committed by one {@code StreamWriteBuilder} writer (commit
     * identifiers 1, 2, ...). Dynamic-bucket tables get their buckets from a {@code
     * HashBucketAssigner} over the table's index (as Paimon's Flink sink assigns them), or a
     * {@code SimpleHashBucketAssigner} for an overwrite. Returns {@code snapshotId} (the latest
     * snapshot after the commit) or {@code snapshotIds} (one per stream commit).
     */
    @SuppressWarnings("unchecked")
    Object write(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        RowType rowType = t.rowType();
        Map<String, Object> out = new LinkedHashMap<>();
        if (req.containsKey("commits")) {
            if (req.get("overwrite") != null) {
                throw new IllegalArgumentException("overwrite is for single-commit writes");
            }
            StreamWriteBuilder wb = t.newStreamWriteBuilder();
            List<Object> ids = new ArrayList<>();
            try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
                w.withIOManager(ioManager);
                Router router = new Router(t, false);
                long n = 0;
                for (Object rows : (List<Object>) req.get("commits")) {
                    n++;
                    for (Object r : (List<Object>) rows) {
                        router.write(w, Codec.row((Map<?, ?>) r, rowType));
                    }
                    c.commit(n, w.prepareCommit(true, n));
                    ids.add(latestSnapshotId(t));
                }
            }
            out.put("snapshotIds", ids);
            return out;
        }
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        Object ow = req.get("overwrite");
        boolean overwrite = false;
        if (Boolean.TRUE.equals(ow)) {
            wb = wb.withOverwrite();
            overwrite = true;
        } else if (ow instanceof Map) {
            wb = wb.withOverwrite(stringMap(ow));
            overwrite = true;
        } else if (ow != null && !Boolean.FALSE.equals(ow)) {
            throw new IllegalArgumentException("overwrite must be a boolean or a partition object");
        }
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(ioManager);
            Router router = new Router(t, overwrite);
            for (Object r : (List<Object>) req.get("rows")) {
                router.write(w, Codec.row((Map<?, ?>) r, rowType));
            }
            c.commit(w.prepareCommit());
        }
        out.put("snapshotId", latestSnapshotId(t));
        return out;
    }

    /** Sends rows to the writer, choosing the bucket of dynamic-bucket tables. */
    private static final class Router {
        private final BucketAssigner assigner;
        private final RowPartitionKeyExtractor extractor;

        Router(FileStoreTable t, boolean overwrite) {
            BucketMode mode = t.bucketMode();
            if (mode == BucketMode.HASH_DYNAMIC) {
                long target = t.coreOptions().dynamicBucketTargetRowNum();
                int maxBuckets = Compat.dynamicBucketMaxBuckets(t.coreOptions());
                assigner = overwrite
                        ? Compat.simpleHashAssigner(target, maxBuckets)
                        : Compat.hashAssigner(t, "strata-java-oracle", target, maxBuckets);
                extractor = new RowPartitionKeyExtractor(t.schema());
            } else if (Compat.isCrossPartition(mode)) {
                throw new IllegalArgumentException("the oracle does not write cross-partition "
                        + "(KEY_DYNAMIC) tables");
            } else {
                assigner = null;
                extractor = null;
            }
        }

        void write(TableWrite w, GenericRow row) throws Exception {
            if (assigner == null) {
                w.write(row);
            } else {
                int bucket = assigner.assign(extractor.partition(row), extractor.trimmedPrimaryKey(row).hashCode());
                w.write(row, bucket);
            }
        }
    }

    // ---- reading ------------------------------------------------------------------------------

    /**
     * Rows as canonical JSON lines (sorted by code point). {@code columns}: projection;
     * {@code snapshot} / {@code tag}: time travel ({@code scan.snapshot-id} / {@code
     * scan.tag-name}); {@code options}: any other dynamic options.
     */
    @SuppressWarnings("unchecked")
    Object read(Map<String, Object> req) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>(req);
        Map<String, Object> opts = new LinkedHashMap<>();
        if (req.get("options") != null) {
            opts.putAll((Map<String, Object>) req.get("options"));
        }
        if (req.get("snapshot") != null) {
            opts.put("scan.snapshot-id", req.get("snapshot"));
        }
        if (req.get("tag") != null) {
            opts.put("scan.tag-name", req.get("tag"));
        }
        r.put("options", opts);
        FileStoreTable t = table(r);
        ReadBuilder rb = t.newReadBuilder();
        RowType readType = t.rowType();
        List<String> columns = (List<String>) req.get("columns");
        if (columns != null) {
            int[] proj = new int[columns.size()];
            List<DataField> fields = new ArrayList<>();
            for (int i = 0; i < proj.length; i++) {
                proj[i] = t.rowType().getFieldIndex(columns.get(i));
                if (proj[i] < 0) {
                    throw new IllegalArgumentException("no column '" + columns.get(i) + "' in " + t.rowType());
                }
                fields.add(t.rowType().getFields().get(proj[i]));
            }
            rb = rb.withProjection(proj);
            readType = new RowType(fields);
        }
        List<String> lines = new ArrayList<>();
        final RowType type = readType;
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> lines.add(Codec.line(row, type)));
        }
        lines.sort(Json::compareCodePoints);
        Map<String, Object> out = new LinkedHashMap<>();
        List<Object> names = new ArrayList<>(type.getFieldNames());
        out.put("columns", names);
        out.put("rows", new ArrayList<Object>(lines));
        return out;
    }

    // ---- metadata -----------------------------------------------------------------------------

    /** Every live data file of the snapshot (all levels: the raw file-store scan, not the
     * table scan, which leaves out level 0 for first-row and deletion-vector tables). */
    Object files(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        FileStoreScan scan = t.store().newScan();
        Long sid = optLong(req, "snapshot");
        if (sid != null) {
            scan = scan.withSnapshot(sid);
        } else if (latestSnapshotId(t) == null) {
            return new ArrayList<>();
        }
        TableSchema schema = t.schema();
        RowType ptype = schema.logicalPartitionType();
        RowType ktype = schema.primaryKeys().isEmpty()
                ? RowType.of() : schema.logicalTrimmedPrimaryKeysType();
        List<Object> out = new ArrayList<>();
        for (ManifestEntry e : scan.plan().files()) {
            DataFileMeta f = e.file();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", partition(e.partition(), ptype));
            m.put("bucket", e.bucket());
            m.put("level", f.level());
            m.put("fileName", f.fileName());
            m.put("fileSize", f.fileSize());
            m.put("rowCount", f.rowCount());
            m.put("minKey", key(f.minKey(), ktype));
            m.put("maxKey", key(f.maxKey(), ktype));
            m.put("minSequenceNumber", f.minSequenceNumber());
            m.put("maxSequenceNumber", f.maxSequenceNumber());
            m.put("deleteRowCount", f.deleteRowCount().orElse(null));
            m.put("schemaId", f.schemaId());
            m.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
            m.put("totalBuckets", e.totalBuckets());
            out.add(m);
        }
        return out;
    }

    /** A partition row as {@code {key: canonical value}}. */
    static Map<String, Object> partition(BinaryRow row, RowType ptype) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < ptype.getFieldCount(); i++) {
            out.put(ptype.getFields().get(i).name(), new Json.Raw(Codec.cellText(row, i, ptype.getTypeAt(i))));
        }
        return out;
    }

    private static Object key(BinaryRow row, RowType ktype) {
        List<Object> out = new ArrayList<>();
        if (row.getFieldCount() != ktype.getFieldCount()) {
            return out;
        }
        for (int i = 0; i < ktype.getFieldCount(); i++) {
            out.add(new Json.Raw(Codec.cellText(row, i, ktype.getTypeAt(i))));
        }
        return out;
    }

    Object snapshots(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        List<Object> out = new ArrayList<>();
        Iterator<Snapshot> it = t.snapshotManager().snapshots();
        while (it.hasNext()) {
            out.add(snapshot(it.next()));
        }
        return out;
    }

    private static Map<String, Object> snapshot(Snapshot s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("schemaId", s.schemaId());
        m.put("commitKind", s.commitKind().name());
        m.put("commitUser", s.commitUser());
        m.put("commitIdentifier", s.commitIdentifier());
        m.put("timeMillis", s.timeMillis());
        m.put("totalRecordCount", s.totalRecordCount());
        m.put("deltaRecordCount", s.deltaRecordCount());
        return m;
    }

    // ---- maintenance --------------------------------------------------------------------------

    /**
     * Java's own compaction: {@code BatchTableWrite.compact(partition, bucket, full)} for every
     * live (partition, bucket), or those matching {@code partition} (canonical values) and
     * {@code bucket}, then one commit. Returns the latest snapshot id.
     */
    @SuppressWarnings("unchecked")
    Object compact(Map<String, Object> req) throws Exception {
        // as Paimon's compact action / procedures do: a write-only table is compacted anyway
        FileStoreTable t = table(req).copy(Map.of("write-only", "false"));
        Map<String, Object> wantPart = (Map<String, Object>) req.get("partition");
        Long wantBucket = optLong(req, "bucket");
        boolean full = !Boolean.FALSE.equals(req.get("full"));
        RowType ptype = t.schema().logicalPartitionType();
        Map<String, Object[]> targets = new TreeMap<>();
        if (latestSnapshotId(t) != null) {
            for (ManifestEntry e : t.store().newScan().plan().files()) {
                if (wantBucket != null && e.bucket() != wantBucket) {
                    continue;
                }
                Map<String, Object> p = partition(e.partition(), ptype);
                if (wantPart != null) {
                    boolean match = true;
                    for (Map.Entry<String, Object> w : wantPart.entrySet()) {
                        Object have = p.get(w.getKey());
                        if (have == null) {
                            throw new IllegalArgumentException("no partition key '" + w.getKey() + "'");
                        }
                        if (!Json.write(have).equals(Json.write(w.getValue()))) {
                            match = false;
                        }
                    }
                    if (!match) {
                        continue;
                    }
                }
                targets.putIfAbsent(Json.write(p) + "/" + e.bucket(),
                        new Object[] {e.partition().copy(), e.bucket()});
            }
        }
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(ioManager);
            for (Object[] pb : targets.values()) {
                w.compact((BinaryRow) pb[0], (Integer) pb[1], full);
            }
            List<CommitMessage> msgs = w.prepareCommit();
            c.commit(msgs);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", latestSnapshotId(t));
        out.put("buckets", targets.size());
        return out;
    }

    /** Expiry with the table's {@code snapshot.*} options, overridden by {@code options}. */
    private Object expireSnapshots(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        int n = t.newExpireSnapshots().config(t.coreOptions().expireConfig()).expire();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("expired", n);
        return out;
    }

    /**
     * Expiry of the long-lived changelogs in {@code changelog/} (decoupled changelog lifecycle),
     * as after a commit: {@code ExpireChangelogImpl} with the table's {@code expireConfig()}.
     */
    private Object expireChangelogs(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        int n = t.newExpireChangelog().config(t.coreOptions().expireConfig()).expire();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("expired", n);
        return out;
    }

    private Object createTag(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        String name = str(req, "name");
        Long sid = optLong(req, "snapshot");
        Long retainMs = optLong(req, "timeRetainedMillis");
        Duration retain = retainMs == null ? null : Duration.ofMillis(retainMs);
        if (sid != null) {
            t.createTag(name, sid, retain);
        } else {
            t.createTag(name, retain);
        }
        return null;
    }

    private Object rollbackTo(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        Long sid = optLong(req, "snapshot");
        if (sid != null) {
            t.rollbackTo(sid);
        } else {
            t.rollbackTo(str(req, "tag"));
        }
        return null;
    }

    private Object tags(Map<String, Object> req) throws Exception {
        FileStoreTable t = table(req);
        List<Object> out = new ArrayList<>();
        for (Map.Entry<Snapshot, List<String>> e : t.tagManager().tags().entrySet()) {
            for (String name : e.getValue()) {
                Tag tag = t.tagManager().getOrThrow(name);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("snapshotId", tag.id());
                m.put("schemaId", tag.schemaId());
                m.put("commitTime", tag.timeMillis());
                m.put("recordCount", tag.totalRecordCount());
                m.put("createTime", tag.getTagCreateTime() == null ? null : tag.getTagCreateTime().toString());
                m.put("timeRetained", tag.getTagTimeRetained() == null ? null : tag.getTagTimeRetained().toString());
                out.add(m);
            }
        }
        return out;
    }
}
