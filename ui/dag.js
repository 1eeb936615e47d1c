// The task graph as an SVG: one column per depth, edges from each dependency to its dependent.
import { s, short } from './dom.js';

/** Depth of each node: 0 for roots, else one more than its deepest dependency. */
function depths(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const memo = new Map();
  const depth = (n, seen = new Set()) => {
    if (memo.has(n.id)) return memo.get(n.id);
    if (seen.has(n.id)) return 0;
    seen.add(n.id);
    const d = n.dependsOn.length ? 1 + Math.max(...n.dependsOn.map((x) => (byId.has(x) ? depth(byId.get(x), seen) : 0))) : 0;
    memo.set(n.id, d);
    return d;
  };
  for (const n of nodes) depth(n);
  return memo;
}

function nodeClass(n) {
  if (n.status === 'SETTLED') return n.outcome === 'ACCEPTED' ? 'n-ACCEPTED' : 'n-bad';
  return `n-${n.status}`;
}

/** The DAG: one column per depth, edges from each dependency to its dependent. */
export function dag(nodes) {
  const d = depths(nodes);
  const columns = [];
  for (const n of nodes) (columns[d.get(n.id)] ||= []).push(n);
  const W = 190,
    H = 58,
    GX = 70,
    GY = 24,
    PAD = 16;
  const at = new Map();
  columns.forEach((col, c) => col.forEach((n, r) => at.set(n.id, { x: PAD + c * (W + GX), y: PAD + r * (H + GY) })));
  const width = PAD * 2 + columns.length * (W + GX) - GX;
  const height = PAD * 2 + Math.max(...columns.map((c) => c.length)) * (H + GY) - GY;
  const svg = s('svg', { class: 'dag', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'task graph' });
  for (const n of nodes)
    for (const dep of n.dependsOn) {
      const a = at.get(dep),
        b = at.get(n.id);
      if (!a || !b) continue;
      const x1 = a.x + W,
        y1 = a.y + H / 2,
        x2 = b.x,
        y2 = b.y + H / 2;
      svg.append(s('path', { d: `M${x1},${y1} C${x1 + GX / 2},${y1} ${x2 - GX / 2},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' }));
    }
  svg.prepend(
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#98a2b3' }),
      ),
    ),
  );
  for (const n of nodes) {
    const { x, y } = at.get(n.id);
    const link = s('a', { href: `#/d/${encodeURIComponent(n.delegationId)}`, class: nodeClass(n), 'data-node': n.id });
    link.append(
      s('rect', { x, y, width: W, height: H, rx: 8 }),
      s('text', { x: x + 10, y: y + 20, class: 'title' }, short(n.id, 22)),
      s('text', { x: x + 10, y: y + 37 }, short(n.agent, 24)),
      s('text', { x: x + 10, y: y + 51 }, n.status === 'SETTLED' ? n.outcome || 'SETTLED' : n.status),
    );
    svg.append(link);
  }
  return svg;
}
