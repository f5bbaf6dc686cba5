import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;

/**
 * olsdk's Spark listener: runs inside the driver JVM, forwards SQL executions to Python.
 *
 * Task and stage events never leave the JVM. For each SQL execution the plan is read
 * here, in Java, into one JSON text (what is written, what is read, how columns flow),
 * and handed to a Python callback (a java.util.function.BiConsumer: kind, JSON) in one
 * py4j call. Accessors are looked up by name (reflection) so that plan classes missing
 * from a Spark version cost a field, never the listener. Nothing here may throw into
 * Spark's listener bus.
 */
public class OlsdkLineageBridge extends SparkListener {
    private static final int STACK_LIMIT = 20000;
    private static final int SQL_LIMIT = 5000;
    private Object sink;
    private volatile boolean forwardReads = false;
    // executions Python heard of at start: TRUE with their plan, FALSE without (it came too late)
    private final ConcurrentHashMap described = new ConcurrentHashMap();
    // root executions with nested executions Python heard of: their end closes the group
    private final ConcurrentHashMap groups = new ConcurrentHashMap();

    // time spent on the listener thread per forwarded SQL event (plan reading + py4j call)
    private final long[] costNanos = new long[4096];
    private long costCount = 0;

    public void setSink(Object sink) { this.sink = sink; }

    /** The recorded callback costs in nanoseconds, comma-separated (the latest 4096). */
    public synchronized String costs() {
        StringBuilder out = new StringBuilder();
        long n = Math.min(costCount, costNanos.length);
        for (int i = 0; i < n; i++) {
            if (i > 0) out.append(',');
            out.append(costNanos[i]);
        }
        return out.toString();
    }

    private synchronized void record(long started) {
        costNanos[(int) (costCount % costNanos.length)] = System.nanoTime() - started;
        costCount++;
    }

    /** The files an RDD's lineage reads (Hadoop input formats, file scans), as a JSON list. */
    public String describeRddJson(Object rdd) {
        List paths = new ArrayList();
        List stack = new ArrayList();
        Map seen = new java.util.IdentityHashMap();
        stack.add(rdd);
        while (!stack.isEmpty()) {
            Object node = stack.remove(stack.size() - 1);
            if (node == null || seen.containsKey(node)) continue;
            seen.put(node, Boolean.TRUE);
            String kind = simpleName(node);
            if (kind.equals("HadoopRDD") || kind.equals("NewHadoopRDD")) {
                Object conf = callDeclared(node, kind.equals("HadoopRDD") ? "getJobConf" : "getConf");
                Object dirs = callWith(conf, "get", "mapreduce.input.fileinputformat.inputdir");
                if (dirs != null) {
                    String[] parts = String.valueOf(dirs).split(",");
                    for (int i = 0; i < parts.length; i++) if (!paths.contains(parts[i])) paths.add(parts[i]);
                }
            } else if (kind.equals("FileScanRDD")) {
                for (Object partition : list(call(node, "filePartitions"))) {
                    for (Object file : list(call(partition, "files"))) {
                        Object path = call(call(file, "filePath"), "toPath");
                        Object parent = call(path, "getParent");
                        String where = str(parent != null ? parent : path);
                        if (!paths.contains(where)) paths.add(where);
                    }
                }
            }
            for (Object dep : list(call(node, "dependencies"))) stack.add(call(dep, "rdd"));
        }
        return toJson(paths);
    }

    /** A no-argument method, also a protected one (``HadoopRDD.getJobConf``). */
    static Object callDeclared(Object target, String name) {
        for (Class cls = target == null ? null : target.getClass(); cls != null; cls = cls.getSuperclass()) {
            try {
                java.lang.reflect.Method m = cls.getDeclaredMethod(name, new Class[0]);
                m.setAccessible(true);
                return m.invoke(target, new Object[0]);
            } catch (Throwable error) {
                // not declared here: its superclass, then
            }
        }
        return null;
    }

    /** ``describePlan`` as JSON text, for Python callers (``olsdk.spark.datasets``). */
    public String describePlanJson(Object plan, Object session) {
        return toJson(describePlan(plan, session));
    }

    public void setForwardReads(boolean value) { this.forwardReads = value; }

    private void send(String kind, Object payload) {
        Object target = sink;
        if (target == null) return;
        try {
            ((java.util.function.BiConsumer) target).accept(kind, toJson(payload));
        } catch (Throwable error) {
            // the Python side is gone or failed: nothing to do on the bus thread
        }
    }

    public void onOtherEvent(SparkListenerEvent event) {
        try {
            if (event instanceof SparkListenerSQLExecutionStart) {
                onStart((SparkListenerSQLExecutionStart) event);
            } else if (event instanceof SparkListenerSQLExecutionEnd) {
                onEnd((SparkListenerSQLExecutionEnd) event);
            } else {
                String kind = simpleName(event);
                if (kind.startsWith("Query") && kind.endsWith("Event")) onStreaming(kind, event);
            }
        } catch (Throwable error) {
            Map message = new LinkedHashMap();
            message.put("error", String.valueOf(error));
            send("problem", message);
        }
    }

