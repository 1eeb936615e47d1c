/**
 * What every activity module shares: its dependencies, the agent directory (cards and clients), and
 * the snapshot in the shape history keeps.
 */
import type { Logger } from 'pino';
import type { Lookup } from '../src/a2a/guarded-fetch';
import { snapshotOf } from '../src/a2a/snapshot';
import { StreamedTask } from '../src/a2a/streamed-task';
import type { PolicyRegistry } from '../src/acceptance/policies';
import { MAX_INLINE_ARTIFACT_BYTES } from '../src/artifacts/digest';
import type { ArtifactStore } from '../src/artifacts/store';
import type { BatonConfig } from '../src/config/schema';
import type { Task } from '../src/shared/a2a-types';
import type { ArtifactRecord, RemoteSnapshot, ResolvedAgent } from '../src/shared/delegation-types';
import { withinInlineTotal } from '../src/artifacts/inline-totals';
import { Redactor } from '../src/secrets/redactor';
import { AgentDirectory } from './agent-directory';
import { CardKeeper } from './card-keeper';

export interface ActivityDeps {
  /** `api`: only so its callers' tokens are redacted too, should an agent ever echo one. */
  config: Pick<BatonConfig, 'agents'> &
    Partial<Pick<BatonConfig, 'artifacts' | 'push' | 'api' | 'worker' | 'serve' | 'encryption' | 'mcp'>>;
  /** Holds artifact bytes too large for history. Default: none (large artifacts keep only their digest). */
  store?: ArtifactStore;
  policies: PolicyRegistry;
  logger: Logger;
  /** DNS lookup for the guarded fetch. Default: the system resolver (tests point names at chosen addresses). */
  lookup?: Lookup;
  /**
   * First and largest pause between two GetTask polls, in ms. The pause grows by half each poll.
   * Defaults 250 and 5000: quick for agents that finish fast, gentle on slow ones.
   */
  poll?: { initialMs: number; maxMs: number };
  /** How long a fetched card is reused before it is fetched again, for every agent. Default: each entry's `cardTtl`. */
  cardTtlMs?: number;
  /** After this long without a stream event, GetTask checks whether the task left its active state. Default 30 s. */
  streamSilenceMs?: number;
}

/** What an activity about one remote task is given. */
export interface TaskInput {
  delegationId: string;
  agent: ResolvedAgent;
  taskId: string;
  /** Bytes the delegation's history holds inline already (see `ActivityContext.inlineRoom`). */
  inlineSoFar?: number;
}

export interface ActivityContext {
  deps: ActivityDeps;
  agents: AgentDirectory;
  /** Keeps the cards delegations are sent under in the artifact store (decision 0040). */
  cards: CardKeeper;
  /** Replaces configured secrets in whatever the activities return, throw or log. */
  redactor: Redactor;
  /** The activities' logger: configured secrets are redacted from every line. */
  logger: Logger;
  /** Pauses between polls and resubscriptions: from `initialMs`, growing by half, up to `maxMs`. */
  poll: { initialMs: number; maxMs: number };
  streamSilenceMs: number;
  /** Largest artifact (and direct reply) kept inline in history, in bytes. */
  inlineMaxBytes: number;
  /** Inline bytes one observation may still bring, given what the delegation's history holds inline already. */
  inlineRoom(inlineSoFar: number | undefined): number;
  /** An activity's result with its artifacts' inline bytes within the totals (see `withinInlineTotal`). */
  withinInlineTotals<T>(result: T, inlineSoFar: number | undefined): Promise<T>;
  /** A snapshot for history: large artifacts go to the store. */
  snapshot(task: Task): Promise<RemoteSnapshot>;
  /**
   * A stream's own copy of task `taskId` (undefined: a send's, until its first event), bounded by what
   * history keeps inline: a larger artifact is better read, or assembled into the store.
   */
  streamedTask(taskId: string | undefined, inlineSoFar: number | undefined): StreamedTask;
  /** The activities' logger, with the delegation, agent and remote task named on every line. */
  logFor(input: { delegationId: string; agent: ResolvedAgent | string; taskId?: string }): Logger;
}

export function activityContext(deps: ActivityDeps): ActivityContext {
  const artifacts = deps.config.artifacts;
  const recordOptions = { store: deps.store, inlineMaxBytes: artifacts?.inlineMaxBytes };
  const redactor = Redactor.fromConfig(deps.config);
  const inlineRoom = (soFar = 0): number =>
    Math.max(0, Math.min(artifacts?.snapshotInlineMaxBytes ?? 256 * 1024, (artifacts?.delegationInlineMaxBytes ?? 1024 * 1024) - soFar));
  const inlineMaxBytes = artifacts?.inlineMaxBytes ?? MAX_INLINE_ARTIFACT_BYTES;
  const logger = deps.logger.child({}, { formatters: { log: (fields) => redactor.value(fields).value } });
  return {
    deps,
    agents: new AgentDirectory(deps),
    cards: new CardKeeper(deps.store, logger),
    redactor,
    logger,
    poll: deps.poll ?? { initialMs: 250, maxMs: 5_000 },
    streamSilenceMs: deps.streamSilenceMs ?? 30_000,
    inlineMaxBytes,
    inlineRoom,
    async withinInlineTotals(result, soFar) {
      const room = inlineRoom(soFar);
      const bound = (artifacts: ArtifactRecord[]) => withinInlineTotal(artifacts, room, deps.store);
      const r = result as { artifacts?: ArtifactRecord[]; taskId?: unknown; kind?: unknown; snapshot?: RemoteSnapshot };
      // A snapshot (observation), or a send's outcome carrying one.
      if (Array.isArray(r?.artifacts) && typeof r.taskId === 'string')
        return { ...r, artifacts: await bound(r.artifacts) } as typeof result;
      if (r?.kind === 'task' && r.snapshot)
        return { ...r, snapshot: { ...r.snapshot, artifacts: await bound(r.snapshot.artifacts) } } as typeof result;
      return result;
    },
    snapshot: (task) => snapshotOf(task, recordOptions),
    streamedTask: (taskId, soFar) => new StreamedTask(taskId, Math.min(inlineMaxBytes, inlineRoom(soFar))),
    logFor: ({ delegationId, agent, taskId }) =>
      logger.child({
        delegationId,
        agent: typeof agent === 'string' ? agent : agent.name,
        ...(taskId ? { remoteTaskId: taskId } : {}),
      }),
  };
}
