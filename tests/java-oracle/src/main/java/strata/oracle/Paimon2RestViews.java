package strata.oracle;

import org.apache.paimon.PagedList;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.function.Function;
import org.apache.paimon.function.FunctionChange;
import org.apache.paimon.function.FunctionDefinition;
import org.apache.paimon.function.FunctionImpl;
import org.apache.paimon.rest.requests.CreateFunctionRequest;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.type.TypeReference;
import org.apache.paimon.types.DataField;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.view.View;
import org.apache.paimon.view.ViewChange;
import org.apache.paimon.view.ViewImpl;
import org.apache.paimon.view.ViewSchema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Java Paimon 2.0's {@code RESTCatalog} as a client of views and functions (issue 32): {@code
 * createView}, {@code getView}, {@code alterView}, {@code listViews*}, {@code renameView}, {@code
 * dropView} and the same for functions, against whatever REST server the request's {@code
 * catalogOptions} name ({@code strata serve} or Java's {@code RESTCatalogServer}).
 *
 * <p>Definitions and changes travel in Paimon's own JSON: the request's {@code schema} is a
 * {@code ViewSchema}, {@code changes} a list of {@code ViewChange} / {@code FunctionChange},
 * {@code definitions} a map of {@code FunctionDefinition}, {@code inputParams} / {@code
 * returnParams} lists of {@code DataField}, all read with Paimon's {@code JsonSerdeUtil} (its
 * Jackson annotations), and answers are written back the same way, so a test compares Java's
 * view of the object with what strata sent or stored. Paged listings return every page in order
 * ({@code [[names of page 1], [page 2], …]}) so paging itself can be asserted.
 *
 * <p>V1 wrote the commands down to the marker below; V2 adds its own below it.
 */
final class Paimon2RestViews {
    private Paimon2RestViews() {}

    private static Identifier id(Map<String, Object> req, String key) {
        return Identifier.fromString(Commands.str(req, key));
    }

    private static boolean flag(Map<String, Object> req, String key) {
        return Boolean.TRUE.equals(req.get(key));
    }

    private static Integer maxResults(Map<String, Object> req) {
        Long max = Commands.optLong(req, "maxResults");
        return max == null ? null : max.intValue();
    }

    private static <T> T fromJson(Object v, TypeReference<T> type) {
        return JsonSerdeUtil.fromJson(Json.write(v), type);
    }

    private static Object toJson(Object v) {
        return Json.parse(JsonSerdeUtil.toJson(v));
    }

    /** Every page of a paged listing: {@code [[elements of page 1], …]}. */
    interface Pager<T> {
        PagedList<T> page(String token) throws Exception;
    }

    private static <T> List<Object> pages(Pager<T> pager, java.util.function.Function<T, Object> f)
            throws Exception {
        List<Object> out = new ArrayList<>();
        String token = null;
        do {
            PagedList<T> page = pager.page(token);
            List<Object> elements = new ArrayList<>();
            for (T e : page.getElements()) {
                elements.add(f.apply(e));
            }
            out.add(elements);
            token = page.getNextPageToken();
        } while (token != null);
        return out;
    }

    // ---- views (V1) -------------------------------------------------------------------------

    /** {@code createView(view, ViewImpl(schema…), ignoreIfExists)}; {@code schema} is a ViewSchema. */
    static Object createView(Commands c, Map<String, Object> req) throws Exception {
        Identifier ident = id(req, "view");
        ViewSchema s = fromJson(req.get("schema"), new TypeReference<ViewSchema>() {});
        View view = new ViewImpl(ident, s.fields(), s.query(), s.dialects(), s.comment(), s.options());
        c.catalog(req).createView(ident, view, flag(req, "ignoreIfExists"));
        return null;
    }

