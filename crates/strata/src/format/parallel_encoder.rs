//! [`ParallelRowGroupEncoder`]: encodes the columns of a Parquet file on two threads.
//!
//! Parquet encoding (dictionary building, page compression) is most of the cost of writing a
//! data file, and it is independent per column. arrow-rs exposes the pieces to do it in
//! parallel (`ArrowWriter::into_serialized_writer`, one `ArrowColumnWriter` per leaf column),
//! which `AsyncArrowWriter` does not use. This encoder keeps the column writers of the
//! current row group, hands half of the columns of every batch to a scoped helper thread and
//! encodes the other half itself, and when the row group is full appends the finished column
//! chunks, in schema order, to a `SerializedFileWriter` writing into an in-memory buffer that
//! the caller drains to storage. The bytes produced are the same as with one thread.
//!
//! INT96 leaves (timestamps of precision 7–9, [`super::int96`]) are the exception: arrow-rs has
//! no Arrow encoder for them, so they are buffered by an [`Int96Leaf`] and written through
//! parquet's typed column writer in their place when the row group is closed.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriterOptions,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::writer::SerializedFileWriter;

use super::int96::Int96Leaf;

/// Bytes written by the file writer, drained by the owner.
#[derive(Clone, Default)]
pub(crate) struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// Bytes waiting to be taken.
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Takes the bytes written so far.
    pub(crate) fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) struct ParallelRowGroupEncoder {
    schema: SchemaRef,
    file: SerializedFileWriter<SharedBuffer>,
    factory: ArrowRowGroupWriterFactory,
    /// Column writers of the open row group (one per leaf), `None` between row groups.
    writers: Option<Vec<ArrowColumnWriter>>,
    /// For each top-level field, its range of leaf writers.
    leaf_ranges: Vec<std::ops::Range<usize>>,
    /// The INT96 leaves, in leaf order, and whether each leaf is one.
    int96: Vec<Int96Leaf>,
    is_int96: Vec<bool>,
    row_group_index: usize,
    rows_in_group: usize,
}