    /** Structured Streaming's query events, as every session's queries post them on this bus. */
    private void onStreaming(String kind, Object event) {
        Map message = new LinkedHashMap();
        if (kind.equals("QueryStartedEvent")) {
            message.put("id", str(call(event, "id")));
            message.put("runId", str(call(event, "runId")));
            message.put("name", opt(call(event, "name")));
            message.put("timestamp", call(event, "timestamp"));
            Object query = streamingQuery(call(event, "id"));
            if (query != null) message.put("sink", clip(str(call(call(query, "sink"), "toString")), 1000));
            send("streamStarted", message);
        } else if (kind.equals("QueryProgressEvent")) {
            message.put("progress", str(call(call(event, "progress"), "json")));
            send("streamProgress", message);
        } else if (kind.equals("QueryTerminatedEvent")) {
            message.put("id", str(call(event, "id")));
            message.put("runId", str(call(event, "runId")));
            message.put("exception", opt(call(event, "exception")));
            send("streamTerminated", message);
        }
    }

    /** The running StreamExecution of a query id, found through the default session (best effort). */
    private static Object streamingQuery(Object id) {
        try {
            Class cls = Class.forName("org.apache.spark.sql.SparkSession");
            Object session = opt(cls.getMethod("getDefaultSession", new Class[0]).invoke(null, new Object[0]));
            Object query = callWith(call(session, "streams"), "get", id);
            Object execution = call(query, "streamingQuery");
            return execution != null ? execution : query;
        } catch (Throwable error) {
            return null;
        }
    }

    public void onApplicationEnd(SparkListenerApplicationEnd event) {
        Map message = new LinkedHashMap();
        message.put("time", Long.valueOf(event.time()));
        send("appEnd", message);
    }

    private void onStart(SparkListenerSQLExecutionStart event) {
        long started = System.nanoTime();
        long id = event.executionId();
        Map message = new LinkedHashMap();
        message.put("id", Long.valueOf(id));
        Object root = opt(event.rootExecutionId());
        message.put("root", root == null ? Long.valueOf(id) : root);
        message.put("time", Long.valueOf(event.time()));
        QueryExecution qe = SQLExecution.getQueryExecution(id);
        if (qe != null) {
            Map plan = describeExecution(qe);
            if (plan == null) return; // neither a write nor wanted: Python never hears of it
            message.put("plan", plan);
            described.put(Long.valueOf(id), Boolean.TRUE);
        } else {
            // over before this listener got to it: the plan comes with its end
            described.put(Long.valueOf(id), Boolean.FALSE);
        }
        if (root != null && ((Long) root).longValue() != id) groups.put(root, Boolean.TRUE);
        send("start", message);
        record(started);
    }

    private void onEnd(SparkListenerSQLExecutionEnd event) {
        long started = System.nanoTime();
        long id = event.executionId();
        Object state = described.remove(Long.valueOf(id));
        boolean group = groups.remove(Long.valueOf(id)) != null;
        if (state == null && !group && !forwardReads && event.qe() == null) return;
        boolean seen = Boolean.TRUE.equals(state);
        QueryExecution qe = event.qe();
        Map message = new LinkedHashMap();
        message.put("id", Long.valueOf(id));
        message.put("time", Long.valueOf(event.time()));
        Object failure = opt(event.executionFailure());
        if (failure instanceof Throwable) {
            message.put("error", failureOf((Throwable) failure));
        } else {
            Object text = opt(event.errorMessage());
            if (text != null && String.valueOf(text).length() > 0) {
                Map error = new LinkedHashMap();
                error.put("message", String.valueOf(text));
                message.put("error", error);
            }
        }
        if (seen && qe != null) {
            message.put("metrics", writeMetrics(qe));
            Map target = target(call(qe, "analyzed"), qe, true);
            // a command without a query (DDL): what it changed, read again now it is done
            if (target != null && target.remove("_query") == null) message.put("target", target);
        } else if (!seen && qe != null) {
            Map plan = describeExecution(qe);
            if (plan != null) {
                message.put("plan", plan);
                message.put("metrics", writeMetrics(qe));
            }
        }
        if (state == null && !group && message.get("plan") == null) return;
        send("end", message);
        record(started);
    }

