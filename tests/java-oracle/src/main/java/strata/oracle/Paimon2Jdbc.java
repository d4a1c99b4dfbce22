package strata.oracle;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Java's {@code JdbcCatalog} ({@code metastore=jdbc}) for tests/interop/test_jdbc_catalog.py:
 * every request carries {@code catalogOptions} (uri, warehouse, catalog-key, jdbc.user, ...),
 * which {@link Commands#catalog} opens through {@code CatalogFactory}. The common commands
 * ({@code createTable}, {@code write}, {@code read}, {@code dropTable}) take the same options; this
 * class adds the catalog listings, a raw SQL query of the catalog's database (its rows: {@code
 * paimon_tables}, {@code paimon_database_properties}, {@code paimon_distributed_locks}) and
 * concurrent writers committing through the catalog's lock.
 */
final class Paimon2Jdbc {
    private Paimon2Jdbc() {}

    static Object listDatabases(Commands c, Map<String, Object> req) throws Exception {
        return c.catalog(req).listDatabases();
    }

    static Object listTables(Commands c, Map<String, Object> req) throws Exception {
        return c.catalog(req).listTables(Commands.str(req, "database"));
    }

    static Object createDatabase(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).createDatabase(Commands.str(req, "database"), true);
        return null;
    }

    static Object dropDatabase(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropDatabase(Commands.str(req, "database"), false, true);
        return null;
    }

    /** {@code sql} (a SELECT) on the database of {@code uri}: rows as lists of strings. */
    static Object query(Commands c, Map<String, Object> req) throws Exception {
        Map<String, String> opts = Commands.stringMap(req.get("catalogOptions"));
        Properties props = new Properties();
        if (opts.containsKey("jdbc.user")) {
            props.setProperty("user", opts.get("jdbc.user"));
        }
        if (opts.containsKey("jdbc.password")) {
            props.setProperty("password", opts.get("jdbc.password"));
        }
        List<List<String>> out = new ArrayList<>();
        try (Connection conn = DriverManager.getConnection(opts.get("uri"), props);
                Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery(Commands.str(req, "sql"))) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    row.add(rs.getString(i));
                }
                out.add(row);
            }
        }
        return out;
    }

    /**
     * {@code threads} writers, each making {@code commits} batch commits of one row {@code (id)}
     * (ids {@code base + thread * 1000 + i}) to the BIGINT-column table {@code table}, each commit
     * through the catalog (its lock when {@code lock.enabled}). Returns the number of commits.
     */
    static Object concurrentCommits(Commands c, Map<String, Object> req) throws Exception {
        int threads = Commands.optLong(req, "threads").intValue();
        int commits = Commands.optLong(req, "commits").intValue();
        long base = Commands.optLong(req, "base");
        Catalog catalog = c.catalog(req);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < commits; i++) {
                        FileStoreTable table = (FileStoreTable) catalog.getTable(Commands.ident(req));
                        BatchWriteBuilder wb = table.newBatchWriteBuilder();
                        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                            w.write(GenericRow.of(base + thread * 1000L + i));
                            cm.commit(w.prepareCommit());
                        }
                    }
                    return commits;
                }));
            }
            int n = 0;
            for (Future<Integer> f : done) {
                n += f.get();
            }
            return n;
        } finally {
            pool.shutdownNow();
        }
    }
}
