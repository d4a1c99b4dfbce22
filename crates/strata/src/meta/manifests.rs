//! Reading and writing manifest lists and manifest files of one table (format.md §4, §5).
//!
//! The Avro codecs are pure (`strata_spec::manifest`); this module adds the I/O, the file
//! names, the table's `manifest.compression`, and wraps decode errors with the file path.

use std::sync::Arc;

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
                    .map_err(|e| Error::corrupt(shown.clone(), e))?,
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
                    tokio::task::spawn_blocking(move || {
                        decode_manifest_entries(&bytes).map_err(|e| Error::corrupt(shown, e))
                    })
                    .await
                    .map_err(|e| Error::Unsupported(format!("manifest decode task failed: {e}")))?
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
        tokio::task::spawn_blocking(move || parse_raw_parallel(&fetched, &make_filter))
            .await
            .map_err(|e| Error::Unsupported(format!("manifest decode task failed: {e}")))?
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

/// Convenience for sharing one store between scan and commit.
pub type SharedManifestStore = Arc<ManifestStore>;