    /** Everything lineage needs from one query execution; null when it is neither a write nor wanted. */
    public Map describeExecution(Object qe) {
        if (qe == null) return null;
        Object analyzed = call(qe, "analyzed");
        if (analyzed == null) return null;
        Map target = target(analyzed, qe, false);
        String rootName = str(call(analyzed, "nodeName"));
        boolean streaming = rootName.startsWith("WriteToMicroBatch") || rootName.equals("WriteToDataSourceV2");
        if (target == null && !forwardReads && !streaming) return null;
        Map out = new LinkedHashMap();
        out.put("root", rootName);
        out.put("command", commandName(qe));
        Object streamRun = call(qe, "runId"); // an IncrementalExecution: the micro-batch of a streaming query
        if (streamRun != null) out.put("streamRunId", str(streamRun));
        if (target != null) out.put("target", target);
        Object query = target != null ? target.remove("_query") : analyzed;
        if (streaming && target == null) query = call(analyzed, "query");
        if (query != null) {
            out.put("query", describePlan(query, call(qe, "sparkSession")));
            // the schema of what is written: a CTAS target has none of its own yet
            if (target != null) target.put("schema", str(call(call(query, "schema"), "json")));
        }
        return out;
    }

    // -- the write target of a command --------------------------------------------------

    private Map target(Object cmd, Object qe, boolean atEnd) {
        String name = str(call(cmd, "nodeName"));
        Object session = call(qe, "sparkSession");
        Map t = new LinkedHashMap();
        if (name.equals("InsertIntoHadoopFsRelationCommand")) {
            Map ds = files(str(call(call(cmd, "outputPath"), "toString")));
            Object table = opt(call(cmd, "catalogTable"));
            if (table != null) ds.put("table", catalogTable(table, session));
            t.put("dataset", ds);
            t.put("lifecycle", "Overwrite".equals(str(call(cmd, "mode"))) ? "OVERWRITE" : null);
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("CreateDataSourceTableAsSelectCommand") || name.endsWith("CreateHiveTableAsSelectCommand")) {
            Object table = call(cmd, "table");
            if (table == null) table = call(cmd, "tableDesc");
            t.put("dataset", tableDataset(catalogTable(table, session)));
            t.put("lifecycle", "Overwrite".equals(str(call(cmd, "mode"))) ? "OVERWRITE" : "CREATE");
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("InsertIntoHiveTable")) {
            t.put("dataset", tableDataset(catalogTable(call(cmd, "table"), session)));
            t.put("lifecycle", Boolean.TRUE.equals(call(cmd, "overwrite")) ? "OVERWRITE" : null);
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("CreateDataSourceTableCommand") || name.equals("CreateTableCommand")) {
            Map table = atEnd ? tableByIdentifier(call(call(cmd, "table"), "identifier"), session) : null;
            t.put("dataset", tableDataset(table != null ? table : catalogTable(call(cmd, "table"), session)));
            t.put("lifecycle", "CREATE");
        } else if (name.equals("SaveIntoDataSourceCommand")) {
            Map options = scalaMap(call(cmd, "options"));
            Object url = options.get("url");
            Map ds;
            if (url != null && String.valueOf(url).toLowerCase().startsWith("jdbc:")) {
                ds = new LinkedHashMap();
                ds.put("type", "jdbc");
                ds.put("url", url);
                ds.put("dbtable", options.get("dbtable"));
            } else if (options.get("path") != null) {
                ds = files(String.valueOf(options.get("path")));
            } else {
                ds = new LinkedHashMap();
                ds.put("type", "source");
                ds.put("provider", str(call(call(cmd, "dataSource"), "getClass")));
            }
            t.put("dataset", ds);
            t.put("lifecycle", "Overwrite".equals(str(call(cmd, "mode"))) ? "OVERWRITE" : null);
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("InsertIntoDataSourceDirCommand")) {
            Object location = opt(call(call(cmd, "storage"), "locationUri"));
            if (location == null) return null;
            t.put("dataset", files(String.valueOf(location)));
            t.put("lifecycle", Boolean.TRUE.equals(call(cmd, "overwrite")) ? "OVERWRITE" : null);
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("InsertIntoDataSourceCommand")) {
            t.put("dataset", relation(call(cmd, "logicalRelation"), session));
            t.put("lifecycle", Boolean.TRUE.equals(call(cmd, "overwrite")) ? "OVERWRITE" : null);
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("AppendData") || name.equals("OverwriteByExpression") || name.equals("OverwritePartitionsDynamic")) {
            t.put("dataset", relation(call(cmd, "table"), session));
            t.put("lifecycle", name.equals("AppendData") ? null : "OVERWRITE");
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("CreateTableAsSelect") || name.equals("ReplaceTableAsSelect")) {
            t.put("dataset", identifierDataset(call(cmd, "name"), session));
            t.put("lifecycle", name.startsWith("Create") ? "CREATE" : "OVERWRITE");
            t.put("_query", call(cmd, "query"));
        } else if (name.equals("CreateTable") || name.equals("ReplaceTable")) {
            Map ds = identifierDataset(call(cmd, "name"), session);
            Object schema = call(cmd, "tableSchema");
            if (schema != null && ds.get("schema") == null) ds.put("schema", str(call(schema, "json")));
            t.put("dataset", ds);
            t.put("lifecycle", name.startsWith("Create") ? "CREATE" : "OVERWRITE");
        } else if (name.equals("MergeIntoTable")) {
            t.put("dataset", relation(call(cmd, "targetTable"), session));
            t.put("_query", call(cmd, "sourceTable"));
        } else if (name.equals("UpdateTable") || name.equals("DeleteFromTable") || name.equals("ReplaceData")
                || name.equals("WriteDelta") || name.equals("DeleteFromTableWithFilters")) {
            t.put("dataset", relation(call(cmd, "table"), session));
            if (name.equals("ReplaceData") || name.equals("WriteDelta")) t.put("_query", call(cmd, "query"));
        } else if (name.equals("DropTable") || name.equals("DropTableCommand")) {
            Map ds = name.equals("DropTable") ? identifierDataset(call(cmd, "child"), session)
                : tableByIdentifierOrPath(call(cmd, "tableName"), session);
            if (ds == null || Boolean.TRUE.equals(call(cmd, "isView"))) return null;
            t.put("dataset", ds);
            t.put("lifecycle", "DROP");
        } else if (name.equals("TruncateTableCommand") || name.equals("TruncateTable")) {
            Map ds = name.equals("TruncateTable") ? identifierDataset(call(cmd, "table"), session)
                : tableByIdentifierOrPath(call(cmd, "tableName"), session);
            if (ds == null) return null;
            t.put("dataset", ds);
            t.put("lifecycle", "TRUNCATE");
        } else if (name.equals("AlterTableAddColumnsCommand")) {
            Map ds = tableByIdentifierOrPath(call(cmd, "table"), session);
            if (ds == null) return null;
            t.put("dataset", ds);
            t.put("lifecycle", "ALTER");
        } else if (name.equals("AddColumns") || name.equals("RenameColumn") || name.equals("AlterColumns")
                || name.equals("DropColumns") || name.equals("ReplaceColumns") || name.equals("AlterColumn")) {
            Map ds = identifierDataset(call(cmd, "table"), session);
            t.put("dataset", ds);
            t.put("lifecycle", "ALTER");
        } else if (name.equals("AlterTableRenameCommand") || name.equals("RenameTable")) {
            Map before;
            Map after;
            if (name.equals("RenameTable")) {
                before = identifierDataset(call(cmd, "child"), session);
                after = new LinkedHashMap();
                after.put("type", "ident");
                after.put("catalog", before.get("catalog"));
                after.put("name", str(callWith(call(cmd, "newName"), "mkString", ".")));
            } else {
                if (Boolean.TRUE.equals(call(cmd, "isView"))) return null;
                before = tableByIdentifierOrPath(call(cmd, "oldName"), session);
                after = tableByIdentifierOrPath(call(cmd, "newName"), session);
            }
            if (before == null || after == null) return null;
            t.put("dataset", after);
            t.put("previous", before);
            t.put("lifecycle", "RENAME");
        } else if (name.equals("LoadDataCommand")) {
            Map ds = tableByIdentifierOrPath(call(cmd, "table"), session);
            if (ds == null) return null;
            t.put("dataset", ds);
            t.put("lifecycle", Boolean.TRUE.equals(call(cmd, "isOverwrite")) ? "OVERWRITE" : null);
            t.put("load", str(call(cmd, "path")));
        } else {
            return null;
        }
        t.put("command", name);
        return t;
    }

