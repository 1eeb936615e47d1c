// One delegation: status, pending request with its form, remote-state timeline, turns, artifacts; live.
import { answerForm, KIND_TEXT } from '../answer-form.js';
import { api, downloadArtifact, followEvents } from '../api.js';
import { fill, h, main, notice, pill, prependNotice, short, table, untrustedParts, when } from '../dom.js';

function artifactsTable(id, artifacts) {
  if (!artifacts.length) return h('p', { class: 'muted' }, 'No artifacts.');
  return table(
    ['Artifact', 'Type', 'Size', 'SHA-256', 'Content (untrusted)', ''],
    artifacts.map((a) => [
      a.name || a.artifactId,
      a.mediaType || '',
      `${a.size} B`,
      h('td', { class: 'mono', title: a.sha256 }, short(a.sha256, 16)),
      a.parts ? untrustedParts(a.parts) : h('span', { class: 'muted' }, a.ref ? `stored as ${short(a.ref, 20)}` : 'not kept'),
      a.parts || a.ref ? downloadButton(id, a) : '',
    ]),
  );
}

function downloadButton(id, artifact) {
  return h(
    'button',
    {
      class: 'secondary',
      'data-download': artifact.artifactId,
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          await downloadArtifact(id, artifact);
        } catch (err) {
          prependNotice(`${err.type}: ${err.message}`);
        } finally {
          e.target.disabled = false;
        }
      },
    },
    'Download',
  );
}

