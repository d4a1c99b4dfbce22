package strata.bench;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.fileindex.FileIndexPredicate;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.CommitIncrement;
import org.apache.paimon.utils.ProjectedRow;
import org.apache.paimon.utils.RecordWriter;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Java Paimon peer of strata-bench's issue-31 phases (bench/src/issue31.rs; run by
 * bench/file_index.sh and bench/column_backfill.sh), timed inside the JVM after warm-up, like
 * {@link JavaPeer}:
 *
 * <pre>
 *   java -cp CP strata.bench.Issue31Peer fi-write  --wh W [--table T] [--rows N] [--option K=V]... [--warmup N] [--iterations N]
 *   java -cp CP strata.bench.Issue31Peer fi-lookup --wh W [--table T] --value V [--warmup N] [--iterations N]
 *   java -cp CP strata.bench.Issue31Peer backfill  --wh W [--rows N] --mode update|rewrite [--warmup N] [--iterations N]
 * </pre>
 *
 * <ul>
 *   <li>{@code fi-write}: the rows of issue31.rs ({@code id}, {@code user = u%08d} of {@code id *
 *       7368787 mod N}, {@code v = 3 id}); the {@code user} bytes are built first (untimed); each
 *       iteration creates the table (untimed) and writes every row in one commit, timed from
 *       {@code getTable} to the closed commit. Warm-ups and all but the last iteration go to
 *       scratch warehouses; the last leaves its table at {@code --wh}.
 *   <li>{@code fi-lookup}: {@code user = V} through {@code ReadBuilder.withFilter}, {@code
 *       newScan().plan()} and {@code newRead().executeFilter()} into memory (rows copied), timed
 *       after the catalog and table are opened; {@code rchar} is the JVM's /proc/self/io delta
 *       over the timed region; {@code files_skipped_by_index} counts, untimed, the planned files
 *       whose {@code FileIndexPredicate} rules the value out (what Java's {@code
 *       RawFileSplitRead} then does not open).
 *   <li>{@code backfill}: per iteration a fresh table ({@code row-tracking.enabled}, {@code
 *       data-evolution.enabled}) of N rows in one commit (untimed), then {@code score = id % 97}
 *       on every row, timed: {@code update} is Flink's {@code DataEvolutionPartialWriteOperator}
 *       (per row-id range: the range's current {@code score} and {@code _ROW_ID} read, merged
 *       with the new values in row-id order, written through {@code withWriteType} into one
 *       file that gets the range's {@code firstRowId}; one commit), {@code rewrite} an {@code
 *       INSERT OVERWRITE} of every row ({@code withOverwrite()}). Bytes written are the new
 *       files under the table directory and the JVM's {@code wchar} delta.
 * </ul>
 */
public final class Issue31Peer {
    static final long PERMUTE = 7_368_787L;
    static final String BACKFILL_TABLE = "backfill_t";

    private Issue31Peer() {}

    static final class Args {
        String phase;
        String wh;
        String table = "fi_t";
        long rows = -1;
        String value;
        String mode;
        int warmup = 2;
        int iterations = 5;
        Map<String, String> options = new LinkedHashMap<>();
    }

