//! [`AtomicFs`]: the `s3s::S3` implementation the test server serves — `s3s_fs::FileSystem`
//! with writes to one key serialised.
//!
//! `s3s_fs` honours `If-None-Match: *` by checking whether the object file exists and then
//! writing it (staging file + rename). Two racing creators can both pass the check and both be
//! told they won, which would let two strata committers publish the same snapshot id. Real S3
//! (and MinIO, R2) decide a conditional create atomically, so this wrapper makes the check and
//! the write one step: every request that writes a key (PutObject, CopyObject onto it,
//! CompleteMultipartUpload) holds that key's lock for its whole duration; a conditional create
//! that finds the key taken gets 412 PreconditionFailed from `s3s_fs` as before. Reads, lists
//! and deletes need no lock (a delete racing a create linearises either way).
//!
//! It also answers HeadObject/GetObject on a key that is a "directory" on disk (a prefix of
//! other keys, say `t/schema`) with 404 NoSuchKey as S3 does, where `s3s_fs` fails with 500:
//! pyarrow's S3 filesystem (pypaimon) probes such keys before listing them.
//!
//! Locks are striped (a fixed array indexed by a hash of bucket and key): no map to grow or
//! clean, and two keys sharing a stripe only wait for each other.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};

use s3s::dto::*;
use s3s::{s3_error, S3Request, S3Response, S3Result, S3};
use s3s_fs::FileSystem;
use tokio::sync::Mutex;

const STRIPES: usize = 64;

/// `s3s_fs::FileSystem` whose writes to one key are serialised (see the module doc).
pub struct AtomicFs {
    inner: FileSystem,
    root: PathBuf,
    stripes: Vec<Mutex<()>>,
}

impl std::fmt::Debug for AtomicFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicFs")
            .field("inner", &self.inner)
            .finish()
    }
}

impl AtomicFs {
    /// Serves the directory `root`: each sub-directory is a bucket, each file an object.
    pub fn new(root: &Path) -> std::io::Result<Self> {
        let inner = FileSystem::new(root).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        Ok(AtomicFs {
            inner,
            root: root.to_path_buf(),
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        })
    }

    /// True when `bucket/key` names a directory on disk (only plain keys are checked).
    fn is_directory(&self, bucket: &str, key: &str) -> bool {
        let rel = Path::new(bucket).join(key);
        !key.ends_with('/')
            && rel.components().all(|c| matches!(c, Component::Normal(_)))
            && self.root.join(rel).is_dir()
    }

    fn stripe(&self, bucket: &str, key: &str) -> &Mutex<()> {
        let mut h = DefaultHasher::new();
        (bucket, key).hash(&mut h);
        &self.stripes[(h.finish() as usize) % STRIPES]
    }
}

/// Writes the `S3` impl: `locked` operations write a key and hold that key's lock,
/// `not_a_directory` ones answer 404 for a directory key, `plain` ones are forwarded unchanged. (One macro for the whole impl, so `async_trait` sees the methods.)
macro_rules! impl_s3 {
    (
        locked { $($lname:ident: $linput:ty => $loutput:ty;)* }
        not_a_directory { $($dname:ident: $dinput:ty => $doutput:ty;)* }
        plain { $($name:ident: $input:ty => $output:ty;)* }
    ) => {
        #[async_trait::async_trait]
        impl S3 for AtomicFs {
            $(
                async fn $lname(&self, req: S3Request<$linput>) -> S3Result<S3Response<$loutput>> {
                    let _guard = self.stripe(&req.input.bucket, &req.input.key).lock().await;
                    self.inner.$lname(req).await
                }
            )*
            $(
                async fn $dname(&self, req: S3Request<$dinput>) -> S3Result<S3Response<$doutput>> {
                    if self.is_directory(&req.input.bucket, &req.input.key) {
                        return Err(s3_error!(NoSuchKey));
                    }
                    self.inner.$dname(req).await
                }
            )*
            $(
                async fn $name(&self, req: S3Request<$input>) -> S3Result<S3Response<$output>> {
                    self.inner.$name(req).await
                }
            )*
        }
    };
}

impl_s3! {
    locked {
        put_object: PutObjectInput => PutObjectOutput;
        copy_object: CopyObjectInput => CopyObjectOutput;
        complete_multipart_upload: CompleteMultipartUploadInput => CompleteMultipartUploadOutput;
    }
    not_a_directory {
        get_object: GetObjectInput => GetObjectOutput;
        head_object: HeadObjectInput => HeadObjectOutput;
    }
    plain {
        abort_multipart_upload: AbortMultipartUploadInput => AbortMultipartUploadOutput;
        create_bucket: CreateBucketInput => CreateBucketOutput;
        create_multipart_upload: CreateMultipartUploadInput => CreateMultipartUploadOutput;
        delete_bucket: DeleteBucketInput => DeleteBucketOutput;
        delete_object: DeleteObjectInput => DeleteObjectOutput;
        delete_objects: DeleteObjectsInput => DeleteObjectsOutput;
        get_bucket_location: GetBucketLocationInput => GetBucketLocationOutput;
        head_bucket: HeadBucketInput => HeadBucketOutput;
        list_buckets: ListBucketsInput => ListBucketsOutput;
        list_objects: ListObjectsInput => ListObjectsOutput;
        list_objects_v2: ListObjectsV2Input => ListObjectsV2Output;
        list_parts: ListPartsInput => ListPartsOutput;
        upload_part: UploadPartInput => UploadPartOutput;
        upload_part_copy: UploadPartCopyInput => UploadPartCopyOutput;
    }
}
