package strata.oracle;

import org.apache.paimon.table.FileStoreTable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Branches (issue 31 item 3) through Java's {@code FileSystemBranchManager}: create (empty or
 * from a tag), delete, fast-forward and list. Reads and writes of a branch go through the
 * ordinary {@code read} / {@code write} commands with the table {@code db.t$branch_NAME}.
 */
final class Branches {
    private Branches() {}

    /** {@code Table.createBranch(branch)} (empty), or {@code createBranch(branch, tag)}. */
    static Object create(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        Object tag = req.get("tag");
        if (tag == null) {
            t.createBranch(Commands.str(req, "branch"));
        } else {
            t.createBranch(Commands.str(req, "branch"), (String) tag);
        }
        return null;
    }

    /** {@code Table.deleteBranch(branch)}. */
    static Object delete(Commands c, Map<String, Object> req) throws Exception {
        c.table(req).deleteBranch(Commands.str(req, "branch"));
        return null;
    }

    /** {@code Table.fastForward(branch)}: the table's branch takes the branch's history. */
    static Object fastForward(Commands c, Map<String, Object> req) throws Exception {
        c.table(req).fastForward(Commands.str(req, "branch"));
        return null;
    }

    /** The branch names, sorted. */
    static Object list(Commands c, Map<String, Object> req) throws Exception {
        List<String> names = new ArrayList<>(c.table(req).branchManager().branches());
        Collections.sort(names);
        return new ArrayList<Object>(names);
    }
}
