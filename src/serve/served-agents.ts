/**
 * The A2A agents Baton serves (`serve.services`): their cards and request handlers, built once for
 * every transport that serves them (HTTP at `<base>/a2a/<name>`, and gRPC with the service's name as
 * the interface's tenant).
 */
import type { RideOut } from '../shared/ride-out';
import type { IssuerConfig } from '../config/identity-schema';
import { privateKeyOf } from './signing-key';
import { AgentCard, generateAgentCardSignature, type AgentCardSignatureGenerator } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonClient } from '../client/baton-client';
import { ConfigError } from '../config/load';
import type { BatonConfig, ServeConfig, ServedAgentConfig } from '../config/schema';
import { ServedAgent, type ServedDataUse } from './served-agent';
import { DATA_USE_EXTENSION } from '../shared/data-use';
import { clearedFor, dataUseRules } from '../config/data-use-rules';
import { CallerWebhooks } from './caller-webhooks';
import { encryptionCodec } from '../codec/data-converter';
import { DelegationRunner, GraphRunner, servedGraphSpec, WorkflowRunner } from '../served-tasks/task-runners';
import { ServedTasks } from '../served-tasks/served-tasks';
import type { GraphClient } from '../client/graph-client';
import type { CallerBudget } from '../limits/caller-budget';
import type { Lookup } from '../a2a/guarded-fetch';
import { GraphSpecError, parseGraphSpec } from '../shared/graph-spec';

export interface ServedAgentsOptions {
  serve: ServeConfig;
  /** The agents the services delegate to must be configured here. */
  agents: BatonConfig['agents'];
  /** The data labels (`dataUse`): a caller's terms are checked against them and the agents' clearance. Default: the defaults. */
  dataUse?: BatonConfig['dataUse'];
  baton: BatonClient;
  graphs: GraphClient;
  /** The URL the server is reached at (`serve.publicUrl`, else the listen address), once it is known. */
  baseUrl: () => string;
  /** Signs each card once it is built (`serve.signing`). Default: unsigned. */
  signer?: AgentCardSignatureGenerator;
  /** The gRPC address callers reach (`serve.grpc.publicAddress`, else its listen address), once known; unset: no gRPC. */
  grpcAddress?: () => string | undefined;
  /** The schemes the cards declare. Default: bearer tokens alone. */
  security?: CardSecurity;
  artifacts?: ArtifactStore;
  /** The key served task ids are made with (`serve.taskIdKeyFromEnv`). */
  taskIdKey: Buffer;
  /** How long a blocking send or an open stream rides out Temporal not answering (`api.streamRideOut`). Default two minutes. */
  rideOut?: RideOut;
  /** Resolves callers' webhook host names when they register them. Default: the system's resolver. */
  lookup?: Lookup;
  /** The callers' budget: what a page of ListTasks read is charged to it. Default: not charged. */
  budget?: CallerBudget;
  logger: Logger;
}

/** Workflow types of Baton's own, which a `workflow` service cannot name. */
const BATON_WORKFLOWS = new Set(['delegationWorkflow', 'taskGraphWorkflow', 'taskPushWorkflow']);

/** Throws ConfigError when a service names an agent that is not configured, or a graph that cannot run. */
export function checkServices(serve: ServeConfig, agents: BatonConfig['agents']): void {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(serve.services)) {
    if (s.workflow && BATON_WORKFLOWS.has(s.workflow.type))
      problems.push(
        `serve.services.${name}.workflow.type: ${s.workflow.type} is Baton's own; name your workflow (or use delegate or graph)`,
      );
    if (s.delegate && !agents[s.delegate.agent])
      problems.push(`serve.services.${name}.delegate.agent: ${s.delegate.agent} is not under agents`);
    if (s.dataUse?.forwardsTo && !s.workflow)
      problems.push(
        `serve.services.${name}.dataUse.forwardsTo: only for a workflow service (Baton knows where a delegate or graph service's data goes)`,
      );
    for (const agent of s.dataUse?.forwardsTo ?? [])
      if (!agents[agent]) problems.push(`serve.services.${name}.dataUse.forwardsTo: ${agent} is not under agents`);
    if (s.graph) {
      try {
        parseGraphSpec(servedGraphSpec(s.graph, [{ text: 'request' }]), Object.keys(agents));
      } catch (err) {
        if (!(err instanceof GraphSpecError)) throw err;
        problems.push(...err.problems.map((p) => `serve.services.${name}.graph: ${p}`));
      }
    }
  }
  if (problems.length) throw new ConfigError('the served agents are not valid:', problems);
}

/**
 * The card of service `name`, served at `base`, in the protocol's JSON form (what is served and what
 * a signature covers: the SDK's own object form is not what other SDKs read).
 */
