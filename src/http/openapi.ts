/**
 * The OpenAPI 3.1 document of the HTTP API. Request bodies come from the zod schemas the server
 * checks them with; responses are described here and checked against the running server by a test.
 */
import { GRAPH_NODE_STATES, MAX_GRAPH_PAGE } from '../shared/graph-limits';
import { GraphNodeSpecSchema, GraphSpecSchema } from '../shared/graph-types';
import { ERROR_KIND_NAMES } from '../shared/baton-error';
import { DELEGATION_STATUSES, OUTCOMES } from '../shared/delegation-types';
import { AnswerBodySchema, AuthorizeBodySchema, CancelBodySchema, jsonSchemaOf, ReviewBodySchema, StartBodySchema } from './api-schemas';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
/** The error answers of an operation; every one that needs a token may also be rate limited (429). */
const errors = (...codes: number[]) =>
  Object.fromEntries(
    (codes.includes(401) ? [...codes, 403, 429] : codes).map((c) => [String(c), { $ref: `#/components/responses/E${c}` }]),
  );
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The delegation id (URL-encoded: graph nodes contain a slash).',
  schema: { type: 'string', minLength: 1, maxLength: 400 },
};
const body = (schema: Record<string, unknown>) => ({ required: true, content: { 'application/json': { schema } } });

const part = {
  type: 'object',
  description: 'An A2A part: exactly one of text, raw (base64), url or data.',
  properties: {
    text: { type: 'string' },
    raw: { type: 'string' },
    url: { type: 'string' },
    data: {},
    mediaType: { type: 'string' },
    filename: { type: 'string' },
    metadata: { type: 'object' },
  },
};
const artifact = {
  type: 'object',
  required: ['artifactId', 'size', 'sha256'],
  properties: {
    artifactId: { type: 'string' },
    name: { type: 'string' },
    mediaType: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    parts: { type: 'array', items: part },
    ref: { type: 'string' },
    downloads: { type: 'array', items: { type: 'object' } },
  },
};
const pending = {
  type: ['object', 'null'],
  required: ['kind', 'requestId', 'prompt', 'taskId', 'observedAt'],
  properties: {
    kind: { enum: ['input', 'auth', 'review'] },
    requestId: { type: 'string' },
    prompt: { type: 'array', items: part, description: "The agent's words: untrusted text, never markup." },
    taskId: { type: 'string' },
    contextId: { type: 'string' },
    observedAt: { type: 'string' },
    statusKey: { type: 'string' },
    credentials: { type: 'array', items: { type: 'string' }, description: 'For `auth`: the credentials an authorize may name.' },
  },
};

