/**
 * The public contract of a delegation: its input, its local status, its outcome and the record that
 * `baton show --json` prints. Workflow-safe: plain JSON only.
 */
import { z } from 'zod';
import { PartSchema, type Part, type TaskState } from './a2a-types';

/** Local status while a delegation runs (DESIGN.md §2). */
export const DELEGATION_STATUSES = [
  'STARTING',
  'REMOTE_ACTIVE',
  'WAITING_INPUT',
  'WAITING_AUTH',
  'WAITING_REVIEW',
  'CANCELLING',
  'SETTLED',
] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** Local terminal result; never inferred from a remote state alone (DESIGN.md §2). */
export const OUTCOMES = ['ACCEPTED', 'REJECTED', 'REMOTE_FAILED', 'REMOTE_REJECTED', 'CANCELED', 'TIMED_OUT', 'ERROR'] as const;
export const OutcomeKindSchema = z.enum(OUTCOMES);
export type OutcomeKind = z.infer<typeof OutcomeKindSchema>;

export interface Outcome {
  kind: OutcomeKind;
  /** Why: acceptance reasons, the agent's own status text (kept verbatim), or a typed error. */
  reasons: string[];
}

/** Limits on identifiers a caller may choose; they end up in workflow ids and search attributes. */
export const identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/, 'use letters, digits and . _ : @ / - (starting with a letter or digit)');

/** Who is calling: every delegation has a tenant and an owner; callers of another tenant are refused. */
export const CallerSchema = z.object({ tenant: identifier, user: identifier }).strict();
export type Caller = z.infer<typeof CallerSchema>;

/** Update `answer`: parts for the pending INPUT_REQUIRED request, sent as a new turn on the same task. */
export const AnswerSchema = z
  .object({
    requestId: z.string().min(1).max(300),
    parts: z.array(PartSchema).min(1).max(64),
    caller: CallerSchema,
  })
  .strict();
export type Answer = z.infer<typeof AnswerSchema>;

/** A credential's name, as `agents.X.credentials` lists it. */
export const CredentialNameSchema = z
  .string()
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a credential name (lower-case letters, digits and -) from the agent entry');

/**
 * Update `authorize`: the name of a credential the agent's entry allows (`agents.X.credentials`), for
 * the pending AUTH_REQUIRED request. Only the name enters history; the worker reads the value when it
 * sends the turn, and sends nothing the entry does not list.
 */
export const AuthorizeSchema = z
  .object({
    requestId: z.string().min(1).max(300),
    credential: CredentialNameSchema,
    caller: CallerSchema,
  })
  .strict();
export type Authorize = z.infer<typeof AuthorizeSchema>;

/** Update `review`: a person's decision on a result the policy accepted and marked for review. */
export const ReviewSchema = z
  .object({
    requestId: z.string().min(1).max(300),
    decision: z.enum(['accept', 'reject']),
    reason: z.string().max(2000).optional(),
    caller: CallerSchema,
  })
  .strict();
export type Review = z.infer<typeof ReviewSchema>;

/** Update `cancel`: stop the delegation and request CancelTask on the remote task. */
export const CancelSchema = z.object({ caller: CallerSchema, reason: z.string().max(500).optional() }).strict();
export type CancelRequest = z.infer<typeof CancelSchema>;

/** A duration such as 90s, 15m, 2h or 1d. */
export const DurationSchema = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'use a duration such as 90s, 15m, 2h or 1d');

/** The delegation contract: limits that end a delegation when passed. Per delegation, defaults per agent. */
export const ContractSchema = z
  .object({
    /** From the moment the agent is resolved; passing it requests the remote cancel, outcome TIMED_OUT. */
    deadline: DurationSchema.optional(),
    /** How many times the agent may ask for input or authentication; one more ends it in ERROR. */
    maxInputRounds: z.number().int().min(0).max(1000).optional(),
    /**
     * How many calls to the agent (sends, polls, subscriptions, reads after a push) the delegation may
     * make; then ERROR. Reads Baton paces itself (a push delegation's backstop, sparse reads) are not
     * counted here: `maxWait` bounds them.
     */
    maxRemoteCalls: z.number().int().min(1).max(1_000_000).optional(),
    /**
     * How long Baton goes on reading the task at its own pace (a push delegation's backstop reads,
     * sparse reads of a task that works for long), counted like the deadline; then the remote task is
     * cancelled and the outcome is TIMED_OUT. Time, not calls: such reads cost the same per day however
     * long the task works. The agent entries' default is 90d.
     */
    maxWait: DurationSchema.optional(),
  })
  .strict();
