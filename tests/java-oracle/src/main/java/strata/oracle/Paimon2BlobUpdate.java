/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package strata.oracle;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.BlobPlaceholder;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.RecordWriter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A BLOB column updated by row id as Spark's {@code DataEvolutionTableDataWrite} writes it in
 * Paimon 2.0 (raw-data BLOB partial writes): per row-id range touched, the table's append
 * writer with the write type of that one BLOB column writes every row of the range, the new
 * value for the updated rows and {@link BlobPlaceholder} for the others (only {@code .blob}
 * files, no normal file), the {@code .blob} files get consecutive first row ids from the
 * range's ({@code assignFirstRowIds}), one commit. Request: {@code column}, {@code rows}
 * ({@code _ROW_ID}, the column as hex or null). Answer: {@code snapshotId}, {@code files}.
 */
final class Paimon2BlobUpdate {

    private Paimon2BlobUpdate() {}

    @SuppressWarnings("unchecked")
    static Object update(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        String col = (String) req.get("column");
        RowType writeType = t.rowType().project(Collections.singletonList(col));
        Map<Long, Object> updates = new HashMap<>();
        for (Object r : (List<Object>) req.get("rows")) {
            Map<?, ?> m = (Map<?, ?>) r;
            Object v = m.get(col);
            updates.put(((Json.Num) m.get("_ROW_ID")).asLong(),
                    v == null ? null : Blob.fromData(HexFormat.of().parseHex((String) v)));
        }
        TreeMap<Long, Long> counts = new TreeMap<>();
        Map<Long, BinaryRow> partitions = new HashMap<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            Long first = e.file().firstRowId();
            if (first != null && !e.file().fileName().endsWith(".blob")) {
                counts.put(first, e.file().rowCount());
                partitions.put(first, e.partition());
            }
        }
        List<CommitMessage> messages = new ArrayList<>();
        List<Object> names = new ArrayList<>();
        for (Map.Entry<Long, Long> g : counts.entrySet()) {
            long first = g.getKey();
            long count = g.getValue();
            boolean touched = false;
            for (long id : updates.keySet()) {
                touched |= id >= first && id < first + count;
            }
            if (!touched) {
                continue;
            }
            BinaryRow partition = partitions.get(first);
            TableWriteImpl<InternalRow> writeImpl = (TableWriteImpl<InternalRow>)
                    t.newBatchWriteBuilder().newWrite().withWriteType(writeType);
            AbstractFileStoreWrite<InternalRow> write =
                    (AbstractFileStoreWrite<InternalRow>) writeImpl.getWrite();
            RecordWriter<InternalRow> writer = write.createWriter(partition, 0);
            for (long id = first; id < first + count; id++) {
                writer.write(GenericRow.of(
                        updates.containsKey(id) ? updates.get(id) : BlobPlaceholder.INSTANCE));
            }
            List<DataFileMeta> assigned = new ArrayList<>();
            long next = first;
            for (DataFileMeta f : writer.prepareCommit(false).newFilesIncrement().newFiles()) {
                if (!f.fileName().endsWith(".blob")) {
                    throw new IllegalStateException("a BLOB-only update wrote " + f);
                }
                assigned.add(f.assignFirstRowId(next));
                next += f.rowCount();
                names.add(f.fileName());
            }
            messages.add(new CommitMessageImpl(partition, 0, null,
                    new DataIncrement(assigned, Collections.emptyList(), Collections.emptyList()),
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
}
