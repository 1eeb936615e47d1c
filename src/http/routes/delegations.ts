/**
 * `/delegations`: list, start, show, an artifact's bytes, a status stream, and the steering calls
 * (answer, authorize, review, cancel), each as the caller the token names.
 */
import { readThroughOutage, RideOutEndedError } from '../../client/read-through-outage';
import { ChangeWaiter } from '../../client/history-follower';
import type { Request, Response, Router } from 'express';
import { artifactBytes } from '../../artifacts/artifact-content';
import type { BatonClient } from '../../client/baton-client';
import { BatonError } from '../../shared/baton-error';
import { recordChangeKeyOf as changeKey } from '../../shared/delegation-result';
import {
  AnswerBodySchema,
  AuthorizeBodySchema,
  CancelBodySchema,
  ListQuerySchema,
  partsOf,
  ReviewBodySchema,
  StartBodySchema,
} from '../api-schemas';
import { apiErrorOf, handle, idOf, openEventStream, parse, type RouteKit } from './route-kit';

export function delegationRoutes(api: Router, kit: RouteKit): void {
  api.get(
    '/delegations',
    handle(async (req, res) => {
      const q = parse(ListQuerySchema, req.query, 'query');
      res.json({ delegations: await kit.as(req).baton.list(q) });
    }),
  );

  api.post(
    '/delegations',
    handle(async (req, res) => {
      const body = parse(StartBodySchema, req.body, 'delegation');
      await kit.budget.startWork(kit.as(req).caller, 1);
      const id = await kit.as(req).baton.start({
        agent: body.agent,
        id: body.id,
        parts: partsOf(body),
        policy: body.policy,
        contextId: body.contextId,
        referenceTaskIds: body.referenceTaskIds,
        contract: body.contract,
        ...(body.dataUse ? { dataUse: body.dataUse } : {}),
      });
      kit.log.info({ delegationId: id, agent: body.agent, caller: kit.as(req).caller }, 'delegation started over HTTP');
      res
        .status(201)
        .location(`/api/v1/delegations/${encodeURIComponent(id)}`)
        .json({ id });
    }),
  );

  api.get(
    '/delegations/:id',
    handle(async (req, res) => void res.json(await kit.as(req).baton.show(idOf(req)))),
  );

  api.get(
    '/delegations/:id/audit',
    handle(async (req, res) => void res.json(await kit.as(req).baton.audit(idOf(req)))),
  );

  api.get('/delegations/:id/artifacts/:artifactId/content', handle(artifactContent(kit)));
  api.get('/delegations/:id/events', handle(statusEvents(kit)));

  /**
   * The id and the caller's client. The client reads the delegation before it sends an Update, so
   * another tenant's looks absent (404), exactly as a missing one; the workflow refuses it again.
   */
  const own = (req: Request): { id: string; baton: BatonClient } => ({ id: idOf(req), baton: kit.as(req).baton });
  api.post(
    '/delegations/:id/answer',
    handle(async (req, res) => {
      const body = parse(AnswerBodySchema, req.body, 'answer');
      const { id, baton } = own(req);
      res.json(await baton.answer(id, body.requestId, partsOf(body)));
    }),
  );
  api.post(
    '/delegations/:id/authorize',
    handle(async (req, res) => {
      const body = parse(AuthorizeBodySchema, req.body, 'authorize');
      const { id, baton } = own(req);
      res.json(await baton.authorize(id, body.requestId, body.credential));
    }),
  );
  api.post(
    '/delegations/:id/review',
    handle(async (req, res) => {
      const body = parse(ReviewBodySchema, req.body, 'review');
      const { id, baton } = own(req);
      res.json(await baton.review(id, body.requestId, body.decision, body.reason));
    }),
  );
  api.post(
    '/delegations/:id/cancel',
    handle(async (req, res) => {
      const body = parse(CancelBodySchema, req.body, 'cancel');
      const { id, baton } = own(req);
      res.json(await baton.cancel(id, body.reason));
    }),
  );
}

/**
 * An artifact's bytes, whether inline in the record or stored by reference. Always as an attachment
 * of no declared type: the bytes are the agent's, and must never render in the web app's origin.
 */
function artifactContent(kit: RouteKit) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = idOf(req);
    const record = await kit.as(req).baton.show(id);
    const wanted = String(req.params.artifactId ?? '');
    const artifact = record.artifacts.find((a) => a.artifactId === wanted);
    if (!artifact) throw new BatonError('NotFound', `delegation ${id} has no artifact ${wanted}`);
    const bytes = await artifactBytes(id, artifact, kit.artifacts);
    const filename = (artifact.name ?? artifact.artifactId).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'artifact';
    res.status(200).set({
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${filename}"`,
      'X-Baton-Sha256': artifact.sha256,
    });
    res.end(bytes);
  };
}

/** A quiet record stream says so this often (a comment line). */
const KEEPALIVE_MS = 15_000;

/**
 * A quiet delegation's record is read again this often anyway: a long poll on a link that went down
 * neither answers nor fails while the client retries, and only a read tells the stream Temporal is
 * not answering (decision 0038).
 */
const QUIET_READ_MS = 5_000;

/** The delegation's record as server-sent events: each change, then how it settled. */
function statusEvents(kit: RouteKit) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = idOf(req);
    const baton = kit.as(req).baton;
    // Read again whenever the delegation's history says it may show something new (decision 0039);
    // followed from before the first read, so no change after it is missed.
    const changes = new ChangeWaiter(baton.client, id);
    await changes.prime();
    let record = await baton.show(id); // not found (or foreign) answers 404 before the stream opens
    const lease = await kit.budget.openStream(kit.as(req).caller);
    res.once('close', () => void lease.release());
    openEventStream(res);
    let closed = false;
    const stopped = new AbortController();
    req.on('close', () => {
      closed = true;
      stopped.abort();
    });
    const send = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    let last = '';
    let quietSince = Date.now();
    while (!closed) {
      if (changeKey(record) !== last) {
        last = changeKey(record);
        send('status', record);
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= KEEPALIVE_MS) {
        res.write(': still waiting\n\n'); // keeps proxies from closing a quiet stream
        quietSince = Date.now();
      }
      if (record.outcome) {
        send('settled', { id: record.id, outcome: record.outcome });
        break;
      }
      await changes.changed({ maxWaitMs: QUIET_READ_MS, failPauseMs: kit.pollMs, signal: stopped.signal });
      if (closed) break;
      try {
        // Temporal away for a while (a restart, a failover) is waited out, said, and shows no change.
        record = await readThroughOutage(() => baton.show(id), {
          rideOut: kit.rideOut,
          what: `delegation ${id}`,
          onOutage: (err) => send('unavailable', { id, message: err.message }),
          onBack: () => send('available', { id }),
          stopped: () => closed,
        });
      } catch (err) {
        if (closed) break;
        const e = apiErrorOf(err);
        send('error', { error: { type: e.kind, message: e.message, ...(err instanceof RideOutEndedError ? { retryable: true } : {}) } });
        break;
      }
    }
    res.end();
  };
}
