package strata.oracle;

import org.apache.paimon.PagedList;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.ConsumerInfo;
import org.apache.paimon.table.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Java Paimon 2.0's {@code RESTCatalog} and its tables on the version calls of issue 32's
 * round 2: consumers ({@code listConsumersPaged}, {@code resetConsumer}), {@code
 * rollbackSchema}, and a table's own branch methods, which Java routes through the catalog when
 * it {@code supportsVersionManagement} ({@code AbstractFileStoreTable.branchManager} → {@code
 * CatalogBranchManager}). Every request carries {@code catalogOptions} and {@code table}.
 */
final class Paimon2RestVersions {
    private Paimon2RestVersions() {}

    /** Every page of {@code listConsumersPaged(table, maxResults, token)}: {@code [{consumerId, nextSnapshot}]}. */
    static Object consumers(Commands c, Map<String, Object> req) throws Exception {
        Catalog catalog = c.catalog(req);
        Identifier id = Commands.ident(req);
        Long maxLong = Commands.optLong(req, "maxResults");
        Integer max = maxLong == null ? null : maxLong.intValue();
        List<Object> out = new ArrayList<>();
        String token = null;
        do {
            PagedList<ConsumerInfo> page = catalog.listConsumersPaged(id, max, token);
            for (ConsumerInfo i : page.getElements()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("consumerId", i.getConsumerId());
                m.put("nextSnapshot", i.getNextSnapshot());
                out.add(m);
            }
            token = page.getNextPageToken();
        } while (token != null);
        return out;
    }

    /** {@code resetConsumer(table, consumerId, nextSnapshotId)} ({@code next} absent: delete). */
    static Object resetConsumer(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).resetConsumer(Commands.ident(req), Commands.str(req, "consumerId"),
                Commands.optLong(req, "next"));
        return null;
    }

    /** {@code rollbackSchema(table, schemaId)}. */
    static Object rollbackSchema(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).rollbackSchema(Commands.ident(req), Commands.optLong(req, "schemaId"));
        return null;
    }

    /**
     * A table's own branch methods ({@code Table.createBranch / fastForward / deleteBranch}),
     * which go through the catalog for a REST table: {@code op} = create (with {@code tag}
     * optional, {@code ignoreIfExists}), forward, delete; returns the branches the table's
     * branch manager then lists.
     */
    static Object tableBranch(Commands c, Map<String, Object> req) throws Exception {
        Table table = c.catalog(req).getTable(Commands.ident(req));
        String branch = Commands.str(req, "branch");
        switch (Commands.str(req, "op")) {
            case "create":
                table.createBranch(branch, (String) req.get("tag"), Boolean.TRUE.equals(req.get("ignoreIfExists")));
                break;
            case "forward":
                table.fastForward(branch);
                break;
            case "delete":
                table.deleteBranch(branch);
                break;
            default:
                throw new IllegalArgumentException("unknown op " + req.get("op"));
        }
        List<String> out = new ArrayList<>(((org.apache.paimon.table.FileStoreTable) table).branchManager().branches());
        java.util.Collections.sort(out);
        return new ArrayList<Object>(out);
    }
}
