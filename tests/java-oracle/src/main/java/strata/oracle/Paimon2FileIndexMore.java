package strata.oracle;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fileindex.FileIndexPredicate;
import org.apache.paimon.fs.Path;
import org.apache.paimon.index.FileIndexProcessor;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.predicate.Equal;
import org.apache.paimon.predicate.GreaterOrEqual;
import org.apache.paimon.predicate.GreaterThan;
import org.apache.paimon.predicate.In;
import org.apache.paimon.predicate.IsNull;
import org.apache.paimon.predicate.LeafFunction;
import org.apache.paimon.predicate.LeafPredicate;
import org.apache.paimon.predicate.LessOrEqual;
import org.apache.paimon.predicate.LessThan;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * File indexes of MAP keys (issue 31 item 7): which live files Java's {@code FileIndexPredicate}
 * skips for a filter on a MAP key {@code m[k]} (a leaf predicate whose field is named {@code
 * m[k]}, of the map's value type: the column name {@code DataFileIndexWriter} indexes it under).
 */
final class Paimon2FileIndexMore {
    private Paimon2FileIndexMore() {}

    /**
     * {@code filter} = {column ("m[k]"), op (equal, in, isNull, between, open), values}; returns
     * {@code {"skipped": [...], "files": n}}.
     */
    @SuppressWarnings("unchecked")
    static Object mapKeySkipped(Commands c, Map<String, Object> req) throws Exception {
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

    /**
     * What Java's {@code FileIndexProcessor} (the {@code rewrite_file_index} procedure) builds
     * for every live data file, without committing: {fileName: {embeddedIndex (base64 or
     * null), extraFiles}}. Index files it writes are left in the bucket directory (unlisted).
     */
    static Object processedIndexes(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        FileIndexProcessor processor = new FileIndexProcessor(t);
        Map<String, Object> out = new LinkedHashMap<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            DataFileMeta f = processor.process(e.partition(), e.bucket(), e);
            Map<String, Object> m = new LinkedHashMap<>();
            byte[] idx = f.embeddedIndex();
            m.put("embeddedIndex", idx == null ? null : Base64.getEncoder().encodeToString(idx));
            m.put("extraFiles", new ArrayList<Object>(f.extraFiles()));
            m.put("level", f.level());
            out.put(f.fileName(), m);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Predicate predicate(RowType rowType, Map<String, Object> filter) {
        String column = (String) filter.get("column");
        int open = column.indexOf('[');
        String top = column.substring(0, open);
        int i = rowType.getFieldIndex(top);
        if (i < 0 || !(rowType.getTypeAt(i) instanceof MapType)) {
            throw new IllegalArgumentException("no MAP column '" + top + "' in " + rowType);
        }
        DataType type = ((MapType) rowType.getTypeAt(i)).getValueType();
        List<Object> values = new ArrayList<>();
        if (filter.get("values") != null) {
            for (Object v : (List<Object>) filter.get("values")) {
                values.add(literal(type, v));
            }
        }
        String op = (String) filter.get("op");
        switch (op) {
            case "equal":
                return leaf(Equal.INSTANCE, type, i, column, values.subList(0, 1));
            case "in":
                return leaf(In.INSTANCE, type, i, column, values);
            case "isNull":
                return leaf(IsNull.INSTANCE, type, i, column, Collections.emptyList());
            case "between":
                return PredicateBuilder.and(
                        leaf(GreaterOrEqual.INSTANCE, type, i, column, values.subList(0, 1)),
                        leaf(LessOrEqual.INSTANCE, type, i, column, values.subList(1, 2)));
            case "open":
                return PredicateBuilder.and(
                        leaf(GreaterThan.INSTANCE, type, i, column, values.subList(0, 1)),
                        leaf(LessThan.INSTANCE, type, i, column, values.subList(1, 2)));
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static Predicate leaf(
            LeafFunction f, DataType type, int index, String name, List<Object> literals) {
        return new LeafPredicate(f, type, index, name, new ArrayList<>(literals));
    }

    private static Object literal(DataType type, Object v) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString((String) v);
            case INTEGER:
                return (int) ((Json.Num) v).asLong();
            case BIGINT:
                return ((Json.Num) v).asLong();
            default:
                throw new IllegalArgumentException("literal of type " + type + " not supported here");
        }
    }
}
