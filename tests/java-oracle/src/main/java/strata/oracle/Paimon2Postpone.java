package strata.oracle;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.operation.FileSystemWriteRestore;
import org.apache.paimon.options.Options;
import org.apache.paimon.postpone.BucketFiles;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.PostponeUtils;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Java's postpone-bucket compaction without a Flink cluster: what Flink's {@code
 * CompactAction.buildForPostponeBucketCompaction} runs, operator by operator, in one thread.
 * Per partition with postpone files or level-0 real-bucket files, on the latest snapshot: the
 * bucket count by {@link PostponeUtils#determineBucketNum} (known count, {@code
 * postpone.target-row-num-per-bucket}, {@code postpone.default-bucket-num}); each postpone file
 * read alone in creation-time order ({@code PostponeBucketCompactSplitSource}) through {@link
 * PostponeUtils#tableForPostponeCompact}'s read and written by its write restored at the
 * snapshot ({@code PostponeBucketCompactOperator}), the touched and level-0 buckets compacted,
 * the messages folded by {@link BucketFiles} ({@code RewritePostponeBucketCommittableOperator})
 * and the postpone files removed ({@code RemovePostponeBucketFilesOperator}); one commit.
 *
 * <p>Answer: {@code snapshotId} (the latest after the commit, {@code null} if nothing to do).
 */
final class Paimon2Postpone {
    private Paimon2Postpone() {}

    static Object compact(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable table = c.table(req);
        if (table.coreOptions().bucket() != BucketMode.POSTPONE_BUCKET) {
            throw new IllegalArgumentException("not a postpone-bucket table");
        }
        Options options = new Options(table.options());
        int defaultBucketNum = options.get(CoreOptions.POSTPONE_DEFAULT_BUCKET_NUM);
        Optional<Long> target = options.getOptional(CoreOptions.POSTPONE_TARGET_ROW_NUM_PER_BUCKET);
        Optional<Snapshot> latest = table.latestSnapshot();
        Map<String, Object> out = new LinkedHashMap<>();
        if (!latest.isPresent()) {
            out.put("snapshotId", null);
            return out;
        }
        long sid = latest.get().id();
        Map<BinaryRow, Integer> known = PostponeUtils.getKnownNumBuckets(table, sid);
        Map<BinaryRow, Long> counts = target.isPresent()
                ? PostponeUtils.getPostponeRowCounts(table, sid) : Collections.emptyMap();
        Map<BinaryRow, List<PostponeUtils.CompactBucket>> level0 = new LinkedHashMap<>();
        for (PostponeUtils.CompactBucket b : PostponeUtils.getLevel0Buckets(table, sid)) {
            level0.computeIfAbsent(b.partition(), p -> new ArrayList<>()).add(b);
        }
        Set<BinaryRow> affected = new LinkedHashSet<>(table.newSnapshotReader().withSnapshot(sid)
                .withBucket(BucketMode.POSTPONE_BUCKET).partitions());
        affected.addAll(level0.keySet());
        if (affected.isEmpty()) {
            out.put("snapshotId", null);
            return out;
        }
        String commitUser = UUID.randomUUID().toString();
        List<CommitMessage> messages = new ArrayList<>();
        try (IOManager io = IOManager.create(Files.createTempDirectory("oracle-postpone").toString())) {
        for (BinaryRow partition : affected) {
            int n = PostponeUtils.determineBucketNum(partition, known, target, counts, defaultBucketNum);
            FileStoreTable real = PostponeUtils.tableForPostponeCompact(table, n, sid);
            List<DataFileMeta> postponed = new ArrayList<>();
            DataSplit first = null;
            for (Split s : real.newSnapshotReader().withSnapshot(sid)
                    .withBucket(BucketMode.POSTPONE_BUCKET).read().splits()) {
                DataSplit d = (DataSplit) s;
                if (d.partition().equals(partition)) {
                    postponed.addAll(d.dataFiles());
                    first = d;
                }
            }
            postponed.sort(Comparator.comparing(DataFileMeta::creationTime));
            TableWriteImpl<?> write = real.newWrite(commitUser, 0);
            write.withIOManager(io);
            write.withWriteRestore(new FileSystemWriteRestore(real.coreOptions(),
                    real.snapshotManager(), real.store().newScan(),
                    real.store().newIndexFileHandler(), sid));
            FixedBucketRowKeyExtractor extractor = new FixedBucketRowKeyExtractor(real.schema());
            Set<Integer> buckets = new LinkedHashSet<>();
            for (DataFileMeta file : postponed) {
                DataSplit one = DataSplit.builder().withPartition(partition)
                        .withBucket(BucketMode.POSTPONE_BUCKET).withBucketPath(first.bucketPath())
                        .withTotalBuckets(first.totalBuckets())
                        .withDataFiles(Collections.singletonList(file)).isStreaming(false).build();
                try (RecordReader<InternalRow> reader = real.newRead().createReader(one);
                        RecordReaderIterator<InternalRow> it = new RecordReaderIterator<>(reader)) {
                    while (it.hasNext()) {
                        InternalRow row = it.next();
                        extractor.setRecord(row);
                        buckets.add(extractor.bucket());
                        write.write(row);
                    }
                }
                messages.add(new CommitMessageImpl(partition, BucketMode.POSTPONE_BUCKET,
                        first.totalBuckets(), DataIncrement.emptyIncrement(),
                        new CompactIncrement(Collections.singletonList(file),
                                Collections.emptyList(), Collections.emptyList())));
            }
            for (PostponeUtils.CompactBucket b : level0.getOrDefault(partition, Collections.emptyList())) {
                buckets.add(b.bucket());
            }
            for (int b : buckets) {
                write.compact(partition, b, false);
            }
            Map<Integer, BucketFiles> files = new LinkedHashMap<>();
            for (CommitMessage m : write.prepareCommit(true, Long.MAX_VALUE)) {
                CommitMessageImpl mi = (CommitMessageImpl) m;
                files.computeIfAbsent(mi.bucket(), b -> new BucketFiles(
                        real.store().pathFactory().createDataFilePathFactory(partition, b),
                        real.fileIO())).update(mi);
            }
            write.close();
            for (Map.Entry<Integer, BucketFiles> e : files.entrySet()) {
                messages.add(e.getValue().makeMessage(partition, e.getKey()));
            }
        }
        }
        FileStoreTable committer = PostponeUtils.tableForPostponeCompact(table, defaultBucketNum, sid);
        try (BatchTableCommit commit = committer.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        out.put("snapshotId", table.latestSnapshot().map(Snapshot::id).orElse(null));
        return out;
    }
}
