/**
 * The config file (`baton.config.yaml`): Temporal connection, the caller's identity and the agent
 * registry. Every field has a default that suits a laptop running `baton dev`.
 */
import { z } from 'zod';
import type { TemporalTarget } from './temporal-target';
import { ContractSchema, DurationSchema, identifier } from '../shared/delegation-types';
import { PartSchema } from '../shared/a2a-types';
import { DEFAULT_LABELS, DEFAULT_OPEN_LABEL } from '../shared/data-use';
import { LabelNameSchema } from '../shared/data-use-types';
import { envName, origin, tenantName } from './field-schemas';
import { AgentApiKeySchema, AgentOAuthSchema, AgentTlsSchema, IssuerSchema, OidcSignInSchema, PermissionSchema } from './identity-schema';

const name = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'use lower-case letters, digits and -');

/** How Baton authenticates to the agent. The value comes from the environment or a file, never from config or the card. */
export const AgentAuthSchema = z
  .object({
    /** Header to send. Default Authorization. */
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
      .default('Authorization'),
    /** Prefix such as Bearer; omitted for API-key headers. */
    scheme: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .optional(),
    /** Environment variable that holds the credential. */
    fromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** File that holds the credential (trailing newline ignored). */
    fromFile: z.string().min(1).optional(),
  })
  .strict()
  .refine((a) => (a.fromEnv ? 1 : 0) + (a.fromFile ? 1 : 0) === 1, { message: 'set exactly one of fromEnv or fromFile' });
export type AgentAuth = z.infer<typeof AgentAuthSchema>;

/**
 * A credential callers may have sent to this agent when it asks for authentication (AUTH_REQUIRED),
 * chosen by its name. The value comes from the environment or a file on the worker, read when it is
 * sent; only the name enters history.
 */
export const CredentialSchema = z
  .object({
    /** Environment variable that holds it. */
    fromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** File that holds it (trailing newline ignored). */
    fromFile: z.string().min(1).optional(),
    /** Tenants whose delegations may use it. Default: every tenant. */
    tenants: z.array(tenantName).min(1).optional(),
  })
  .strict()
  .refine((c) => (c.fromEnv ? 1 : 0) + (c.fromFile ? 1 : 0) === 1, { message: 'set exactly one of fromEnv or fromFile' });
export type Credential = z.infer<typeof CredentialSchema>;

/** Keys pinned for card signatures (JWS). */
export const CardSignatureSchema = z
  .object({
    /** Refuse a card that carries no signature verifying against these keys. Default true. */
    required: z.boolean().default(true),
    /** The agent's public keys, each `{ kid, jwk }` (a JWK as JSON; a private key is refused by `config check`). At least one. */
    keys: z
      .array(z.object({ kid: z.string().min(1), jwk: z.record(z.string(), z.unknown()) }).strict())
      .min(1, 'pin at least one public key (kid and jwk)'),
  })
  .strict();

export const AgentLimitsSchema = z
  .object({
    /** Largest card accepted, in bytes (kept in the artifact store, or in history without one). Default 64 KiB, at most 256 KiB. */
    maxCardBytes: z
      .number()
      .int()
      .positive()
      .max(256 * 1024)
      .default(64 * 1024),
    /** Largest response body, in bytes. Default 8 MiB. */
    maxResponseBytes: z
      .number()
      .int()
      .positive()
      .default(8 * 1024 * 1024),
    /** Time to open a connection. Default 5000 ms. */
    connectTimeoutMs: z.number().int().positive().default(5_000),
    /** Longest silence while reading a response. Default 120000 ms. */
    readTimeoutMs: z.number().int().positive().default(120_000),
    /**
     * Longest one call that is not a stream (a send, a read, a cancel) may take, its whole answer
     * included; then it is tried again as a transient fault. The read timeout measures only silence, so
     * an answer trickled byte by byte, or a chunked body that never ends, is cut here. Default 60000 ms.
     */
    callTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
    /** Redirects followed, each re-checked; 0 refuses them. Default 3. */
    maxRedirects: z.number().int().min(0).max(10).default(3),
  })
  .strict();
export type AgentLimits = z.infer<typeof AgentLimitsSchema>;
export const DEFAULT_LIMITS: AgentLimits = AgentLimitsSchema.parse({});

/** When and how an agent's URL parts are downloaded. Without it they are kept as references only. */
export const DownloadPolicySchema = z
  .object({
    /** Hosts URL parts may be fetched from: exact names, or `*.example.com` for subdomains. */
    allowedHosts: z.array(z.string().min(1)).min(1),
    /** Largest download, in bytes. Default 10 MiB. */
    maxBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    /** Whole download deadline. Default 30000 ms. */
    timeoutMs: z.number().int().positive().default(30_000),
    /** Media types accepted (besides each part's own declared type). Default: any. */
    mediaTypes: z.array(z.string().min(1)).default([]),
    /** Plain http. Default false. */
    allowHttp: z.boolean().default(false),
    /** Private and loopback addresses (never link-local or metadata). Default false. */
    allowPrivateNetwork: z.boolean().default(false),
    /** Redirects followed, each re-checked. Default 2. */
    maxRedirects: z.number().int().min(0).max(10).default(2),
  })
  .strict();
export type DownloadPolicy = z.infer<typeof DownloadPolicySchema>;

/**
 * An agent entry's contract defaults. A limit the entry leaves out takes its default, so an entry that
 * sets only a deadline still has a call budget and a longest wait.
 */
const AgentContractSchema = ContractSchema.extend({
  /** How many times the agent may ask for input or authentication; one more ends it in ERROR. Default 10. */
  maxInputRounds: ContractSchema.shape.maxInputRounds.unwrap().default(10),
  /**
   * Calls to the agent the delegation may make (sends, polls, subscriptions, reads after a push); then
   * ERROR. Reads Baton paces itself are bounded by `maxWait` instead. Default 500.
   */
  maxRemoteCalls: ContractSchema.shape.maxRemoteCalls.unwrap().default(500),
  /**
   * How long Baton goes on reading the task at its own pace (push backstop, sparse reads), from the
   * start; then the remote task is cancelled and the outcome is TIMED_OUT. Default 90d.
   */
  maxWait: DurationSchema.default('90d'),
});