const schemas = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: {
          type: {
            enum: [...ERROR_KIND_NAMES],
            description:
              'What to do: fix the request, authenticate, check the id, accept the refusal, send less, fix the server config, retry later (Unavailable, Interrupted), report it (Internal).',
          },
          message: { type: 'string' },
        },
      },
    },
  },
  Caller: { type: 'object', required: ['tenant', 'user'], properties: { tenant: { type: 'string' }, user: { type: 'string' } } },
  Started: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  Sent: {
    type: 'object',
    required: ['messageId'],
    properties: { messageId: { type: 'string', description: 'The messageId of the turn that carried the answer to the agent.' } },
  },
  Part: part,
  Artifact: artifact,
  DelegationSummary: {
    type: 'object',
    required: ['id', 'started'],
    properties: {
      id: { type: 'string' },
      agent: { type: 'string' },
      status: { enum: [...DELEGATION_STATUSES] },
      outcome: { enum: [...OUTCOMES] },
      remoteTaskId: { type: 'string' },
      pendingRequestId: { type: 'string' },
      started: { type: 'string', format: 'date-time' },
      batonVersion: { type: 'string', description: 'The Baton version that started it; absent before 0.2.0' },
      deploymentVersion: { type: 'string', description: 'With Worker Versioning: the `<deployment>:<build id>` it runs on' },
    },
  },
  Delegation: {
    type: 'object',
    description: 'The delegation record (DESIGN.md, the public outcome contract).',
    required: ['id', 'tenant', 'owner', 'agent', 'status', 'remote', 'pending', 'turns', 'notes', 'remoteCalls', 'artifacts'],
    properties: {
      id: { type: 'string' },
      tenant: { type: 'string' },
      owner: { type: 'string' },
      agent: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          cardSha256: { type: 'string' },
          observe: { enum: ['stream', 'poll', 'push'] },
          credentials: { type: 'array', items: { type: 'string' } },
        },
      },
      status: { enum: [...DELEGATION_STATUSES] },
      outcome: {
        type: 'object',
        required: ['kind', 'reasons'],
        properties: { kind: { enum: [...OUTCOMES] }, reasons: { type: 'array', items: { type: 'string' } } },
      },
      remote: {
        type: 'object',
        required: ['history'],
        properties: {
          taskId: { type: 'string' },
          contextId: { type: 'string' },
          state: { type: 'string', pattern: '^TASK_STATE_' },
          history: {
            type: 'array',
            items: {
              type: 'object',
              required: ['state', 'observedAt'],
              properties: { state: { type: 'string' }, remoteTimestamp: { type: 'string' }, observedAt: { type: 'string' } },
            },
          },
        },
      },
      reply: { type: 'object', properties: { messageId: { type: 'string' }, parts: { type: 'array', items: part } } },
      pending,
      turns: {
        type: 'array',
        items: {
          type: 'object',
          required: ['messageId', 'sentAt'],
          properties: { messageId: { type: 'string' }, sentAt: { type: 'string' } },
        },
      },
      notes: { type: 'array', items: { type: 'string' } },
      remoteCalls: { type: 'integer', minimum: 0 },
      pacedReads: {
        type: 'integer',
        minimum: 0,
        description:
          'Of remoteCalls, the reads Baton paced itself (push backstop, sparse reads): bounded by the contract maxWait, not maxRemoteCalls.',
      },
      artifacts: { type: 'array', items: artifact },
      policy: { type: 'string' },
    },
  },
  InboxItem: {
    type: 'object',
    required: ['delegationId', 'agent', 'status', 'kind', 'requestId', 'prompt', 'taskId', 'observedAt'],
    properties: {
      delegationId: { type: 'string' },
      agent: { type: 'string' },
      status: { enum: ['WAITING_INPUT', 'WAITING_AUTH', 'WAITING_REVIEW'] },
      kind: { enum: ['input', 'auth', 'review'] },
      requestId: { type: 'string' },
      prompt: { type: 'array', items: part },
      taskId: { type: 'string' },
      observedAt: { type: 'string' },
      credentials: { type: 'array', items: { type: 'string' }, description: 'For `auth`: the credentials an authorize may name.' },
      artifacts: {
        type: 'array',
        description: 'For a review: the artifacts to decide on, by name and digest.',
        items: {
          type: 'object',
          required: ['artifactId', 'size', 'sha256'],
          properties: {
            artifactId: { type: 'string' },
            name: { type: 'string' },
            mediaType: { type: 'string' },
            size: { type: 'integer' },
            sha256: { type: 'string' },
          },
        },
      },
    },
  },
  Graph: {
    type: 'object',
    required: ['id', 'tenant', 'status', 'size', 'counts', 'nodes', 'page', 'contexts', 'lineage', 'runs'],
    properties: {
      id: { type: 'string' },
      tenant: { type: 'string' },
      owner: { type: 'string' },
      status: { enum: ['RUNNING', 'CANCELLING', 'SETTLED'] },
      outcome: {
        type: 'object',
        required: ['kind', 'reasons'],
        properties: { kind: { type: 'string' }, reasons: { type: 'array', items: { type: 'string' } } },
      },
      size: { type: 'integer', description: 'Nodes in the graph, follow-ups included.' },
      counts: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        description: 'Nodes per state: PENDING, RUNNING, SKIPPED, or the outcome of a settled node.',
      },
      nodes: {
        type: 'array',
        description: 'One page of nodes, in spec order (follow-ups last).',
        items: {
          type: 'object',
          required: ['id', 'agent', 'dependsOn', 'status', 'delegationId', 'reasons', 'remote'],
          properties: {
            id: { type: 'string' },
            agent: { type: 'string' },
            dependsOn: { type: 'array', items: { type: 'string' } },
            refines: { type: 'string' },
            followUp: { type: 'boolean' },
            status: { enum: ['PENDING', 'RUNNING', 'SETTLED', 'SKIPPED'] },
            delegationId: { type: 'string', description: 'The node’s delegation: its turns and artifacts.' },
            outcome: { enum: [...OUTCOMES] },
            reasons: { type: 'array', items: { type: 'string' } },
            remote: { type: 'object', properties: { taskId: { type: 'string' }, state: { type: 'string' } } },
            delegation: { type: 'object', properties: { status: { type: 'string' }, pendingRequest: { type: 'string' } } },
          },
        },
      },
      page: {
        type: 'object',
        required: ['offset', 'limit', 'total'],
        properties: {
          offset: { type: 'integer' },
          limit: { type: 'integer' },
          total: { type: 'integer', description: 'Nodes that match `state` (all nodes without it).' },
          state: { type: 'string' },
        },
      },
      contexts: { type: 'object', additionalProperties: { type: 'string' } },
      lineage: {
        type: 'array',
        items: {
          type: 'object',
          required: ['contextId', 'name', 'versions', 'versionCount'],
          properties: {
            contextId: { type: 'string' },
            name: { type: 'string' },
            versions: { type: 'array', description: 'The newest 20 versions, oldest first.' },
            versionCount: { type: 'integer' },
            latestAccepted: { type: 'string' },
          },
        },
      },
      lineageOmitted: { type: 'integer' },
      runs: { type: 'integer', description: 'Workflow runs so far (a large graph continues as new).' },
    },
  },
  GraphSummary: {
    type: 'object',
    required: ['id', 'status', 'started'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', description: 'RUNNING, SETTLED, FAILED (its spec was refused), or Temporal’s word (TERMINATED, …).' },
      started: { type: 'string', format: 'date-time', description: 'When its current run started.' },
      closed: { type: 'string', format: 'date-time' },
      batonVersion: { type: 'string' },
    },
  },
  GraphSpec: jsonSchemaOf(GraphSpecSchema),
  GraphNode: jsonSchemaOf(GraphNodeSpecSchema),
  StartRequest: jsonSchemaOf(StartBodySchema),
  AnswerRequest: jsonSchemaOf(AnswerBodySchema),
  AuthorizeRequest: jsonSchemaOf(AuthorizeBodySchema),
  ReviewRequest: jsonSchemaOf(ReviewBodySchema),
  CancelRequest: jsonSchemaOf(CancelBodySchema),
};

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is malformed; nothing was done. Fix it and send again.',
  401: 'No token, or one this server does not know (or a JWT that does not verify).',
  403: 'The caller is known, but its token does not grant what this needs (a scope: read, delegate, answer, cancel, admin).',
  404: 'No such delegation or graph for your tenant (another tenant’s is reported the same way).',
  409: 'Refused: a stale or unknown request id, nothing pending, or already settled.',
  413: 'The body is larger than 1 MiB.',
  429: 'Too many requests from this caller just now: wait as long as the Retry-After header says, then send again.',
  503: 'Temporal is not reachable just now, or its namespace is not set up for Baton; retry later.',
};

