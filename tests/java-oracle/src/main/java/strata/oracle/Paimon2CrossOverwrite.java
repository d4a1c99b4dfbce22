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
 * INSERT OVERWRITE of a cross-partition-upsert table ({@code bucket = -1}, a primary key without
 * every partition key: bucket mode {@code KEY_DYNAMIC}) as Flink's {@code GlobalDynamicBucketSink}
 * runs it with an overwrite: {@link IndexBootstrap} feeds every live key of the table to one
 * {@link GlobalIndexAssigner} whatever the overwrite, the assigner routes each input row (a key
 * living in another partition is retracted there by deduplicate's {@code
 * DeleteExistingProcessor}), and one {@code BatchWriteBuilder.withOverwrite} commit lands the rows
 * (a dynamic partition overwrite by default, or the static partition given). Paimon 2.0 only.
 *
 * <p>Request: {@code rows} (objects as {@link Codec#row} reads them), {@code partition} (optional
 * static partition spec). Answer: {@code snapshotId}.
 */
final class Paimon2CrossOverwrite {
    private Paimon2CrossOverwrite() {}

    @SuppressWarnings("unchecked")
    static Object write(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        if (t.bucketMode() != BucketMode.KEY_DYNAMIC) {
            throw new IllegalArgumentException("not a cross-partition-upsert table: " + t.bucketMode());
        }
        RowType rowType = t.rowType();
        Map<String, String> partition = Commands.stringMap(req.get("partition"));
        Path tmp = Files.createTempDirectory("oracle-cross-overwrite");
        BatchWriteBuilder wb = t.newBatchWriteBuilder().withOverwrite(partition);
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
