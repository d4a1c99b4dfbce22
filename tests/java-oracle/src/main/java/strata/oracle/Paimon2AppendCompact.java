package strata.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactionCommitPreparation;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.append.AppendDeleteFileMaintainer;
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Deletion vectors of append tables ({@code deletion-vectors.enabled}, Paimon 2.0): a DELETE
 * as Spark's {@code PaimonSparkWriter.persistDeletionVectors} commits it (one {@link
 * AppendDeleteFileMaintainer} per partition, or one bucketed maintainer per fixed bucket, {@code notifyNewDeletionVector} per data
 * file, {@code persist}, the index files in a {@code DataIncrement}), and the live
 * deletion-vector index entries (which data files each index file holds vectors of).
 */
final class Paimon2AppendCompact {
    private Paimon2AppendCompact() {}

    /**
     * Deletes the rows whose first column (a BIGINT) is in {@code ids}: their positions in each
     * live data file become deletion vectors (merged with the file's previous one). Answer:
     * {@code snapshotId}, {@code deleted} (rows newly marked).
     */
    @SuppressWarnings("unchecked")
    static Object deleteRows(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Set<Long> ids = new HashSet<>();
        for (Object o : (List<Object>) req.get("ids")) {
            ids.add(((Json.Num) o).asLong());
        }
        Snapshot snapshot = t.snapshotManager().latestSnapshot();
        boolean fixedBucket = t.coreOptions().bucket() > 0;
        Map<List<Object>, BaseAppendDeleteFileMaintainer> maintainers = new LinkedHashMap<>();
        long deleted = 0;
        String idColumn = t.rowType().getFieldNames().get(0);
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            List<String> writeCols = e.file().writeCols();
            if (writeCols != null && !writeCols.contains(idColumn)) {
                continue; // a column file of a data-evolution range: the anchor holds the vector
            }
            DataSplit split = DataSplit.builder()
                    .withPartition(e.partition())
                    .withBucket(e.bucket())
                    .withDataFiles(java.util.Collections.singletonList(e.file()))
                    .withBucketPath(t.store().pathFactory()
                            .bucketPath(e.partition(), e.bucket()).toString())
                    .rawConvertible(true)
                    .build();
            DeletionVector dv = new BitmapDeletionVector();
            long[] position = {0};
            try (RecordReader<InternalRow> reader = t.newRead().createReader(split)) {
                reader.forEachRemaining(row -> {
                    if (ids.contains(row.getLong(0))) {
                        dv.delete(position[0]);
                    }
                    position[0]++;
                });
            }
            if (dv.isEmpty()) {
                continue;
            }
            deleted += dv.getCardinality();
            BinaryRow p = e.partition();
            int bucket = e.bucket();
            maintainers.computeIfAbsent(java.util.Arrays.asList(p, bucket), k -> fixedBucket
                    ? BaseAppendDeleteFileMaintainer.forBucketedAppend(
                            t.store().newIndexFileHandler(), snapshot, p, bucket)
                    : BaseAppendDeleteFileMaintainer.forUnawareAppend(
                            t.store().newIndexFileHandler(), snapshot, p))
                    .notifyNewDeletionVector(e.file().fileName(), dv);
        }
        List<CommitMessage> messages = new ArrayList<>();
        for (BaseAppendDeleteFileMaintainer m : maintainers.values()) {
            List<IndexFileMeta> added = new ArrayList<>();
            List<IndexFileMeta> removed = new ArrayList<>();
            for (IndexManifestEntry entry : m.persist()) {
                (entry.kind() == FileKind.ADD ? added : removed).add(entry.indexFile());
            }
            messages.add(new CommitMessageImpl(m.getPartition(), m.getBucket(), null,
                    new DataIncrement(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                            added, removed),
                    CompactIncrement.emptyIncrement()));
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        out.put("deleted", deleted);
        return out;
    }

    /**
     * Data-evolution compaction as Spark's {@code CompactProcedure} runs it: {@link
     * DataEvolutionCompactCoordinator} plans ({@code compaction.min.file-num} = 2), each task
     * rewrites, and {@link DataEvolutionCompactionCommitPreparation} adds the index changes that
     * move the anchors' deletion vectors to the new files; one commit. Answer: {@code tasks}.
     */
    static Object compactEvolution(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req).copy(Map.of("compaction.min.file-num", "2"));
        Snapshot s = t.snapshotManager().latestSnapshot();
        List<DataEvolutionCompactTask> tasks =
                new DataEvolutionCompactCoordinator(t, false, false, s).plan();
        String user = java.util.UUID.randomUUID().toString();
        List<CommitMessage> messages = new ArrayList<>();
        for (DataEvolutionCompactTask task : tasks) {
            messages.add(task.doCompact(t, user));
        }
        if (!messages.isEmpty()) {
            messages.addAll(new DataEvolutionCompactionCommitPreparation(t, s).prepare(messages));
            try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tasks", tasks.size());
        return out;
    }

    /**
     * The live deletion-vector index entries: {@code indexFiles}, each with {@code bucket},
     * {@code fileName}, {@code rowCount} and {@code vectors} (data file name → cardinality).
     */
    static Object dvIndex(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        List<Object> files = new ArrayList<>();
        Snapshot s = t.snapshotManager().latestSnapshot();
        if (s != null) {
            for (IndexManifestEntry e : t.store().newIndexFileHandler()
                    .scan(s, "DELETION_VECTORS")) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("bucket", e.bucket());
                m.put("fileName", e.indexFile().fileName());
                m.put("rowCount", e.indexFile().rowCount());
                Map<String, Object> vectors = new LinkedHashMap<>();
                if (e.indexFile().dvRanges() != null) {
                    e.indexFile().dvRanges().values().forEach(
                            v -> vectors.put(v.dataFileName(), v.cardinality()));
                }
                m.put("vectors", vectors);
                files.add(m);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("indexFiles", files);
        return out;
    }
}
