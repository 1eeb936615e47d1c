/**
 * Traces read back from Jaeger's query API, as a tree the tracing tests can ask about: which span
 * is whose parent, which service made it, what attributes it carries.
 */
export interface ReadSpan {
  spanId: string;
  parentId?: string;
  name: string;
  service: string;
  startUs: number;
  durationUs: number;
  attributes: Record<string, string | number | boolean>;
}

export class ReadTrace {
  constructor(
    readonly traceId: string,
    readonly spans: ReadSpan[],
  ) {}

  /** The spans named `name` (of `service`, when given). */
  named(name: string, service?: string): ReadSpan[] {
    return this.spans.filter((s) => s.name === name && (service === undefined || s.service === service));
  }

  /** The one span named `name`; throws with the trace's listing when there is not exactly one. */
  one(name: string, service?: string): ReadSpan {
    const found = this.named(name, service);
    if (found.length !== 1)
      throw new Error(`expected one span ${name}${service ? ` of ${service}` : ''}, found ${found.length}:\n${this.listing()}`);
    return found[0] as ReadSpan;
  }

  parentOf(span: ReadSpan): ReadSpan | undefined {
    return this.spans.find((s) => s.spanId === span.parentId);
  }

  /** Whether `ancestor` is above `span` in the tree. */
  isUnder(span: ReadSpan, ancestor: ReadSpan): boolean {
    for (let p = this.parentOf(span); p; p = this.parentOf(p)) if (p.spanId === ancestor.spanId) return true;
    return false;
  }

  /** The tree, one span a line: name, service, start offset and duration. */
  listing(): string {
    const t0 = Math.min(...this.spans.map((s) => s.startUs));
    const lines: string[] = [];
    const known = new Set(this.spans.map((s) => s.spanId));
    const walk = (s: ReadSpan, depth: number): void => {
      lines.push(
        `${'  '.repeat(depth)}${s.name}  [${s.service}]  +${((s.startUs - t0) / 1000).toFixed(1)} ms, ${(s.durationUs / 1000).toFixed(1)} ms`,
      );
      for (const c of this.spans.filter((x) => x.parentId === s.spanId).sort((a, b) => a.startUs - b.startUs)) walk(c, depth + 1);
    };
    for (const root of this.spans.filter((s) => !s.parentId || !known.has(s.parentId)).sort((a, b) => a.startUs - b.startUs)) walk(root, 0);
    return lines.join('\n');
  }
}

interface JaegerTrace {
  traceID: string;
  processes: Record<string, { serviceName: string }>;
  spans: {
    spanID: string;
    operationName: string;
    processID: string;
    startTime: number;
    duration: number;
    references?: { refType: string; spanID: string }[];
    tags: { key: string; value: string | number | boolean }[];
  }[];
}

function readTrace(t: JaegerTrace): ReadTrace {
  return new ReadTrace(
    t.traceID,
    t.spans.map((s) => ({
      spanId: s.spanID,
      parentId: s.references?.find((r) => r.refType === 'CHILD_OF')?.spanID,
      name: s.operationName,
      service: t.processes[s.processID]?.serviceName ?? '?',
      startUs: s.startTime,
      durationUs: s.duration,
      attributes: Object.fromEntries(s.tags.map((tag) => [tag.key, tag.value])),
    })),
  );
}

/** The traces of `service` (newest first, up to 20). */
export async function tracesOf(queryUrl: string, service: string): Promise<ReadTrace[]> {
  const res = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=20`);
  if (!res.ok) return [];
  const body = (await res.json()) as { data: JaegerTrace[] | null };
  return (body.data ?? []).map(readTrace);
}

/** One trace by id, or undefined while Jaeger has none of it. */
export async function traceById(queryUrl: string, traceId: string): Promise<ReadTrace | undefined> {
  const res = await fetch(`${queryUrl}/api/traces/${traceId}`);
  if (!res.ok) return undefined;
  const body = (await res.json()) as { data: JaegerTrace[] | null };
  const t = body.data?.[0];
  return t ? readTrace(t) : undefined;
}

/** Asks `read` until `ready` says its answer is complete (spans arrive in batches), or fails after `ms`. */
export async function eventually<T>(read: () => Promise<T>, ready: (t: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  let last: T = await read();
  while (!ready(last)) {
    if (Date.now() > until)
      throw new Error(`${what}: not there after ${ms / 1000} s; last read: ${String(JSON.stringify(last) ?? last).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}
