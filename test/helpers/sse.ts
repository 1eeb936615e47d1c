/** Reading Baton's server-sent event streams in tests. */
import assert from 'node:assert/strict';

/** Reads a delegation's event stream until `until` holds for an event; returns the events read. */
export async function readEvents(
  url: string,
  token: string,
  until: (event: string, data: unknown) => boolean = () => false,
): Promise<{ event: string; data: unknown }[]> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events: { event: string; data: unknown }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || !data) continue;
      events.push({ event, data: JSON.parse(data) });
      if (until(event, JSON.parse(data))) {
        await reader.cancel();
        return events;
      }
    }
  }
}

const STAGES = ['SUBMITTED', 'REMOTE_ACTIVE', 'SETTLING', 'SETTLED'];

/**
 * A record stream never shows a wrong state: no status event goes back to an earlier stage, and none
 * but the last shows an outcome. `label` says which stream, in a failure.
 */
export function checkRecordStream(events: { event: string; data: unknown }[], label = 'record stream'): void {
  const statuses = events.filter((e) => e.event === 'status').map((e) => e.data as { status: string; outcome?: unknown });
  const stages = statuses.map((s) => STAGES.indexOf(s.status));
  assert.ok(
    stages.every((x, i) => x >= 0 && (i === 0 || x >= (stages[i - 1] as number))),
    `${label}: statuses in order: ${statuses.map((s) => s.status)}`,
  );
  assert.ok(
    statuses.slice(0, -1).every((s) => !s.outcome),
    `${label}: an outcome only at the end`,
  );
}