export type Contract = z.infer<typeof ContractSchema>;

export const DelegationInputSchema = z.object({
  /** Agent name in the registry (config). */
  agent: identifier,
  /** The first turn's parts. */
  parts: z.array(PartSchema).min(1).max(64),
  /** Tenant and owner: who may see and steer this delegation. */
  tenant: identifier,
  owner: identifier,
  /** Named acceptance policy; the agent's configured policy when unset. */
  policy: identifier.optional(),
  /** Continue an existing remote conversation (a contextId the agent gave us). */
  contextId: z.string().min(1).max(256).optional(),
  /** Remote tasks this work refers to. */
  referenceTaskIds: z.array(z.string().min(1).max(256)).max(32).optional(),
  /** Overrides the agent's contract defaults. */
  contract: ContractSchema.optional(),
  /**
   * A workflow to tell when the delegation starts waiting for a person or system (Signal
   * `batonRequest`); the embedding API sets it to the parent workflow when it has `onRequest`.
   */
  notify: z
    .object({
      workflowId: z.string().min(1).max(1000),
      /** Send `batonRequest` when the delegation starts waiting for input, auth or review. Default true. */
      requests: z.boolean().optional(),
      /** Send `batonRemoteTask` once the remote task and its contextId are known (graphs use it). Default false. */
      remoteTask: z.boolean().optional(),
      /**
       * Send `batonSettled` with the result (artifacts by reference) when the delegation ends. Default false.
       * A graph that continued as new learns this way how the nodes an earlier run started ended.
       */
      settled: z.boolean().optional(),
    })
    .strict()
    .optional(),
  /**
   * @deprecated Read by 0.9.0 workers only (1.0 workers always resolve in the first send, in the first
   * workflow task when its timeout allows). Every starter still sets both, through `FIRST_SEND_FLAGS`,
   * so a 0.9.0 worker in a rolling upgrade takes the path a 1.0 worker replays. Dropped after 1.0.
   */
  resolveInSend: z.literal(true).optional(),
  /** @deprecated As `resolveInSend`. */
  sendInFirstTask: z.literal(true).optional(),
  /**
   * Send `batonSettled` (`notify.settled`) from a local activity in the workflow task that settles
   * the delegation, not by a Signal command that a second workflow task waits for (decision 0042).
   * Set by graphs that start their nodes by activity; in the input rather than a patch, so a node pays
   * no marker and no `TemporalChangeVersion` write (decision 0024). Unset: the Signal command.
   */
  settledFromActivity: z.literal(true).optional(),
  /**
   * The data labels this request inherits from the graph nodes it depends on, each with the node it
   * came from (docs/data-use.md): checked against the agent's clearance as its parts' labels are.
   */
  inherited: z
    .array(z.object({ label: z.string().min(1).max(64), from: z.string().min(1).max(128) }).strict())
    .max(32)
    .optional(),
});
export type DelegationInput = z.infer<typeof DelegationInputSchema>;

/** The interface chosen from the agent's card; every later call uses exactly this one. */
export interface ChosenInterface {
  url: string;
  binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  protocolVersion: string;
  tenant: string;
}

