package strata.oracle;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.InnerTableRead;
import org.apache.paimon.table.source.InnerTableScan;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Incremental reads ({@code incremental-between}, {@code incremental-between-timestamp},
 * {@code incremental-between-scan-mode}, ... given as the table's dynamic options) as the table's
 * {@code $audit_log} returns them: the batch scan, a read that keeps deletes ({@code
 * forceKeepDelete}), every row with its kind. Lines are {@link Codec#line} with a first key
 * {@code rowkind} ({@code +I}, {@code -U}, {@code +U}, {@code -D}).
 *
 * <p>The scan reads every level: Paimon 2.0's batch scan does so for incremental reads
 * ({@code AbstractBatchTableScan}: their delta and changelog files are all at level 0), while 1.4
 * skips level 0 of deletion-vector and first-row tables there too (and so reads no delta of
 * them); the level filter is reset so both versions answer with 2.0's semantics.
 */
final class Incremental {
    private Incremental() {}

    static Object read(FileStoreTable table) throws Exception {
        RowType type = table.rowType();
        InnerTableScan scan = table.newScan();
        scan.withLevelFilter(level -> true);
        InnerTableRead read = table.newRead().forceKeepDelete();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> reader = read.createReader(scan.plan())) {
            reader.forEachRemaining(row -> {
                StringBuilder sb = new StringBuilder("{");
                Json.string(sb, "rowkind");
                sb.append(':');
                Json.string(sb, row.getRowKind().shortString());
                String rest = Codec.line(row, type);
                lines.add(sb.append(rest.length() > 2 ? "," : "").append(rest, 1, rest.length()).toString());
            });
        }
        lines.sort(Json::compareCodePoints);
        Map<String, Object> out = new LinkedHashMap<>();
        List<Object> names = new ArrayList<>();
        names.add("rowkind");
        names.addAll(type.getFieldNames());
        out.put("columns", names);
        out.put("rows", new ArrayList<Object>(lines));
        return out;
    }

    /**
     * A streaming read ({@code newStreamScan}, the table's {@code scan.mode} / {@code
     * scan.snapshot-id} options) until the scan's next snapshot is past {@code until}: every
     * row of every plan with its kind, and the snapshots read in order. Java finds a snapshot
     * that expired under a decoupled changelog lifecycle in {@code changelog/}
     * ({@code NextSnapshotFetcher}).
     */
    static Object stream(FileStoreTable table, Long until) throws Exception {
        RowType type = table.rowType();
        StreamTableScan scan = table.newStreamScan();
        InnerTableRead read = table.newRead().forceKeepDelete();
        List<String> lines = new ArrayList<>();
        List<Object> snapshots = new ArrayList<>();
        for (int guard = 0; guard < 10_000; guard++) {
            TableScan.Plan plan = scan.plan();
            Long next = scan.checkpoint();
            if (!plan.splits().isEmpty()) {
                snapshots.add(next == null ? null : next - 1);
                try (RecordReader<InternalRow> reader = read.createReader(plan)) {
                    reader.forEachRemaining(row -> {
                        StringBuilder sb = new StringBuilder("{");
                        Json.string(sb, "rowkind");
                        sb.append(':');
                        Json.string(sb, row.getRowKind().shortString());
                        String rest = Codec.line(row, type);
                        lines.add(sb.append(rest.length() > 2 ? "," : "").append(rest, 1, rest.length()).toString());
                    });
                }
            }
            if (next != null && until != null && next > until) {
                break;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rows", new ArrayList<Object>(lines));
        out.put("snapshots", snapshots);
        return out;
    }
}