    // -- datasets ---------------------------------------------------------------------

    private static Map files(String path) {
        Map ds = new LinkedHashMap();
        ds.put("type", "files");
        ds.put("paths", single(path));
        return ds;
    }

    private static List single(Object value) {
        List out = new ArrayList();
        out.add(value);
        return out;
    }

    private static Map tableDataset(Map table) {
        Map ds = new LinkedHashMap();
        ds.put("type", "table");
        ds.put("table", table);
        return ds;
    }

    /** Whether a Hadoop Path is a file; null when its file system cannot be asked (credential passthrough). */
    private static Object isFile(Object path, Object conf) {
        try {
            org.apache.hadoop.fs.Path p = (org.apache.hadoop.fs.Path) path;
            return Boolean.valueOf(p.getFileSystem((org.apache.hadoop.conf.Configuration) conf).isFile(p));
        } catch (Throwable error) {
            return null;
        }
    }

    /** A CatalogTable: identifier, physical location (the default path when unset), schema. */
    private Map catalogTable(Object table, Object session) {
        if (table == null) return null;
        Map out = new LinkedHashMap();
        Object ident = call(table, "identifier");
        Object db = opt(call(ident, "database"));
        if (db == null) db = call(call(call(session, "sessionState"), "catalog"), "getCurrentDatabase");
        out.put("db", str(db));
        out.put("name", str(call(ident, "table")));
        Object location = opt(call(call(table, "storage"), "locationUri"));
        if (location == null) {
            Object catalog = call(call(session, "sessionState"), "catalog");
            location = callWith(catalog, "defaultTablePath", ident);
        }
        out.put("location", location == null ? null : str(location));
        out.put("provider", opt(call(table, "provider")));
        Object schema = call(table, "schema");
        if (schema != null) out.put("schema", str(call(schema, "json")));
        return out;
    }