/** What the resolve step records for audit: card digest, chosen interface, capabilities. */
export interface ResolvedAgent {
  name: string;
  cardUrl: string;
  cardSha256: string;
  cardName: string;
  interface: ChosenInterface;
  /** `dataUse`: the card declares Baton's data-use extension (set only when it does). */
  capabilities: { streaming: boolean; pushNotifications: boolean; dataUse?: true };
  /** The acceptance policy configured for this agent, used when the delegation names none. */
  defaultPolicy: string;
  /**
   * Whether a retried send can look for a turn whose response was lost: `list-tasks` (A2A 1.0
   * ListTasks), or `unavailable` (0.3 agents), where a retry may create a second remote task.
   */
  reconcile: 'list-tasks' | 'unavailable';
  /** The agent's contract defaults from the registry. */
  contract: Contract;
  /**
   * How the remote task is followed: a stream (SubscribeToTask, GetTask after any break), polling, or
   * push (the agent calls our webhook; the workflow waits without an activity and reads with GetTask).
   */
  observe: 'stream' | 'poll' | 'push';
  /** With push: how often the task is read anyway, so a lost push is caught (a duration). */
  backstopPoll?: string;
  /**
   * Stream and poll modes: after how long one observing activity lets its slot go, and how often the
   * task is read from then on, and how long one attempt of those reads lasts (durations;
   * `agents.X.sparsePoll`). Unset: resolved by an older worker.
   */
  sparsePoll?: { after: string; every: string; attemptSpan?: string };
  /** Names of the credentials the entry allows for this delegation's tenant (unset: resolved by an older worker). */
  credentials?: string[];
  /**
   * The labels the agent is cleared for and what an unlabelled part counts as (docs/data-use.md), so an
   * answer is checked before it is accepted. Unset: the default, only `public`, unlabelled data free.
   */
  clearance?: { cleared: string[]; unlabelled?: string };
}

/** An artifact as the delegation keeps it: digest and size always, the value inline only when small. */
export interface ArtifactRecord {
  artifactId: string;
  name?: string;
  mediaType?: string;
  /** Bytes of the artifact's content: decoded `raw` parts, `text` parts' text, else the parts as JSON. */
  size: number;
  sha256: string;
  /** The parts, present when `size` is within the inline cap. */
  parts?: Part[];
  /** Where the artifact store keeps the bytes (`sha256:<hex>`) when they are too large to inline. */
  ref?: string;
  /** The artifact's URL parts, each downloaded under the agent's policy or refused (the URL stays the reference). */
  downloads?: UrlDownload[];
  /**
   * Set when the agent sent back a configured secret, now replaced by a marker: in the inline parts
   * (`size` and `sha256` still describe what the agent sent), or in the bytes stored by reference
   * (`size` and `sha256` describe the stored bytes, as the store checks them).
   */
  redacted?: boolean;
  /**
   * Which copy a streamed artifact is: `stream` (assembled from its chunks) or `task` (the agent's own,
   * read whole because the stream was ambiguous). Set only for artifacts assembled from a stream.
   */
  source?: 'stream' | 'task';
  /** Chunks the stream sent identical to the one before (a repeated line, or an event delivered twice). */
  repeatedChunks?: number;
}

/** Why a URL part was not downloaded. */
export type DownloadRefusal =
  'host-not-allowed' | 'address' | 'scheme' | 'redirect' | 'too-large' | 'media-type' | 'timeout' | 'http-status' | 'network';

export type UrlDownload =
  | { url: string; ok: true; ref: string; sha256: string; size: number; mediaType?: string }
  | { url: string; ok: false; reason: DownloadRefusal; detail: string };

/** One observation of the remote task, taken by an activity (which owns the clock). */
export interface RemoteSnapshot {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** Text of the agent's status message, kept verbatim (untrusted data). */
  statusText?: string;
  /** When the agent says the state was reached. */
  remoteTimestamp?: string;
  /** The parts of the agent's status message (its question, when it asks one). */
  statusParts?: Part[];
  /** The agent's id for that status message. */
  statusMessageId?: string;
  /** When we observed it. */
  observedAt: string;
  artifacts: ArtifactRecord[];
  /** Calls to the agent the observing activity made to get here (counted against the contract). */
  calls?: number;
}

