//! Reading and writing manifest lists and manifest files of one table.
//!
//! The Avro codecs are pure (`strata_spec::manifest`); this module adds the I/O, the file
//! names, the table's `manifest.compression`, and wraps decode errors with the file path.

use futures::{stream, StreamExt, TryStreamExt};
use strata_spec::manifest::{
    decode_manifest_entries, decode_manifest_list, encode_manifest_entries, encode_manifest_list,
    EntryFilter, ManifestCompression, ManifestEntry, ManifestFileMeta, RawManifest,
};
use strata_spec::snapshot::Snapshot;
use strata_spec::RowType;

use crate::io::FileIO;
use crate::meta::paths::FileNamer;
use crate::meta::TablePaths;
use crate::{Error, Result};

/// How many manifest files are fetched and decoded at once.
const MANIFEST_READ_CONCURRENCY: usize = 8;

/// How many manifest files are fetched at once by the lazy reader (decoding runs apart).
const MANIFEST_FETCH_CONCURRENCY: usize = 16;

/// Manifests indexed per thread before the work is split across threads.
const PARALLEL_PARSE_MIN: usize = 8;

/// Indexes fetched manifests in order (one filter per thread), on several threads when there
/// are many. Returns the manifests and the filters (which may hold counters).
fn parse_raw_parallel<F: EntryFilter + Send>(
    fetched: &[(String, bytes::Bytes)],
    make_filter: &(dyn Fn() -> F + Sync),
) -> Result<(Vec<RawManifest>, Vec<F>)> {
    let parse_all = |part: &[(String, bytes::Bytes)]| -> Result<(Vec<RawManifest>, F)> {
        let mut filter = make_filter();
        let mut out = Vec::with_capacity(part.len());
        for (shown, bytes) in part {
            out.push(
                RawManifest::parse_filtered(bytes, &mut filter)
                    .map_err(|e| Error::corrupt(shown.clone(), e))?
                    .with_source(shown.clone()),
            );
        }
        Ok((out, filter))
    };
    let parts = crate::io::parallel::map_chunks(fetched, PARALLEL_PARSE_MIN * 2, parse_all)?;
    let mut out = Vec::with_capacity(fetched.len());
    let mut filters = Vec::with_capacity(parts.len());
    for (raws, filter) in parts {
        out.extend(raws);
        filters.push(filter);
    }
    Ok((out, filters))
}

/// Manifest I/O of one table.
#[derive(Debug, Clone)]
pub struct ManifestStore {
    io: FileIO,
    paths: TablePaths,
    compression: ManifestCompression,
}

impl ManifestStore {
    pub fn new(io: FileIO, paths: TablePaths, compression: ManifestCompression) -> Self {
        ManifestStore {
            io,
            paths,
            compression,
        }
    }

    /// Entries of one manifest list file.
    pub async fn read_list(&self, name: &str) -> Result<Vec<ManifestFileMeta>> {
        let path = self.paths.manifest_file(name);
        let bytes = self.io.get(&path).await?;
        decode_manifest_list(&bytes).map_err(|e| Error::corrupt(self.io.display(&path), e))
    }

    /// All data manifests of a snapshot: its base list followed by its delta list.
    pub async fn data_manifests(&self, snapshot: &Snapshot) -> Result<Vec<ManifestFileMeta>> {
        let mut out = self.read_list(&snapshot.base_manifest_list).await?;
        out.extend(self.read_list(&snapshot.delta_manifest_list).await?);
        Ok(out)
    }

    /// Entries of one manifest file.
    pub async fn read_manifest(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let path = self.paths.manifest_file(name);
        let bytes = self.io.get(&path).await?;
        decode_manifest_entries(&bytes).map_err(|e| Error::corrupt(self.io.display(&path), e))
    }

    /// Entries of many manifests, in the given order, fetched concurrently; decoding runs on
    /// the blocking pool so Avro work never stalls I/O threads.
    pub async fn read_manifests(
        &self,
        metas: &[ManifestFileMeta],
    ) -> Result<Vec<Vec<ManifestEntry>>> {
        let io = self.io.clone();
        let paths = self.paths.clone();
        let names: Vec<String> = metas.iter().map(|m| m.file_name.clone()).collect();
        stream::iter(names)
            .map(move |name| {
                let io = io.clone();
                let paths = paths.clone();
                async move {
                    let path = paths.manifest_file(&name);
                    let bytes = io.get(&path).await?;
                    let shown = io.display(&path);
                    crate::io::blocking("decoding a manifest", move || {
                        decode_manifest_entries(&bytes).map_err(|e| Error::corrupt(shown, e))
                    })
                    .await
                }
            })
            .buffered(MANIFEST_READ_CONCURRENCY)
            .try_collect()
            .await
    }