impl ParallelRowGroupEncoder {
    pub(crate) fn try_new(
        buffer: SharedBuffer,
        schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self, ParquetError> {
        let writer = ArrowWriter::try_new_with_options(buffer, schema.clone(), options)?;
        let (file, factory) = writer.into_serialized_writer()?;
        // Leaves per top-level field, from the Parquet schema.
        let descr = file.schema_descr();
        let mut leaf_ranges = Vec::with_capacity(schema.fields().len());
        let mut start = 0usize;
        for field_idx in 0..schema.fields().len() {
            let mut end = start;
            while end < descr.num_columns() && descr.get_column_root_idx(end) == field_idx {
                end += 1;
            }
            leaf_ranges.push(start..end);
            start = end;
        }
        let mut int96 = Vec::new();
        let mut is_int96 = vec![false; descr.num_columns()];
        for (c, flag) in is_int96.iter_mut().enumerate() {
            let column = descr.column(c);
            if column.physical_type() != parquet::basic::Type::INT96 {
                continue;
            }
            let field = descr.get_column_root_idx(c);
            *flag = true;
            int96.push(Int96Leaf::new(
                c,
                column,
                field,
                schema.field(field),
                c - leaf_ranges[field].start,
            )?);
        }
        Ok(ParallelRowGroupEncoder {
            schema,
            file,
            factory,
            writers: None,
            leaf_ranges,
            int96,
            is_int96,
            row_group_index: 0,
            rows_in_group: 0,
        })
    }

    /// Encodes `batch` into the open row group.
    ///
    /// Work is split by *leaf* column, not by field: a nested field (a MAP's keys and values,
    /// a shredded MAP's mapping, columns and overflow) is most of a batch's encoding cost on
    /// its own, and its leaves encode independently.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        if self.writers.is_none() {
            self.writers = Some(self.factory.create_column_writers(self.row_group_index)?);
        }
        let writers = self.writers.as_mut().expect("created just above");
        let schema = &self.schema;
        // Every leaf with its writer index and Arrow size (a proxy for its encoding cost).
        let mut leaves = Vec::with_capacity(writers.len());
        for (f, range) in self.leaf_ranges.iter().enumerate() {
            let column = batch.column(f);
            let computed = compute_leaves(schema.field(f), column)?;
            let mut sizes = Vec::with_capacity(computed.len());
            leaf_sizes(column.as_ref(), &mut sizes);
            if sizes.len() != computed.len() {
                // Unusual nesting: one estimate for the whole field, spread evenly.
                let each = column.get_array_memory_size() / computed.len().max(1);
                sizes = vec![each; computed.len()];
            }
            for ((j, leaf), size) in computed.into_iter().enumerate().zip(sizes) {
                leaves.push((range.start + j, leaf, size));
            }
        }
        // Two groups of about equal size: the largest leaves first, each to the lighter one.
        leaves.sort_by_key(|l| std::cmp::Reverse(l.2));
        let mut in_second = vec![false; writers.len()];
        let (mut a, mut b) = (0usize, 0usize);
        for (w, _, size) in &leaves {
            if b < a {
                in_second[*w] = true;
                b += size;
            } else {
                a += size;
            }
        }
        let mut by_writer: Vec<Option<parquet::arrow::arrow_writer::ArrowLeafColumn>> =
            (0..writers.len()).map(|_| None).collect();
        for (w, leaf, _) in leaves {
            by_writer[w] = Some(leaf);
        }
        let mut first: Vec<(&mut ArrowColumnWriter, _)> = Vec::new();
        let mut second: Vec<(&mut ArrowColumnWriter, _)> = Vec::new();
        for ((i, w), leaf) in writers.iter_mut().enumerate().zip(by_writer) {
            if self.is_int96[i] {
                continue;
            }
            let leaf = leaf.ok_or_else(|| {
                ParquetError::General(format!("no leaf column computed for writer {i}"))
            })?;
            if in_second[i] {
                second.push((w, leaf));
            } else {
                first.push((w, leaf));
            }
        }
        let encode = |group: Vec<(
            &mut ArrowColumnWriter,
            parquet::arrow::arrow_writer::ArrowLeafColumn,
        )>|
         -> Result<(), ParquetError> {
            for (w, leaf) in group {
                w.write(&leaf)?;
            }
            Ok(())
        };
        if second.is_empty() || batch.num_rows() < 1024 {
            encode(first)?;
            encode(second)?;
        } else {
            std::thread::scope(|s| {
                let handle = s.spawn(|| encode(second));
                let a = encode(first);
                let b = handle.join().unwrap_or_else(|_| {
                    Err(ParquetError::General("encoder thread panicked".into()))
                });
                a.and(b)
            })?;
        }
        for leaf in &mut self.int96 {
            leaf.append(batch.column(leaf.field).as_ref())?;
        }
        self.rows_in_group += batch.num_rows();
        Ok(())
    }

    /// Estimated encoded size of the open row group.
    pub(crate) fn in_progress_size(&self) -> usize {
        self.writers
            .as_ref()
            .map(|w| w.iter().map(|c| c.get_estimated_total_bytes()).sum())
            .unwrap_or(0)
            + self.int96_size()
    }

    fn int96_size(&self) -> usize {
        self.int96.iter().map(Int96Leaf::memory_size).sum()
    }

    /// Memory held by the open row group.
    pub(crate) fn memory_size(&self) -> usize {
        self.writers
            .as_ref()
            .map(|w| w.iter().map(|c| c.memory_size()).sum())
            .unwrap_or(0)
            + self.int96_size()
    }

    pub(crate) fn rows_in_group(&self) -> usize {
        self.rows_in_group
    }

    /// Closes the open row group: its column chunks go to the buffer, in schema order.
    pub(crate) fn flush_row_group(&mut self) -> Result<(), ParquetError> {
        let Some(writers) = self.writers.take() else {
            return Ok(());
        };
        if self.rows_in_group == 0 {
            return Ok(());
        }
        // Closing a column writer flushes its last pages and dictionary (compressing them):
        // the second half closes on a helper thread; chunks are appended in schema order.
        let mut writers = writers;
        let tail = writers.split_off(writers.len() / 2);
        let close_all = |ws: Vec<ArrowColumnWriter>| {
            ws.into_iter()
                .map(ArrowColumnWriter::close)
                .collect::<Result<Vec<_>, ParquetError>>()
        };
        let (head, tail) = if tail.is_empty() {
            (close_all(writers)?, Vec::new())
        } else {
            std::thread::scope(|s| {
                let handle = s.spawn(|| close_all(tail));
                let head = close_all(writers);
                let tail = handle.join().unwrap_or_else(|_| {
                    Err(ParquetError::General("encoder thread panicked".into()))
                });
                Ok::<_, ParquetError>((head?, tail?))
            })?
        };
        let mut rg = self.file.next_row_group()?;
        let mut int96 = self.int96.iter_mut();
        for (i, chunk) in head.into_iter().chain(tail).enumerate() {
            if !self.is_int96[i] {
                chunk.append_to_row_group(&mut rg)?;
                continue;
            }
            // The Arrow writer of this leaf stayed empty: the leaf's values go in its place.
            let leaf = int96
                .next()
                .filter(|leaf| leaf.column == i)
                .ok_or_else(|| ParquetError::General(format!("no INT96 leaf for column {i}")))?;
            let writer = rg
                .next_column()?
                .ok_or_else(|| ParquetError::General(format!("row group has no column {i}")))?;
            leaf.write_to(writer)?;
        }
        rg.close()?;
        self.file.flush()?;
        self.row_group_index += 1;
        self.rows_in_group = 0;
        Ok(())
    }

    /// Adds a footer key/value entry (written by [`Self::finish`]).
    pub(crate) fn append_key_value_metadata(&mut self, kv: parquet::file::metadata::KeyValue) {
        self.file.append_key_value_metadata(kv);
    }

    /// Flushes the last row group and writes the footer.
    pub(crate) fn finish(&mut self) -> Result<ParquetMetaData, ParquetError> {
        self.flush_row_group()?;
        let metadata = self.file.finish()?;
        self.file.flush()?;
        Ok(metadata)
    }

    /// Bytes of the file produced so far (header, closed row groups, footer once finished).
    pub(crate) fn bytes_written(&self) -> usize {
        self.file.bytes_written()
    }
}

