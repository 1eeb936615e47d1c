/**
 * Artifact bytes in an S3-compatible object store, shared by every worker host: the same digests and
 * `ref`s as the filesystem store, blobs at `<prefix>sha256/<ab>/<hex>` and the reference index at
 * `<prefix>refs/<ab>/<hex>/<holder>`. Large artifacts go up in parts (the AWS SDK's `Upload`). With
 * payload encryption on, blobs are sealed with the same keys (AES-256-GCM, key id in the object's
 * metadata). A store that cannot be reached is retried for `retryFor`; then the call fails and, in an
 * activity, Temporal retries the activity (its heartbeat or start-to-close timeout may end an attempt
 * sooner): a passing outage loses nothing.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Logger } from 'pino';
import type { EncryptionCodec } from '../codec/encryption-codec';
import type { S3StoreConfig } from '../config/schema';
import { BatonError } from '../shared/baton-error';
import {
  holderFile,
  isRef,
  localStaging,
  type ArtifactRef,
  type ArtifactStore,
  type CollectableStore,
  type StagingFile,
  type StoredBlob,
  type StoredBytes,
  verified,
} from './store';

/** The object store cannot be reached (or answers 5xx) past `retryFor`: Temporal retries the activity. */
export class ArtifactStoreUnavailableError extends BatonError {
  constructor(where: string, cause: string) {
    super('Unavailable', `artifact store ${where} is unreachable (${cause}); the delegation retries it, nothing is lost`);
  }
}

/** The object store refuses Baton: the bucket is missing, or the credentials are wrong. */
export class ArtifactStoreMisconfiguredError extends BatonError {
  constructor(where: string, cause: string) {
    super('ConfigInvalid', `artifact store ${where} refused Baton (${cause}): check artifacts.s3 (bucket, endpoint, region, credentials)`);
  }
}

const KEY_ID = 'baton-key-id';
const MISCONFIGURED = new Set([
  'NoSuchBucket',
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AuthorizationHeaderMalformed',
  'PermanentRedirect',
  'InvalidBucketName',
  'Forbidden',
]);

type AwsError = Error & { name: string; code?: string; $metadata?: { httpStatusCode?: number } };

const statusOf = (err: unknown): number | undefined => (err as AwsError).$metadata?.httpStatusCode;
const isMissing = (err: unknown): boolean =>
  (err as AwsError).name === 'NotFound' || (err as AwsError).name === 'NoSuchKey' || statusOf(err) === 404;

/** The answer of `request`, or undefined when what it asks about (an object, a bucket) is not there. */
async function unlessMissing<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

export interface S3StoreOptions {
  config: S3StoreConfig;
  /** Where streamed artifacts are assembled before upload (this host's disk). */
  stagingDir: string;
  /** Seals blobs when payload encryption is on. */
  codec?: EncryptionCodec;
  logger?: Logger;
  /** For tests: the client (default: one from `config`). */
  client?: S3Client;
}

