package strata.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowType;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.utils.CommitIncrement;
import org.apache.paimon.utils.RecordWriter;
import java.util.Collections;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Row tracking ({@code row-tracking.enabled}, Paimon 2.0): the {@code $row_tracking} system
 * table ({@code RowTrackingTable}: the rows with {@code _ROW_ID} and {@code _SEQUENCE_NUMBER}),
 * the row-tracking metadata of the live files and snapshots, and the compaction of an
 * unaware-bucket append table as Flink's {@code AppendTableCompactor} runs it (an {@link
 * AppendCompactCoordinator} plans, each {@link AppendCompactTask} rewrites with the write type
 * {@code SpecialFields.rowTypeWithRowTracking}, so the compacted files store the row ids).
 */
final class Paimon2RowTracking {
    private Paimon2RowTracking() {}

    /** {@code db.t$row_tracking} read whole: {@code rows} as sorted canonical lines. */
    static Object rows(Commands c, Map<String, Object> req) throws Exception {
        Identifier id = Commands.ident(req);
        Table t = c.catalog(req).getTable(
                Identifier.create(id.getDatabaseName(), id.getObjectName() + "$row_tracking"));
        ReadBuilder rb = t.newReadBuilder();
        RowType type = t.rowType();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> lines.add(Codec.line(row, type)));
        }
        lines.sort(Json::compareCodePoints);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("columns", new ArrayList<Object>(type.getFieldNames()));
        out.put("rows", new ArrayList<Object>(lines));
        return out;
    }

    /**
     * Row-tracking metadata: {@code files} (every live file: name, rows, firstRowId, writeCols,
     * sequence numbers, source) and {@code snapshots} ({@code id}, {@code nextRowId}, kind).
     */
    static Object meta(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        List<Object> files = new ArrayList<>();
        List<Object> snapshots = new ArrayList<>();
        if (t.snapshotManager().latestSnapshotId() != null) {
            for (ManifestEntry e : t.store().newScan().plan().files()) {
                DataFileMeta f = e.file();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("partition", Commands.partition(e.partition(), t.schema().logicalPartitionType()));
                m.put("fileName", f.fileName());
                m.put("rowCount", f.rowCount());
                m.put("fileSize", f.fileSize());
                m.put("firstRowId", f.firstRowId());
                m.put("writeCols", f.writeCols() == null ? null : new ArrayList<Object>(f.writeCols()));
                m.put("minSequenceNumber", f.minSequenceNumber());
                m.put("maxSequenceNumber", f.maxSequenceNumber());
                m.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
                files.add(m);
            }
            for (long i = t.snapshotManager().earliestSnapshotId();
                    i <= t.snapshotManager().latestSnapshotId(); i++) {
                Snapshot s = t.snapshotManager().snapshot(i);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", s.id());
                m.put("nextRowId", s.nextRowId());
                m.put("commitKind", s.commitKind().name());
                snapshots.add(m);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("files", files);
        out.put("snapshots", snapshots);
        return out;
    }

    /**
     * One round of unaware-bucket append compaction as Flink's {@code AppendTableCompactor}
     * (batch mode, {@code compaction.min.file-num} = 2 so a few small files compact), one
     * COMPACT commit. Answer: {@code snapshotId}, {@code tasks}.
     */
    static Object compact(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req).copy(Map.of("compaction.min.file-num", "2",
                "write-only", "false"));
        List<AppendCompactTask> tasks;
        try {
            tasks = new AppendCompactCoordinator(t, false).run();
        } catch (EndOfScanException e) {
            tasks = new ArrayList<>();
        }
        String user = UUID.randomUUID().toString();
        BaseAppendFileStoreWrite write = (BaseAppendFileStoreWrite) t.store().newWrite(user);
        if (t.coreOptions().rowTrackingEnabled()) {
            write.withWriteType(SpecialFields.rowTypeWithRowTracking(t.rowType()));
        }
        List<CommitMessage> messages = new ArrayList<>();
        try {
            for (AppendCompactTask task : tasks) {
                messages.add(task.doCompact(t, write));
            }
        } finally {
            write.close();
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        out.put("tasks", tasks.size());
        return out;
    }

    /**
     * Data evolution (Paimon 2.0): writes the columns {@code columns} of existing rows, as
     * Flink's {@code DataEvolutionPartialWriteOperator} does. {@code rows} are objects with
     * {@code _ROW_ID} and the new values; for every row-id range (files of one {@code
     * firstRowId}) holding one of them, one file of {@code columns} for the whole range is
     * written with {@code withWriteType} (new values where given, the current ones elsewhere,
     * read through Java's data-evolution read) and committed with the range's {@code
     * firstRowId}. Answer: {@code snapshotId}, {@code files} (the new files' names).
     */
    @SuppressWarnings("unchecked")
    static Object updateColumns(Commands c, Map<String, Object> req) throws Exception {
        Map<String, String> single = new HashMap<>();
        single.put("target-file-size", "99999 G");
        single.put("target-file-row-num", String.valueOf(Long.MAX_VALUE));
        FileStoreTable t = c.table(req).copy(single);
        List<String> cols = (List<String>) req.get("columns");
        RowType writeType = t.rowType().project(cols);
        Map<Long, Map<?, ?>> updates = new HashMap<>();
        for (Object r : (List<Object>) req.get("rows")) {
            Map<?, ?> m = (Map<?, ?>) r;
            Map<Object, Object> values = new LinkedHashMap<>();
            for (String col : cols) {
                values.put(col, m.get(col));
            }
            updates.put(((Json.Num) m.get("_ROW_ID")).asLong(), values);
        }
        TreeMap<Long, List<DataFileMeta>> groups = new TreeMap<>();
        Map<Long, BinaryRow> partitions = new HashMap<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            Long first = e.file().firstRowId();
            if (first != null) {
                groups.computeIfAbsent(first, k -> new ArrayList<>()).add(e.file());
                partitions.put(first, e.partition());
            }
        }
        List<String> readCols = new ArrayList<>(cols);
        readCols.add(SpecialFields.ROW_ID.name());
        RowType readType = SpecialFields.rowTypeWithRowId(t.rowType()).project(readCols);
        List<CommitMessage> messages = new ArrayList<>();
        List<Object> names = new ArrayList<>();
        for (Map.Entry<Long, List<DataFileMeta>> g : groups.entrySet()) {
            long first = g.getKey();
            long count = g.getValue().get(0).rowCount();
            boolean touched = false;
            for (long id : updates.keySet()) {
                touched |= id >= first && id < first + count;
            }
            if (!touched) {
                continue;
            }
            BinaryRow partition = partitions.get(first);
            DataSplit split = DataSplit.builder()
                    .withPartition(partition)
                    .withBucket(0)
                    .withDataFiles(g.getValue())
                    .withBucketPath(t.store().pathFactory().bucketPath(partition, 0).toString())
                    .rawConvertible(false)
                    .build();
            TableWriteImpl<InternalRow> writeImpl = (TableWriteImpl<InternalRow>)
                    t.newBatchWriteBuilder().newWrite().withWriteType(writeType);
            AbstractFileStoreWrite<InternalRow> write =
                    (AbstractFileStoreWrite<InternalRow>) writeImpl.getWrite();
            RecordWriter<InternalRow> writer = write.createWriter(partition, 0);
            try (RecordReader<InternalRow> reader =
                    t.newRead().withReadType(readType).createReader(split)) {
                reader.forEachRemaining(row -> {
                    long id = row.getLong(cols.size());
                    Map<?, ?> u = updates.get(id);
                    InternalRow out = u != null
                            ? Codec.row(u, writeType)
                            : org.apache.paimon.utils.ProjectedRow.from(writeType, readType).replaceRow(row);
                    try {
                        writer.write(u != null ? out : copy(out, writeType));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
            }
            CommitIncrement written = writer.prepareCommit(false);
            List<DataFileMeta> files = written.newFilesIncrement().newFiles();
            if (files.size() != 1) {
                throw new IllegalStateException("expected one file, got " + files);
            }
            DataFileMeta file = files.get(0).assignFirstRowId(first);
            names.add(file.fileName());
            messages.add(new CommitMessageImpl(partition, 0, null,
                    new DataIncrement(Collections.singletonList(file), Collections.emptyList(),
                            Collections.emptyList()),
                    CompactIncrement.emptyIncrement()));
            writer.close();
            writeImpl.close();
        }
        try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        out.put("files", names);
        return out;
    }

    private static InternalRow copy(InternalRow row, RowType type) {
        return new org.apache.paimon.data.serializer.InternalRowSerializer(type).copy(row);
    }

    /**
     * Compaction of a data-evolution table as Java plans it ({@link
     * DataEvolutionCompactCoordinator}, {@code compaction.min.file-num} = 2): each row-id range
     * of several files rewritten whole into one file with the range's {@code firstRowId}. One
     * commit. Answer: {@code snapshotId}, {@code tasks}.
     */
    static Object compactEvolution(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req).copy(Map.of("compaction.min.file-num", "2"));
        Snapshot s = t.snapshotManager().latestSnapshot();
        List<DataEvolutionCompactTask> tasks =
                new DataEvolutionCompactCoordinator(t, false, false, s).plan();
        String user = UUID.randomUUID().toString();
        List<CommitMessage> messages = new ArrayList<>();
        for (DataEvolutionCompactTask task : tasks) {
            messages.add(task.doCompact(t, user));
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        out.put("tasks", tasks.size());
        return out;
    }
}
