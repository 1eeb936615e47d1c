// One task graph: the DAG with node states, the nodes, and artifact lineage; refreshed until it settles, with a cancel button while it runs.
import { api } from '../api.js';
import { dag } from '../dag.js';
import { fill, h, pill, prependNotice, short, table } from '../dom.js';

function cancelButton(g) {
  return h(
    'button',
    {
      class: 'secondary',
      'data-action': 'cancel-graph',
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          await api(`/graphs/${encodeURIComponent(g.id)}/cancel`, { method: 'POST', body: { reason: 'cancelled from the web app' } });
        } catch (err) {
          prependNotice(`${err.type}: ${err.message}`);
        }
      },
    },
    'Cancel graph',
  );
}

function renderGraph(g) {
  fill(
    h('h1', {}, 'Graph ', h('span', { class: 'mono' }, g.id)),
    g.status === 'RUNNING' ? cancelButton(g) : null,
    h(
      'div',
      { class: 'card' },
      h(
        'div',
        { class: 'meta' },
        h('span', {}, 'Status ', pill(g.status)),
        g.outcome ? h('span', {}, 'Outcome ', h('span', { 'data-field': 'graph-outcome' }, pill(g.outcome.kind))) : null,
        h('span', {}, `Owner ${g.tenant}/${g.owner}`),
        h('span', {}, `Failure policy ${g.failurePolicy}`),
        h('span', { 'data-field': 'graph-progress' }, `${g.size - (g.counts.PENDING || 0) - (g.counts.RUNNING || 0)}/${g.size} done`),
        g.runs > 1 ? h('span', {}, `run ${g.runs} (continued as new)`) : null,
      ),
    ),
    g.page.total > g.nodes.length
      ? h(
          'p',
          { class: 'muted' },
          `Nodes ${g.page.offset + 1}–${g.page.offset + g.nodes.length} of ${g.page.total}; the API pages with ?offset= and ?limit=.`,
        )
      : null,
    dag(g.nodes),
    h('h2', {}, 'Nodes'),
    table(
      ['Node', 'Agent', 'State', 'After', 'Remote task', 'Reasons'],
      g.nodes.map((n) => [
        h(
          'td',
          {},
          h('a', { href: `#/d/${encodeURIComponent(n.delegationId)}` }, n.id),
          n.followUp ? h('span', { class: 'muted' }, ' (follow-up)') : null,
        ),
        n.agent,
        pill(n.status === 'SETTLED' ? n.outcome || 'SETTLED' : n.status),
        n.dependsOn.join(', '),
        h('td', { class: 'mono' }, short(n.remote.taskId, 14)),
        (n.reasons || []).join('; '),
      ]),
    ),
    h('h2', {}, 'Artifact lineage'),
    g.lineage.length
      ? table(
          ['Name', 'Context', 'Versions (the newest 20, oldest first)'],
          g.lineage.map((l) => [
            l.name,
            h('td', { class: 'mono' }, short(l.contextId, 14)),
            h(
              'ol',
              {},
              l.versions.map((v) =>
                h(
                  'li',
                  {},
                  `v${v.version}: node ${v.nodeId}, ${v.size} B, sha256 ${short(v.sha256, 12)}`,
                  v.accepted ? '' : ' (not accepted)',
                  v.artifactId === l.latestAccepted ? h('strong', {}, ' ← latest accepted') : '',
                ),
              ),
            ),
          ]),
        )
      : h('p', { class: 'muted' }, 'No artifacts yet.'),
  );
}

export async function graphPage(id, signal) {
  let g = await api(`/graphs/${encodeURIComponent(id)}`, { signal });
  renderGraph(g);
  while (g.status !== 'SETTLED' && !signal.aborted) {
    await new Promise((r) => setTimeout(r, 1_000));
    if (signal.aborted) return;
    g = await api(`/graphs/${encodeURIComponent(id)}`, { signal });
    renderGraph(g);
  }
}
