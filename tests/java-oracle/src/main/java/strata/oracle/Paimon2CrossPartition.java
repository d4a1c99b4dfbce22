package strata.oracle;

import org.apache.paimon.crosspartition.GlobalIndexAssigner;
import org.apache.paimon.crosspartition.IndexBootstrap;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.RowType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes of cross-partition-upsert tables ({@code bucket = -1}, a primary key without every
 * partition key: bucket mode {@code KEY_DYNAMIC}) as Flink's {@code GlobalDynamicBucketSink}
 * does them: {@link IndexBootstrap} feeds every live key to a {@link GlobalIndexAssigner} (one
 * assigner), which then assigns each input row a bucket, retracting a key from its old partition
 * (deduplicate) or keeping it there (partial-update, aggregation, first-row) by the merge
 * engine's {@code ExistingProcessor}; the rows go to one batch write and one commit. Paimon 2.0
 * only (the assigner's {@code open} differs in 1.x).
 *
 * <p>Request: {@code rows} (objects as {@link Codec#row} reads them, with an optional {@code
 * _ROW_KIND}). Answer: {@code snapshotId}.
 */
final class Paimon2CrossPartition {
    private Paimon2CrossPartition() {}

    @SuppressWarnings("unchecked")
    static Object write(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        if (t.bucketMode() != BucketMode.KEY_DYNAMIC) {
            throw new IllegalArgumentException("not a cross-partition-upsert table: " + t.bucketMode());
        }
        RowType rowType = t.rowType();
        Path tmp = Files.createTempDirectory("oracle-cross-partition");
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (IOManager io = IOManager.create(tmp.toString());
                BatchTableWrite w = wb.newWrite();
                BatchTableCommit commit = wb.newCommit();
                GlobalIndexAssigner assigner = new GlobalIndexAssigner(t)) {
            w.withIOManager(io);
            assigner.open(
                    64L << 20,
                    null,
                    io,
                    1,
                    0,
                    (row, bucket) -> {
                        try {
                            w.write(row, bucket);
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
            new IndexBootstrap(t).bootstrap(1, 0, row -> {
                try {
                    assigner.bootstrapKey(row);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assigner.endBoostrap(false);
            for (Object r : (List<Object>) req.get("rows")) {
                assigner.processInput(Codec.row((Map<?, ?>) r, rowType));
            }
            commit.commit(w.prepareCommit());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        return out;
    }
}
