package strata.oracle;

import org.apache.paimon.PagedList;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Database;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.catalog.PropertyChange;
import org.apache.paimon.partition.Partition;
import org.apache.paimon.rest.responses.GetTagResponse;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Instant;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.TableSnapshot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Java Paimon 2.0's {@code RESTCatalog} as a client (issue 32): the catalog calls that only a
 * catalog makes (databases, table ids, renames, branches, tags, rollback, snapshots and
 * partitions as the server reports them). Every request carries {@code catalogOptions} ({@code
 * metastore=rest, uri, warehouse, token.provider=bear, token}); {@link Commands#catalog} opens
 * the {@code RESTCatalog} from them, so the oracle's ordinary {@code createTable}, {@code
 * write} (a batch commit: {@code RESTCatalog.commitSnapshot}), {@code read}, {@code
 * alterTable}, {@code createTag}, {@code rollbackTo} and {@code dropTable} commands drive the
 * same REST catalog. {@code expectError} runs another command and returns the exception Java's
 * client raised ({@code DefaultErrorHandler}'s mapping of the server's answer).
 */
final class Paimon2Rest {
    private Paimon2Rest() {}

    /** {@code listDatabases()}, sorted. */
    static Object databases(Commands c, Map<String, Object> req) {
        List<String> out = new ArrayList<>(c.catalog(req).listDatabases());
        Collections.sort(out);
        return new ArrayList<Object>(out);
    }

