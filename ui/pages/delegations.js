// The caller's delegations, newest first.
import { api } from '../api.js';
import { delegationLink, fill, h, notice, pill, table, when } from '../dom.js';

export async function delegationsPage(signal) {
  const { delegations } = await api('/delegations?limit=100', { signal });
  fill(
    h('h1', {}, 'Delegations'),
    delegations.length
      ? table(
          ['Delegation', 'Agent', 'Status', 'Outcome', 'Started'],
          delegations.map((d) => [
            delegationLink(d.id),
            d.agent || '',
            d.status ? pill(d.status) : '',
            d.outcome ? pill(d.outcome) : '',
            when(d.started),
          ]),
        )
      : notice('No delegations yet.'),
  );
}