    private static Map<String, Object> view(View v) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", v.name());
        out.put("fullName", v.fullName());
        out.put("fields", toJson(v.rowType().getFields()));
        out.put("query", v.query());
        out.put("dialects", new TreeMap<String, Object>(v.dialects()));
        out.put("comment", v.comment().orElse(null));
        // The view's options with the server's audit entries (RESTCatalog.toView puts them in).
        out.put("options", new TreeMap<String, Object>(v.options()));
        return out;
    }

    /** {@code getView(view)}: {@code {name, fullName, fields, query, dialects, comment, options}}. */
    static Object getView(Commands c, Map<String, Object> req) throws Exception {
        return view(c.catalog(req).getView(id(req, "view")));
    }

    /** {@code getView(view).query(dialect)}: the dialect's query, else the default one. */
    static Object viewQuery(Commands c, Map<String, Object> req) throws Exception {
        return c.catalog(req).getView(id(req, "view")).query(Commands.str(req, "dialect"));
    }

    /** {@code alterView(view, changes, ignoreIfNotExists)}; {@code changes} are ViewChanges. */
    static Object alterView(Commands c, Map<String, Object> req) throws Exception {
        List<ViewChange> changes = fromJson(req.get("changes"), new TypeReference<List<ViewChange>>() {});
        c.catalog(req).alterView(id(req, "view"), changes, flag(req, "ignoreIfNotExists"));
        return null;
    }

    /** {@code listViews(database)}, sorted. */
    static Object views(Commands c, Map<String, Object> req) throws Exception {
        List<String> out = new ArrayList<>(c.catalog(req).listViews(Commands.str(req, "database")));
        Collections.sort(out);
        return new ArrayList<Object>(out);
    }

    /** Every page of {@code listViewsPaged(database, maxResults, token, pattern)}. */
    static Object viewsPaged(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String db = Commands.str(req, "database");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listViewsPaged(db, maxResults(req), t, pattern), n -> n);
    }

    /** Every page of {@code listViewDetailsPaged(database, maxResults, token, pattern)}, as getView. */
    static Object viewDetails(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String db = Commands.str(req, "database");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listViewDetailsPaged(db, maxResults(req), t, pattern), Paimon2RestViews::view);
    }

    /** Every page of {@code listViewsPagedGlobally(dbPattern, pattern, maxResults, token)}: "db.v". */
    static Object viewsGlobally(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String dbPattern = (String) req.get("databasePattern");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listViewsPagedGlobally(dbPattern, pattern, maxResults(req), t),
                Identifier::getFullName);
    }

    /** {@code renameView(view, to, ignoreIfNotExists)}. */
    static Object renameView(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).renameView(id(req, "view"), id(req, "to"), flag(req, "ignoreIfNotExists"));
        return null;
    }

    /** {@code dropView(view, ignoreIfNotExists)}. */
    static Object dropView(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropView(id(req, "view"), flag(req, "ignoreIfNotExists"));
        return null;
    }

    // ---- functions (V1) ---------------------------------------------------------------------

    /**
     * {@code createFunction(function, FunctionImpl(…), ignoreIfExists)} from {@code inputParams},
     * {@code returnParams} (DataField lists or absent), {@code deterministic}, {@code
     * definitions} (dialect → FunctionDefinition), {@code comment}, {@code options}.
     */
    static Object createFunction(Commands c, Map<String, Object> req) throws Exception {
        Identifier ident = id(req, "function");
        TypeReference<List<DataField>> fields = new TypeReference<List<DataField>>() {};
        List<DataField> in = req.get("inputParams") == null ? null : fromJson(req.get("inputParams"), fields);
        List<DataField> ret = req.get("returnParams") == null ? null : fromJson(req.get("returnParams"), fields);
        Map<String, FunctionDefinition> defs = req.get("definitions") == null
                ? new LinkedHashMap<>()
                : fromJson(req.get("definitions"), new TypeReference<Map<String, FunctionDefinition>>() {});
        Function f = new FunctionImpl(ident, in, ret, flag(req, "deterministic"), defs,
                (String) req.get("comment"), Commands.stringMap(req.get("options")));
        c.catalog(req).createFunction(ident, f, flag(req, "ignoreIfExists"));
        return null;
    }

    /** A function as Paimon's {@code CreateFunctionRequest} JSON plus {@code fullName}. */
    @SuppressWarnings("unchecked")
    private static Object function(Function f) {
        Map<String, Object> out = (Map<String, Object>) toJson(new CreateFunctionRequest(f));
        out.put("fullName", f.fullName());
        return out;
    }

    /** {@code getFunction(function)}: name, inputParams, returnParams, deterministic, definitions, … */
    static Object getFunction(Commands c, Map<String, Object> req) throws Exception {
        return function(c.catalog(req).getFunction(id(req, "function")));
    }

    /** {@code alterFunction(function, changes, ignoreIfNotExists)}; {@code changes} are FunctionChanges. */
    static Object alterFunction(Commands c, Map<String, Object> req) throws Exception {
        List<FunctionChange> changes =
                fromJson(req.get("changes"), new TypeReference<List<FunctionChange>>() {});
        c.catalog(req).alterFunction(id(req, "function"), changes, flag(req, "ignoreIfNotExists"));
        return null;
    }

    /** {@code listFunctions(database)}, sorted. */
    static Object functions(Commands c, Map<String, Object> req) throws Exception {
        List<String> out = new ArrayList<>(c.catalog(req).listFunctions(Commands.str(req, "database")));
        Collections.sort(out);
        return new ArrayList<Object>(out);
    }

    /** Every page of {@code listFunctionsPaged(database, maxResults, token, pattern)}. */
    static Object functionsPaged(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String db = Commands.str(req, "database");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listFunctionsPaged(db, maxResults(req), t, pattern), n -> n);
    }

    /** Every page of {@code listFunctionDetailsPaged(database, maxResults, token, pattern)}. */
    static Object functionDetails(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String db = Commands.str(req, "database");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listFunctionDetailsPaged(db, maxResults(req), t, pattern),
                Paimon2RestViews::function);
    }

    /** Every page of {@code listFunctionsPagedGlobally(dbPattern, pattern, maxResults, token)}. */
    static Object functionsGlobally(Commands c, Map<String, Object> req) throws Exception {
        Catalog cat = c.catalog(req);
        String dbPattern = (String) req.get("databasePattern");
        String pattern = (String) req.get("pattern");
        return pages(t -> cat.listFunctionsPagedGlobally(dbPattern, pattern, maxResults(req), t),
                Identifier::getFullName);
    }

    /** {@code dropFunction(function, ignoreIfNotExists)}. */
    static Object dropFunction(Commands c, Map<String, Object> req) throws Exception {
        c.catalog(req).dropFunction(id(req, "function"), flag(req, "ignoreIfNotExists"));
        return null;
    }

    // ---- end of V1's commands; V2's commands below ------------------------------------------
}
