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

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes rows of a table whose BLOB column is a {@code blob-descriptor-field}: each value a
 * {@code Blob.fromFile(fileIO, uri, offset, length)} ({@code BlobRef}), which Java's writers
 * store inline in the data file as {@code Blob.serializeBlob} (the serialized descriptor).
 * Request: {@code rows} of {@code id}, {@code name}, {@code payload} ({@code uri},
 * {@code offset}, {@code length}, or null). One commit.
 */
final class Paimon2BlobDescriptor {

    private Paimon2BlobDescriptor() {}

    @SuppressWarnings("unchecked")
    static Object write(Commands c, Map<String, Object> req) throws Exception {
        FileStoreTable t = c.table(req);
        BatchWriteBuilder b = t.newBatchWriteBuilder();
        try (BatchTableWrite w = b.newWrite(); BatchTableCommit commit = b.newCommit()) {
            for (Object o : (List<Object>) req.get("rows")) {
                Map<String, Object> r = (Map<String, Object>) o;
                Map<String, Object> p = (Map<String, Object>) r.get("payload");
                Blob blob = p == null ? null : Blob.fromFile(t.fileIO(), (String) p.get("uri"),
                        ((Json.Num) p.get("offset")).asLong(), ((Json.Num) p.get("length")).asLong());
                w.write(GenericRow.of(
                        Integer.parseInt(((Json.Num) r.get("id")).text()),
                        BinaryString.fromString((String) r.get("name")),
                        blob));
            }
            commit.commit(w.prepareCommit());
        }
        return new LinkedHashMap<String, Object>();
    }
}
