// The caller's delegations, newest first; `#/delegations/version=<v>` shows those one Baton version started.
import { api } from '../api.js';
import { delegationLink, fill, h, notice, pill, table, when } from '../dom.js';

const versionLink = (v) => h('a', { href: `#/delegations/version=${encodeURIComponent(v)}`, class: 'mono' }, `v${v}`);

export async function delegationsPage(signal, arg = '') {
  const version = /^version=(.+)$/.exec(arg)?.[1];
  const only = version ? decodeURIComponent(version) : undefined;
  const query = only ? `&batonVersion=${encodeURIComponent(only)}` : '';
  const { delegations } = await api(`/delegations?limit=100${query}`, { signal });
  fill(
    h('h1', {}, only ? `Delegations started by Baton v${only}` : 'Delegations'),
    only ? h('p', {}, h('a', { href: '#/delegations' }, 'Show every version')) : null,
    delegations.length
      ? table(
          ['Delegation', 'Agent', 'Status', 'Outcome', 'Started', 'Version'],
          delegations.map((d) => [
            delegationLink(d.id),
            d.agent || '',
            d.status ? pill(d.status) : '',
            d.outcome ? pill(d.outcome) : '',
            when(d.started),
            h(
              'span',
              {},
              d.batonVersion ? versionLink(d.batonVersion) : 'before 0.2',
              d.deploymentVersion ? ` ${d.deploymentVersion}` : '',
            ),
          ]),
        )
      : notice(only ? `No delegations started by v${only}.` : 'No delegations yet.'),
  );
}