    /// Manifests with their entries still encoded (lazy decoding, see
    /// [`strata_spec::manifest::lazy`]), in the given order: fetched concurrently, then
    /// indexed on one blocking task that splits the files across threads (one hand-off per
    /// scan rather than per manifest).
    pub async fn read_raw_manifests<F, M>(
        &self,
        metas: &[ManifestFileMeta],
        make_filter: M,
    ) -> Result<(Vec<RawManifest>, Vec<F>)>
    where
        F: EntryFilter + Send + 'static,
        M: Fn() -> F + Send + Sync + 'static,
    {
        let io = self.io.clone();
        let paths = self.paths.clone();
        let names: Vec<String> = metas.iter().map(|m| m.file_name.clone()).collect();
        let fetched: Vec<(String, bytes::Bytes)> = stream::iter(names)
            .map(move |name| {
                let io = io.clone();
                let paths = paths.clone();
                async move {
                    let path = paths.manifest_file(&name);
                    let bytes = io.get(&path).await?;
                    Ok::<_, Error>((io.display(&path), bytes))
                }
            })
            .buffered(MANIFEST_FETCH_CONCURRENCY)
            .try_collect()
            .await?;
        crate::io::blocking("decoding manifests", move || {
            parse_raw_parallel(&fetched, &make_filter)
        })
        .await
    }

    /// Writes `entries` as one new manifest file and returns its list entry.
    pub async fn write_manifest(
        &self,
        namer: &FileNamer,
        entries: &[ManifestEntry],
        partition_type: &RowType,
        schema_id: i64,
    ) -> Result<ManifestFileMeta> {
        let name = namer.manifest();
        let bytes = encode_manifest_entries(entries, self.compression)?;
        let size = bytes.len() as i64;
        self.io.put(&self.paths.manifest_file(&name), bytes).await?;
        let meta = ManifestFileMeta::from_entries(
            name,
            size,
            entries,
            &partition_type.types(),
            schema_id,
        )?;
        Ok(meta)
    }

    /// [`Self::write_manifest`] for owned entries with the partition column types already
    /// resolved; encoding and the summary run on the blocking pool.
    pub async fn write_manifest_owned(
        &self,
        namer: &FileNamer,
        entries: Vec<ManifestEntry>,
        partition_types: Vec<strata_spec::DataType>,
        schema_id: i64,
    ) -> Result<ManifestFileMeta> {
        let name = namer.manifest();
        let compression = self.compression;
        let (bytes, meta) = crate::io::blocking("encoding a manifest", move || {
            let bytes = encode_manifest_entries(&entries, compression)?;
            let meta = ManifestFileMeta::from_entries(
                name,
                bytes.len() as i64,
                &entries,
                &partition_types,
                schema_id,
            )?;
            Ok::<_, Error>((bytes, meta))
        })
        .await?;
        self.io
            .put(&self.paths.manifest_file(&meta.file_name), bytes)
            .await?;
        Ok(meta)
    }

    /// Writes a manifest list and returns (name, byte size).
    pub async fn write_list(
        &self,
        namer: &FileNamer,
        metas: &[ManifestFileMeta],
    ) -> Result<(String, i64)> {
        let name = namer.manifest_list();
        let bytes = encode_manifest_list(metas, self.compression)?;
        let size = bytes.len() as i64;
        self.io.put(&self.paths.manifest_file(&name), bytes).await?;
        Ok((name, size))
    }

    /// Deletes metadata files written by a failed commit attempt (best effort).
    pub async fn delete_quietly(&self, names: &[String]) {
        for n in names {
            let _ = self.io.delete(&self.paths.manifest_file(n)).await;
        }
    }
}

/// Java `RollingFileWriterImpl.CHECK_ROLLING_RECORD_CNT`: the size is checked every this many
/// entries (counted over everything the writer wrote, not per file).
pub(crate) const CHECK_ROLLING_RECORD_COUNT: u64 = 1000;