/** Data labels and what an unlabelled part counts as (docs/data-use.md). */
export const DataUseConfigSchema = z
  .object({
    /** The labels a part may carry. Default: public, internal, confidential, personal. */
    labels: z
      .array(LabelNameSchema)
      .min(1)
      .max(32)
      .refine((l) => new Set(l).size === l.length, 'lists a label twice')
      .default([...DEFAULT_LABELS]),
    /** The label every agent is cleared for without saying so. Default public. */
    open: LabelNameSchema.default(DEFAULT_OPEN_LABEL),
    /**
     * The label of a part that carries none. Unset (the default): such a part needs no clearance and is
     * sent to any agent, as before labels existed; set it (say to `internal`) to make labelling the rule.
     */
    unlabelled: LabelNameSchema.optional(),
  })
  .strict()
  .refine((d) => d.labels.includes(d.open), { message: 'must be one of dataUse.labels', path: ['open'] })
  .refine((d) => d.unlabelled === undefined || d.labels.includes(d.unlabelled), {
    message: 'must be one of dataUse.labels',
    path: ['unlabelled'],
  });

export const AgentEntrySchema = z
  .object({
    /** Card URL, or the agent's base URL (then `/.well-known/agent-card.json` is appended). */
    card: z.url({ message: 'must be an absolute http(s) URL of the agent card or of the agent' }),
    /** Allow plain http. Default false: only for loopback or dev agents. */
    allowHttp: z.boolean().default(false),
    /** Allow private, loopback and link-local addresses. Default false. */
    allowPrivateNetwork: z.boolean().default(false),
    /** Origins besides the card's own that its interface URLs may point at. Default none. */
    allowedOrigins: z.array(origin).default([]),
    auth: AgentAuthSchema.optional(),
    oauth2: AgentOAuthSchema.optional(),
    apiKey: AgentApiKeySchema.optional(),
    tls: AgentTlsSchema.optional(),
    /**
     * Credentials that may be sent to this agent when it asks for authentication, by name (lower-case
     * letters, digits and -). Default none: an AUTH_REQUIRED cannot be answered. Nothing else can be sent.
     */
    credentials: z.record(name, CredentialSchema).default({}),
    signature: CardSignatureSchema.optional(),
    limits: AgentLimitsSchema.default(DEFAULT_LIMITS),
    /** Preferred binding when the card offers several. Default: the card's own order. */
    binding: z.enum(['JSONRPC', 'HTTP+JSON', 'GRPC']).optional(),
    /** How to follow the remote task. Default auto (stream when the card supports it, else poll). */
    observe: z.enum(['auto', 'stream', 'poll', 'push']).default('auto'),
    /**
     * Contract defaults for delegations to this agent; each limit left out takes its default: no
     * deadline, 10 input rounds, 500 remote calls, 90 days of waiting at Baton's own pace.
     */
    contract: AgentContractSchema.default({ maxInputRounds: 10, maxRemoteCalls: 500, maxWait: '90d' }),
    /** Acceptance policy used when a delegation names none. */
    acceptance: z.string().default('completed-with-artifact'),
    /**
     * The read-after-send window: after SendMessage, how long the send keeps reading the task (GetTask
     * after pauses of 5, 20, 80 and 320 ms) before the observing activity takes over, so an agent that
     * finishes at once is done in one activity. Default 1000 ms; 0 turns it off (for agents known to be
     * slow); at most 10000 (the send's own timeout is 15 s), and at most 2000 for the first turn, which is sent
     * inside the first workflow task (decision 0030).
     */
    readAfterSendMs: z.number().int().min(0).max(10_000).default(1_000),
    /**
     * How long a fetched and checked card is reused for new delegations before it is fetched and
     * checked again (trust, signature, interfaces). Default 60s: a card rarely changes, and fetching it
     * for every delegation costs a round trip on the fastest path; 0s fetches it for every delegation.
     */
    cardTtl: DurationSchema.default('60s'),
    /**
     * The data labels (`dataUse.labels`) this agent may be sent, besides the open label every agent is
     * cleared for (`public` by default). Default none: a part labelled anything else is refused before
     * it is sent (docs/data-use.md).
     */
    clearance: z.array(LabelNameSchema).max(32).default([]),
    /**
     * How data-use terms go to this agent (docs/data-use.md). `convey`: `if-declared` (the default)
     * sends them as Baton's A2A extension only when the agent's card declares it; `always` sends them
     * whatever the card says. `whenUndeclared`, when they cannot be sent: `refuse` (the default) refuses
     * data labelled above `dataUse.open`; `send-without-terms` sends it without them, and the record
     * says so.
     */
    dataUse: z
      .object({
        /** `if-declared` (default): terms go only to a card that declares the extension; `always`: whatever the card says. */
        convey: z.enum(['if-declared', 'always']).default('if-declared'),
        /** When terms cannot go: `refuse` (default) data above `dataUse.open`, or `send-without-terms` and record it. */
        whenUndeclared: z.enum(['refuse', 'send-without-terms']).default('refuse'),
      })
      .strict()
      .default({ convey: 'if-declared', whenUndeclared: 'refuse' }),
    /** Download the agent's URL parts under this policy. Default: never (the URL is kept as the reference). */
    downloads: DownloadPolicySchema.optional(),
    /**
     * Long work without holding a worker slot: once one observing activity has followed a task for
     * `after` with no news, it lets its slot go, and the task is read every `every` instead, by
     * attempts of an activity that Temporal retries: each attempt reads the task, then the worker
     * holds it without a slot and reads it every `every` for `attemptSpan` (decision 0041). Nothing
     * is added to history until the task moves. Stream and poll modes. Default `{ after: 2m, every: 1m }`;
     * `after: 0s` never holds a slot (agents known to work for long).
     */
    sparsePoll: z
      .object({
        /** How long one observing activity follows a task with no news before it lets its slot go. */
        after: DurationSchema.default('2m'),
        /** How often the task is read from then on. */
        every: DurationSchema.default('1m'),
        /**
         * How long one attempt goes on reading before Temporal starts the next (decision 0041): the
         * server writes a few rows per attempt, not per read; a worker killed mid-attempt leaves its
         * tasks unread for up to this long plus a minute. Unset: 5m.
         */
        attemptSpan: DurationSchema.optional(),
      })
      .strict()
      .default({ after: '2m', every: '1m' }),
  })
  .strict()
  .refine((e) => !(e.oauth2 && e.auth?.header.toLowerCase() === 'authorization'), {
    message: 'oauth2 sends Authorization: Bearer itself: give auth another header, or drop it',
    path: ['auth'],
  });
export type AgentEntry = z.infer<typeof AgentEntrySchema>;