    static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String s = argv[i];
            if (!s.startsWith("--")) {
                a.phase = s;
                continue;
            }
            if (i + 1 >= argv.length) {
                throw new IllegalArgumentException(s + " needs a value");
            }
            String v = argv[++i];
            switch (s) {
                case "--wh": a.wh = new java.io.File(v).getAbsolutePath(); break;
                case "--table": a.table = v; break;
                case "--rows": a.rows = Long.parseLong(v); break;
                case "--value": a.value = v; break;
                case "--mode": a.mode = v; break;
                case "--warmup": a.warmup = Integer.parseInt(v); break;
                case "--iterations": a.iterations = Integer.parseInt(v); break;
                case "--option": {
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--option " + v + ": expected K=V");
                    }
                    a.options.put(v.substring(0, eq).trim(), v.substring(eq + 1).trim());
                    break;
                }
                default: throw new IllegalArgumentException("unknown option " + s);
            }
        }
        if (a.phase == null || !List.of("fi-write", "fi-lookup", "backfill").contains(a.phase)) {
            throw new IllegalArgumentException("phase must be fi-write, fi-lookup or backfill");
        }
        if (a.wh == null) {
            throw new IllegalArgumentException("--wh is required");
        }
        if (a.phase.equals("fi-lookup") && a.value == null) {
            throw new IllegalArgumentException("fi-lookup needs --value");
        }
        if (a.phase.equals("backfill") && !"update".equals(a.mode) && !"rewrite".equals(a.mode)) {
            throw new IllegalArgumentException("backfill needs --mode update|rewrite");
        }
        if (a.rows < 0) {
            a.rows = a.phase.equals("backfill") ? 2_000_000L : 10_000_000L;
        }
        if (a.warmup < 0 || a.iterations < 1) {
            throw new IllegalArgumentException("--warmup must be >= 0 and --iterations >= 1");
        }
        return a;
    }

    public static void main(String[] argv) throws Exception {
        double jvmStart = JavaPeer.processAge();
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Args a;
        try {
            a = parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("Issue31Peer: " + e.getMessage());
            System.exit(2);
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("engine", JavaPeer.ENGINE);
        out.put("phase", a.phase);
        switch (a.phase) {
            case "fi-write": out.putAll(fiWrite(a)); break;
            case "fi-lookup": out.putAll(fiLookup(a)); break;
            default: out.putAll(backfill(a)); break;
        }
        out.put("jvm_start_s", JavaPeer.round(jvmStart, 3));
        out.put("paimon", JavaPeer.paimonVersion());
        out.put("java", System.getProperty("java.version"));
        out.put("peak_rss_mb", JavaPeer.vmHwmMb());
        stdout.println(JavaPeer.toJson(out));
        stdout.flush();
        System.exit(0);
    }

    // ---- shared -----------------------------------------------------------------------------

    /** A /proc/self/io counter ({@code rchar}, {@code wchar}); 0 when unreadable. */
    static long procIo(String key) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/io"))) {
                if (line.startsWith(key + ":")) {
                    return Long.parseLong(line.substring(key.length() + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return 0;
    }

    /** Every file under the table directory: relative path to size. */
    static Map<String, Long> fileSizes(String wh, String table) throws IOException {
        java.nio.file.Path dir = Paths.get(wh, JavaPeer.DATABASE + ".db", table);
        Map<String, Long> out = new TreeMap<>();
        if (!Files.exists(dir)) {
            return out;
        }
        try (var walk = Files.walk(dir)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) walk::iterator) {
                if (Files.isRegularFile(p)) {
                    out.put(dir.relativize(p).toString(), Files.size(p));
                }
            }
        }
        return out;
    }

    /** Bytes of the files in {@code after} not in {@code before}: {data, index, metadata}. */
    static long[] newBytes(Map<String, Long> before, Map<String, Long> after) {
        long[] out = new long[3];
        for (Map.Entry<String, Long> e : after.entrySet()) {
            if (before.containsKey(e.getKey())) {
                continue;
            }
            String k = e.getKey();
            int slot = k.startsWith("bucket-") ? (k.endsWith(".index") ? 1 : 0) : 2;
            out[slot] += e.getValue();
        }
        return out;
    }

    static Map<String, Object> timing(Args a, List<Double> warm, List<Double> iters) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("warmup", a.warmup);
        out.put("warmup_iter_s", JavaPeer.rounded(warm));
        out.put("iterations", a.iterations);
        out.put("iter_s", JavaPeer.rounded(iters));
        return out;
    }

    // ---- fi-write / fi-lookup ---------------------------------------------------------------

    static Schema fiSchema(Map<String, String> options) {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("user", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .option("bucket", "-1");
        options.forEach(b::option);
        return b.build();
    }

    static final class FiWriteRun {
        double seconds;
        double cpu;
        long[] bytes;
        long dataFiles;
    }

    static FiWriteRun fiWriteOnce(String wh, Args a, byte[][] users) throws Exception {
        Identifier id = Identifier.create(JavaPeer.DATABASE, a.table);
        FiWriteRun run = new FiWriteRun();
        try (Catalog cat = JavaPeer.catalog(wh)) {
            cat.createDatabase(JavaPeer.DATABASE, true);
            cat.createTable(id, fiSchema(a.options), false);
            long cpu0 = JavaPeer.cpuNanos();
            long t0 = System.nanoTime();
            Table t = cat.getTable(id);
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit commit = wb.newCommit()) {
                for (int i = 0; i < users.length; i++) {
                    w.write(GenericRow.of((long) i, BinaryString.fromBytes(users[i]), 3L * i));
                }
                commit.commit(w.prepareCommit());
            }
            run.seconds = (System.nanoTime() - t0) / 1e9;
            run.cpu = (JavaPeer.cpuNanos() - cpu0) / 1e9;
        }
        Map<String, Long> files = fileSizes(wh, a.table);
        run.bytes = newBytes(Collections.emptyMap(), files);
        run.dataFiles = files.keySet().stream().filter(k -> k.startsWith("bucket-") && !k.endsWith(".index")).count();
        return run;
    }

    static Map<String, Object> fiWrite(Args a) throws Exception {
        if (java.math.BigInteger.valueOf(PERMUTE).gcd(java.math.BigInteger.valueOf(a.rows)).longValue() != 1) {
            throw new IllegalArgumentException("--rows " + a.rows + " shares a factor with " + PERMUTE);
        }
        byte[][] users = new byte[(int) a.rows][];
        for (int i = 0; i < users.length; i++) {
            long u = (long) i * PERMUTE % a.rows; // i < 2^31, so no overflow
            users[i] = String.format("u%08d", u).getBytes(StandardCharsets.UTF_8);
        }
        if (new java.io.File(a.wh).exists()) {
            throw new IllegalStateException(a.wh + " exists already (fi-write creates the table)");
        }
        List<Double> warm = new ArrayList<>();
        for (int i = 1; i <= a.warmup; i++) {
            String scratch = a.wh + ".warmup-" + i;
            JavaPeer.deleteTree(scratch);
            System.gc();
            warm.add(fiWriteOnce(scratch, a, users).seconds);
            JavaPeer.deleteTree(scratch);
        }
        List<FiWriteRun> timed = new ArrayList<>();
        for (int i = 1; i <= a.iterations; i++) {
            String target = i == a.iterations ? a.wh : a.wh + ".iter-" + i;
            System.gc();
            timed.add(fiWriteOnce(target, a, users));
            if (!target.equals(a.wh)) {
                JavaPeer.deleteTree(target);
            }
        }
        FiWriteRun med = JavaPeer.median(timed, r -> r.seconds);
        FiWriteRun last = timed.get(timed.size() - 1);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("table", a.table);
        out.put("seconds", JavaPeer.round(med.seconds, 4));
        out.put("cpu_s", JavaPeer.round(med.cpu, 3));
        out.put("rows", a.rows);
        out.put("data_files", last.dataFiles);
        out.put("data_bytes", last.bytes[0]);
        out.put("index_bytes", last.bytes[1]);
        out.put("meta_bytes", last.bytes[2]);
        List<Object> opts = new ArrayList<>();
        a.options.forEach((k, v) -> opts.add(k + "=" + v));
        out.put("options", opts);
        out.putAll(timing(a, warm, timed.stream().map(r -> r.seconds).collect(java.util.stream.Collectors.toList())));
        return out;
    }

    static final class LookupRun {
        double seconds;
        double plan;
        double cpu;
        long rows;
        long planned;
        long rchar;
    }

    static LookupRun lookupOnce(Args a) throws Exception {
        LookupRun run = new LookupRun();
        try (Catalog cat = JavaPeer.catalog(a.wh)) {
            Table t = cat.getTable(Identifier.create(JavaPeer.DATABASE, a.table));
            long rchar0 = procIo("rchar");
            long cpu0 = JavaPeer.cpuNanos();
            long t0 = System.nanoTime();
            ReadBuilder rb = t.newReadBuilder().withFilter(new PredicateBuilder(t.rowType())
                    .equal(t.rowType().getFieldIndex("user"), BinaryString.fromString(a.value)));
            List<Split> splits = rb.newScan().plan().splits();
            run.plan = (System.nanoTime() - t0) / 1e9;
            TableRead read = rb.newRead().executeFilter();
            InternalRowSerializer ser = new InternalRowSerializer(rb.readType());
            List<InternalRow> rows = new ArrayList<>();
            try (RecordReader<InternalRow> r = read.createReader(splits)) {
                r.forEachRemaining(row -> rows.add(ser.toBinaryRow(row).copy()));
            }
            run.seconds = (System.nanoTime() - t0) / 1e9;
            run.cpu = (JavaPeer.cpuNanos() - cpu0) / 1e9;
            run.rchar = procIo("rchar") - rchar0;
            run.rows = rows.size();
            for (Split s : splits) {
                run.planned += ((DataSplit) s).dataFiles().size();
            }
        }
        return run;
    }

    /** Planned files (after statistics) whose file index rules out {@code user = value} (untimed; what Java's read then does not open). */
    static long skippedByIndex(Args a) throws Exception {
        long skipped = 0;
        try (Catalog cat = JavaPeer.catalog(a.wh)) {
            FileStoreTable t = (FileStoreTable) cat.getTable(Identifier.create(JavaPeer.DATABASE, a.table));
            Predicate p = new PredicateBuilder(t.rowType())
                    .equal(t.rowType().getFieldIndex("user"), BinaryString.fromString(a.value));
            for (Split split : t.newReadBuilder().withFilter(p).newScan().plan().splits()) {
                DataSplit ds = (DataSplit) split;
                for (DataFileMeta f : ds.dataFiles()) {
                    TableSchema schema = t.schemaManager().schema(f.schemaId());
                    FileIndexPredicate fp = null;
                    if (f.embeddedIndex() != null) {
                        fp = new FileIndexPredicate(f.embeddedIndex(), schema.logicalRowType());
                    } else {
                        for (String extra : f.extraFiles()) {
                            if (extra.endsWith(".index")) {
                                Path path = t.store().pathFactory()
                                        .createDataFilePathFactory(ds.partition(), ds.bucket())
                                        .toAlignedPath(extra, f);
                                fp = new FileIndexPredicate(path, t.fileIO(), schema.logicalRowType());
                            }
                        }
                    }
                    if (fp != null) {
                        try {
                            if (!fp.evaluate(p).remain()) {
                                skipped++;
                            }
                        } finally {
                            fp.close();
                        }
                    }
                }
            }
        }
        return skipped;
    }

    static Map<String, Object> fiLookup(Args a) throws Exception {
        List<Double> warm = new ArrayList<>();
        for (int i = 1; i <= a.warmup; i++) {
            System.gc();
            warm.add(lookupOnce(a).seconds);
        }
        List<LookupRun> timed = new ArrayList<>();
        for (int i = 1; i <= a.iterations; i++) {
            System.gc();
            timed.add(lookupOnce(a));
        }
        LookupRun med = JavaPeer.median(timed, r -> r.seconds);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("table", a.table);
        out.put("seconds", JavaPeer.round(med.seconds, 4));
        out.put("plan_s", JavaPeer.round(med.plan, 4));
        out.put("cpu_s", JavaPeer.round(med.cpu, 3));
        out.put("rows", med.rows);
        out.put("files_planned", med.planned);
        out.put("files_skipped_by_index", skippedByIndex(a));
        out.put("rchar", med.rchar);
        out.putAll(timing(a, warm, timed.stream().map(r -> r.seconds).collect(java.util.stream.Collectors.toList())));
        return out;
    }

    // ---- backfill ---------------------------------------------------------------------------

    static Schema backfillSchema() {
        return Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .column("a", DataTypes.INT())
                .column("b", DataTypes.STRING())
                .column("c", DataTypes.DOUBLE())
                .column("score", DataTypes.INT())
                .option("bucket", "-1")
                .option("row-tracking.enabled", "true")
                .option("data-evolution.enabled", "true")
                .build();
    }

    /** The rows' string columns, built once (untimed). */
    static final class Input {
        final byte[][] name;
        final byte[][] b;

        Input(int n) {
            name = new byte[n][];
            b = new byte[n][];
            for (int i = 0; i < n; i++) {
                name[i] = String.format("user-%08d", i).getBytes(StandardCharsets.UTF_8);
                b[i] = ("b-" + ((long) i * 7919 % 100_003)).getBytes(StandardCharsets.UTF_8);
            }
        }

        GenericRow row(int i, boolean newScore) {
            return GenericRow.of((long) i, BinaryString.fromBytes(name[i]), i % 1000, BinaryString.fromBytes(b[i]),
                    i / 7.0, newScore ? i % 97 : 0);
        }
    }

    static final class BackfillRun {
        double seconds;
        double cpu;
        double setup;
        long tableBytes;
        long[] bytes;
        long wchar;
    }

    static void writeRows(BatchWriteBuilder wb, Input in, boolean newScore) throws Exception {
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit commit = wb.newCommit()) {
            for (int i = 0; i < in.name.length; i++) {
                w.write(in.row(i, newScore));
            }
            commit.commit(w.prepareCommit());
        }
    }

    /**
     * Flink's {@code DataEvolutionPartialWriteOperator} for input sorted by row id: the new
     * {@code score} of row id {@code i} is {@code scores[i]} (every row of the table).
     */
    @SuppressWarnings("unchecked")
    static void partialWrite(FileStoreTable table, int[] scores) throws Exception {
        Map<String, String> single = new HashMap<>();
        single.put("target-file-size", "99999 G");
        single.put("target-file-row-num", String.valueOf(Long.MAX_VALUE));
        FileStoreTable t = table.copy(single);
        RowType writeType = t.rowType().project(List.of("score"));
        RowType dataType = SpecialFields.rowTypeWithRowId(t.rowType()).project(List.of("score", "_ROW_ID"));
        TreeMap<Long, List<DataFileMeta>> groups = new TreeMap<>();
        Map<Long, BinaryRow> partitions = new HashMap<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            Long first = e.file().firstRowId();
            if (first != null) {
                groups.computeIfAbsent(first, k -> new ArrayList<>()).add(e.file());
                partitions.put(first, e.partition());
            }
        }
        TableRead tableRead = t.newRead().withReadType(dataType);
        TableWriteImpl<InternalRow> writeImpl =
                (TableWriteImpl<InternalRow>) t.newBatchWriteBuilder().newWrite().withWriteType(writeType);
        AbstractFileStoreWrite<InternalRow> write = (AbstractFileStoreWrite<InternalRow>) writeImpl.getWrite();
        List<CommitMessage> messages = new ArrayList<>();
        ProjectedRow projected = ProjectedRow.from(writeType, dataType);
        GenericRow newRow = new GenericRow(2);
        for (Map.Entry<Long, List<DataFileMeta>> g : groups.entrySet()) {
            long first = g.getKey();
            BinaryRow partition = partitions.get(first);
            DataSplit split = DataSplit.builder()
                    .withPartition(partition)
                    .withBucket(0)
                    .withDataFiles(g.getValue())
                    .withBucketPath(t.store().pathFactory().bucketPath(partition, 0).toString())
                    .rawConvertible(false)
                    .build();
            RecordWriter<InternalRow> writer = write.createWriter(partition, 0);
            try (RecordReader<InternalRow> reader = tableRead.createReader(split)) {
                RecordReader.RecordIterator<InternalRow> it;
                while ((it = reader.readBatch()) != null) {
                    InternalRow original;
                    while ((original = it.next()) != null) {
                        long rowId = original.getLong(1);
                        if (rowId < scores.length) {
                            newRow.setField(0, scores[(int) rowId]);
                            newRow.setField(1, rowId);
                            projected.replaceRow(newRow);
                        } else {
                            projected.replaceRow(original);
                        }
                        writer.write(projected);
                    }
                    it.releaseBatch();
                }
            }
            CommitIncrement written = writer.prepareCommit(false);
            List<DataFileMeta> files = written.newFilesIncrement().newFiles();
            if (files.size() != 1) {
                throw new IllegalStateException("expected one file per row-id range, got " + files.size());
            }
            messages.add(new CommitMessageImpl(partition, 0, null,
                    new DataIncrement(Collections.singletonList(files.get(0).assignFirstRowId(first)),
                            Collections.emptyList(), Collections.emptyList()),
                    CompactIncrement.emptyIncrement()));
            writer.close();
        }
        writeImpl.close();
        try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
    }

    static BackfillRun backfillOnce(String wh, Args a, Input in, int[] scores) throws Exception {
        Identifier id = Identifier.create(JavaPeer.DATABASE, BACKFILL_TABLE);
        BackfillRun run = new BackfillRun();
        try (Catalog cat = JavaPeer.catalog(wh)) {
            cat.createDatabase(JavaPeer.DATABASE, true);
            cat.createTable(id, backfillSchema(), false);
            long s0 = System.nanoTime();
            writeRows(cat.getTable(id).newBatchWriteBuilder(), in, false);
            run.setup = (System.nanoTime() - s0) / 1e9;
            Map<String, Long> before = fileSizes(wh, BACKFILL_TABLE);
            run.tableBytes = newBytes(Collections.emptyMap(), before)[0];
            System.gc();
            long wchar0 = procIo("wchar");
            long cpu0 = JavaPeer.cpuNanos();
            long t0 = System.nanoTime();
            FileStoreTable t = (FileStoreTable) cat.getTable(id);
            if (a.mode.equals("update")) {
                partialWrite(t, scores);
            } else {
                writeRows(t.newBatchWriteBuilder().withOverwrite(), in, true);
            }
            run.seconds = (System.nanoTime() - t0) / 1e9;
            run.cpu = (JavaPeer.cpuNanos() - cpu0) / 1e9;
            run.wchar = procIo("wchar") - wchar0;
            run.bytes = newBytes(before, fileSizes(wh, BACKFILL_TABLE));
        }
        return run;
    }

    static Map<String, Object> backfill(Args a) throws Exception {
        Input in = new Input((int) a.rows);
        int[] scores = new int[(int) a.rows];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = i % 97;
        }
        List<Double> warm = new ArrayList<>();
        List<BackfillRun> timed = new ArrayList<>();
        for (int i = 1; i <= a.warmup + a.iterations; i++) {
            String scratch = a.wh + ".run-" + i;
            JavaPeer.deleteTree(scratch);
            BackfillRun r = backfillOnce(scratch, a, in, scores);
            JavaPeer.deleteTree(scratch);
            if (i <= a.warmup) {
                warm.add(r.seconds);
            } else {
                timed.add(r);
            }
        }
        BackfillRun med = JavaPeer.median(timed, r -> r.seconds);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", a.mode);
        out.put("seconds", JavaPeer.round(med.seconds, 4));
        out.put("cpu_s", JavaPeer.round(med.cpu, 3));
        out.put("rows", a.rows);
        out.put("setup_s", JavaPeer.round(med.setup, 3));
        out.put("table_bytes", med.tableBytes);
        out.put("data_bytes_written", med.bytes[0] + med.bytes[1]);
        out.put("meta_bytes_written", med.bytes[2]);
        out.put("wchar", med.wchar);
        out.putAll(timing(a, warm, timed.stream().map(r -> r.seconds).collect(java.util.stream.Collectors.toList())));
        return out;
    }
}