/// Writes manifest entries into as many manifest files as `manifest.target-file-size` asks for
/// (Java `ManifestFile.createRollingWriter`): after every [`CHECK_ROLLING_RECORD_COUNT`]-th
/// entry, the current file is closed if it has reached the target size.
///
/// The size checked is the container header plus each completed 1000-entry chunk encoded on
/// its own: Java measures its output stream, which holds the blocks written so far; the
/// chunks' blocks are the same 64 kB-cut Avro blocks, compressed the same way.
pub(crate) struct RollingManifestWriter<'a> {
    store: &'a ManifestStore,
    namer: &'a FileNamer,
    partition_types: Vec<strata_spec::DataType>,
    schema_id: i64,
    target_size: u64,
    current: Vec<ManifestEntry>,
    /// Entries of `current` whose encoded size is in `current_size`.
    measured: usize,
    /// Encoded bytes of `current[..measured]`, header not included.
    current_size: u64,
    header_size: Option<u64>,
    record_count: u64,
    results: Vec<ManifestFileMeta>,
}

impl<'a> RollingManifestWriter<'a> {
    /// A writer of manifests rolled at `target_size` bytes. `schema_id` is only used for a
    /// file without entries, which this writer never writes.
    pub(crate) fn new(
        store: &'a ManifestStore,
        namer: &'a FileNamer,
        partition_type: &RowType,
        schema_id: i64,
        target_size: u64,
    ) -> Self {
        RollingManifestWriter {
            store,
            namer,
            partition_types: partition_type.types(),
            schema_id,
            target_size,
            current: Vec::new(),
            measured: 0,
            current_size: 0,
            header_size: None,
            record_count: 0,
            results: Vec::new(),
        }
    }

    /// Appends one entry, closing the current file when it reached the target size.
    pub(crate) async fn write(&mut self, entry: ManifestEntry) -> Result<()> {
        self.current.push(entry);
        self.record_count += 1;
        if self.record_count.is_multiple_of(CHECK_ROLLING_RECORD_COUNT)
            && self.reached_target().await?
        {
            self.flush().await?;
        }
        Ok(())
    }

    /// Appends entries in order.
    pub(crate) async fn write_all(
        &mut self,
        entries: impl IntoIterator<Item = ManifestEntry>,
    ) -> Result<()> {
        for e in entries {
            self.write(e).await?;
        }
        Ok(())
    }

    /// Measures the entries written since the last check (encoded on the blocking pool) and
    /// compares the file's size so far with the target.
    async fn reached_target(&mut self) -> Result<bool> {
        let compression = self.store.compression;
        let chunk = self.current[self.measured..].to_vec();
        let need_header = self.header_size.is_none();
        let (header, encoded) = crate::io::blocking("measuring a manifest", move || {
            let header = if need_header {
                Some(encode_manifest_entries(&[], compression)?.len() as u64)
            } else {
                None
            };
            let encoded = if chunk.is_empty() {
                None
            } else {
                Some(encode_manifest_entries(&chunk, compression)?.len() as u64)
            };
            Ok::<_, Error>((header, encoded))
        })
        .await?;
        if let Some(h) = header {
            self.header_size = Some(h);
        }
        let header = self.header_size.unwrap_or(0);
        if let Some(encoded) = encoded {
            self.current_size += encoded.saturating_sub(header);
            self.measured = self.current.len();
        }
        Ok(header + self.current_size >= self.target_size)
    }

    async fn flush(&mut self) -> Result<()> {
        if self.current.is_empty() {
            return Ok(());
        }
        let entries = std::mem::take(&mut self.current);
        self.measured = 0;
        self.current_size = 0;
        let meta = self
            .store
            .write_manifest_owned(
                self.namer,
                entries,
                self.partition_types.clone(),
                self.schema_id,
            )
            .await?;
        self.results.push(meta);
        Ok(())
    }

    /// Closes the last file and returns the list entries of every file written, in order.
    /// If the last file cannot be written, the files written before it are deleted.
    pub(crate) async fn close(mut self) -> Result<Vec<ManifestFileMeta>> {
        if let Err(e) = self.flush().await {
            self.abort().await;
            return Err(e);
        }
        Ok(self.results)
    }

    /// Deletes every file this writer closed (best effort), for a merge that failed.
    pub(crate) async fn abort(self) {
        let names: Vec<String> = self.results.iter().map(|m| m.file_name.clone()).collect();
        self.store.delete_quietly(&names).await;
    }
}