/** An acceptance policy declared in config: a code policy as its base, required artifacts, a review gate. */
export const DeclaredPolicySchema = z
  .object({
    /** A policy in code (built in, or registered by the application) that runs after the checks below. */
    base: z.string().optional(),
    /** Artifacts an accepted result must carry, each `{ name, mediaType? }`. Default none. */
    requireArtifacts: z.array(z.object({ name: z.string().min(1), mediaType: z.string().optional() }).strict()).default([]),
    /** A person confirms an accepted result (status WAITING_REVIEW, `baton review`). Default false. */
    review: z.boolean().default(false),
  })
  .strict();

/** Where a server Baton starts listens. */
const listenOn = (port: number) =>
  z
    .object({
      /** The address to listen on. Default 127.0.0.1 (loopback): listening beyond it needs `api.callers`. */
      host: z.string().min(1).default('127.0.0.1'),
      /** The port; 0 takes any free one. */
      port: z.number().int().min(0).max(65535).default(port),
    })
    .strict()
    .default({ host: '127.0.0.1', port });

/** An S3-compatible object store for artifact bytes (AWS S3, MinIO, and the like). */
export const S3StoreSchema = z
  .object({
    /** The bucket's name (`baton setup` creates it when missing). */
    bucket: z.string().min(3).max(63),
    /** Prepended to every object key, so several deployments can share a bucket. Default none. */
    prefix: z
      .string()
      .max(512)
      .regex(/^([A-Za-z0-9._-]+\/)*$/, 'use folder names ending in / (letters, digits, . _ -)')
      .default(''),
    /** The service's URL for a store other than AWS (MinIO: http://host:9000). Default: AWS for `region`. */
    endpoint: z.url().optional(),
    /** Default us-east-1 (what MinIO expects unless set otherwise). */
    region: z.string().min(1).default('us-east-1'),
    /** Bucket in the path rather than the host name. Default: true with an `endpoint`, false on AWS. */
    forcePathStyle: z.boolean().optional(),
    /**
     * Variables holding the access key pair. Default: the AWS SDK's own chain (AWS_ACCESS_KEY_ID and
     * AWS_SECRET_ACCESS_KEY, a profile, an instance role).
     */
    accessKeyIdFromEnv: envName.optional(),
    /** The variable holding the secret access key, with `accessKeyIdFromEnv`. */
    secretAccessKeyFromEnv: envName.optional(),
    /** Artifacts larger than this are uploaded in parts of this size. Default 8 MiB; at least 5 MiB (S3's minimum). */
    partSizeBytes: z
      .number()
      .int()
      .min(5 * 1024 * 1024)
      .max(512 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    /**
     * How long one call rides out an unreachable store, retrying, before it fails (in an activity,
     * Temporal then retries the activity). Default 30s.
     */
    retryFor: DurationSchema.default('30s'),
  })
  .strict()
  .refine((s) => (s.accessKeyIdFromEnv === undefined) === (s.secretAccessKeyFromEnv === undefined), {
    message: 'set both accessKeyIdFromEnv and secretAccessKeyFromEnv, or neither',
  });
export type S3StoreConfig = z.infer<typeof S3StoreSchema>;

/** Where artifact bytes are kept when they are too large for workflow history. */
export const ArtifactsSchema = z
  .object({
    /**
     * `fs` (the default): a folder on this host. `s3`: an S3-compatible object store (the `s3` section),
     * which every worker host shares.
     */
    store: z.enum(['fs', 's3']).default('fs'),
    /**
     * Folder of the filesystem store; with `s3`, where streamed artifacts are assembled before they are
     * uploaded. Default `.baton/artifacts` under the working folder.
     */
    path: z.string().min(1).default('.baton/artifacts'),
    s3: S3StoreSchema.optional(),
    /** Artifacts up to this size are kept inline in history; larger ones go to the store. Default 64 KiB; at most 256 KiB. */
    inlineMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(256 * 1024)
      .default(64 * 1024),
    /**
     * Inline bytes one observation (a snapshot, or a direct reply) may bring into history in all; past
     * it, the largest artifacts are stored by reference. Default 256 KiB; at most 2 MiB (Temporal's
     * limit for one payload).
     */
    snapshotInlineMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(2 * 1024 * 1024)
      .default(256 * 1024),
    /**
     * Inline bytes one delegation's whole history may hold, over all its observations; past it, every
     * artifact is stored by reference. Default 1 MiB; at most 16 MiB (a history is refused at 50 MB).
     */
    delegationInlineMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024),
  })
  .strict()
  .refine((a) => a.store !== 's3' || a.s3 !== undefined, { message: 'store s3 needs the s3 section (bucket, …)', path: ['s3'] });

/** Where an encryption key is: a variable or a file holding 32 bytes, base64 (or 64 hex digits). */
const KeySourceSchema = z.union([
  z.object({ fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name') }).strict(),
  z.object({ fromFile: z.string().min(1) }).strict(),
]);

/**
 * Payload encryption (decision 0019): AES-256-GCM over every payload Temporal stores. Off unless set.
 * Keys stay listed while any history they wrote is kept: `currentKey` encrypts, every key decrypts.
 */
export const EncryptionSchema = z
  .object({
    /** The id of the key new payloads are encrypted with. */
    currentKey: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'use letters, digits and . _ -'),
    /** Every key that may have encrypted a payload still in history, by id. */
    keys: z.record(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'use letters, digits and . _ -'), KeySourceSchema),
    /**
     * The codec server `baton ui` serves at `/codec` for the Temporal Web UI and CLI. It decodes any
     * payload of the namespace, so it acts only for a token from these variables (16 characters or
     * more). Default BATON_CODEC_TOKEN; while none of them is set, `/codec` is not served.
     */
    codecServer: z
      .object({
        /** Variables holding the tokens it accepts (16 characters or more). */
        tokensFromEnv: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
          .default(['BATON_CODEC_TOKEN']),
        /** Origins of Temporal Web UIs that call it from the browser (CORS). Default none. */
        corsOrigins: z.array(z.url({ message: 'must be an origin such as https://temporal.example.com' })).default([]),
        /**
         * Largest request body, read only after its token is known; a few are read at once. Default
         * 4 MiB (Temporal's own limit on one payload is 2 MiB; the Web UI sends one event's at a time).
         */
        maxRequestBytes: z
          .number()
          .int()
          .min(64 * 1024)
          .max(64 * 1024 * 1024)
          .default(4 * 1024 * 1024),
      })
      .strict()
      .default({ tokensFromEnv: ['BATON_CODEC_TOKEN'], corsOrigins: [], maxRequestBytes: 4 * 1024 * 1024 }),
  })
  .strict()
  .refine((e) => e.currentKey in e.keys, { message: 'currentKey must be one of the ids under keys', path: ['currentKey'] });