/// Arrow memory of each Parquet leaf of `array`, in the depth-first order of its leaves.
fn leaf_sizes(array: &dyn arrow_array::Array, out: &mut Vec<usize>) {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    match array.data_type() {
        DataType::Struct(_) => {
            for c in array.as_struct().columns() {
                leaf_sizes(c.as_ref(), out);
            }
        }
        DataType::List(_) => leaf_sizes(array.as_list::<i32>().values().as_ref(), out),
        DataType::LargeList(_) => leaf_sizes(array.as_list::<i64>().values().as_ref(), out),
        DataType::Map(_, _) => {
            let m = array.as_map();
            leaf_sizes(m.keys().as_ref(), out);
            leaf_sizes(m.values().as_ref(), out);
        }
        _ => out.push(array.get_array_memory_size()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::file::properties::WriterProperties;

    #[test]
    fn same_bytes_as_the_single_threaded_writer() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
            Field::new("b", DataType::Int64, true),
        ]));
        let batch = |start: i64| {
            let cols: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from_iter_values(start..start + 5000)),
                Arc::new(StringArray::from_iter(
                    (start..start + 5000).map(|i| (i % 7 != 0).then(|| format!("v{}", i * 31))),
                )),
                Arc::new(Int64Array::from_iter(
                    (start..start + 5000).map(|i| (i % 5 != 0).then_some(i * i)),
                )),
            ];
            RecordBatch::try_new(schema.clone(), cols).unwrap()
        };
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(7000))
            .build();
        let options = || ArrowWriterOptions::new().with_properties(props.clone());

        let mut expected = Vec::new();
        let mut w =
            ArrowWriter::try_new_with_options(&mut expected, schema.clone(), options()).unwrap();
        w.write(&batch(0)).unwrap();
        w.flush().unwrap();
        w.write(&batch(5000)).unwrap();
        w.close().unwrap();

        let buffer = SharedBuffer::default();
        let mut enc =
            ParallelRowGroupEncoder::try_new(buffer.clone(), schema.clone(), options()).unwrap();
        enc.write(&batch(0)).unwrap();
        enc.flush_row_group().unwrap();
        enc.write(&batch(5000)).unwrap();
        enc.finish().unwrap();
        let got = buffer.take();
        assert_eq!(got.len(), enc.bytes_written());
        assert_eq!(got, expected);
    }
}