/** The document's named schemas (records, parts, requests), which other descriptions reuse (the Nexus service's). */
export function componentSchemas(): Record<string, unknown> {
  return schemas;
}

let cached: Record<string, unknown> | undefined;

/** The document, built once. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Baton HTTP API',
      version: '1.0.0',
      description:
        'Start and steer durable delegations to A2A agents from any language. Every operation acts as the caller its bearer token names and sees only that caller’s tenant.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    paths: {
      ...callerPaths(),
      ...delegationPaths(),
      ...auditPaths(),
      ...steeringPaths(),
      ...graphPaths(),
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token from `api.callers` (or the one `baton ui` / `baton dev` prints), or a JWT access token from an issuer of `api.issuers` (docs/identity.md).',
        },
      },
      schemas,
      responses: Object.fromEntries(Object.entries(ERROR_TEXT).map(([code, text]) => [`E${code}`, json(ref('Error'), text)])),
    },
  };
  return cached;
}

/** Starting, listing and reading delegations, their artifacts and their event stream. */
function delegationPaths(): Record<string, unknown> {
  return {
    '/delegations': {
      get: {
        operationId: 'listDelegations',
        summary: 'The caller’s delegations, newest first',
        parameters: [
          { name: 'status', in: 'query', schema: { enum: [...DELEGATION_STATUSES] } },
          { name: 'agent', in: 'query', schema: { type: 'string' } },
          { name: 'outcome', in: 'query', schema: { enum: [...OUTCOMES] } },
          {
            name: 'batonVersion',
            in: 'query',
            schema: { type: 'string' },
            description: 'Only those started by this Baton version; `none`: those started before 0.2.0',
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['delegations'],
              properties: { delegations: { type: 'array', items: ref('DelegationSummary') } },
            },
            'Matching delegations',
          ),
          ...errors(400, 401, 503),
        },
      },
      post: {
        operationId: 'startDelegation',
        summary: 'Hand work to an agent',
        requestBody: body(ref('StartRequest')),
        responses: {
          '201': json(ref('Started'), 'Started; the Location header names the delegation'),
          ...errors(400, 401, 409, 413, 503),
        },
      },
    },
    '/delegations/{id}': {
      get: {
        operationId: 'showDelegation',
        summary: 'The delegation record, live while it runs',
        parameters: [idParam],
        responses: { '200': json(ref('Delegation'), 'The record'), ...errors(401, 404, 503) },
      },
    },
    '/delegations/{id}/artifacts/{artifactId}/content': {
      get: {
        operationId: 'artifactContent',
        summary: "An artifact's bytes, inline or stored by reference, as an attachment (never rendered: they are the agent's)",
        parameters: [
          idParam,
          {
            name: 'artifactId',
            in: 'path',
            required: true,
            description: 'The artifact id in the record.',
            schema: { type: 'string', minLength: 1 },
          },
        ],
        responses: {
          '200': {
            description: 'The bytes; `X-Baton-Sha256` is the digest the record holds.',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors(401, 404, 503),
        },
      },
    },
    '/delegations/{id}/events': {
      get: {
        operationId: 'streamDelegation',
        summary: 'Server-sent events: `status` (the record) at each change, then `settled` once',
        parameters: [idParam],
        responses: {
          '200': {
            description: 'An event stream; `data` is JSON: the record for `status`, `{id, outcome}` for `settled`, an Error for `error`.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors(401, 404, 503),
        },
      },
    },
  };
}

/** A delegation's audit trail (docs/data-use.md). */
function auditPaths(): Record<string, unknown> {
  return {
    '/delegations/{id}/audit': {
      get: {
        operationId: 'auditDelegation',
        summary:
          'Who sent what to whom, with digests, from the history: the three principals and one entry per turn, artifact, steering and outcome',
        parameters: [idParam],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['id', 'principals', 'entries'],
              properties: {
                id: { type: 'string' },
                principals: {
                  type: 'object',
                  properties: { user: { type: 'string' }, service: { type: 'string' }, agent: { type: 'string' } },
                },
                entries: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['at', 'kind', 'from', 'to', 'via', 'what'],
                    properties: {
                      at: { type: 'string', format: 'date-time' },
                      kind: {
                        type: 'string',
                        enum: ['request', 'answer', 'authorize', 'review', 'cancel', 'artifact', 'reply', 'outcome'],
                      },
                      from: { type: 'string' },
                      to: { type: 'string' },
                      via: { type: 'string' },
                      what: { type: 'string' },
                      sha256: { type: 'string' },
                      dataUse: { type: 'object' },
                    },
                  },
                },
              },
            },
            'The audit trail',
          ),
          ...errors(401, 404, 503),
        },
      },
    },
  };
}

