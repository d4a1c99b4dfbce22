package strata.bench;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.format.FormatReaderFactory;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * The Java Paimon peer of strata's append / primary-key benchmark (bench/run.sh): one phase of
 * Apache Paimon's Java API (the version on the classpath, 2.0.0 as bench/java/build.sh builds
 * it) in one JVM, warmed up, timed inside the JVM.
 *
 * <pre>
 *   java -cp CP strata.bench.JavaPeer write  --wh W --data DIR [--table append|pk] [--option K=V]... [--warmup N] [--iterations N]
 *   java -cp CP strata.bench.JavaPeer read   --wh W [--table append|pk] [--warmup N] [--iterations N]
 *   java -cp CP strata.bench.JavaPeer filter --wh W [--table append|pk] [--warmup N] [--iterations N]
 * </pre>
 *
 * <p>The phases mirror bench/src/strata_phases.rs and bench/peers.py: the table is {@code
 * bench.append_t} (bucket -1) or {@code bench.pk_t} (primary key id, bucket 1), columns {@code
 * id BIGINT NOT NULL, v_long BIGINT, v_double DOUBLE, v_str STRING, v_int INT}, Paimon's
 * defaults otherwise, in a filesystem catalog (default options) at {@code --wh}.
 *
 * <ul>
 *   <li>{@code write}: the commit files of {@code --data} (gen_data.py's Parquet files, listed
 *       in its expected.json) are loaded into memory first with Paimon's bundled Parquet reader
 *       into typed column arrays ({@code load_s}, not timed); the database and table are created
 *       (not timed); then each commit file is one commit, timed from {@code getTable} through
 *       {@code BatchWriteBuilder.newWrite()}, one {@code write(GenericRow)} per row, {@code
 *       prepareCommit()}, {@code newCommit().commit()} to closing the write and commit
 *       ({@code per_commit_s}; {@code seconds} is their sum). No IOManager is set (the plain
 *       Java API, as Paimon's documentation shows it) unless the table needs lookups ({@code
 *       CoreOptions.needLookup()}: {@code changelog-producer=lookup}, {@code
 *       deletion-vectors.enabled}, first-row), whose lookup compaction refuses to run without a
 *       temp directory: then each write gets an IOManager on a fresh temp directory, created
 *       and deleted outside the timers, as Flink's task managers give one ({@code io_manager}
 *       in the output). {@code --option K=V} (repeatable) adds table options to the schema at
 *       create time (bench/deletion_vectors.sh: {@code changelog-producer}, {@code
 *       deletion-vectors.enabled}, {@code write-only}); the write checks that the table has
 *       one APPEND snapshot per commit (compactions add COMPACT snapshots) and reports the
 *       snapshot count ({@code snapshots}).
 *   <li>{@code read} / {@code filter}: the catalog and table are opened ({@code open_s}, not
 *       timed), then {@code seconds} covers {@code newReadBuilder()} (with {@code id < 1000}
 *       as a Paimon predicate for {@code filter}), {@code newScan().plan()} ({@code plan_s}),
 *       and reading every split through one {@code RecordReader} of {@code newRead()} ({@code
 *       executeFilter()} for {@code filter}, so the rows are exact, not just the files and
 *       row groups the predicate skips) into memory: each row is copied into a {@code
 *       BinaryRow} (Paimon's compact row format; the reader reuses its row objects) kept in a
 *       list, the Java counterpart of the other engines' in-memory Arrow batches. {@code rows},
 *       {@code sum_v_int} and {@code distinct_ids} are computed afterwards, untimed.
 * </ul>
 *
 * <p>Warm-up: the JVM first runs the phase {@code --warmup} times (default 2), then times it
 * {@code --iterations} times (default 1) and reports the median iteration (the lower middle
 * one for an even count). Warm-up and all but the last timed write go into scratch warehouses
 * next to {@code --wh} ({@code W.warmup-N}, {@code W.iter-N}) that are deleted right away, so
 * the last timed write leaves its table at {@code --wh} for the other engines to read; reads
 * re-read the same table. Every iteration opens a fresh catalog (no catalog, table or manifest
 * cache carries over; the OS page cache and the JIT do), and {@code System.gc()} runs before
 * each iteration, outside the timers.
 *
 * <p>Prints one JSON line on stdout, like strata-bench and peers.py: {@code engine}
 * ("java-paimon"), {@code phase}, {@code table}, {@code seconds} (timed in-JVM work only),
 * {@code rows}, {@code cpu_s} (process CPU over the timed region, all threads, so JIT and GC
 * threads too), {@code per_commit_s} or {@code plan_s} / {@code open_s} / {@code splits} /
 * {@code files} / {@code sum_v_int} / {@code distinct_ids}, plus {@code jvm_start_s} (process
 * start to {@code main}), {@code warmup}, {@code warmup_s} (wall time of all warm-up
 * iterations, set-up included), {@code warmup_iter_s} (the timed region of each warm-up
 * iteration; the first is the cold figure), {@code cold_s} (the first iteration's timed region),
 * {@code iterations}, {@code iter_s}, {@code process_s} (process age at the end) and {@code
 * peak_rss_mb} (VmHWM of /proc/self/status at the end: the whole JVM, warm-ups and input
 * included). Everything else Paimon or the JVM prints goes to stderr.
 */
public final class JavaPeer {
    static final String ENGINE = "java-paimon";
    static final String DATABASE = "bench";
    static final long FILTER_BOUND = 1000L;

    private JavaPeer() {}

    // ---- arguments --------------------------------------------------------------------------

    static final class Args {
        String phase;
        String table = "append";
        String wh;
        String data;
        String label;
        int warmup = 2;
        int iterations = 1;
        /** Table options set at create time ({@code --option K=V}, in order; the last wins). */
        Map<String, String> options = new LinkedHashMap<>();
    }

    static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String s = argv[i];
            if (!s.startsWith("--")) {
                if (a.phase != null) {
                    throw new IllegalArgumentException("unexpected argument " + s);
                }
                a.phase = s;
                continue;
            }
            if (i + 1 >= argv.length) {
                throw new IllegalArgumentException(s + " needs a value");
            }
            String v = argv[++i];
            switch (s) {
                case "--table": a.table = v; break;
                case "--wh": a.wh = v; break;
                case "--data": a.data = v; break;
                case "--label": a.label = v; break;
                case "--warmup": a.warmup = Integer.parseInt(v); break;
                case "--iterations": a.iterations = Integer.parseInt(v); break;
                case "--option": {
                    int eq = v.indexOf('=');
                    if (eq <= 0 || v.substring(0, eq).trim().isEmpty()) {
                        throw new IllegalArgumentException("--option " + v + ": expected K=V (a table option, e.g."
                                + " changelog-producer=lookup)");
                    }
                    a.options.put(v.substring(0, eq).trim(), v.substring(eq + 1).trim());
                    break;
                }
                default: throw new IllegalArgumentException("unknown option " + s);
            }
        }
        if (a.phase == null || !List.of("write", "read", "filter").contains(a.phase)) {
            throw new IllegalArgumentException("phase must be write, read or filter (got " + a.phase + ")");
        }
        if (!a.table.equals("append") && !a.table.equals("pk")) {
            throw new IllegalArgumentException("--table must be append or pk (got " + a.table + ")");
        }
        if (a.wh == null) {
            throw new IllegalArgumentException("--wh is required");
        }
        if (a.phase.equals("write") && a.data == null) {
            throw new IllegalArgumentException("write needs --data");
        }
        if (!a.options.isEmpty() && !a.phase.equals("write")) {
            throw new IllegalArgumentException("--option sets table options at create time: write only (got "
                    + a.phase + " with --option " + a.options + ")");
        }
        if (a.warmup < 0 || a.iterations < 1) {
            throw new IllegalArgumentException("--warmup must be >= 0 and --iterations >= 1");
        }
        a.wh = new File(a.wh).getAbsolutePath();
        return a;
    }

    public static void main(String[] argv) throws Exception {
        double jvmStart = processAge();
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout carries the one JSON line only
        Args a;
        try {
            a = parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("JavaPeer: " + e.getMessage());
            System.err.println("usage: JavaPeer write|read|filter --wh W [--data DIR] [--table append|pk]"
                    + " [--option K=V]... [--warmup N] [--iterations N] [--label L]");
            System.exit(2);
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("engine", ENGINE);
        out.put("phase", a.phase);
        out.put("table", a.table);
        Map<String, Object> res = a.phase.equals("write") ? write(a) : read(a, a.phase.equals("filter"));
        out.putAll(res);
        out.put("jvm_start_s", round(jvmStart, 3));
        out.put("paimon", paimonVersion());
        out.put("java", System.getProperty("java.version"));
        out.put("process_s", round(processAge(), 3));
        out.put("peak_rss_mb", vmHwmMb());
        if (a.label != null) {
            out.put("data", a.label);
        }
        stdout.println(toJson(out));
        stdout.flush();
        // Paimon may leave non-daemon executor threads behind.
        System.exit(0);
    }

    // ---- the table ----------------------------------------------------------------------------

    static final String[] NAMES = {"id", "v_long", "v_double", "v_str", "v_int"};

    static RowType inputType() {
        return RowType.of(new DataType[] {DataTypes.BIGINT().notNull(), DataTypes.BIGINT(), DataTypes.DOUBLE(),
                DataTypes.STRING(), DataTypes.INT()}, NAMES);
    }

    static Identifier identifier(String table) {
        return Identifier.create(DATABASE, table.equals("pk") ? "pk_t" : "append_t");
    }

    static Schema schema(String table, Map<String, String> options) {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v_long", DataTypes.BIGINT())
                .column("v_double", DataTypes.DOUBLE())
                .column("v_str", DataTypes.STRING())
                .column("v_int", DataTypes.INT());
        if (table.equals("pk")) {
            b.primaryKey("id");
            b.option("bucket", "1");
        } else {
            b.option("bucket", "-1");
        }
        options.forEach(b::option);
        return b.build();
    }

    static Catalog catalog(String wh) {
        Options o = new Options();
        o.set("warehouse", wh);
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    // ---- write ------------------------------------------------------------------------------

    /** One commit file in memory as typed columns (null bit sets only for columns with nulls). */
    static final class Commit {
        final int n;
        final long[] id;
        final long[] vLong;
        final double[] vDouble;
        final byte[][] vStr;
        final int[] vInt;
        BitSet nullLong;
        BitSet nullDouble;
        BitSet nullInt;

        Commit(int n) {
            this.n = n;
            id = new long[n];
            vLong = new long[n];
            vDouble = new double[n];
            vStr = new byte[n][];
            vInt = new int[n];
        }

        static BitSet set(BitSet b, int i) {
            BitSet out = b == null ? new BitSet() : b;
            out.set(i);
            return out;
        }

        GenericRow row(int i) {
            return GenericRow.of(
                    id[i],
                    nullLong != null && nullLong.get(i) ? null : (Object) vLong[i],
                    nullDouble != null && nullDouble.get(i) ? null : (Object) vDouble[i],
                    vStr[i] == null ? null : BinaryString.fromBytes(vStr[i]),
                    nullInt != null && nullInt.get(i) ? null : (Object) vInt[i]);
        }
    }

    /** The commit files named in DIR/expected.json, in order. */
    static List<String> commitFiles(String dataDir) throws IOException {
        String text = Files.readString(Paths.get(dataDir, "expected.json"));
        Matcher m = java.util.regex.Pattern.compile("\"files\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(text);
        if (!m.find()) {
            throw new IOException(dataDir + "/expected.json has no \"files\" list");
        }
        List<String> out = new ArrayList<>();
        Matcher s = java.util.regex.Pattern.compile("\"([^\"]+)\"").matcher(m.group(1));
        while (s.find()) {
            out.add(Paths.get(dataDir, s.group(1)).toString());
        }
        if (out.isEmpty()) {
            throw new IOException(dataDir + "/expected.json lists no files");
        }
        return out;
    }

    /** Reads one generated Parquet file with Paimon's bundled Parquet reader. */
    static Commit loadCommit(String file) throws IOException {
        RowType type = inputType();
        FormatReaderFactory f = FileFormat.fromIdentifier("parquet", new Options())
                .createReaderFactory(type, type, new ArrayList<>());
        FileIO io = LocalFileIO.create();
        Path p = new Path(file);
        long size = io.getFileSize(p);
        int cap = 1 << 16;
        long[] id = new long[cap];
        long[] vLong = new long[cap];
        double[] vDouble = new double[cap];
        byte[][] vStr = new byte[cap][];
        int[] vInt = new int[cap];
        BitSet nl = null, nd = null, ni = null;
        int n = 0;
        try (RecordReader<InternalRow> r = f.createReader(new FormatReaderContext(io, p, size))) {
            RecordReader.RecordIterator<InternalRow> it;
            while ((it = r.readBatch()) != null) {
                InternalRow row;
                while ((row = it.next()) != null) {
                    if (n == cap) {
                        cap *= 2;
                        id = Arrays.copyOf(id, cap);
                        vLong = Arrays.copyOf(vLong, cap);
                        vDouble = Arrays.copyOf(vDouble, cap);
                        vStr = Arrays.copyOf(vStr, cap);
                        vInt = Arrays.copyOf(vInt, cap);
                    }
                    if (row.isNullAt(0)) {
                        throw new IOException(file + ": null id in row " + n);
                    }
                    id[n] = row.getLong(0);
                    if (row.isNullAt(1)) {
                        nl = Commit.set(nl, n);
                    } else {
                        vLong[n] = row.getLong(1);
                    }
                    if (row.isNullAt(2)) {
                        nd = Commit.set(nd, n);
                    } else {
                        vDouble[n] = row.getDouble(2);
                    }
                    vStr[n] = row.isNullAt(3) ? null : row.getString(3).toBytes();
                    if (row.isNullAt(4)) {
                        ni = Commit.set(ni, n);
                    } else {
                        vInt[n] = row.getInt(4);
                    }
                    n++;
                }
                it.releaseBatch();
            }
        }
        Commit c = new Commit(n);
        System.arraycopy(id, 0, c.id, 0, n);
        System.arraycopy(vLong, 0, c.vLong, 0, n);
        System.arraycopy(vDouble, 0, c.vDouble, 0, n);
        System.arraycopy(vStr, 0, c.vStr, 0, n);
        System.arraycopy(vInt, 0, c.vInt, 0, n);
        c.nullLong = nl;
        c.nullDouble = nd;
        c.nullInt = ni;
        return c;
    }

    /** The result of one write iteration. */
    static final class WriteRun {
        double seconds;
        double cpu;
        List<Double> perCommit = new ArrayList<>();
        long snapshots;
        boolean ioManager;
    }

    /**
     * Creates the table in {@code wh} with the extra {@code options} (not timed) and writes every
     * commit, one commit each. Tables that need lookups get an IOManager on a temp directory
     * made and deleted outside the timers.
     */
    static WriteRun writeOnce(String wh, String table, Map<String, String> options, List<Commit> commits)
            throws Exception {
        Identifier id = identifier(table);
        WriteRun run = new WriteRun();
        java.nio.file.Path ioDir = null;
        IOManager io = null;
        try (Catalog cat = catalog(wh)) {
            cat.createDatabase(DATABASE, true);
            cat.createTable(id, schema(table, options), false);
            if (CoreOptions.fromMap(((FileStoreTable) cat.getTable(id)).options()).needLookup()) {
                ioDir = Files.createTempDirectory("strata-bench-java-io-");
                io = IOManager.create(ioDir.toString());
                run.ioManager = true;
            }
            long cpu0 = cpuNanos();
            for (Commit c : commits) {
                long t0 = System.nanoTime();
                Table t = cat.getTable(id);
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite(); BatchTableCommit commit = wb.newCommit()) {
                    if (io != null) {
                        w.withIOManager(io);
                    }
                    for (int i = 0; i < c.n; i++) {
                        w.write(c.row(i));
                    }
                    commit.commit(w.prepareCommit());
                }
                run.perCommit.add((System.nanoTime() - t0) / 1e9);
            }
            run.cpu = (cpuNanos() - cpu0) / 1e9;
            run.seconds = run.perCommit.stream().mapToDouble(Double::doubleValue).sum();
            // One APPEND snapshot per commit; compactions (universal, lookup, DV) add COMPACT ones.
            SnapshotManager sm = ((FileStoreTable) cat.getTable(id)).snapshotManager();
            Long latest = sm.latestSnapshotId();
            long appends = 0;
            for (long s = 1; latest != null && s <= latest; s++) {
                if (sm.snapshot(s).commitKind() == Snapshot.CommitKind.APPEND) {
                    appends++;
                }
            }
            if (appends != commits.size()) {
                throw new IllegalStateException("expected " + commits.size() + " APPEND snapshots after the write, found "
                        + appends + " (latest snapshot " + latest + ")");
            }
            run.snapshots = latest;
        } finally {
            if (io != null) {
                io.close();
            }
            if (ioDir != null) {
                deleteTree(ioDir.toString());
            }
        }
        return run;
    }

    static Map<String, Object> write(Args a) throws Exception {
        long l0 = System.nanoTime();
        List<Commit> commits = new ArrayList<>();
        long rows = 0;
        for (String f : commitFiles(a.data)) {
            Commit c = loadCommit(f);
            commits.add(c);
            rows += c.n;
        }
        double load = (System.nanoTime() - l0) / 1e9;
        if (new File(a.wh).exists()) {
            throw new IllegalStateException(a.wh + " exists already (the write phase creates the table)");
        }

        List<Double> warm = new ArrayList<>();
        long w0 = System.nanoTime();
        for (int i = 1; i <= a.warmup; i++) {
            String scratch = a.wh + ".warmup-" + i;
            deleteTree(scratch);
            System.gc();
            warm.add(writeOnce(scratch, a.table, a.options, commits).seconds);
            deleteTree(scratch);
        }
        double warmupS = (System.nanoTime() - w0) / 1e9;

        List<WriteRun> timed = new ArrayList<>();
        for (int i = 1; i <= a.iterations; i++) {
            String target = i == a.iterations ? a.wh : a.wh + ".iter-" + i;
            deleteTree(target.equals(a.wh) ? null : target);
            System.gc();
            timed.add(writeOnce(target, a.table, a.options, commits));
            if (!target.equals(a.wh)) {
                deleteTree(target);
            }
        }
        WriteRun med = median(timed, r -> r.seconds);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seconds", round(med.seconds, 4));
        out.put("rows", rows);
        List<Object> pc = new ArrayList<>();
        for (double s : med.perCommit) {
            pc.add(round(s, 4));
        }
        out.put("per_commit_s", pc);
        out.put("cpu_s", round(med.cpu, 3));
        out.put("load_s", round(load, 3));
        out.put("snapshots", med.snapshots);
        out.put("io_manager", med.ioManager);
        if (!a.options.isEmpty()) {
            List<Object> opts = new ArrayList<>();
            a.options.forEach((k, v) -> opts.add(k + "=" + v));
            out.put("options", opts);
        }
        addWarmup(out, a, warm, warmupS, timed.stream().map(r -> r.seconds).collect(java.util.stream.Collectors.toList()));
        return out;
    }

    // ---- read ---------------------------------------------------------------------------------

    /** The result of one read iteration. */
    static final class ReadRun {
        double seconds;
        double plan;
        double open;
        double cpu;
        int splits;
        long files;
        long rows;
        long sumVInt;
        long distinctIds;
    }

    static ReadRun readOnce(String wh, String table, boolean filtered) throws Exception {
        ReadRun run = new ReadRun();
        long tOpen = System.nanoTime();
        try (Catalog cat = catalog(wh)) {
            Table t = cat.getTable(identifier(table));
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            run.open = (t0 - tOpen) / 1e9;
            ReadBuilder rb = t.newReadBuilder();
            if (filtered) {
                rb = rb.withFilter(new PredicateBuilder(t.rowType()).lessThan(t.rowType().getFieldIndex("id"),
                        FILTER_BOUND));
            }
            List<Split> splits = rb.newScan().plan().splits();
            run.plan = (System.nanoTime() - t0) / 1e9;
            TableRead read = rb.newRead();
            if (filtered) {
                read = read.executeFilter();
            }
            InternalRowSerializer ser = new InternalRowSerializer(rb.readType());
            List<InternalRow> rows = new ArrayList<>();
            try (RecordReader<InternalRow> r = read.createReader(splits)) {
                r.forEachRemaining(row -> rows.add(ser.toBinaryRow(row).copy()));
            }
            run.seconds = (System.nanoTime() - t0) / 1e9;
            run.cpu = (cpuNanos() - cpu0) / 1e9;

            run.splits = splits.size();
            for (Split s : splits) {
                if (s instanceof DataSplit) {
                    run.files += ((DataSplit) s).dataFiles().size();
                }
            }
            int idx = rb.readType().getFieldIndex("id");
            int vIdx = rb.readType().getFieldIndex("v_int");
            long[] ids = new long[rows.size()];
            long sum = 0;
            for (int i = 0; i < ids.length; i++) {
                InternalRow row = rows.get(i);
                ids[i] = row.getLong(idx);
                if (!row.isNullAt(vIdx)) {
                    sum += row.getInt(vIdx);
                }
            }
            Arrays.sort(ids);
            long distinct = 0;
            for (int i = 0; i < ids.length; i++) {
                if (i == 0 || ids[i] != ids[i - 1]) {
                    distinct++;
                }
            }
            run.rows = rows.size();
            run.sumVInt = sum;
            run.distinctIds = distinct;
        }
        return run;
    }

    static Map<String, Object> read(Args a, boolean filtered) throws Exception {
        List<Double> warm = new ArrayList<>();
        List<ReadRun> all = new ArrayList<>();
        long w0 = System.nanoTime();
        for (int i = 1; i <= a.warmup; i++) {
            System.gc();
            ReadRun r = readOnce(a.wh, a.table, filtered);
            warm.add(r.seconds);
            all.add(r);
        }
        double warmupS = (System.nanoTime() - w0) / 1e9;
        List<ReadRun> timed = new ArrayList<>();
        for (int i = 1; i <= a.iterations; i++) {
            System.gc();
            timed.add(readOnce(a.wh, a.table, filtered));
        }
        all.addAll(timed);
        for (ReadRun r : all) {
            if (r.rows != all.get(0).rows || r.sumVInt != all.get(0).sumVInt
                    || r.distinctIds != all.get(0).distinctIds) {
                throw new IllegalStateException("iterations disagree: rows/sum/distinct " + r.rows + "/" + r.sumVInt
                        + "/" + r.distinctIds + " vs " + all.get(0).rows + "/" + all.get(0).sumVInt + "/"
                        + all.get(0).distinctIds);
            }
        }
        ReadRun med = median(timed, r -> r.seconds);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seconds", round(med.seconds, 4));
        out.put("plan_s", round(med.plan, 4));
        out.put("open_s", round(med.open, 4));
        out.put("cpu_s", round(med.cpu, 3));
        out.put("splits", med.splits);
        out.put("files", med.files);
        out.put("rows", med.rows);
        out.put("sum_v_int", med.sumVInt);
        out.put("distinct_ids", med.distinctIds);
        addWarmup(out, a, warm, warmupS, timed.stream().map(r -> r.seconds).collect(java.util.stream.Collectors.toList()));
        return out;
    }

    // ---- shared -----------------------------------------------------------------------------

    static void addWarmup(Map<String, Object> out, Args a, List<Double> warm, double warmupS, List<Double> iters) {
        out.put("warmup", a.warmup);
        out.put("warmup_s", round(warmupS, 3));
        out.put("warmup_iter_s", rounded(warm));
        out.put("cold_s", round(warm.isEmpty() ? iters.get(0) : warm.get(0), 4));
        out.put("iterations", a.iterations);
        out.put("iter_s", rounded(iters));
    }

    static <T> T median(List<T> runs, java.util.function.ToDoubleFunction<T> key) {
        List<T> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(key));
        return sorted.get((sorted.size() - 1) / 2);
    }

    static List<Object> rounded(List<Double> xs) {
        List<Object> out = new ArrayList<>();
        for (double x : xs) {
            out.add(round(x, 4));
        }
        return out;
    }

    static double round(double x, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(x * f) / f;
    }

    /** Deletes a directory tree (no-op for null or a missing path). */
    static void deleteTree(String dir) throws IOException {
        if (dir == null || !new File(dir).exists()) {
            return;
        }
        try (var walk = Files.walk(Paths.get(dir))) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /** User + system CPU time of the whole JVM process, in nanoseconds. */
    static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return 0;
    }

    /** Seconds since this process was started (exec), from /proc (10 ms resolution). */
    static double processAge() {
        try {
            String stat = Files.readString(Paths.get("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(f[19]); // field 22, starttime; f[0] is field 3
            double uptime = Double.parseDouble(Files.readString(Paths.get("/proc/uptime")).split(" ")[0]);
            return uptime - startTicks / 100.0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** VmHWM (peak resident set size) of /proc/self/status in MiB, rounded to 0.1. */
    static Object vmHwmMb() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    double kb = Double.parseDouble(line.trim().split("\\s+")[1]);
                    return round(kb / 1024.0, 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return null;
    }

    static String paimonVersion() {
        String v = Table.class.getPackage() == null ? null : Table.class.getPackage().getImplementationVersion();
        if (v == null) {
            String jar = String.valueOf(Table.class.getProtectionDomain().getCodeSource().getLocation());
            Matcher m = java.util.regex.Pattern.compile("-(\\d+\\.\\d+\\.\\d+[^/]*?)\\.jar$").matcher(jar);
            v = m.find() ? m.group(1) : "unknown";
        }
        return v;
    }

    // ---- JSON -------------------------------------------------------------------------------

    static String toJson(Object v) {
        StringBuilder sb = new StringBuilder();
        json(sb, v);
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    static void json(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            sb.append('"');
            for (char ch : ((String) v).toCharArray()) {
                if (ch == '"' || ch == '\\') {
                    sb.append('\\').append(ch);
                } else if (ch < 0x20) {
                    sb.append(String.format("\\u%04x", (int) ch));
                } else {
                    sb.append(ch);
                }
            }
            sb.append('"');
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            sb.append(Double.isFinite(d) ? Double.toString(d) : "null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                json(sb, e.getKey());
                sb.append(": ");
                json(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object x : (List<Object>) v) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                json(sb, x);
            }
            sb.append(']');
        } else {
            json(sb, v.toString());
        }
    }
}
