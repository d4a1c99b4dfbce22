package strata.oracle;

import org.apache.paimon.data.Blob;
import org.apache.paimon.data.BlobRef;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BLOB columns of a data-evolution table ({@code id INT, name STRING, payload BLOB}) written and
 * read through Java's table API: the BLOB values go to {@code .blob} files
 * ({@code BlobFormatWriter}, rolled at {@code blob.target-file-size}) beside the Parquet file of
 * the other columns, stitched by row id on reads ({@code DataEvolutionSplitRead}). Paimon 2.0
 * only (1.x has no BLOB storage of this shape).
 *
 * <p>{@code write} request: {@code rows}, objects {@code {"id", "name", "payload"}} with the
 * payload as lowercase hex (or null). {@code read} answer: {@code rows}, the same objects
 * ({@code "descriptor": true}: each payload the serialized {@code BlobDescriptor} of a
 * {@code blob-as-descriptor} read).
 * {@code files} answer: each live file's {@code fileName}, {@code rowCount}, {@code firstRowId},
 * {@code writeCols}, sequence numbers, size, source, {@code valueStatsCols}, the value statistics'
 * arity and null counts (enough to compare strata's files with Java's).
 */
final class Paimon2Blob {
    private Paimon2Blob() {}

    private static final HexFormat HEX = HexFormat.of();

    @SuppressWarnings("unchecked")
    static Object write(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        BatchWriteBuilder b = t.newBatchWriteBuilder();
        try (BatchTableWrite w = b.newWrite(); BatchTableCommit commit = b.newCommit()) {
            for (Object o : (List<Object>) req.get("rows")) {
                Map<String, Object> r = (Map<String, Object>) o;
                Object payload = r.get("payload");
                w.write(GenericRow.of(
                        Integer.parseInt(((Json.Num) r.get("id")).text()),
                        r.get("name") == null ? null : BinaryString.fromString((String) r.get("name")),
                        payload == null ? null : Blob.fromData(HEX.parseHex((String) payload))));
            }
            commit.commit(w.prepareCommit());
        }
        return new LinkedHashMap<String, Object>();
    }

    static Object read(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        boolean descriptor = Boolean.TRUE.equals(req.get("descriptor"));
        ReadBuilder rb = t.newReadBuilder();
        List<Object> rows = new ArrayList<>();
        List<Split> splits = rb.newScan().plan().splits();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(row -> {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("id", row.isNullAt(0) ? null : row.getInt(0));
                out.put("name", row.isNullAt(1) ? null : row.getString(1).toString());
                Object payload = null;
                if (!row.isNullAt(2)) {
                    Blob blob = row.getBlob(2);
                    // {"descriptor": true}: the serialized BlobDescriptor a blob-as-descriptor
                    // read returns (BlobRef), not the bytes it points at
                    payload = descriptor
                            ? HEX.formatHex(((BlobRef) blob).toDescriptor().serialize())
                            : HEX.formatHex(blob.toData());
                }
                out.put("payload", payload);
                rows.add(out);
            });
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rows", rows);
        return out;
    }

    static Object files(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        List<Object> files = new ArrayList<>();
        for (Split s : t.newReadBuilder().newScan().plan().splits()) {
            for (DataFileMeta f : ((DataSplit) s).dataFiles()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("fileName", f.fileName());
                m.put("rowCount", f.rowCount());
                m.put("firstRowId", f.firstRowId());
                m.put("writeCols", f.writeCols());
                m.put("maxSequenceNumber", f.maxSequenceNumber());
                m.put("minSequenceNumber", f.minSequenceNumber());
                m.put("fileSize", f.fileSize());
                m.put("schemaId", f.schemaId());
                m.put("level", f.level());
                m.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
                m.put("deleteRowCount", f.deleteRowCount().orElse(null));
                m.put("valueStatsCols", f.valueStatsCols());
                m.put("extraFiles", f.extraFiles());
                m.put("externalPath", f.externalPath().orElse(null));
                m.put("embeddedIndex", f.embeddedIndex() == null ? null : HEX.formatHex(f.embeddedIndex()));
                m.put("valueStatsArity", f.valueStats().minValues().getFieldCount());
                List<Object> nulls = new ArrayList<>();
                for (int i = 0; i < f.valueStats().nullCounts().size(); i++) {
                    nulls.add(f.valueStats().nullCounts().isNullAt(i) ? null : f.valueStats().nullCounts().getLong(i));
                }
                m.put("nullCounts", nulls);
                files.add(m);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("files", files);
        return out;
    }
}
