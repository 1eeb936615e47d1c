// The caller's task graphs, newest first; `#/graphs/running` or `#/graphs/settled` for one kind.
import { api } from '../api.js';
import { fill, h, notice, pill, table, when } from '../dom.js';

const FILTERS = ['running', 'settled'];

export async function graphsPage(signal, arg = '') {
  const status = FILTERS.includes(arg) ? arg : undefined;
  const { graphs } = await api(`/graphs?limit=100${status ? `&status=${status}` : ''}`, { signal });
  fill(
    h('h1', {}, status ? `Graphs, ${status}` : 'Graphs'),
    h(
      'p',
      { 'data-field': 'graph-filters' },
      ...[undefined, ...FILTERS].flatMap((f, i) => [
        i ? ' · ' : '',
        f === status ? h('strong', {}, f || 'all') : h('a', { href: f ? `#/graphs/${f}` : '#/graphs' }, f || 'all'),
      ]),
    ),
    graphs.length
      ? table(
          ['Graph', 'Status', 'Started', 'Closed', 'Version'],
          graphs.map((g) => [
            h('a', { href: `#/g/${encodeURIComponent(g.id)}`, class: 'mono' }, g.id),
            pill(g.status),
            when(g.started),
            when(g.closed),
            g.batonVersion ? `v${g.batonVersion}` : 'before 0.2',
          ]),
        )
      : notice(status ? `No ${status} graphs.` : 'No graphs yet.'),
  );
}