    private Map tableByIdentifier(Object ident, Object session) {
        Object catalog = call(call(session, "sessionState"), "catalog");
        Object meta = callWith(catalog, "getTableMetadata", ident);
        return meta == null ? null : catalogTable(meta, session);
    }

    /** A table by TableIdentifier; when it does not exist (yet, or any more), its default path. */
    private Map tableByIdentifierOrPath(Object ident, Object session) {
        if (ident == null) return null;
        Map table = tableByIdentifier(ident, session);
        if (table == null) {
            Object catalog = call(call(session, "sessionState"), "catalog");
            table = new LinkedHashMap();
            Object db = opt(call(ident, "database"));
            if (db == null) db = call(catalog, "getCurrentDatabase");
            table.put("db", str(db));
            table.put("name", str(call(ident, "table")));
            Object location = callWith(catalog, "defaultTablePath", ident);
            table.put("location", location == null ? null : str(location));
        }
        return tableDataset(table);
    }

    /** A ResolvedIdentifier / ResolvedTable (catalog + identifier); the session catalog's table when it is one. */
    private Map identifierDataset(Object node, Object session) {
        Object catalog = call(node, "catalog");
        Object ident = call(node, "identifier");
        Map out = new LinkedHashMap();
        String catalogName = str(call(catalog, "name"));
        String[] namespace = (String[]) call(ident, "namespace");
        String tableName = str(call(ident, "name"));
        if ("spark_catalog".equals(catalogName) && namespace != null && namespace.length <= 1) {
            Object v1 = newTableIdentifier(tableName, namespace.length == 1 ? namespace[0] : null);
            if (v1 != null) return tableByIdentifierOrPath(v1, session);
        }
        out.put("type", "ident");
        out.put("catalog", catalogName);
        out.put("name", (namespace == null || namespace.length == 0 ? "" : String.join(".", namespace) + ".") + tableName);
        Object table = call(node, "table");
        if (table != null) out.put("properties", javaMap(call(table, "properties")));
        return out;
    }

    private static Object newTableIdentifier(String table, String db) {
        try {
            Class cls = Class.forName("org.apache.spark.sql.catalyst.TableIdentifier");
            Object option = db == null ? scala.Option.empty() : scala.Option.apply(db);
            return cls.getConstructor(new Class[] {String.class, scala.Option.class}).newInstance(new Object[] {table, option});
        } catch (Throwable error) {
            return null;
        }
    }

    /** A leaf relation (or what a write names as its table): where the data lives. */
    private Map relation(Object plan, Object session) {
        Map out = new LinkedHashMap();
        if (plan == null) {
            out.put("type", "none");
            return out;
        }
        String name = str(call(plan, "nodeName"));
        // aliases and views around a relation (a MERGE target, for instance)
        for (int i = 0; i < 8 && (name.equals("SubqueryAlias") || name.equals("View")); i++) {
            plan = call(plan, "child");
            name = str(call(plan, "nodeName"));
        }
        if (name.equals("LogicalRelation")) {
            Object table = opt(call(plan, "catalogTable"));
            Object rel = call(plan, "relation");
            String kind = simpleName(rel);
            if (table != null) {
                out.put("type", "table");
                out.put("table", catalogTable(table, session));
            } else if (kind.equals("HadoopFsRelation")) {
                out.put("type", "files");
                List paths = new ArrayList();
                List isFile = new ArrayList();
                Object conf = call(call(session, "sparkContext"), "hadoopConfiguration");
                for (Object path : list(call(call(rel, "location"), "rootPaths"))) {
                    paths.add(str(path));
                    isFile.add(isFile(path, conf));
                }
                out.put("paths", paths);
                out.put("isFile", isFile);
                out.put("format", str(call(rel, "fileFormat")));
            } else if (kind.equals("JDBCRelation")) {
                Object options = call(rel, "jdbcOptions");
                Object params = call(options, "parameters");
                out.put("type", "jdbc");
                out.put("url", str(call(options, "url")));
                out.put("dbtable", opt(callWith(params, "get", "dbtable")));
                out.put("query", opt(callWith(params, "get", "query")));
            } else {
                out.put("type", "other");
                out.put("class", kind);
            }
        } else if (name.equals("HiveTableRelation")) {
            out.put("type", "table");
            out.put("table", catalogTable(call(plan, "tableMeta"), session));
        } else if (name.startsWith("DataSourceV2") || name.equals("RelationV2")) {
            Object rel = name.equals("DataSourceV2ScanRelation") ? call(plan, "relation") : plan;
            Object table = call(rel, "table");
            Object catalog = opt(call(rel, "catalog"));
            Object ident = opt(call(rel, "identifier"));
            String tableClass = simpleName(table);
            if (tableClass.equals("V1Table")) {
                out.put("type", "table");
                out.put("table", catalogTable(call(table, "v1Table"), session));
                return out;
            }
            out.put("type", "v2");
            out.put("tableName", str(call(table, "name")));
            out.put("tableClass", tableClass);
            out.put("properties", javaMap(call(table, "properties")));
            out.put("options", javaMap(call(rel, "options")));
            if (catalog != null) out.put("catalog", str(call(catalog, "name")));
            if (ident != null) {
                String[] namespace = (String[]) call(ident, "namespace");
                String identName = str(call(ident, "name"));
                out.put("name", (namespace == null || namespace.length == 0 ? "" : String.join(".", namespace) + ".") + identName);
            }
        } else if (name.startsWith("Streaming")) {
            out.put("type", "stream");
            Object source = call(plan, "source");
            if (source == null) source = call(plan, "dataSource");
            out.put("source", source == null ? name : clip(str(source), 500));
            Object options = call(call(plan, "dataSource"), "options");
            if (options != null) {
                Object path = opt(callWith(options, "get", "path"));
                if (path != null) out.put("path", str(path));
            }
        } else {
            out.put("type", "none");
        }
        return out;
    }

