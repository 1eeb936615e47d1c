/**
 * What a caller may do, and what each request needs: one table for every surface (the HTTP API, the
 * served agents on each binding, `/mcp`), so a token's scopes mean the same wherever it is used.
 * Pure: read from the request before its body is acted on.
 */
import type { Caller } from '../shared/delegation-types';
import { objectOf, sentToTask } from '../shared/plain-object';

/** read: see; delegate: start work; answer: answer, authorize, review; cancel: cancel; admin: all of them. */
export const PERMISSIONS = ['read', 'delegate', 'answer', 'cancel', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** A caller, known by how it proved it, and what it may do. Never stored: only `caller` enters a record. */
export interface Principal {
  caller: Caller;
  may: ReadonlySet<Permission>;
  /** How it was recognized: a static token, a verified JWT, a web app session. */
  via: 'token' | 'jwt' | 'session';
}

export const EVERY_PERMISSION: ReadonlySet<Permission> = new Set(PERMISSIONS);

/** Why `principal` may not do what needs `need`, or undefined when it may. */
export function refusePermission(may: ReadonlySet<Permission>, need: Permission): string | undefined {
  if (may.has(need) || may.has('admin')) return undefined;
  return `this caller may not ${need === 'read' ? 'read' : need} here: its token does not grant "${need}"`;
}

/** An HTTP API request's need, by method and path (below /api/v1). */
export function apiPermission(method: string, path: string): Permission {
  if (method === 'GET' || method === 'HEAD') return 'read';
  if (/\/(answer|authorize|review)$/.test(path)) return 'answer';
  if (/\/cancel$/.test(path)) return 'cancel';
  if (/^\/(delegations|graphs)$/.test(path) || /^\/graphs\/[^/]+\/nodes$/.test(path)) return 'delegate';
  return 'admin';
}

/** A send names a task (an answer to it) or starts one (a delegation). */
const sendNeed = (params: unknown): Permission => (sentToTask(params) === undefined ? 'delegate' : 'answer');

/** An A2A operation's need, by its method name (the same names on every binding). */
export function a2aPermission(method: string, params: unknown): Permission {
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendNeed(params);
    case 'CancelTask':
      return 'cancel';
    case 'CreateTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return 'delegate';
    default:
      return 'read';
  }
}

/** A JSON-RPC request's need. */
export const jsonRpcPermission = (body: unknown): Permission => a2aPermission(String(objectOf(body)?.method ?? ''), objectOf(body)?.params);

/** An HTTP+JSON request's need, by method and path below the binding's mount. */
export function restPermission(method: string, path: string, body: unknown): Permission {
  if (method === 'POST' && /\/message:(send|stream)$/.test(path)) return sendNeed(body);
  if (method === 'POST' && /\/tasks\/[^/]+:cancel$/.test(path)) return 'cancel';
  if ((method === 'POST' || method === 'DELETE') && /\/pushNotificationConfigs/.test(path)) return 'delegate';
  return 'read';
}

/** A gRPC call's need, by its method path and decoded request. */
export const grpcPermission = (methodPath: string, request: unknown): Permission =>
  a2aPermission(methodPath.slice(methodPath.lastIndexOf('/') + 1), request);

const MCP_TOOLS: Record<string, Permission> = {
  delegate: 'delegate',
  run_graph: 'delegate',
  answer: 'answer',
  authorize: 'answer',
  review: 'answer',
  cancel_delegation: 'cancel',
};

/** An MCP request's need: a tool that acts needs its permission, everything else reads. */
export function mcpPermission(body: unknown): Permission {
  const b = objectOf(body);
  if (b?.method !== 'tools/call') return 'read';
  return MCP_TOOLS[String(objectOf(b.params)?.name ?? '')] ?? 'read';
}
