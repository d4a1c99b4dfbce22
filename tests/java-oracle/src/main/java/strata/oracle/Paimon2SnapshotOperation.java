package strata.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code operation} of snapshots (Paimon 2.0 {@link Snapshot.Operation}): what Java reads of
 * every snapshot ({@code operations}), and Java's core TRUNCATE commits ({@code truncate}:
 * {@code BatchTableCommit.truncateTable}, or {@code truncatePartitions} with {@code partitions},
 * a list of partition specs), which {@code TableCommitImpl} marks TRUNCATE. Paimon 2.0 only.
 */
final class Paimon2SnapshotOperation {
    private Paimon2SnapshotOperation() {}

    /** Every snapshot as Java 2.0 parses it: {@code id}, {@code commitKind}, {@code operation}. */
    static Object operations(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        List<Object> out = new ArrayList<>();
        Iterator<Snapshot> it = t.snapshotManager().snapshots();
        while (it.hasNext()) {
            Snapshot s = it.next();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", s.id());
            m.put("commitKind", s.commitKind().name());
            m.put("operation", s.operation() == null ? null : s.operation().name());
            out.add(m);
        }
        return out;
    }

    /** A TRUNCATE commit; answers the latest snapshot id. */
    @SuppressWarnings("unchecked")
    static Object truncate(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Object partitions = req.get("partitions");
        try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
            if (partitions == null) {
                commit.truncateTable();
            } else {
                List<Map<String, String>> specs = new ArrayList<>();
                for (Object p : (List<Object>) partitions) {
                    specs.add(Commands.stringMap(p));
                }
                commit.truncatePartitions(specs);
            }
        }
        return t.snapshotManager().latestSnapshotId();
    }
}