/** Answering, authorizing, reviewing and cancelling a delegation. */
function steeringPaths(): Record<string, unknown> {
  return {
    '/delegations/{id}/answer': {
      post: {
        operationId: 'answer',
        summary: 'Answer the pending input request (a new turn on the same remote task)',
        parameters: [idParam],
        requestBody: body(ref('AnswerRequest')),
        responses: { '200': json(ref('Sent'), 'The answer went out to the agent'), ...errors(400, 401, 404, 409, 413, 503) },
      },
    },
    '/delegations/{id}/authorize': {
      post: {
        operationId: 'authorize',
        summary: 'Answer the pending auth request with the name of a variable on the worker',
        parameters: [idParam],
        requestBody: body(ref('AuthorizeRequest')),
        responses: { '200': json(ref('Sent'), 'The credential went out to the agent'), ...errors(400, 401, 404, 409, 503) },
      },
    },
    '/delegations/{id}/review': {
      post: {
        operationId: 'review',
        summary: 'Accept or reject a result waiting for review',
        parameters: [idParam],
        requestBody: body(ref('ReviewRequest')),
        responses: { '200': json(ref('Delegation'), 'The settled record'), ...errors(400, 401, 404, 409, 503) },
      },
    },
    '/delegations/{id}/cancel': {
      post: {
        operationId: 'cancel',
        summary: 'Cancel the delegation and its remote task',
        parameters: [idParam],
        requestBody: body(ref('CancelRequest')),
        responses: {
          '200': json(ref('Delegation'), 'The settled record, with the remote task’s real final state'),
          ...errors(400, 401, 404, 409, 503),
        },
      },
    },
  };
}

