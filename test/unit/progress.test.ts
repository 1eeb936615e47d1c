import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusLine } from '../../src/cli/progress';

const stream = (isTTY: boolean, columns = 80) => {
  const chunks: string[] = [];
  return { isTTY, columns, chunks, write: (c: string) => chunks.push(c) };
};

describe('StatusLine', () => {
  it('redraws one line in a terminal, with the elapsed time, and ends it once', () => {
    const out = stream(true);
    const line = new StatusLine(out);
    line.update('dlg-1  REMOTE_ACTIVE');
    line.update('dlg-1  REMOTE_ACTIVE');
    line.update('dlg-1  SETTLED');
    line.done();
    line.done();
    assert.equal(out.chunks.length, 4, 'every update redraws; done adds one newline');
    for (const c of out.chunks.slice(0, 3)) assert.match(c, /^\r\x1b\[2K.*  \d+s$/);
    assert.equal(out.chunks[3], '\n');
  });

  it('cuts a line wider than the terminal', () => {
    const out = stream(true, 20);
    new StatusLine(out).update('x'.repeat(50));
    assert.equal(out.chunks[0], `\r\x1b[2K${'x'.repeat(18)}…`);
  });

  it('writes a plain line per change elsewhere (or when asked), by key, and nothing when off', () => {
    const out = stream(false);
    const line = new StatusLine(out);
    line.update('a  0 polls', 'a');
    line.update('a  1 poll', 'a');
    line.update('b', 'b');
    line.done();
    assert.deepEqual(out.chunks, ['a  0 polls  (0s)\n', 'b  (0s)\n']);
    const off = stream(true);
    const quiet = new StatusLine(off, 'off');
    quiet.update('x');
    quiet.done();
    assert.deepEqual(off.chunks, []);
    const plain = stream(true);
    new StatusLine(plain, 'plain').update('y');
    assert.deepEqual(plain.chunks, ['y  (0s)\n'], 'plain lines even in a terminal');
  });

  it('shows minutes past the first', () => {
    assert.equal(new StatusLine(stream(false)).elapsed(Date.now() + 125_000), '2m05s');
  });
});
