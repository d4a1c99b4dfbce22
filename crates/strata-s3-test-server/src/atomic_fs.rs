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
//! Locks are striped (a fixed array indexed by a hash of bucket and key): no map to grow or
//! clean, and two keys sharing a stripe only wait for each other.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, S3};
use s3s_fs::FileSystem;
use tokio::sync::Mutex;

const STRIPES: usize = 64;

/// `s3s_fs::FileSystem` whose writes to one key are serialised (see the module doc).
pub struct AtomicFs {
    inner: FileSystem,
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
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        })
    }

    fn stripe(&self, bucket: &str, key: &str) -> &Mutex<()> {
        let mut h = DefaultHasher::new();
        (bucket, key).hash(&mut h);
        &self.stripes[(h.finish() as usize) % STRIPES]
    }
}

/// Writes the `S3` impl: `locked` operations write a key and hold that key's lock, `plain` ones
/// are forwarded unchanged. (One macro for the whole impl, so `async_trait` sees the methods.)
macro_rules! impl_s3 {
    (
        locked { $($lname:ident: $linput:ty => $loutput:ty;)* }
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
    plain {
        abort_multipart_upload: AbortMultipartUploadInput => AbortMultipartUploadOutput;
        create_bucket: CreateBucketInput => CreateBucketOutput;
        create_multipart_upload: CreateMultipartUploadInput => CreateMultipartUploadOutput;
        delete_bucket: DeleteBucketInput => DeleteBucketOutput;
        delete_object: DeleteObjectInput => DeleteObjectOutput;
        delete_objects: DeleteObjectsInput => DeleteObjectsOutput;
        get_bucket_location: GetBucketLocationInput => GetBucketLocationOutput;
        get_object: GetObjectInput => GetObjectOutput;
        head_bucket: HeadBucketInput => HeadBucketOutput;
        head_object: HeadObjectInput => HeadObjectOutput;
        list_buckets: ListBucketsInput => ListBucketsOutput;
        list_objects: ListObjectsInput => ListObjectsOutput;
        list_objects_v2: ListObjectsV2Input => ListObjectsV2Output;
        list_parts: ListPartsInput => ListPartsOutput;
        upload_part: UploadPartInput => UploadPartOutput;
        upload_part_copy: UploadPartCopyInput => UploadPartCopyOutput;
    }
}