/** Task graphs. */
function graphPaths(): Record<string, unknown> {
  return {
    '/graphs': {
      get: {
        operationId: 'listGraphs',
        summary: 'The caller’s graphs, newest first',
        parameters: [
          { name: 'status', in: 'query', schema: { enum: ['running', 'settled'] } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        ],
        responses: {
          '200': json(
            { type: 'object', required: ['graphs'], properties: { graphs: { type: 'array', items: ref('GraphSummary') } } },
            'Matching graphs',
          ),
          ...errors(400, 401, 503),
        },
      },
      post: {
        operationId: 'startGraph',
        summary: 'Start a task graph from a spec (the format of `baton graph run` files)',
        requestBody: body(ref('GraphSpec')),
        responses: {
          '201': json(ref('Started'), 'Started; the Location header names the graph'),
          ...errors(400, 401, 409, 413, 503),
        },
      },
    },
    '/graphs/{id}/nodes': {
      post: {
        operationId: 'addGraphNode',
        summary: 'Add a follow-up node to a running graph (a refinement names the node it `refines`)',
        parameters: [{ ...idParam, description: 'The graph id.' }],
        requestBody: body(ref('GraphNode')),
        responses: {
          '201': json(
            {
              type: 'object',
              required: ['nodeId', 'delegationId'],
              properties: { nodeId: { type: 'string' }, delegationId: { type: 'string' } },
            },
            'Added; the node runs once its dependencies are ACCEPTED',
          ),
          ...errors(400, 401, 404, 409, 503),
        },
      },
    },
    '/graphs/{id}/cancel': {
      post: {
        operationId: 'cancelGraph',
        summary: 'Cancel the graph: its running nodes (and their remote tasks) are cancelled, the rest skipped',
        parameters: [{ ...idParam, description: 'The graph id.' }],
        requestBody: body(ref('CancelRequest')),
        responses: { '200': json(ref('Graph'), 'The settled graph (its first page of nodes)'), ...errors(400, 401, 404, 409, 503) },
      },
    },
    '/graphs/{id}': {
      get: {
        operationId: 'showGraph',
        summary: 'A task graph: a page of its nodes with their states, contexts, lineage',
        parameters: [
          { ...idParam, description: 'The graph id.' },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_GRAPH_PAGE, default: 100 } },
          { name: 'state', in: 'query', schema: { enum: [...GRAPH_NODE_STATES] }, description: 'Only nodes in this state' },
        ],
        responses: { '200': json(ref('Graph'), 'The graph'), ...errors(400, 401, 404, 503) },
      },
    },
  };
}

/** Who the caller is, and what waits for it. */
function callerPaths(): Record<string, unknown> {
  return {
    '/whoami': {
      get: {
        operationId: 'whoami',
        summary: 'The caller this token acts as',
        responses: { '200': json(ref('Caller'), 'The caller'), ...errors(401) },
      },
    },
    '/inbox': {
      get: {
        operationId: 'inbox',
        summary: 'Requests waiting for a person in the caller’s tenant, oldest first',
        responses: {
          '200': json(
            { type: 'object', required: ['requests'], properties: { requests: { type: 'array', items: ref('InboxItem') } } },
            'Pending requests',
          ),
          ...errors(401, 503),
        },
      },
    },
  };
}
