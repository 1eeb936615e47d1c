// The inbox: requests waiting for a person, oldest first, each with its form.
import { answerForm, KIND_TEXT } from '../answer-form.js';
import { api } from '../api.js';
import { delegationLink, fill, h, notice, short, untrustedParts, when } from '../dom.js';

export async function inboxPage(signal) {
  const list = h('div', { id: 'inbox' });
  fill(
    h('h1', {}, 'Inbox'),
    h('p', { class: 'muted' }, 'Requests waiting for a person, oldest first. Answers go to the delegation’s remote task as a new turn.'),
    list,
  );
  let shown;
  const refresh = async () => {
    const { requests } = await api('/inbox', { signal });
    const key = requests.map((r) => r.requestId).join('|');
    if (key === shown) return; // keep half-typed answers
    shown = key;
    if (!requests.length) return list.replaceChildren(notice('Nothing is waiting for you.'));
    list.replaceChildren(
      ...requests.map((r) =>
        h(
          'section',
          { class: 'card', 'data-request': r.requestId },
          h(
            'div',
            { class: 'meta' },
            h('strong', {}, r.agent),
            h('span', {}, KIND_TEXT[r.kind] || r.kind),
            delegationLink(r.delegationId),
            h('span', { class: 'muted' }, `since ${when(r.observedAt)}`),
          ),
          h('div', { class: 'label' }, r.kind === 'review' ? 'acceptance said' : 'the agent wrote (untrusted)'),
          untrustedParts(r.prompt),
          r.artifacts
            ? h(
                'div',
                { class: 'meta muted' },
                r.artifacts.length
                  ? r.artifacts.map((a) => h('span', {}, `${a.name || a.artifactId} · ${a.size} B · sha256 ${short(a.sha256, 12)}`))
                  : 'no artifacts',
                h('a', { href: `#/d/${encodeURIComponent(r.delegationId)}` }, 'see them'),
              )
            : null,
          answerForm(r.delegationId, r, () => setTimeout(() => refresh().catch(() => {}), 300)),
        ),
      ),
    );
  };
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 2_000);
  signal.addEventListener('abort', () => clearInterval(timer));
}