function renderDelegation(r, signal, rerender) {
  const graphId = r.id.includes('/') ? r.id.slice(0, r.id.indexOf('/')) : undefined;
  const cancel = h(
    'button',
    {
      class: 'secondary',
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          await api(`/delegations/${encodeURIComponent(r.id)}/cancel`, { method: 'POST', body: { reason: 'cancelled from the web app' } });
        } catch (err) {
          prependNotice(`${err.type}: ${err.message}`);
        }
      },
    },
    'Cancel delegation',
  );
  fill(
    h('h1', {}, 'Delegation ', h('span', { class: 'mono' }, r.id)),
    h(
      'div',
      { class: 'card' },
      h(
        'div',
        { class: 'meta' },
        h('span', {}, 'Status ', h('span', { 'data-field': 'status' }, pill(r.status))),
        r.outcome ? h('span', {}, 'Outcome ', h('span', { 'data-field': 'outcome' }, pill(r.outcome.kind))) : null,
        h('span', {}, `Agent ${r.agent.name}`),
        h('span', {}, `Owner ${r.tenant}/${r.owner}`),
        h('span', {}, r.pacedReads ? `Calls ${r.remoteCalls} (${r.pacedReads} paced)` : `Calls ${r.remoteCalls}`),
      ),
      h(
        'div',
        { class: 'meta muted' },
        h('span', {}, 'Remote task ', h('code', {}, r.remote.taskId || '-')),
        h('span', {}, 'Context ', h('code', {}, r.remote.contextId || '-')),
        r.policy ? h('span', {}, `Policy ${r.policy}`) : null,
        h(
          'span',
          { 'data-field': 'baton-version' },
          'Started by Baton ',
          r.batonVersion
            ? h('a', { href: `#/delegations/version=${encodeURIComponent(r.batonVersion)}` }, `v${r.batonVersion}`)
            : 'before 0.2',
        ),
        graphId ? h('a', { href: `#/g/${encodeURIComponent(graphId)}` }, `Graph ${graphId}`) : null,
      ),
      // The three principals (docs/data-use.md): who raised it, who delegates, who does the work.
      h(
        'div',
        { class: 'meta muted', 'data-field': 'principals' },
        h('span', {}, `User ${r.tenant}/${r.owner}`),
        h('span', {}, `Service Baton for tenant ${r.tenant}${graphId ? `, for graph ${graphId}` : ''}`),
        h(
          'span',
          {},
          `Agent service ${r.agent.name}`,
          r.agent.cardSha256 ? h('code', {}, ` card ${r.agent.cardSha256.slice(0, 16)}…`) : null,
        ),
      ),
      r.outcome
        ? h(
            'div',
            {},
            h('div', { class: 'label' }, 'reasons'),
            h(
              'ul',
              {},
              r.outcome.reasons.map((x) => h('li', {}, x)),
            ),
          )
        : r.cancel
          ? notice(`cancelling: ${r.cancel.reason}`)
          : cancel,
    ),
    r.pending
      ? h(
          'section',
          { class: 'card' },
          h(
            'div',
            { class: 'meta' },
            h('strong', {}, KIND_TEXT[r.pending.kind] || r.pending.kind),
            h('span', { class: 'muted' }, r.pending.requestId),
          ),
          h('div', { class: 'label' }, 'the agent wrote (untrusted)'),
          untrustedParts(r.pending.prompt),
          answerForm(r.id, r.pending, rerender),
        )
      : null,
    h('h2', {}, 'Remote state timeline'),
    r.remote.history.length
      ? h(
          'ol',
          { class: 'timeline' },
          r.remote.history.map((c) =>
            h(
              'li',
              {},
              pill(c.state),
              ' ',
              h(
                'span',
                { class: 'muted' },
                `observed ${when(c.observedAt)}${c.remoteTimestamp ? `, agent says ${when(c.remoteTimestamp)}` : ''}`,
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, r.reply ? 'The agent answered with a direct message (no task).' : 'No remote task yet.'),
    r.reply ? h('div', {}, h('div', { class: 'label' }, 'the agent replied (untrusted)'), untrustedParts(r.reply.parts)) : null,
    h('h2', {}, 'Turns sent'),
    h(
      'ol',
      { 'data-field': 'turns' },
      r.turns.map((t) =>
        h(
          'li',
          {},
          h('code', {}, t.messageId),
          ' ',
          h('span', { class: 'muted' }, when(t.sentAt)),
          ` by ${t.by || `${r.tenant}/${r.owner}`}`,
          t.dataUse
            ? h(
                'span',
                { class: 'muted', 'data-field': 'turn-data-use' },
                ` · labels ${t.dataUse.labels.join(', ') || 'none'} · terms ${t.dataUse.conveyed ? (t.dataUse.acknowledged ? 'sent, acknowledged' : 'sent') : 'not sent'}`,
              )
            : null,
        ),
      ),
    ),
    h('h2', {}, 'Artifacts'),
    artifactsTable(r.id, r.artifacts),
    r.notes.length
      ? h(
          'div',
          {},
          h('h2', {}, 'Notes'),
          h(
            'ul',
            {},
            r.notes.map((n) => h('li', {}, n)),
          ),
        )
      : null,
  );
}

export async function delegationPage(id, signal) {
  let record = await api(`/delegations/${encodeURIComponent(id)}`, { signal });
  const render = () => renderDelegation(record, signal, () => {});
  render();
  if (record.outcome) return;
  // Live: the record again at each change, until it settles. While Temporal does not answer the stream
  // says so and waits; a stream that ends before the record settles (Temporal away too long, or this
  // server restarted) is opened again after a pause, from the record as it is then.
  const outage = notice('Temporal is not answering just now; still watching (nothing is lost).');
  outage.dataset.outage = '';
  const showOutage = (on) => (on ? main().prepend(outage) : outage.remove());
  const onEvent = (event, data) => {
    if (event === 'unavailable' || event === 'available') return showOutage(event === 'unavailable');
    if (event !== 'status') return;
    showOutage(false);
    // A half-typed answer is kept: the page is redrawn only when what is pending changes.
    const same = record.pending && data.pending && record.pending.requestId === data.pending.requestId && !data.outcome;
    record = data;
    if (!same) render();
    else document.querySelector('[data-field="status"]')?.replaceChildren(pill(data.status));
  };
  const live = () =>
    followEvents(id, signal, onEvent)
      .catch(() => undefined)
      .then(() => {
        if (signal.aborted || record.outcome) return;
        showOutage(true);
        setTimeout(live, 5_000);
      });
  void live();
}