export class S3ArtifactStore implements ArtifactStore, CollectableStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly retryForMs: number;
  /** How the store is named in errors and logs: `s3://bucket/prefix at endpoint`. */
  readonly where: string;

  constructor(private readonly opts: S3StoreOptions) {
    const c = opts.config;
    this.bucket = c.bucket;
    this.prefix = c.prefix;
    this.retryForMs = msToNumber(c.retryFor as `${number}s`);
    this.where = `s3://${c.bucket}/${c.prefix}${c.endpoint ? ` at ${c.endpoint}` : ''}`;
    // The SDK warns on stderr, once per process, that releases after January 2027 need Node 22. The
    // pinned release runs on Node 20; the warning would break every command's one-line errors.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.client = opts.client ?? new S3Client(clientConfig(c));
  }

  private blobKey(ref: ArtifactRef): string {
    if (!isRef(ref)) throw new Error(`not an artifact reference: ${ref}`);
    const hex = ref.slice('sha256:'.length);
    return `${this.prefix}sha256/${hex.slice(0, 2)}/${hex}`;
  }

  private refsPrefix(ref: ArtifactRef): string {
    return `${this.blobKey(ref).replace(`${this.prefix}sha256/`, `${this.prefix}refs/`)}/`;
  }

  /**
   * Runs `call`, retrying while the store is unreachable, for at most `retryFor`; a refusal that no
   * retry fixes (missing bucket, wrong credentials) is thrown at once.
   */
  private async call<T>(what: string, call: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.retryForMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const e = err as AwsError;
        if (e instanceof BatonError) throw e;
        if (MISCONFIGURED.has(e.name) || statusOf(e) === 403) throw new ArtifactStoreMisconfiguredError(this.where, e.name);
        if (isMissing(e)) throw new BatonError('NotFound', `artifact store ${this.where}: ${what}: not found (${e.name})`);
        const status = statusOf(e);
        if (status !== undefined && status < 500 && status !== 429 && status !== 408)
          throw new ArtifactStoreMisconfiguredError(this.where, `${e.name}, HTTP ${status}`);
        const cause = (e.code ?? (e.cause as { code?: string } | undefined)?.code ?? e.name) || e.message;
        if (Date.now() >= until) throw new ArtifactStoreUnavailableError(this.where, cause);
        this.opts.logger?.warn({ store: this.where, what, attempt, cause }, 'artifact store unavailable, retrying');
        const delay = Math.min(1000 * 2 ** attempt, 10_000, Math.max(until - Date.now(), 0));
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Fails with one line when the bucket cannot be used: at worker start and in `baton config check`. */
  async check(): Promise<void> {
    await this.call('check', async () => {
      if (!(await unlessMissing(this.client.send(new HeadBucketCommand({ Bucket: this.bucket })))))
        throw new ArtifactStoreMisconfiguredError(this.where, 'NoSuchBucket');
    });
  }

  /** Creates the bucket when it is missing (`baton setup`); true when it did. */
  async ensureBucket(): Promise<boolean> {
    return this.call('create bucket', async () => {
      if (await unlessMissing(this.client.send(new HeadBucketCommand({ Bucket: this.bucket })))) return false;
      const region = this.opts.config.region;
      await this.client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          // us-east-1 is the one region S3 refuses to be told.
          ...(region !== 'us-east-1' ? { CreateBucketConfiguration: { LocationConstraint: region as never } } : {}),
        }),
      );
      return true;
    });
  }

  async has(ref: ArtifactRef): Promise<boolean> {
    return this.call(
      'has',
      async () =>
        (await unlessMissing(this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.blobKey(ref) })))) !== undefined,
    );
  }

  async put(bytes: Uint8Array): Promise<StoredBytes> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ref: ArtifactRef = `sha256:${sha256}`;
    if (!(await this.renew(ref))) await this.upload(ref, () => Readable.from([bytes]));
    return { ref, sha256, size: bytes.byteLength };
  }

  /**
   * Stored already: written again in place so its time is new (garbage collection must not take it
   * before the new holder is indexed). False when it is not there.
   */
  private async renew(ref: ArtifactRef): Promise<boolean> {
    const key = this.blobKey(ref);
    return this.call('renew', async () => {
      const head = await unlessMissing(this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      if (!head) return false;
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key}`,
          MetadataDirective: 'REPLACE',
          Metadata: { ...head.Metadata, 'baton-renewed': new Date().toISOString() },
        }),
      );
      return true;
    });
  }

  /**
   * Uploads the blob (in parts when large), sealed when encryption is on. `open` gives the bytes
   * afresh for every attempt: a retried upload must not read a stream the failed one consumed.
   */
  private async upload(ref: ArtifactRef, open: () => AsyncIterable<Uint8Array>): Promise<void> {
    const codec = this.opts.codec;
    await this.call('upload', async () => {
      const body = Readable.from(codec ? codec.sealStream(open()) : open());
      const upload = new Upload({
        client: this.client,
        params: {
          Bucket: this.bucket,
          Key: this.blobKey(ref),
          Body: body,
          ContentType: 'application/octet-stream',
          ...(codec ? { Metadata: { [KEY_ID]: codec.current } } : {}),
        },
        partSize: this.opts.config.partSizeBytes,
        queueSize: 2,
        leavePartsOnError: false,
      });
      await upload.done();
    });
  }

  async get(ref: ArtifactRef): Promise<Buffer> {
    const { bytes, keyId } = await this.call('get', async () => {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.blobKey(ref) }));
      return {
        bytes: Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()),
        keyId: got.Metadata?.[KEY_ID],
      };
    });
    let plain: Buffer = bytes;
    if (keyId) {
      if (!this.opts.codec)
        throw new BatonError(
          'ConfigInvalid',
          `artifact ${ref} is sealed with key "${keyId}", and encryption is off: configure encryption with that key`,
        );
      plain = this.opts.codec.open(keyId, bytes);
    }
    return verified(ref, plain);
  }

  staging(key: string): StagingFile {
    return localStaging(this.opts.stagingDir, key, async (file, ref) => {
      if (await this.renew(ref)) return;
      await this.upload(ref, () => (file ? createReadStream(file, { highWaterMark: 1024 * 1024 }) : Readable.from([new Uint8Array()])));
    });
  }

  async reference(ref: ArtifactRef, holder: string): Promise<void> {
    const key = `${this.refsPrefix(ref)}${holderFile(holder)}`;
    await this.call('reference', () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: '' })));
  }

  private async *list(prefix: string): AsyncGenerator<{ key: string; size: number; modifiedAt: Date }> {
    let token: string | undefined;
    do {
      const page = await this.call('list', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async holders(ref: ArtifactRef): Promise<string[]> {
    const prefix = this.refsPrefix(ref);
    const found: string[] = [];
    for await (const o of this.list(prefix)) found.push(Buffer.from(o.key.slice(prefix.length), 'base64url').toString('utf8'));
    return found.sort();
  }

  /** Every blob; `size` is the stored object's (28 bytes more than the artifact when sealed). */
  async *blobs(): AsyncIterable<StoredBlob> {
    for await (const o of this.list(`${this.prefix}sha256/`)) {
      const ref = `sha256:${o.key.slice(o.key.lastIndexOf('/') + 1)}`;
      if (isRef(ref)) yield { ref, size: o.size, modifiedAt: o.modifiedAt };
    }
  }

  async remove(ref: ArtifactRef): Promise<void> {
    const keys = [this.blobKey(ref)];
    for await (const o of this.list(this.refsPrefix(ref))) keys.push(o.key);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.call('remove', () =>
        this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        ),
      );
    }
  }
}

function clientConfig(c: S3StoreConfig): S3ClientConfig {
  const credentials =
    c.accessKeyIdFromEnv && c.secretAccessKeyFromEnv
      ? { accessKeyId: process.env[c.accessKeyIdFromEnv] ?? '', secretAccessKey: process.env[c.secretAccessKeyFromEnv] ?? '' }
      : undefined;
  return {
    region: c.region,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    forcePathStyle: c.forcePathStyle ?? c.endpoint !== undefined,
    ...(credentials ? { credentials } : {}),
    // The store's own retry loop (above) decides how long to wait; the SDK tries each call twice.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
  };
}

/** The staging folder of an S3 store for a config's `artifacts.path`. */
export const s3StagingDir = (artifactsPath: string): string => join(artifactsPath, 'staging');