/** What the delegation is waiting for. The prompt is the agent's text: untrusted data, shown, never obeyed. */
export interface PendingRequest {
  kind: 'input' | 'auth' | 'review';
  /** Deterministic: `<delegation id>/request-<n>`. Answers must name it. */
  requestId: string;
  prompt: Part[];
  taskId: string;
  contextId: string;
  observedAt: string;
  /** Identifies the remote status that asked (see `statusKey`). */
  statusKey: string;
  /** For `auth`: the credentials that may answer it, by name (the agent entry's, for this tenant). */
  credentials?: string[];
}

/** What a delegation tells its `notify` workflow when it starts waiting. */
export interface RequestNotice {
  delegationId: string;
  agent: string;
  request: PendingRequest;
}

/** What a delegation tells its `notify` workflow once the agent named the task and context. */
export interface RemoteTaskNotice {
  delegationId: string;
  agent: string;
  taskId?: string;
  contextId?: string;
}

/** An answer or authorization that arrived by Signal and was refused: kept, never dropped silently. */
export interface RefusedSignal {
  signal: 'answer' | 'authorize';
  /** As the sender gave them (absent when the payload was malformed). */
  requestId?: string;
  by?: string;
  reason: string;
}

export interface StateChange {
  state: TaskState;
  remoteTimestamp?: string;
  observedAt: string;
}

export interface Turn {
  messageId: string;
  sentAt: string;
  /**
   * What the turn said (absent in records of Baton 0.9 and earlier): the request, or the answer, kept
   * inline up to TURN_PARTS_MAX_BYTES, else a note of its size. An auth turn names its credential,
   * never its value.
   */
  parts?: Part[];
  /** The agent's question this turn answered (untrusted data, as the agent said it). */
  question?: Part[];
  /** Who sent an answer (`tenant/user`): one of the three principals (docs/data-use.md); unset for the first turn, the owner's. */
  by?: string;
  /** The turn's data labels, whether its terms went to the agent and whether it acknowledged them (docs/data-use.md). */
  dataUse?: { labels: string[]; conveyed: boolean; acknowledged?: boolean };
}

export interface DelegationRecord {
  /** The record's shape (RECORD_VERSION); absent in records of Baton 0.1, read as 1 (see readRecord). */
  recordVersion?: number;
  id: string;
  /** The Baton version that started the delegation (BatonVersion); absent before 0.2.0. */
  batonVersion?: string;
  tenant: string;
  owner: string;
  agent: {
    name: string;
    cardSha256?: string;
    interface?: ChosenInterface;
    reconcile?: ResolvedAgent['reconcile'];
    observe?: ResolvedAgent['observe'];
    /** Credentials an `authorize` may name (see ResolvedAgent). */
    credentials?: string[];
    /** The labels the agent is cleared for, when not only `public` (see ResolvedAgent). */
    clearance?: { cleared: string[]; unlabelled?: string };
  };
  status: DelegationStatus;
  outcome?: Outcome;
  remote: { taskId?: string; contextId?: string; state?: TaskState; history: StateChange[] };
  /** A direct Message reply, when the agent answered without a task. */
  reply?: { messageId: string; parts: Part[] };
  pending: PendingRequest | null;
  /** Set once a cancel was asked for (by a caller, or by cancelling the workflow). */
  cancel?: { by: string; reason: string };
  turns: Turn[];
  /** Things worth knowing that are not state: retried sends and how they were reconciled. */
  notes: string[];
  /** Answers that came by Signal and were refused, with the reason (the latest 50). */
  refusedSignals: RefusedSignal[];
  /** Calls made to the agent so far (sends, polls, subscriptions, cancels), paced reads included. */
  remoteCalls: number;
  /**
   * Of `remoteCalls`, the reads Baton paced itself (push backstop, sparse reads): bounded by the
   * contract's `maxWait`, not by `maxRemoteCalls`. Absent until the first one.
   */
  pacedReads?: number;
  artifacts: ArtifactRecord[];
  /** The acceptance policy in force; known once the agent is resolved. */
  policy?: string;
  /** The contract in force: the delegation's own, over the agent's defaults. */
  contract?: Contract;
}