    // -- plans: structure and column flow -----------------------------------------------

    /** The plan as a node list (pre-order): names, children, expression-id flows, leaves. */
    public Map describePlan(Object plan, Object session) {
        List nodes = new ArrayList();
        List stack = new ArrayList();
        stack.add(plan);
        Map ids = new java.util.IdentityHashMap();
        List pending = new ArrayList();
        // first pass: number the nodes
        while (!stack.isEmpty()) {
            Object node = stack.remove(stack.size() - 1);
            if (ids.containsKey(node)) continue;
            ids.put(node, Integer.valueOf(pending.size()));
            pending.add(node);
            List kids = children(node);
            for (int i = kids.size() - 1; i >= 0; i--) stack.add(kids.get(i));
        }
        for (int i = 0; i < pending.size(); i++) {
            Object node = pending.get(i);
            Map d = new LinkedHashMap();
            String name = str(call(node, "nodeName"));
            d.put("name", name);
            List kids = new ArrayList();
            for (Object kid : children(node)) kids.add(ids.get(kid));
            d.put("children", kids);
            d.put("output", attributes(call(node, "output")));
            if (name.equals("Project")) {
                d.put("exprs", named(call(node, "projectList")));
            } else if (name.equals("Aggregate")) {
                d.put("exprs", named(call(node, "aggregateExpressions")));
                d.put("group", refsOfAll(call(node, "groupingExpressions")));
            } else if (name.equals("Window")) {
                d.put("exprs", named(call(node, "windowExpressions")));
                List spec = refsOfAll(call(node, "partitionSpec"));
                spec.addAll(refsOfAll(call(node, "orderSpec")));
                d.put("window", spec);
            } else if (name.equals("Filter")) {
                d.put("filter", refs(call(node, "condition")));
            } else if (name.equals("Join")) {
                Object cond = opt(call(node, "condition"));
                d.put("join", cond == null ? new ArrayList() : refs(cond));
            } else if (name.equals("Sort")) {
                d.put("sort", refsOfAll(call(node, "order")));
            } else if (name.equals("Generate")) {
                Map gen = new LinkedHashMap();
                gen.put("refs", refs(call(node, "generator")));
                gen.put("output", attributes(call(node, "generatorOutput")));
                d.put("generate", gen);
            } else if (name.equals("Expand")) {
                List projections = new ArrayList();
                for (Object projection : list(call(node, "projections"))) {
                    List row = new ArrayList();
                    for (Object expr : list(projection)) row.add(refs(expr));
                    projections.add(row);
                }
                d.put("projections", projections);
            } else if (kids.isEmpty()) {
                Map leaf = relation(node, session);
                if (!"none".equals(leaf.get("type"))) leaf.put("schema", str(call(call(node, "schema"), "json")));
                d.put("leaf", leaf);
            }
            nodes.add(d);
        }
        Map out = new LinkedHashMap();
        out.put("nodes", nodes);
        return out;
    }

    private static List children(Object node) {
        List kids = list(call(node, "children"));
        if (kids.isEmpty()) {
            // commands keep their query outside children() (CTAS, for instance)
            String name = str(call(node, "nodeName"));
            if (name.endsWith("Command")) {
                Object query = call(node, "query");
                if (query != null) kids.add(query);
            }
        }
        return kids;
    }

