package strata.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.append.AppendDeleteFileMaintainer;
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.operation.DataEvolutionSplitRead;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.utils.DataEvolutionUtils;
import org.apache.paimon.utils.Range;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * DELETE on a data-evolution table with deletion vectors (Paimon 2.0), as Spark's {@code
 * DeleteFromPaimonTableCommand} writes it ({@code PaimonRowLevelCommand
 * .dataEvolutionDeletionTargets}: each row id's anchor file by {@code
 * DataEvolutionUtils.retrieveAnchorFile} over {@code DataEvolutionSplitRead.mergeRangesAndSort},
 * position {@code rowId - range.from}; {@code PaimonSparkWriter.persistDeletionVectors} through
 * {@link AppendDeleteFileMaintainer#forUnawareAppend}), without Spark; and the live deletion
 * vectors as Java's scan attaches them to data files.
 */
final class Paimon2DataEvolutionDml {
    private Paimon2DataEvolutionDml() {}

    /** Deletes {@code rowIds} in one commit. Answer: {@code snapshotId}. */
    @SuppressWarnings("unchecked")
    static Object delete(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Snapshot snapshot = t.snapshotManager().latestSnapshot();
        // anchor ranges: from -> (to, partition, anchor file name)
        TreeMap<Long, Object[]> anchors = new TreeMap<>();
        for (DataSplit split : t.newSnapshotReader().read().dataSplits()) {
            for (List<DataFileMeta> group :
                    DataEvolutionSplitRead.mergeRangesAndSort(split.dataFiles())) {
                DataFileMeta anchor =
                        DataEvolutionUtils.retrieveAnchorFile(group, Function.identity());
                Range range = anchor.nonNullRowIdRange();
                anchors.put(range.from,
                        new Object[] {range.to, split.partition(), anchor.fileName()});
            }
        }
        Map<BinaryRow, Map<String, DeletionVector>> targets = new LinkedHashMap<>();
        for (Object o : (List<Object>) req.get("rowIds")) {
            long id = ((Json.Num) o).asLong();
            Map.Entry<Long, Object[]> e = anchors.floorEntry(id);
            if (e == null || id > (Long) e.getValue()[0]) {
                throw new IllegalArgumentException("row id " + id + " is not live");
            }
            BinaryRow partition = (BinaryRow) e.getValue()[1];
            String file = (String) e.getValue()[2];
            targets.computeIfAbsent(partition, k -> new LinkedHashMap<>())
                    .computeIfAbsent(file, k -> new BitmapDeletionVector())
                    .delete(id - e.getKey());
        }
        List<CommitMessage> messages = new ArrayList<>();
        for (Map.Entry<BinaryRow, Map<String, DeletionVector>> p : targets.entrySet()) {
            AppendDeleteFileMaintainer maintainer = BaseAppendDeleteFileMaintainer.forUnawareAppend(
                    t.store().newIndexFileHandler(), snapshot, p.getKey());
            for (Map.Entry<String, DeletionVector> dv : p.getValue().entrySet()) {
                maintainer.notifyNewDeletionVector(dv.getKey(), dv.getValue());
            }
            List<IndexFileMeta> added = new ArrayList<>();
            List<IndexFileMeta> deleted = new ArrayList<>();
            for (IndexManifestEntry entry : maintainer.persist()) {
                (entry.kind() == FileKind.ADD ? added : deleted).add(entry.indexFile());
            }
            messages.add(new CommitMessageImpl(p.getKey(), 0, null,
                    new DataIncrement(Collections.emptyList(), Collections.emptyList(),
                            Collections.emptyList(), added, deleted),
                    CompactIncrement.emptyIncrement()));
        }
        try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshotId", t.snapshotManager().latestSnapshotId());
        return out;
    }

    /**
     * The live deletion vectors as Java's scan attaches them: {@code vectors}, data file name ->
     * deleted positions (sorted).
     */
    static Object vectors(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Map<String, Object> vectors = new TreeMap<>();
        for (DataSplit split : t.newSnapshotReader().read().dataSplits()) {
            List<DeletionFile> dfs = split.deletionFiles().orElse(null);
            if (dfs == null) {
                continue;
            }
            for (int i = 0; i < dfs.size(); i++) {
                DeletionFile df = dfs.get(i);
                if (df == null) {
                    continue;
                }
                DeletionVector dv = DeletionVector.read(t.fileIO(), df);
                List<Object> positions = new ArrayList<>();
                long rows = split.dataFiles().get(i).rowCount();
                for (long pos = 0; pos < rows; pos++) {
                    if (dv.isDeleted(pos)) {
                        positions.add(pos);
                    }
                }
                vectors.put(split.dataFiles().get(i).fileName(), positions);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("vectors", vectors);
        return out;
    }
}
