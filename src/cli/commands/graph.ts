/**
 * `baton graph run|show|add|cancel`: task graphs from a spec file (YAML or JSON).
 */
import { readFileSync } from 'node:fs';
import { WorkflowFailedError } from '@temporalio/client';
import { parse as parseYaml } from 'yaml';
import type { GraphClient } from '../../client/graph-client';
import { InvalidRequestError } from '../../client/errors';
import { GraphSpecError } from '../../shared/graph-spec';
import { GRAPH_NODE_STATES } from '../../shared/graph-limits';
import type { GraphPageRequest, GraphRecord } from '../../shared/graph-types';
import { StatusLine } from '../progress';
import { connectClient } from '../context';
import { graphProgress, formatGraph } from '../graph-output';
import { printJson } from '../output';
import { UsageError } from '../usage-error';

function readSpec(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the graph spec ${file}: ${(err as Error).message}`);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new UsageError(`${file} is neither YAML nor JSON: ${(err as Error).message}`);
  }
}

/** 0 when every node was accepted, 3 for any other settled outcome. */
const exitOf = (g: GraphRecord): number => (g.outcome?.kind === 'ACCEPTED' ? 0 : 3);

function print(g: GraphRecord, json?: boolean): void {
  if (json) printJson(g);
  else process.stdout.write(`${formatGraph(g)}\n`);
}

/** Follows a graph until it settles: a redrawn status line in a terminal, a line per change otherwise. */
async function follow(graphs: GraphClient, id: string, json?: boolean): Promise<GraphRecord> {
  const status = new StatusLine(process.stderr, json ? 'plain' : 'auto');
  try {
    await graphs.until(
      id,
      (g) => {
        status.update(graphProgress(g), JSON.stringify(g.counts));
        return g.status === 'SETTLED';
      },
      300,
    );
  } finally {
    status.done();
  }
  return graphs.result(id);
}

export async function graphRunCommand(
  file: string,
  opts: { id?: string; detach?: boolean; json?: boolean; config?: string },
): Promise<number> {
  const raw = readSpec(file);
  const { graphs, close } = await connectClient(opts.config);
  try {
    let id: string;
    try {
      id = await graphs.start(raw, { id: opts.id });
    } catch (err) {
      if (err instanceof GraphSpecError) throw new InvalidRequestError(`${file}: ${err.message}`);
      throw err;
    }
    if (opts.detach) {
      if (opts.json) printJson({ id });
      else process.stdout.write(`${id}\n`);
      return 0;
    }
    try {
      const g = await follow(graphs, id, opts.json);
      print(g, opts.json);
      return exitOf(g);
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw new InvalidRequestError(`graph ${id} failed: ${err.cause?.message ?? err.message}`);
      throw err;
    }
  } finally {
    await close();
  }
}

export async function graphShowCommand(
  id: string,
  opts: { json?: boolean; config?: string; offset?: number; limit?: number; state?: string },
): Promise<number> {
  const page: GraphPageRequest = {
    ...(opts.offset !== undefined ? { offset: opts.offset } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    ...(opts.state ? { state: opts.state.toUpperCase() } : {}),
  };
  if (page.state && !(GRAPH_NODE_STATES as readonly string[]).includes(page.state))
    throw new UsageError(`--state ${opts.state} is not a node state; use one of ${GRAPH_NODE_STATES.join(', ')}`);
  const { graphs, close } = await connectClient(opts.config);
  try {
    // Running nodes are delegations of their own: the page says what each is doing now (waiting for someone?).
    const g = await graphs.show(id, page);
    if (opts.json) printJson(g);
    else process.stdout.write(`${formatGraph(g)}\n`);
    return 0;
  } finally {
    await close();
  }
}

export async function graphAddCommand(
  id: string,
  opts: {
    node: string;
    agent: string;
    text: string;
    refines?: string;
    dependsOn?: string[];
    policy?: string;
    json?: boolean;
    config?: string;
  },
): Promise<number> {
  const { graphs, close } = await connectClient(opts.config);
  try {
    const added = await graphs.addFollowUp(id, {
      id: opts.node,
      agent: opts.agent,
      text: opts.text,
      dependsOn: opts.dependsOn ?? [],
      ...(opts.refines ? { refines: opts.refines } : {}),
      ...(opts.policy ? { acceptance: opts.policy } : {}),
    });
    if (opts.json) printJson(added);
    else process.stdout.write(`added node ${added.nodeId} (delegation ${added.delegationId})\n`);
    return 0;
  } finally {
    await close();
  }
}

export async function graphCancelCommand(id: string, opts: { reason?: string; json?: boolean; config?: string }): Promise<number> {
  const { graphs, close } = await connectClient(opts.config);
  try {
    const g = await graphs.cancel(id, opts.reason);
    print(g, opts.json);
    return exitOf(g);
  } finally {
    await close();
  }
}

export async function graphListCommand(opts: {
  status?: 'running' | 'settled';
  limit: number;
  json?: boolean;
  config?: string;
}): Promise<number> {
  const { graphs, close } = await connectClient(opts.config);
  try {
    const rows = await graphs.list({ ...(opts.status ? { status: opts.status } : {}), limit: opts.limit });
    if (opts.json) printJson(rows);
    else if (!rows.length) process.stdout.write(`no ${opts.status ? `${opts.status} ` : ''}graphs\n`);
    else
      for (const g of rows)
        process.stdout.write(
          `${g.id.padEnd(44)} ${g.status.padEnd(10)} ${g.started}${g.closed ? `  closed ${g.closed}` : ''} ${g.batonVersion ? `v${g.batonVersion}` : 'v<0.2'}\n`,
        );
    return 0;
  } finally {
    await close();
  }
}