export type EncryptionConfig = z.infer<typeof EncryptionSchema>;

/** A worker's place in a Temporal worker deployment: the deployment, its build, and how workflows follow builds. */
export const DeploymentSchema = z
  .object({
    /** The worker deployment's name, the same for every build of this Baton fleet. Default `baton`. */
    name: identifier.default('baton'),
    /** This build's id, new for every release of workflow code (Baton's version is a good one). */
    buildId: identifier,
    /**
     * `pinned` (the default): a delegation stays on the build that started it until it ends, so old
     * builds must run until their delegations drain. `auto-upgrade`: it moves to the current build at
     * its next task, so workflow changes must be replay-safe (`patched()`).
     */
    behavior: z.enum(['pinned', 'auto-upgrade']).default('pinned'),
  })
  .strict();
export type DeploymentConfig = z.infer<typeof DeploymentSchema>;

/** The worker's own limits. */
export const WorkerSchema = z
  .object({
    /**
     * Workflows kept in the worker's memory between tasks. A parked delegation (waiting for a person)
     * needs none: evicted, it is replayed when its answer comes. Default 100; raise it for many busy
     * delegations. (Memory with 10,000 parked delegations is measured in docs/BENCHMARKS.md.)
     */
    maxCachedWorkflows: z.number().int().min(0).default(100),
    /** Activities run at once (calls to agents). Default 100. */
    maxConcurrentActivities: z.number().int().min(1).default(100),
    /**
     * Sparse reads this worker makes at once for the tasks it holds between attempts (decision 0041).
     * Unset: 100, as many as the activity slots that made such reads before, so an agent sees no more at once.
     */
    sparseReadConcurrency: z.number().int().min(1).max(1_000).optional(),
    /**
     * History events after which a delegation continues as new, carrying its state and pending
     * request, so one that waits for weeks (pushes, backstop reads) stays far from Temporal's limit
     * (51,200 events; warnings from 10,240). It also does when the server suggests it. Unset: 4,000.
     * A delegation keeps the value it was first resolved with.
     */
    continueAsNewAfterEvents: z.number().int().min(8).max(40_000).optional(),
    /**
     * How often a graph asks the server about its running nodes that have not told it how they ended
     * (those an earlier run started, for graphs from before decision 0042): a delegation terminated by
     * hand (or timed out by the server) never does. Unset: 10m. A graph keeps the value it was first given.
     */
    graphBackstop: DurationSchema.optional(),
    /**
     * Worker Versioning (docs/decisions/0017-upgrades.md): the worker joins a Temporal worker
     * deployment as one build. Unset (the default): an unversioned worker, upgraded in place, where
     * `patched()` and the replay corpus keep changes safe.
     */
    deployment: DeploymentSchema.optional(),
  })
  .strict();

/** Push notifications: where agents send them, and the secret their per-task tokens are made with. */
export const PushSchema = z
  .object({
    /** The webhook's base URL as agents reach it; pushes go to `<url>/push/<delegation id>`. */
    url: z.url({ message: 'must be the absolute URL agents reach the webhook at' }),
    /** Environment variable with the HMAC secret: the same on every worker and webhook. Default BATON_PUSH_SECRET. */
    secretFromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .default('BATON_PUSH_SECRET'),
    /** Read the task this often even without a push, so a lost push is caught. Default 5m. */
    backstopPoll: DurationSchema.default('5m'),
    /**
     * Verified pushes one delegation may send: `pushesPerMinute` sustained (default 120), `burst` at
     * once (default 30); past it the webhook answers 429 with Retry-After (a push is only a hint).
     */
    rateLimit: z
      .object({
        /** Pushes a minute, sustained. */
        pushesPerMinute: z.number().int().min(1).default(120),
        /** Pushes at once. */
        burst: z.number().int().min(1).default(30),
      })
      .strict()
      .default({ pushesPerMinute: 120, burst: 30 }),
    /** Where `baton webhook` listens. Default 127.0.0.1:41240. */
    listen: listenOn(41240),
  })
  .strict();
export type PushConfig = z.infer<typeof PushSchema>;

const bucket = (perMinute: number, burst: number) =>
  z
    .object({
      /** How many a minute, sustained. */
      perMinute: z.number().int().min(1).default(perMinute),
      /** How many at once. */
      burst: z.number().int().min(1).default(burst),
    })
    .strict()
    .default({ perMinute, burst });

const LIMIT_DEFAULTS = {
  workStarted: { perMinute: 300, burst: 500 },
  streams: 20,
  mcpSessions: 10,
  unknownTokens: { perMinute: 30, burst: 30 },
};