    /** {@code createDatabase(name, ignoreIfExists, options)}. */
    static Object createDatabase(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).createDatabase(Commands.str(req, "name"),
                Boolean.TRUE.equals(req.get("ignoreIfExists")), Commands.stringMap(req.get("options")));
        return null;
    }

    /** {@code getDatabase(name)}: {@code {name, options, comment}}. */
    static Object getDatabase(Commands c, Map<String, Object> req) throws Exception {
        Database d = c.catalog(req).getDatabase(Commands.str(req, "name"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", d.name());
        out.put("options", new TreeMap<String, Object>(d.options()));
        out.put("comment", d.comment().orElse(null));
        return out;
    }

    /** {@code alterDatabase(name, [setProperty(updates)..., removeProperty(removals)...])}. */
    @SuppressWarnings("unchecked")
    static Object alterDatabase(Commands c, Map<String, Object> req) throws Exception {
        List<PropertyChange> changes = new ArrayList<>();
        Commands.stringMap(req.get("updates")).forEach((k, v) -> changes.add(PropertyChange.setProperty(k, v)));
        Object removals = req.get("removals");
        if (removals != null) {
            for (Object k : (List<Object>) removals) {
                changes.add(PropertyChange.removeProperty((String) k));
            }
        }
        c.catalog(req).alterDatabase(Commands.str(req, "name"), changes, false);
        return null;
    }

    /** {@code dropDatabase(name, ignoreIfNotExists, cascade)}. */
    static Object dropDatabase(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropDatabase(Commands.str(req, "name"),
                Boolean.TRUE.equals(req.get("ignoreIfNotExists")), Boolean.TRUE.equals(req.get("cascade")));
        return null;
    }

    /** {@code listTables(database)}, sorted. */
    static Object tables(Commands c, Map<String, Object> req) throws Exception {
        List<String> out = new ArrayList<>(c.catalog(req).listTables(Commands.str(req, "database")));
        Collections.sort(out);
        return new ArrayList<Object>(out);
    }

    /** {@code getTable(table)}: uuid (the REST table id), location, schema id, keys, options. */
    static Object tableInfo(Commands c, Map<String, Object> req) throws Exception {
        Table t = c.catalog(req).getTable(Commands.ident(req));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", t.name());
        out.put("fullName", t.fullName());
        out.put("uuid", t.uuid());
        if (t instanceof FileStoreTable) {
            FileStoreTable f = (FileStoreTable) t;
            out.put("location", f.location().toString());
            out.put("schemaId", f.schema().id());
            out.put("latestSnapshotId", f.snapshotManager().latestSnapshotId());
        }
        out.put("fields", new ArrayList<Object>(t.rowType().getFieldNames()));
        out.put("partitionKeys", new ArrayList<Object>(t.partitionKeys()));
        out.put("primaryKeys", new ArrayList<Object>(t.primaryKeys()));
        out.put("options", new TreeMap<String, Object>(t.options()));
        out.put("comment", t.comment().orElse(null));
        return out;
    }

    /** {@code renameTable(table, to, false)}. */
    static Object renameTable(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).renameTable(Commands.ident(req), Identifier.fromString(Commands.str(req, "to")), false);
        return null;
    }

    /** {@code dropTable(table, ignoreIfNotExists)} (the oracle's plain dropTable ignores absence). */
    static Object dropTable(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropTable(Commands.ident(req), Boolean.TRUE.equals(req.get("ignoreIfNotExists")));
        return null;
    }

    /** {@code listBranches(table)}, sorted. */
    static Object branches(Commands c, Map<String, Object> req) throws Exception {
        List<String> out = new ArrayList<>(c.catalog(req).listBranches(Commands.ident(req)));
        Collections.sort(out);
        return new ArrayList<Object>(out);
    }

    /** {@code createBranch(table, branch, fromTag)} ({@code tag} optional). */
    static Object createBranch(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).createBranch(Commands.ident(req), Commands.str(req, "branch"), (String) req.get("tag"));
        return null;
    }

    /** {@code dropBranch(table, branch)}. */
    static Object dropBranch(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropBranch(Commands.ident(req), Commands.str(req, "branch"));
        return null;
    }

    /** {@code fastForward(table, branch)}. */
    static Object fastForward(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).fastForward(Commands.ident(req), Commands.str(req, "branch"));
        return null;
    }

    /** {@code createTag(table, tag, snapshot?, timeRetained?, ignoreIfExists)}. */
    static Object createTag(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).createTag(Commands.ident(req), Commands.str(req, "tag"), Commands.optLong(req, "snapshot"),
                (String) req.get("timeRetained"), Boolean.TRUE.equals(req.get("ignoreIfExists")));
        return null;
    }

    /** {@code getTag(table, tag)}: {@code {tagName, snapshotId, tagCreateTime, tagTimeRetained}}. */
    static Object getTag(Commands c, Map<String, Object> req) throws Exception {
        GetTagResponse r = c.catalog(req).getTag(Commands.ident(req), Commands.str(req, "tag"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tagName", r.tagName());
        out.put("snapshotId", r.snapshot().id());
        out.put("tagCreateTime", r.tagCreateTime());
        out.put("tagTimeRetained", r.tagTimeRetained());
        return out;
    }

    /** Every page of {@code listTagsPaged(table, maxResults, pageToken, prefix)}, in order. */
    static Object tags(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        Long max = Commands.optLong(req, "maxResults");
        List<Object> out = new ArrayList<>();
        String token = null;
        do {
            PagedList<String> page = cat.listTagsPaged(Commands.ident(req), max == null ? null : max.intValue(),
                    token, (String) req.get("prefix"));
            out.addAll(page.getElements());
            token = page.getNextPageToken();
        } while (token != null);
        return out;
    }

    /** {@code deleteTag(table, tag)}. */
    static Object deleteTag(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).deleteTag(Commands.ident(req), Commands.str(req, "tag"));
        return null;
    }

    /** {@code rollbackTo(table, Instant.snapshot(n) | Instant.tag(name), fromSnapshot?)}. */
    static Object rollbackTo(Commands c, Map<String, Object> req) throws Exception {
        Long sid = Commands.optLong(req, "snapshot");
        Instant instant = sid != null ? Instant.snapshot(sid) : Instant.tag(Commands.str(req, "tag"));
        c.catalog(req).rollbackTo(Commands.ident(req), instant, Commands.optLong(req, "fromSnapshot"));
        return null;
    }

    /** {@code loadSnapshot(table)}: the server's latest {@code TableSnapshot}, or null. */
    static Object latestSnapshot(Commands c, Map<String, Object> req) throws Exception {
        Optional<TableSnapshot> s = c.catalog(req).loadSnapshot(Commands.ident(req));
        if (!s.isPresent()) {
            return null;
        }
        Map<String, Object> out = snapshot(s.get().snapshot());
        out.put("recordCount", s.get().recordCount());
        out.put("fileCount", s.get().fileCount());
        out.put("fileSizeInBytes", s.get().fileSizeInBytes());
        return out;
    }

    /** {@code loadSnapshot(table, version)} (an id, {@code EARLIEST} or {@code LATEST}), or null. */
    static Object snapshot(Commands c, Map<String, Object> req) throws Exception {
        Optional<Snapshot> s = c.catalog(req).loadSnapshot(Commands.ident(req), Commands.str(req, "version"));
        return s.isPresent() ? snapshot(s.get()) : null;
    }

    /** Every page of {@code listSnapshotsPaged(table, maxResults, pageToken)}: id, uuid, kind. */
    static Object snapshots(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        Long max = Commands.optLong(req, "maxResults");
        List<Object> out = new ArrayList<>();
        String token = null;
        do {
            PagedList<Snapshot> page =
                    cat.listSnapshotsPaged(Commands.ident(req), max == null ? null : max.intValue(), token);
            for (Snapshot s : page.getElements()) {
                out.add(snapshot(s));
            }
            token = page.getNextPageToken();
        } while (token != null);
        return out;
    }

    /** {@code listPartitions(table)}: spec, recordCount, fileCount, fileSizeInBytes; sorted by spec. */
    static Object partitions(Commands c, Map<String, Object> req) throws Exception {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Partition p : c.catalog(req).listPartitions(Commands.ident(req))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("spec", new TreeMap<String, Object>(p.spec()));
            m.put("recordCount", p.recordCount());
            m.put("fileCount", p.fileCount());
            m.put("fileSizeInBytes", p.fileSizeInBytes());
            out.add(m);
        }
        out.sort((a, b) -> a.get("spec").toString().compareTo(b.get("spec").toString()));
        return new ArrayList<Object>(out);
    }

    /**
     * Runs {@code inner} (another command, given the request's {@code catalogOptions}) and
     * returns the exception it raised: {@code {class, simpleName, message}}; a command that
     * succeeds is an error.
     */
    @SuppressWarnings("unchecked")
    static Object expectError(Commands c, Map<String, Object> req) throws Exception {
        Map<String, Object> inner = new LinkedHashMap<>((Map<String, Object>) req.get("inner"));
        if (req.get("catalogOptions") != null) {
            inner.putIfAbsent("catalogOptions", req.get("catalogOptions"));
        }
        try {
            c.run(inner);
        } catch (Exception e) {
            Throwable t = e;
            while (t.getCause() != null && t instanceof RuntimeException
                    && t.getClass() == RuntimeException.class) {
                t = t.getCause();
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("class", t.getClass().getName());
            out.put("simpleName", t.getClass().getSimpleName());
            out.put("message", String.valueOf(t.getMessage()));
            return out;
        }
        throw new IllegalStateException("expected " + inner.get("cmd") + " to fail, it succeeded");
    }

    private static Map<String, Object> snapshot(Snapshot s) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", s.id());
        out.put("schemaId", s.schemaId());
        out.put("commitKind", s.commitKind().name());
        out.put("commitUser", s.commitUser());
        out.put("commitIdentifier", s.commitIdentifier());
        out.put("totalRecordCount", s.totalRecordCount());
        out.put("uuid", s.uuid());
        return out;
    }
}
