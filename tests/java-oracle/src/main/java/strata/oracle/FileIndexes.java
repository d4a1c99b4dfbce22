package strata.oracle;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fileindex.FileIndexPredicate;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * File indexes (issue 31 item 7): the index metadata of each live data file, and which files
 * Java's {@code FileIndexPredicate} skips for a filter (what {@code FileIndexEvaluator} does on
 * read).
 */
final class FileIndexes {
    private FileIndexes() {}

    /** Every live data file with its embedded index (base64) and extra files. */
    static Object files(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        List<Object> out = new ArrayList<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            DataFileMeta f = e.file();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("fileName", f.fileName());
            m.put("rowCount", f.rowCount());
            m.put("level", f.level());
            byte[] idx = f.embeddedIndex();
            m.put("embeddedIndex", idx == null ? null : Base64.getEncoder().encodeToString(idx));
            m.put("extraFiles", new ArrayList<Object>(f.extraFiles()));
            out.add(m);
        }
        return out;
    }

    /**
     * The live files Java's file-index evaluation skips for {@code filter} = {column, op
     * (equal, notEqual, in, isNull, isNotNull, between, open: exclusive bounds), values}; {@code {"skipped": [...], "files": n}}.
     */
    @SuppressWarnings("unchecked")
    static Object skipped(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Predicate predicate = predicate(t.rowType(), (Map<String, Object>) req.get("filter"));
        List<Object> skipped = new ArrayList<>();
        int files = 0;
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            files++;
            DataFileMeta f = e.file();
            TableSchema schema = t.schemaManager().schema(f.schemaId());
            FileIndexPredicate p = null;
            if (f.embeddedIndex() != null) {
                p = new FileIndexPredicate(f.embeddedIndex(), schema.logicalRowType());
            } else {
                for (String extra : f.extraFiles()) {
                    if (extra.endsWith(".index")) {
                        Path path = t.store().pathFactory()
                                .createDataFilePathFactory(e.partition(), e.bucket())
                                .toAlignedPath(extra, f);
                        p = new FileIndexPredicate(path, t.fileIO(), schema.logicalRowType());
                    }
                }
            }
            if (p == null) {
                continue;
            }
            try {
                if (!p.evaluate(predicate).remain()) {
                    skipped.add(f.fileName());
                }
            } finally {
                p.close();
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("skipped", skipped);
        out.put("files", files);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Predicate predicate(RowType rowType, Map<String, Object> filter) {
        String column = (String) filter.get("column");
        int i = rowType.getFieldIndex(column);
        if (i < 0) {
            throw new IllegalArgumentException("no column '" + column + "' in " + rowType);
        }
        DataType type = rowType.getTypeAt(i);
        List<Object> values = new ArrayList<>();
        if (filter.get("values") != null) {
            for (Object v : (List<Object>) filter.get("values")) {
                values.add(literal(type, v));
            }
        }
        PredicateBuilder b = new PredicateBuilder(rowType);
        String op = (String) filter.get("op");
        switch (op) {
            case "equal":
                return b.equal(i, values.get(0));
            case "notEqual":
                return b.notEqual(i, values.get(0));
            case "in":
                return b.in(i, values);
            case "isNull":
                return b.isNull(i);
            case "isNotNull":
                return b.isNotNull(i);
            case "between":
                return PredicateBuilder.and(
                        b.greaterOrEqual(i, values.get(0)), b.lessOrEqual(i, values.get(1)));
            case "open":
                return PredicateBuilder.and(
                        b.greaterThan(i, values.get(0)), b.lessThan(i, values.get(1)));
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static Object literal(DataType type, Object v) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString((String) v);
            case TINYINT:
                return (byte) ((Json.Num) v).asLong();
            case SMALLINT:
                return (short) ((Json.Num) v).asLong();
            case INTEGER:
            case DATE:
                return (int) ((Json.Num) v).asLong();
            case BIGINT:
                return ((Json.Num) v).asLong();
            case DOUBLE:
                return Double.parseDouble(((Json.Num) v).text());
            default:
                throw new IllegalArgumentException("literal of type " + type + " not supported here");
        }
    }
}