/** What one caller may use of a shared Baton beyond its request rate (`api.rateLimit`); docs/resource-model.md. */
export const LimitsSchema = z
  .object({
    /**
     * Delegations one caller may start (a graph counts its nodes, a follow-up one): `perMinute`
     * sustained (default 300), `burst` at once (default 500; a larger graph is refused whole).
     */
    workStarted: bucket(LIMIT_DEFAULTS.workStarted.perMinute, LIMIT_DEFAULTS.workStarted.burst),
    /**
     * Streams one caller may hold open at once: the API's event streams, A2A streams and blocking
     * SendMessage waits, MCP tool calls that wait. Default 20 (the web app holds one per open page).
     */
    streams: z.number().int().min(1).max(10_000).default(LIMIT_DEFAULTS.streams),
    /** MCP sessions one caller may hold open at once. Default 10 (a host opens one per connection). */
    mcpSessions: z.number().int().min(1).max(1_000).default(LIMIT_DEFAULTS.mcpSessions),
    /**
     * Requests with an unknown token (or none) one source address may make: `perMinute` (default 30),
     * `burst` (default 30). Past it, every request from that address is refused with 429 before its
     * token is looked at, so guessing stops there.
     */
    unknownTokens: bucket(LIMIT_DEFAULTS.unknownTokens.perMinute, LIMIT_DEFAULTS.unknownTokens.burst),
    /**
     * Where the budgets are kept. Default: in the process, right for one replica (N replicas would give
     * a caller N times its budget). `postgres`: in a PostgreSQL database every replica reaches (the
     * connection URL read from `urlFromEnv`, default BATON_LIMITS_DATABASE_URL); Baton creates two tables in it.
     */
    store: z
      .object({
        postgres: z
          .object({
            /** The variable holding the PostgreSQL connection URL. */
            urlFromEnv: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
              .default('BATON_LIMITS_DATABASE_URL'),
          })
          .strict(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type LimitsConfig = z.infer<typeof LimitsSchema>;

/** The HTTP API and the web app (`baton ui`, and inside `baton dev`). */
export const ApiSchema = z
  .object({
    /** Where they listen. Default 127.0.0.1:41230. */
    listen: listenOn(41230),
    /**
     * Who may call, each by a bearer token read from the environment (never from this file). Default
     * none: then `baton ui` and `baton dev` make one token for the config's caller and print it, and
     * only listen on loopback.
     */
    callers: z
      .array(
        z
          .object({
            tokenFromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
            tenant: tenantName,
            user: z.string().min(1).max(200),
            /** What this caller may do. Default all (read, delegate, answer, cancel, admin). */
            permissions: z.array(PermissionSchema).min(1).optional(),
          })
          .strict(),
      )
      .default([]),
    /**
     * Identity providers whose JWT access tokens callers may bring, beside the static tokens of
     * `callers` (docs/identity.md). Default none.
     */
    issuers: z.array(IssuerSchema).max(20).default([]),
    /** How operators sign in to the web app besides a token link: `{ oidc }` (docs/identity.md). Default: tokens only. */
    signIn: z.object({ oidc: OidcSignInSchema }).strict().optional(),
    /**
     * Requests one caller may make, on every surface together (the API, the served agents over HTTP and
     * gRPC, MCP): `requestsPerMinute` sustained (default 600), `burst` at once (default 120). A request
     * costs one, and one more for each delegation or task it reads beyond its own (an inbox, a page
     * of tasks); past it, 429 with Retry-After (gRPC: RESOURCE_EXHAUSTED). The web app needs about 40 a minute.
     */
    rateLimit: z
      .object({
        /** Requests a minute, sustained. */
        requestsPerMinute: z.number().int().min(1).default(600),
        /** Requests at once. */
        burst: z.number().int().min(1).default(120),
      })
      .strict()
      .default({ requestsPerMinute: 600, burst: 120 }),
    /** Serve MCP (Streamable HTTP) at `/mcp` for the same callers and tokens (docs/mcp.md). Default true. */
    mcp: z.boolean().default(true),
    /** AG-UI runs at `/agui` for the same callers and tokens (docs/agui.md). */
    agui: z
      .object({
        /** Serve `/agui`. Default true. */
        enabled: z.boolean().default(true),
        /**
         * Browser origins of AG-UI front ends that call `/agui` directly (CORS; the token travels in the
         * Authorization header, never a cookie). Default none: a front end on Baton's own origin, or
         * behind a proxy that serves both.
         */
        corsOrigins: z
          .array(z.url({ message: 'must be an origin such as https://app.example.com' }))
          .max(20)
          .default([]),
      })
      .strict()
      .default({ enabled: true, corsOrigins: [] }),
    /**
     * Environment variable with the secret MCP session ids are sealed with (32 characters or more, the
     * same on every replica of `baton ui`), so a host's session goes on when `baton ui` restarts or its
     * next request reaches another replica. Default BATON_MCP_SESSION_KEY; unset, each process seals
     * its own and a restart makes every host initialize again (`baton dev` keeps one under `.baton/dev`).
     */
    mcpSessionKeyFromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .default('BATON_MCP_SESSION_KEY'),
    /** What else one caller may use, on every surface of every replica (docs/resource-model.md). */
    limits: LimitsSchema.default(LIMIT_DEFAULTS),
    /**
     * How long an open stream (the API's record stream, a served A2A stream) rides out Temporal not
     * answering, reading again at a growing pause, before it ends with a retryable error. Default 2m:
     * longer than a service restart or a database failover takes.
     */
    streamRideOut: DurationSchema.default('2m'),
    /**
     * Behind a reverse proxy: how many proxy hops to trust for the caller's address (X-Forwarded-For),
     * which the unknown-token allowance is counted by. Default 0: the connection's own address, so
     * behind a proxy every caller shares the proxy's.
     */
    trustProxy: z.number().int().min(0).max(10).default(0),
  })
  .strict();
export type ApiConfig = z.infer<typeof ApiSchema>;

/** A skill a served agent lists on its card (A2A AgentSkill). */
const ServedSkillSchema = z
  .object({
    id: name,
    name: z.string().min(1).max(200),
    description: z.string().min(1).max(2000),
    tags: z.array(z.string().min(1).max(100)).max(32).default([]),
    examples: z.array(z.string().min(1).max(500)).max(16).optional(),
  })
  .strict();

/**
 * A node of a served graph: a graph node (docs/graphs.md) whose request may take the caller's message
 * (`withRequest`: the caller's parts after the node's own text or parts, or alone).
 */
const ServedNodeSchema = z
  .object({
    id: z.string().min(1).max(64),
    agent: name,
    text: z.string().min(1).max(100_000).optional(),
    parts: z.array(PartSchema).min(1).max(32).optional(),
    /** Send the caller's message to this node's agent. Default false. */
    withRequest: z.boolean().default(false),
    dependsOn: z.array(z.string()).max(64).default([]),
    refines: z.string().optional(),
    acceptance: name.optional(),
    contract: ContractSchema.optional(),
  })
  .strict()
  .refine((n) => !(n.text && n.parts), { message: 'give at most one of text or parts' })
  .refine((n) => n.withRequest || n.text || n.parts, { message: 'give text or parts, or withRequest: true' });
export type ServedNode = z.infer<typeof ServedNodeSchema>;

/**
 * One A2A agent Baton serves (`serve.services.<name>`): its card, and what runs each task: a
 * delegation to one configured agent (`delegate`: a durable gateway that adds acceptance, the
 * contract and the record in front of that agent), or a task graph (`graph`: a pipeline of agents).
 */
export const ServedAgentSchema = z
  .object({
    /** The card's description: what the agent does, for callers and their models. */
    description: z.string().min(1).max(2000),
    /** The card's version. Default 1.0.0. */
    version: z.string().min(1).max(64).default('1.0.0'),
    /** The skills the card lists, each `{ id, name, description, tags }`: at least one, at most 32. */
    skills: z.array(ServedSkillSchema).min(1).max(32),
    /** Media types callers may send. Default text/plain and application/json. */
    inputModes: z.array(z.string().min(1)).min(1).default(['text/plain', 'application/json']),
    /** Media types of the results. Default application/json and text/plain. */
    outputModes: z.array(z.string().min(1)).min(1).default(['application/json', 'text/plain']),
    /** Each task is a delegation to this configured agent, under this policy and contract. */
    delegate: z
      .object({
        /** A name under `agents`. */
        agent: name,
        /** Acceptance policy; default the agent's own. */
        policy: name.optional(),
        contract: ContractSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * Each task is a run of this graph. It completes when the graph is ACCEPTED, with the accepted
     * artifacts of its end nodes (those no other node depends on); a node's question is the task's.
     */
    graph: z
      .object({
        /** `fail-fast` skips the rest once a node fails; `continue` runs every node that can run. */
        failurePolicy: z.enum(['fail-fast', 'continue']).default('fail-fast'),
        /** Nodes running at once, per task. */
        concurrency: z.number().int().min(1).max(100).default(4),
        /** At most 100 nodes: a served task reads its whole graph on every look. */
        nodes: z.array(ServedNodeSchema).min(1).max(100),
      })
      .strict()
      .optional(),
    /**
     * Each task is a run of the application's own workflow of this type (registered in its worker,
     * with `withBaton` or `batonPlugin`): started with a `ServedTaskInput`, it calls `servedTask()`
     * from `baton/workflow` to show its state, ask the caller and complete (docs/embedding.md).
     */
    workflow: z
      .object({
        /** The workflow type's name, as the application's worker registers it. */
        type: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be a workflow type name (letters, digits and _)'),
        /** The task queue its worker polls. Default: Baton's (`temporal.taskQueue`). */
        taskQueue: z.string().min(1).max(200).optional(),
      })
      .strict()
      .optional(),
    /**
     * The data-use extension on this agent's card (docs/data-use.md): Baton honours the terms a caller
     * sends with its data before any work starts, whatever this says. Default: declared, not required.
     */
    dataUse: z
      .object({
        /** The card marks the extension required: a call that does not ask for it is refused. Default false. */
        required: z.boolean().default(false),
        /**
         * For a `workflow` service: the agents (under `agents`) its workflow may pass the caller's data
         * to. Unset: not known, so data whose terms restrict forwarding is refused.
         */
        forwardsTo: z.array(name).max(32).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((s) => [s.delegate, s.graph, s.workflow].filter(Boolean).length === 1, {
    message: 'give exactly one of delegate, graph or workflow',
  });
export type ServedAgentConfig = z.infer<typeof ServedAgentSchema>;

/**
 * Push notifications Baton sends to the callers of its served agents (A2A push configs): each change
 * of a task POSTed to each webhook the caller registered, from the worker. Not the top-level `push`,
 * which is agents pushing to Baton. The worker reads this section too: keep it the same everywhere.
 */
export const ServePushSchema = z
  .object({
    /**
     * Keys that seal the credentials and tokens callers give for their webhooks (AES-256-GCM, like
     * `encryption`): sealed before they enter history, opened only to send. Default none: then a push
     * config with a token or authentication credentials is refused (one without them is kept).
     */
    keys: z
      .object({
        /** The id of the key new secrets are sealed with. */
        currentKey: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'use letters, digits and . _ -'),
        /** Every key that may have sealed a secret still in history, by id: `{ fromEnv }` or `{ fromFile }`. */
        keys: z.record(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'use letters, digits and . _ -'), KeySourceSchema),
      })
      .strict()
      .refine((k) => k.currentKey in k.keys, { message: 'currentKey must be one of the ids under keys', path: ['currentKey'] })
      .optional(),
    /** Post to plain-http webhooks. Default false. */
    allowHttp: z.boolean().default(false),
    /** Post to private and loopback addresses (a webhook on the same network). Default false: a caller could aim Baton at internal services. */
    allowPrivateNetwork: z.boolean().default(false),
    /** Tries per notification before it is recorded as undelivered. Default 12: with the pauses below, about 20 minutes of a webhook down. */
    attempts: z.number().int().min(1).max(100).default(12),
    /** First pause between tries; it doubles each try. Default 1s. */
    retryInitial: DurationSchema.default('1s'),
    /** Longest pause between tries. Default 5m. */
    retryMax: DurationSchema.default('5m'),
    /** How long one POST may take, in ms. Default 10 s (A2A suggests 10–30 s). */
    timeoutMs: z.number().int().min(500).max(60_000).default(10_000),
  })
  .strict();
export type ServePushConfig = z.infer<typeof ServePushSchema>;

/** The A2A agents Baton serves, each at `<base>/a2a/<name>` (`baton ui`, `baton dev`, `baton serve`). */
export const ServeSchema = z
  .object({
    /**
     * The URL callers reach Baton at, written into each card (behind a proxy it is not the listen
     * address). Default: the address the server listens on.
     */
    publicUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Largest request body a caller may send, in bytes. Default 1 MiB, as for the HTTP API. */
    maxRequestBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /**
     * Environment variable with the secret served task ids are keyed with (32 characters or more, the
     * same on every replica of `baton ui` and `baton serve`), so a retried SendMessage finds its task
     * on any of them and no caller can compute another's task id. Default BATON_SERVE_TASK_ID_KEY;
     * unset, each process keys its own (`baton dev` keeps one under `.baton/dev`).
     */
    taskIdKeyFromEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .default('BATON_SERVE_TASK_ID_KEY'),
    /**
     * The pause, in ms, before an open stream or a blocking send reads the task again when its
     * workflow's history cannot be followed (Temporal not answering). Otherwise the task is read when
     * its history changes, not on a timer (decision 0039). Default 250.
     */
    pollMs: z.number().int().min(20).max(10_000).default(250),
    /**
     * Sign every served card (JWS, as A2A 1.0 describes) with this key, so callers can pin its public
     * half. Default: unsigned.
     */
    signing: z
      .object({
        /** PEM file of the private key (PKCS#8): EC P-256 for ES256, RSA for RS256, Ed25519 for EdDSA. */
        privateKeyFile: z.string().min(1),
        /** The key id callers pin it under. */
        kid: z.string().min(1).max(200),
        /** The JWS algorithm, matching the key. */
        alg: z.enum(['ES256', 'RS256', 'EdDSA']).default('ES256'),
      })
      .strict()
      .optional(),
    /** Where `baton serve` (the A2A endpoints alone) listens. Default 127.0.0.1:41250. */
    listen: listenOn(41250),
    /**
     * Serve the agents over gRPC too (the A2A 1.0 binding), on a port of its own. Default: off.
     * Without `tls`, plaintext: keep it on loopback or behind a proxy that terminates TLS.
     */
    grpc: z
      .object({
        listen: listenOn(41251),
        /** host:port callers reach, written into the cards. Default: the listen address. */
        publicAddress: z.string().min(3).optional(),
        /** PEM files of the server's certificate and private key. */
        tls: z
          .object({
            /** PEM file of the server's certificate (chain). */
            certFile: z.string().min(1),
            /** PEM file of its private key. */
            keyFile: z.string().min(1),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    services: z.record(name, ServedAgentSchema).default({}),
    push: ServePushSchema.default({
      allowHttp: false,
      allowPrivateNetwork: false,
      attempts: 12,
      retryInitial: '1s',
      retryMax: '5m',
      timeoutMs: 10_000,
    }),
  })
  .strict();
export type ServeConfig = z.infer<typeof ServeSchema>;

/** `ip:port` a metrics endpoint listens on (`0.0.0.0:9464` for every interface; the exporter takes no host names). */
const ListenAddressSchema = z
  .string()
  .regex(
    /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/,
    'must be an IP address and port, for example 127.0.0.1:9464 (0.0.0.0:9464 listens on every interface)',
  );

/**
 * Traces and metrics (docs/observability.md). Both are off unless configured: tracing also by the
 * standard `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` variables.
 */
export const TelemetrySchema = z
  .object({
    /** OpenTelemetry traces, exported with OTLP over HTTP. */
    traces: z
      .object({
        /**
         * The OTLP/HTTP receiver's base URL (`http://collector:4318`; spans go to `<endpoint>/v1/traces`).
         * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` wins, as the OpenTelemetry
         * specification has it.
         */
        endpoint: z.url({ message: 'must be the OTLP/HTTP receiver URL, for example http://127.0.0.1:4318' }).optional(),
        /** The `service.name` of this process's spans. Default: `OTEL_SERVICE_NAME`, else `baton-<command>` (baton-worker, baton-cli…). */
        serviceName: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    /** Prometheus endpoints (`GET /metrics`), one per process kind; each is off unless its address is set. */
    metrics: z
      .object({
        /** `baton worker` (and `baton dev`, which runs everything in one process): the Temporal SDK's metrics and Baton's. */
        worker: ListenAddressSchema.optional(),
        /** `baton ui`: its HTTP API's requests. */
        ui: ListenAddressSchema.optional(),
        /** `baton webhook`: the push notifications it takes and refuses. */
        webhook: ListenAddressSchema.optional(),
        /** `baton serve`: the served agents' requests. */
        serve: ListenAddressSchema.optional(),
        /**
         * How often a worker counts the requests waiting for a person (`baton_pending_requests`), by one
         * visibility count per kind. Default 30s: a dashboard figure, not an alert that must be instant.
         */
        pendingEvery: DurationSchema.default('30s'),
      })
      .strict()
      .optional(),
  })
  .strict();
export type TelemetryConfig = z.infer<typeof TelemetrySchema>;

/**
 * An MCP server Baton's workflows may call tools of (`callMcpTool` from `baton/workflow`), from the
 * worker. Like an agent: an allowlist of tools, a credential read on the worker by name, size and
 * time limits; what it returns is untrusted data.
 */
export const McpServerEntrySchema = z
  .object({
    /** stdio: the program to start for each call (it ends with the call). */
    command: z.string().min(1).optional(),
    /** Its arguments. Default none. */
    args: z.array(z.string()).default([]),
    /** Its working folder. Default the worker's. */
    cwd: z.string().min(1).optional(),
    /**
     * Variables of the worker's environment it is given, by name. Default none: only the minimal
     * environment the MCP SDK gives (PATH, HOME, ...), so no worker secret reaches it unless named.
     */
    env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).default([]),
    /** Streamable HTTP: the server's endpoint URL. */
    url: z.url({ message: 'must be an absolute http(s) URL' }).optional(),
    /** Allow plain http (url only). Default false. */
    allowHttp: z.boolean().default(false),
    /** Allow private and loopback addresses (url only). Default false. */
    allowPrivateNetwork: z.boolean().default(false),
    /** How Baton authenticates to it (url only): a header whose value comes from the environment or a file. */
    auth: AgentAuthSchema.optional(),
    /** The tools workflows may call on it, by name. Required: nothing is callable unless listed. */
    tools: z.array(z.string().min(1).max(128)).min(1, 'list the tools workflows may call'),
    /** Largest result accepted, in bytes of JSON (it enters history). Default 256 KiB, at most 2 MiB. */
    maxResultBytes: z
      .number()
      .int()
      .positive()
      .max(2 * 1024 * 1024)
      .default(256 * 1024),
    /** Time for one call, connecting included. Default 30000 ms. */
    timeoutMs: z.number().int().positive().default(30_000),
    /**
     * How long a connection (a started stdio server, an HTTP session) is kept after its last call, for
     * the next calls to share. Default 60000 ms: starting a stdio server costs 0.14 to 0.2 s a call
     * (docs/decisions/0028-mcp.md). 0: a fresh connection for every call, nothing shared between them.
     */
    keepAliveMs: z.number().int().min(0).max(3_600_000).default(60_000),
  })
  .strict()
  .refine((e) => (e.command ? 1 : 0) + (e.url ? 1 : 0) === 1, { message: 'set exactly one of command (stdio) or url (Streamable HTTP)' })
  .refine((e) => !e.auth || e.url, { message: 'auth is for a url server; give a stdio server its secret through env' });
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** MCP servers workflows call tools of. */
export const McpSchema = z.object({ servers: z.record(name, McpServerEntrySchema).default({}) }).strict();
export type McpConfig = z.infer<typeof McpSchema>;

/** A calling namespace, and who its Nexus operations act as in Baton. */
export const NexusCallerSchema = z
  .object({
    /** The Temporal namespace the caller workflows run in (the server names it in every start's link). */
    namespace: z.string().min(1).max(255),
    /** The Baton tenant its operations belong to: they see and answer only this tenant's delegations. */
    tenant: tenantName,
    /** The user its operations act as (`by` in turns, audit). Default `nexus:<namespace>`. */
    user: identifier.optional(),
    /**
     * A Nexus header the caller may set to name the user instead (for example `baton-user`): read only
     * for this namespace, within its tenant, at most 200 characters. Unset (the default): `user` only,
     * since a header is whatever the caller workflow chose.
     */
    userHeader: z
      .string()
      .max(64)
      .regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and - (Nexus header names are case-insensitive)')
      .optional(),
  })
  .strict();

/** Baton as a Temporal Nexus service (docs/nexus.md). Default: off. */
export const NexusSchema = z
  .object({
    /**
     * The Nexus endpoint's name: `baton setup --nexus` creates it on the server, targeting this
     * config's namespace and task queue. Default `baton`.
     */
    endpoint: z
      .string()
      .max(200)
      .regex(/^[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]$/, "letters, digits and -, starting with a letter (Temporal's endpoint names)")
      .default('baton'),
    /**
     * Namespaces whose workflows may call, each mapped to a tenant. A namespace not listed is refused
     * (UNAUTHORIZED), whatever it asks. Default: none.
     */
    callers: z.array(NexusCallerSchema).max(1_000).default([]),
  })
  .strict()
  .superRefine((nexus, ctx) => {
    const seen = new Set<string>();
    for (const [i, c] of nexus.callers.entries()) {
      if (seen.has(c.namespace))
        ctx.addIssue({ code: 'custom', path: ['callers', i, 'namespace'], message: `${c.namespace} is listed twice` });
      seen.add(c.namespace);
    }
  });
export type NexusConfig = z.infer<typeof NexusSchema>;
export type NexusCallerConfig = z.infer<typeof NexusCallerSchema>;

export const ConfigSchema = z
  .object({
    temporal: z
      .object({
        /** host:port of an existing server; unset means Baton finds or starts one (see docs/temporal-server.md). */
        address: z.string().optional(),
        /** The namespace Baton's workflows run in; TEMPORAL_NAMESPACE wins. */
        namespace: z.string().default('default'),
        /** The task queue Baton's workers poll and its clients start workflows on. */
        taskQueue: z.string().default('baton'),
        /**
         * A profile of Temporal's own config file (temporal.toml, as the `temporal` CLI reads it) to start
         * from; TEMPORAL_PROFILE wins. Default: the file's `default` profile when there is one.
         */
        profile: z.string().min(1).optional(),
        /** TLS to the frontend (mTLS with a client certificate). Read at connect time; the files are never printed. */
        tls: z
          .object({
            /** PEM file of the CA that signed the server's certificate. Default: the system's trusted CAs. */
            serverCaFile: z.string().min(1).optional(),
            /** PEM file of the client certificate, for mTLS; with `clientKeyFile`. */
            clientCertFile: z.string().min(1).optional(),
            /** PEM file of the client certificate's private key. */
            clientKeyFile: z.string().min(1).optional(),
            /** The name the server's certificate must carry, when it is not the address's host. */
            serverName: z.string().min(1).optional(),
            /** Force TLS off (it is on whenever any of the above or an API key is set). */
            disabled: z.boolean().optional(),
          })
          .strict()
          .optional(),
        /** Environment variable holding an API key (Temporal Cloud, or a JWT for the server's authorizer); TEMPORAL_API_KEY wins. */
        apiKeyFromEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
          .optional(),
      })
      .strict()
      .default({ namespace: 'default', taskQueue: 'baton' }),
    caller: z
      .object({
        /** The tenant the CLI acts for: letters, digits and `. _ @ -`, at most 100, no `:` (it prefixes the ids its callers choose, `<tenant>:<id>`); BATON_TENANT wins. */
        tenant: tenantName.default('local'),
        /** The user the CLI acts as; BATON_USER wins. */
        user: z.string().min(1).max(200).default('dev'),
      })
      .strict()
      .default({ tenant: 'local', user: 'dev' }),
    agents: z.record(name, AgentEntrySchema).default({}),
    policies: z.record(name, DeclaredPolicySchema).default({}),
    artifacts: ArtifactsSchema.default({
      store: 'fs',
      path: '.baton/artifacts',
      inlineMaxBytes: 64 * 1024,
      snapshotInlineMaxBytes: 256 * 1024,
      delegationInlineMaxBytes: 1024 * 1024,
    }),
    /** Push notifications (agents with `observe: push`, or `auto` on a card that offers them). Default: off. */
    push: PushSchema.optional(),
    encryption: EncryptionSchema.optional(),
    worker: WorkerSchema.default({ maxCachedWorkflows: 100, maxConcurrentActivities: 100 }),
    api: ApiSchema.default({
      listen: { host: '127.0.0.1', port: 41230 },
      callers: [],
      issuers: [],
      rateLimit: { requestsPerMinute: 600, burst: 120 },
      mcp: true,
      agui: { enabled: true, corsOrigins: [] },
      mcpSessionKeyFromEnv: 'BATON_MCP_SESSION_KEY',
      limits: LIMIT_DEFAULTS,
      streamRideOut: '2m',
      trustProxy: 0,
    }),
    /** A2A agents Baton serves itself. Default: none. */
    serve: ServeSchema.optional(),
    /** Traces and Prometheus metrics. Default: off. */
    telemetry: TelemetrySchema.optional(),
    /** MCP servers whose tools workflows may call (`callMcpTool`). Default: none. */
    mcp: McpSchema.optional(),
    /** Data labels (docs/data-use.md). Default: public, internal, confidential, personal; unlabelled data needs no clearance. */
    dataUse: DataUseConfigSchema.optional(),
    /** Baton's worker serves delegation as a Temporal Nexus service to other namespaces (docs/nexus.md). Default: off. */
    nexus: NexusSchema.optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    const labels: readonly string[] = config.dataUse?.labels ?? DEFAULT_LABELS;
    for (const [agent, entry] of Object.entries(config.agents)) {
      for (const [i, label] of entry.clearance.entries()) {
        if (!labels.includes(label))
          ctx.addIssue({
            code: 'custom',
            path: ['agents', agent, 'clearance', i],
            message: `${label} is not one of dataUse.labels (${labels.join(', ')})`,
          });
      }
    }
  });
/** A loaded config: the file's fields, and where Temporal is as the loader resolved it (runtime/temporal-target). */
export type BatonConfig = z.infer<typeof ConfigSchema> & { temporal: { target?: TemporalTarget } };

/** An entry for an agent on this machine (demo and test agents): http and loopback allowed. */
export function loopbackAgentEntry(url: string, extra: Partial<z.input<typeof AgentEntrySchema>> = {}): AgentEntry {
  return AgentEntrySchema.parse({ card: url, allowHttp: true, allowPrivateNetwork: true, ...extra });
}