    private static List attributes(Object seq) {
        List out = new ArrayList();
        for (Object attr : list(seq)) {
            List pair = new ArrayList();
            pair.add(exprId(attr));
            pair.add(str(call(attr, "name")));
            out.add(pair);
        }
        return out;
    }

    private static Object exprId(Object expr) {
        return call(call(expr, "exprId"), "id");
    }

    /** Named expressions: [out id, name, kind, direct refs, conditional refs]. */
    private static List named(Object seq) {
        List out = new ArrayList();
        for (Object expr : list(seq)) {
            String kind = simpleName(expr);
            if (!kind.equals("Alias")) continue; // an attribute keeps its id: nothing to link
            Object child = call(expr, "child");
            List direct = new ArrayList();
            List cond = new ArrayList();
            walk(child, direct, cond, false);
            String how = "TRANSFORMATION";
            if (simpleName(child).equals("AttributeReference")) how = "IDENTITY";
            else if (contains(child, "AggregateExpression")) how = "AGGREGATION";
            List row = new ArrayList();
            row.add(exprId(expr));
            row.add(str(call(expr, "name")));
            row.add(how);
            row.add(direct);
            row.add(cond);
            out.add(row);
        }
        return out;
    }

    private static boolean contains(Object expr, String className) {
        if (expr == null) return false;
        if (simpleName(expr).equals(className)) return true;
        for (Object kid : list(call(expr, "children"))) {
            if (contains(kid, className)) return true;
        }
        return false;
    }

    /** Attribute ids under ``expr``: values into ``direct``, conditions of If/CaseWhen into ``cond``. */
    private static void walk(Object expr, List direct, List cond, boolean inCondition) {
        if (expr == null) return;
        String kind = simpleName(expr);
        if (kind.equals("AttributeReference") || kind.equals("OuterReference")) {
            Object id = exprId(kind.equals("OuterReference") ? call(expr, "e") : expr);
            List into = inCondition ? cond : direct;
            if (id != null && !into.contains(id)) into.add(id);
            return;
        }
        if (kind.equals("If")) {
            walk(call(expr, "predicate"), direct, cond, true);
            walk(call(expr, "trueValue"), direct, cond, inCondition);
            walk(call(expr, "falseValue"), direct, cond, inCondition);
            return;
        }
        if (kind.equals("CaseWhen")) {
            for (Object branch : list(call(expr, "branches"))) {
                walk(call(branch, "_1"), direct, cond, true);
                walk(call(branch, "_2"), direct, cond, inCondition);
            }
            walk(opt(call(expr, "elseValue")), direct, cond, inCondition);
            return;
        }
        for (Object kid : list(call(expr, "children"))) walk(kid, direct, cond, inCondition);
    }

    private static List refs(Object expr) {
        List out = new ArrayList();
        if (expr == null) return out;
        for (Object attr : list(call(expr, "references"))) {
            Object id = exprId(attr);
            if (id != null && !out.contains(id)) out.add(id);
        }
        return out;
    }

    private static List refsOfAll(Object seq) {
        List out = new ArrayList();
        for (Object expr : list(seq)) {
            for (Object id : refs(expr)) {
                if (!out.contains(id)) out.add(id);
            }
        }
        return out;
    }

    // -- execution facts ------------------------------------------------------------------

    private static Object unwrapped(Object qe) {
        Object node = call(qe, "executedPlan");
        for (int i = 0; i < 8 && node != null; i++) {
            String kind = simpleName(node);
            if (kind.equals("AdaptiveSparkPlanExec")) node = call(node, "executedPlan");
            else if (kind.endsWith("QueryStageExec")) node = call(node, "plan");
            else if (kind.startsWith("WholeStageCodegen")) node = call(node, "child");
            else break;
        }
        return node;
    }

    /** The executed plan's root as the agent names commands: wrappers around a command looked through. */
    private static String commandName(Object qe) {
        String name = str(call(unwrapped(qe), "nodeName"));
        if (name.startsWith("Execute ")) return name;
        return str(call(call(qe, "executedPlan"), "nodeName"));
    }

    /** rowCount/size/fileCount from the SQL metrics of the write command (or write node). */
    private static Map writeMetrics(Object qe) {
        Map out = new LinkedHashMap();
        Object node = unwrapped(qe);
        Object cmd = call(node, "cmd");
        Map metrics = scalaMap(call(cmd != null ? cmd : node, "metrics"));
        String[][] keys = {{"rowCount", "numOutputRows"}, {"size", "numOutputBytes"}, {"fileCount", "numFiles"}};
        for (int i = 0; i < keys.length; i++) {
            Object metric = metrics.get(keys[i][1]);
            Object value = metric == null ? null : call(metric, "value");
            if (value != null) out.put(keys[i][0], value);
        }
        return out;
    }