export function servedCard(
  name: string,
  service: ServedAgentConfig,
  base: string,
  grpcAddress?: string,
  security: CardSecurity = { bearer: true, issuers: [] },
): CardJson {
  const { securitySchemes, securityRequirements } = cardSecurity(security);
  const url = `${base.replace(/\/$/, '')}/a2a/${name}`;
  const forwardsTo = forwardNames(service);
  // Through the SDK's types and back: the JSON form, its defaults and spellings, as every parser reads it.
  return AgentCard.toJSON(
    AgentCard.fromJSON({
      name,
      description: service.description,
      version: service.version,
      provider: { organization: 'Baton', url: base },
      supportedInterfaces: [
        { url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        // One gRPC server serves every agent: the interface's tenant names which.
        ...(grpcAddress ? [{ url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: name }] : []),
      ],
      capabilities: {
        streaming: true,
        pushNotifications: true,
        extensions: [
          {
            uri: DATA_USE_EXTENSION,
            description: 'Baton data-use terms: labels and forwarding rules on the parts of a message, honoured before any work starts',
            required: service.dataUse?.required ?? false,
            ...(forwardsTo ? { params: { forwardsTo } } : {}),
          },
        ],
      },
      securitySchemes,
      securityRequirements,
      defaultInputModes: service.inputModes,
      defaultOutputModes: service.outputModes,
      skills: service.skills,
    }),
  ) as CardJson;
}

/** What a served card declares: exactly the schemes the servers enforce. */
export interface CardSecurity {
  /** Static tokens are taken (api.callers, or the token a development server generated). */
  bearer: boolean;
  /** The issuers whose JWTs are taken (api.issuers). */
  issuers: readonly Pick<IssuerConfig, 'issuer' | 'scopes'>[];
}

/** The card's schemes and requirements (any one requirement satisfies) for `security`. */
export function cardSecurity(security: CardSecurity): { securitySchemes: Record<string, unknown>; securityRequirements: unknown[] } {
  const securitySchemes: Record<string, unknown> = {};
  const securityRequirements: unknown[] = [];
  if (security.bearer) {
    securitySchemes.bearer = {
      httpAuthSecurityScheme: { scheme: 'Bearer', description: 'a token Baton issued to the caller (api.callers)' },
    };
    securityRequirements.push({ schemes: { bearer: { list: [] } } });
  }
  security.issuers.forEach((i, n) => {
    const key = n === 0 ? 'oidc' : `oidc-${n + 1}`;
    securitySchemes[key] = {
      openIdConnectSecurityScheme: {
        openIdConnectUrl: `${i.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
        description: `an access token (JWT) from ${i.issuer}; scopes ${Object.values(i.scopes).join(', ')} grant read, delegate, answer, cancel and admin`,
      },
    };
    securityRequirements.push({ schemes: { [key]: { list: [i.scopes.delegate] } } });
  });
  return { securitySchemes, securityRequirements };
}

/** The agents (registry names) a service passes its caller's data to; undefined: not known (a workflow that declares none). */
export function forwardNames(service: ServedAgentConfig): string[] | undefined {
  if (service.delegate) return [service.delegate.agent];
  if (service.graph) return [...new Set(service.graph.nodes.map((n) => n.agent))];
  return service.dataUse?.forwardsTo;
}

/** A card as served: A2A's JSON form. */
export type CardJson = Record<string, unknown>;

/** Every served agent's request handler, by name. */
export function createServedAgents(opts: ServedAgentsOptions): Map<string, ServedAgent> {
  checkServices(opts.serve, opts.agents);
  const log = opts.logger.child({ component: 'served-agents' });
  const push = opts.serve.push;
  const sealer = push.keys ? encryptionCodec(push.keys, 'serve.push.keys.keys') : undefined;
  const agents = new Map<string, ServedAgent>();
  for (const [name, service] of Object.entries(opts.serve.services)) {
    let card: Promise<CardJson> | undefined;
    // The signer canonicalizes what it is given through the SDK's JSON form, and adds `signatures` to it.
    const build = async (): Promise<CardJson> => {
      const unsigned = servedCard(name, service, opts.baseUrl(), opts.grpcAddress?.(), opts.security);
      return opts.signer ? ((await opts.signer(unsigned as never)) as unknown as CardJson) : unsigned;
    };
    const runner = service.graph
      ? new GraphRunner(opts.baton, opts.graphs, service.graph)
      : service.workflow
        ? new WorkflowRunner(opts.baton, service.workflow)
        : new DelegationRunner(opts.baton, service.delegate as NonNullable<typeof service.delegate>);
    const workflowType = runner.workflowType;
    agents.set(
      name,
      new ServedAgent({
        name,
        config: service,
        card: () => (card ??= build()),
        tasks: new ServedTasks({ service: name, baton: opts.baton, runner, ...(opts.artifacts ? { artifacts: opts.artifacts } : {}) }),
        dataUse: servedDataUse(service, opts),
        pushConfigs: new CallerWebhooks({
          service: name,
          runner: workflowType,
          baton: opts.baton,
          push,
          ...(sealer ? { sealer } : {}),
          ...(opts.lookup ? { lookup: opts.lookup } : {}),
        }),
        pollMs: opts.serve.pollMs,
        ...(opts.rideOut ? { rideOut: opts.rideOut } : {}),
        taskIdKey: opts.taskIdKey,
        ...(opts.budget ? { budget: opts.budget } : {}),
        logger: log,
      }),
    );
  }
  return agents;
}

/** The signer `serve.signing` configures; ConfigError when its key cannot be read. */
export function cardSigner(signing: NonNullable<ServeConfig['signing']>): AgentCardSignatureGenerator {
  const jwk = privateKeyOf(signing).export({ format: 'jwk' }) as Record<string, unknown>;
  return generateAgentCardSignature(jwk as never, { alg: signing.alg, kid: signing.kid, typ: 'JOSE' });
}

/** What a service checks a caller's terms against: the labels, the agents it knows and those it passes data to. */
function servedDataUse(service: ServedAgentConfig, opts: ServedAgentsOptions): ServedDataUse {
  const config = { agents: opts.agents, ...(opts.dataUse ? { dataUse: opts.dataUse } : {}) };
  const names = forwardNames(service);
  return {
    required: service.dataUse?.required ?? false,
    rules: dataUseRules(config),
    ...(names
      ? {
          targets: names.map((agent) => ({
            name: agent,
            card: opts.agents[agent]?.card ?? '',
            cleared: clearedFor(config, agent) ?? [],
          })),
        }
      : {}),
  };
}
