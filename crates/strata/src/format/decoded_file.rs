//! [`DecodedFile`]: what the ORC and Avro readers hand to `data_file_reader` (a file decoded in
//! memory, its Arrow schema and batches of chosen columns). A leaf under the readers and the
//! dispatcher, so the dispatcher calls down into the readers and they don't import it back.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::Result;

/// An ORC or Avro file in memory: its columns as Arrow sees them, and a decoder of batches of
/// some of them.
pub(crate) trait DecodedFile: Send {
    /// The file's top-level columns (names as written, types as decoded).
    fn schema(&self) -> SchemaRef;

    /// Decodes the top-level columns named `columns` (each batch has exactly these, by name, in
    /// any order), `batch_size` rows at a time.
    fn decode(
        self: Box<Self>,
        columns: &[String],
        batch_size: usize,
    ) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + Send>>;
}