    private static Map failureOf(Throwable failure) {
        Map out = new LinkedHashMap();
        out.put("message", String.valueOf(failure.getMessage()));
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        out.put("stackTrace", clip(text.toString(), STACK_LIMIT));
        out.put("class", failure.getClass().getName());
        return out;
    }

    // -- small helpers --------------------------------------------------------------------

    // accessor lookups are cached per class: reflection's getMethods() is the slow part
    private static final ConcurrentHashMap METHODS = new ConcurrentHashMap();
    private static final Object MISSING = new Object();

    private static Object method(Class cls, String name, Object arg) {
        String key = cls.getName() + "#" + name + (arg == null ? "" : "(" + arg.getClass().getName() + ")");
        Object found = METHODS.get(key);
        if (found == null) {
            found = MISSING;
            java.lang.reflect.Method[] methods = cls.getMethods();
            int arity = arg == null ? 0 : 1;
            for (int i = 0; i < methods.length; i++) {
                java.lang.reflect.Method m = methods[i];
                if (!m.getName().equals(name) || m.getParameterCount() != arity) continue;
                if (arg != null && !m.getParameterTypes()[0].isInstance(arg)) continue;
                try {
                    // a public method of a non-public class (IdentifierImpl, for instance)
                    if (!java.lang.reflect.Modifier.isPublic(m.getDeclaringClass().getModifiers())) m.setAccessible(true);
                } catch (Throwable error) {
                    continue;
                }
                found = m;
                break;
            }
            METHODS.put(key, found);
        }
        return found == MISSING ? null : found;
    }

    static Object call(Object target, String name) {
        if (target == null) return null;
        Object m = method(target.getClass(), name, null);
        if (m == null) return null;
        try {
            return ((java.lang.reflect.Method) m).invoke(target, new Object[0]);
        } catch (Throwable error) {
            return null;
        }
    }

    static Object callWith(Object target, String name, Object arg) {
        if (target == null || arg == null) return null;
        Object m = method(target.getClass(), name, arg);
        if (m == null) return null;
        try {
            return ((java.lang.reflect.Method) m).invoke(target, new Object[] {arg});
        } catch (Throwable error) {
            return null;
        }
    }

    static Object opt(Object value) {
        if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            return option.isDefined() ? option.get() : null;
        }
        return value;
    }

    static List list(Object value) {
        List out = new ArrayList();
        if (value instanceof scala.collection.IterableOnce) {
            scala.collection.Iterator it = ((scala.collection.IterableOnce) value).iterator();
            while (it.hasNext()) out.add(it.next());
        } else if (value instanceof java.lang.Iterable) {
            Iterator it = ((java.lang.Iterable) value).iterator();
            while (it.hasNext()) out.add(it.next());
        } else if (value instanceof Object[]) {
            Object[] array = (Object[]) value;
            for (int i = 0; i < array.length; i++) out.add(array[i]);
        }
        return out;
    }

    static Map scalaMap(Object value) {
        Map out = new LinkedHashMap();
        if (value instanceof scala.collection.Map) {
            scala.collection.Iterator it = ((scala.collection.Map) value).iterator();
            while (it.hasNext()) {
                scala.Tuple2 pair = (scala.Tuple2) it.next();
                out.put(String.valueOf(pair._1()), pair._2());
            }
        }
        return out;
    }

    static Map javaMap(Object value) {
        Map out = new LinkedHashMap();
        if (value instanceof Map) {
            Iterator it = ((Map) value).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry entry = (Map.Entry) it.next();
                String key = String.valueOf(entry.getKey());
                String lower = key.toLowerCase();
                // options may carry credentials: never forwarded
                if (lower.contains("password") || lower.contains("secret") || lower.contains("token")
                        || lower.equals("user") || lower.contains("credential") || lower.endsWith(".key")) continue;
                out.put(key, String.valueOf(entry.getValue()));
            }
        }
        return out;
    }

    static String simpleName(Object value) {
        return value == null ? "" : value.getClass().getSimpleName();
    }

    static String str(Object value) {
        return value == null ? "" : String.valueOf(value);
    }

    static String clip(String text, int limit) {
        return text.length() <= limit ? text : text.substring(0, limit);
    }

    static String toJson(Object value) {
        StringBuilder out = new StringBuilder();
        json(value, out);
        return out.toString();
    }

    private static void json(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            Iterator it = ((Map) value).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry entry = (Map.Entry) it.next();
                if (!first) out.append(',');
                first = false;
                quote(String.valueOf(entry.getKey()), out);
                out.append(':');
                json(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            List items = (List) value;
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) out.append(',');
                json(items.get(i), out);
            }
            out.append(']');
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(String.valueOf(value));
        } else {
            quote(String.valueOf(value), out);
        }
    }

    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                String hex = Integer.toHexString(c);
                out.append("\\u");
                for (int k = hex.length(); k < 4; k++) out.append('0');
                out.append(hex);
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
