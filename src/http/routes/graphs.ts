/** `/graphs`: list, start (a graph spec as the body), add a follow-up node, cancel, show a page. */
import type { Router } from 'express';
import { GraphNodeSpecSchema } from '../../shared/graph-types';
import { CancelBodySchema, GraphListQuerySchema, GraphPageQuerySchema } from '../api-schemas';
import { handle, idOf, parse, type RouteKit } from './route-kit';

export function graphRoutes(api: Router, kit: RouteKit): void {
  api.get(
    '/graphs',
    handle(async (req, res) => {
      const q = parse(GraphListQuerySchema, req.query, 'query');
      res.json({ graphs: await kit.as(req).graphs.list(q) });
    }),
  );

  // The body is a graph spec, as `baton graph run` reads from a file (its `id` names the graph).
  api.post(
    '/graphs',
    handle(async (req, res) => {
      const caller = kit.as(req).caller;
      const id = await kit.as(req).graphs.start(req.body, {
        admit: (spec) => kit.budget.startWork(caller, spec.nodes.length, `a graph of ${spec.nodes.length} nodes`),
      });
      kit.log.info({ graphId: id, caller: kit.as(req).caller }, 'graph started over HTTP');
      res
        .status(201)
        .location(`/api/v1/graphs/${encodeURIComponent(id)}`)
        .json({ id });
    }),
  );

  api.post(
    '/graphs/:id/nodes',
    handle(async (req, res) => {
      const node = parse(GraphNodeSpecSchema, req.body, 'node');
      await kit.budget.startWork(kit.as(req).caller, 1);
      const added = await kit.as(req).graphs.addFollowUp(idOf(req), node);
      res
        .status(201)
        .location(`/api/v1/delegations/${encodeURIComponent(added.delegationId)}`)
        .json(added);
    }),
  );

  api.post(
    '/graphs/:id/cancel',
    handle(async (req, res) => {
      const body = parse(CancelBodySchema, req.body, 'cancel');
      res.json(await kit.as(req).graphs.cancel(idOf(req), body.reason));
    }),
  );

  api.get(
    '/graphs/:id',
    handle(async (req, res) => {
      const page = parse(GraphPageQuerySchema, req.query, 'query');
      res.json(await kit.as(req).graphs.show(idOf(req), page));
    }),
  );
}
