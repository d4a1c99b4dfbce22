package strata.oracle;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.data.variant.Variant;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * VARIANT columns through Java's own variant classes ({@link GenericVariant}: Paimon's variant
 * binary, the Parquet / Spark variant encoding). Tables have an INT column {@code id} and a
 * VARIANT column {@code v}. Paimon 2.0 only.
 */
final class Paimon2Variant {
    private Paimon2Variant() {}

    private static final HexFormat HEX = HexFormat.of();

    /**
     * One batch commit. Request: {@code rows} of {@code {"id", "json"}} (JSON text parsed by
     * {@code GenericVariant.fromJson}; absent: NULL) or {@code {"id", "value", "metadata"}} (hex
     * bytes of the variant binary); {@code options}: dynamic options (e.g. a shredding schema).
     */
    @SuppressWarnings("unchecked")
    static Object write(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        int id = t.rowType().getFieldIndex("id");
        int v = t.rowType().getFieldIndex("v");
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit commit = wb.newCommit()) {
            for (Object o : (List<Object>) req.get("rows")) {
                Map<String, Object> r = (Map<String, Object>) o;
                GenericRow row = new GenericRow(t.rowType().getFieldCount());
                row.setField(id, (int) ((Json.Num) r.get("id")).asLong());
                Variant variant = null;
                if (r.get("json") != null) {
                    variant = GenericVariant.fromJson((String) r.get("json"));
                } else if (r.get("value") != null) {
                    variant = new GenericVariant(
                            HEX.parseHex((String) r.get("value")), HEX.parseHex((String) r.get("metadata")));
                }
                row.setField(v, variant);
                w.write(row);
            }
            commit.commit(w.prepareCommit());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        return out;
    }

    /**
     * Every row as {@code {"id", "json", "value", "metadata"}} (toJson in UTC; the binary's bytes
     * as hex), by id.
     */
    static Object read(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        int id = t.rowType().getFieldIndex("id");
        int v = t.rowType().getFieldIndex("v");
        ReadBuilder rb = t.newReadBuilder();
        TreeMap<Integer, Object> rows = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", row.getInt(id));
                if (row.isNullAt(v)) {
                    m.put("json", null);
                } else {
                    Variant variant = row.getVariant(v);
                    m.put("json", variant.toJson());
                    m.put("value", HEX.formatHex(variant.value()));
                    m.put("metadata", HEX.formatHex(variant.metadata()));
                }
                rows.put(row.getInt(id), m);
            });
        }
        return new ArrayList<>(rows.values());
    }
}
