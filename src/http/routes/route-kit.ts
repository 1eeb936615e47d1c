/**
 * What every HTTP API route shares: the caller a request acts as (set by the API's authentication),
 * the caller budget, parsing with one error shape, and async handlers whose rejections become the
 * typed error response.
 */
import type { RideOut } from '../../shared/ride-out';
import type { Principal } from '../../auth/permissions';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ArtifactStore } from '../../artifacts/store';
import type { BatonClient } from '../../client/baton-client';
import type { GraphClient } from '../../client/graph-client';
import type { InboxCache } from '../../client/inbox-cache';
import { asBatonError } from '../../errors/as-baton-error';
import type { CallerBudget } from '../../limits/caller-budget';
import { BatonError } from '../../shared/baton-error';
import type { Caller } from '../../shared/delegation-types';

/** The clients a request acts through, as the caller its token names. */
export interface ActingAs {
  baton: BatonClient;
  graphs: GraphClient;
  caller: Caller;
  /** The caller with what it may do (its token's scopes). */
  principal: Principal;
}

export interface RouteKit {
  /** The caller a request acts as (every route is behind the API's authentication). */
  as(req: Request): ActingAs;
  budget: CallerBudget;
  log: Logger;
  /** Where artifact bytes stored by reference are read. */
  artifacts?: ArtifactStore;
  inboxCache: InboxCache;
  /** How often a status stream reads the delegation, in ms. */
  pollMs: number;
  /** How long a status stream rides out Temporal not answering. */
  rideOut: RideOut;
}

/** `value` checked against `schema`; InvalidRequest naming every issue otherwise. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  throw new BatonError('InvalidRequest', `invalid ${what}: ${issues.join('; ')}`);
}

/** What an error means for the HTTP caller: its kind decides the status; anything unknown is a bug, not described. */
export function apiErrorOf(err: unknown): BatonError {
  return asBatonError(err) ?? new BatonError('Internal', 'internal error (see the server log)');
}

/** Wraps an async handler: a rejection becomes the typed error response. */
export const handle =
  (fn: (req: Request, res: Response) => Promise<unknown>) =>
  (req: Request, res: Response, next: NextFunction): void =>
    void fn(req, res).catch(next);

/** The `:id` of a delegation or graph route, bounded. */
export function idOf(req: Request): string {
  const id = String(req.params.id ?? '');
  if (!id || id.length > 400) throw new BatonError('InvalidRequest', 'a delegation id is 1 to 400 characters');
  return id;
}

/** Starts a server-sent event stream: its headers, sent at once (no proxy buffering, nothing cached). */
export function openEventStream(res: Response): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
}
