// Baton's web app: the inbox, a delegation's page, a graph's page. It speaks only the HTTP API
// (/api/v1, the same one other services use) and never puts remote text into markup: everything an
// agent wrote is set as textContent.
'use strict';

const TOKEN_KEY = 'baton.token';
const main = document.getElementById('main');
let stopPage = () => {};

// A token handed over in the URL fragment (baton ui prints such a link) is kept for this tab only
// and removed from the address bar.
(function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', `${location.pathname}#/inbox`);
  }
})();

/** Builds an element; strings become text nodes, never markup. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** Replaces the page's content; absent parts (null, undefined, false) are skipped, not printed. */
const fill = (...nodes) => main.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));

const pill = (value) =>
  h('span', { class: `pill s-${String(value).replace('TASK_STATE_', '')}` }, String(value).replace('TASK_STATE_', ''));
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
const short = (s, n = 12) => (s && s.length > n ? `${s.slice(0, n)}…` : s || '');
const delegationLink = (id) => h('a', { href: `#/d/${encodeURIComponent(id)}`, class: 'mono' }, id);

class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

async function api(path, opts = {}) {
  const res = await fetch(`/api/v1${path}`, {
    method: opts.method || 'GET',
    headers: {
      Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) || ''}`,
      ...(opts.body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: opts.body ? JSON.stringify(opts.body) : undefined,
    signal: opts.signal,
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, body.error?.type || 'Internal', body.error?.message || `HTTP ${res.status}`);
  return body;
}

/**
 * A delegation's server-sent events, read with fetch (EventSource cannot send the token header).
 * Calls onEvent(name, data) per event until the stream ends or the signal aborts.
 */
async function followEvents(id, signal, onEvent) {
  const res = await fetch(`/api/v1/delegations/${encodeURIComponent(id)}/events`, {
    headers: { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) || ''}` },
    signal,
  });
  if (!res.ok || !res.body) throw new ApiError(res.status, 'Internal', `event stream: HTTP ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (event && data) onEvent(event, JSON.parse(data));
    }
  }
}

/** An agent's parts, as plain text: text verbatim, data as JSON, files and URLs named, never rendered. */
function untrustedParts(parts) {
  return h(
    'div',
    { class: 'untrusted', 'data-untrusted': true },
    (parts || []).map((p) => {
      if (p.text !== undefined) return `${p.text}\n`;
      if (p.data !== undefined) return `${JSON.stringify(p.data, null, 2)}\n`;
      if (p.url !== undefined) return `[link, not opened] ${p.url}\n`;
      if (p.raw !== undefined) return `[file ${p.filename || ''} ${p.mediaType || ''}, ${Math.floor((p.raw.length * 3) / 4)} bytes]\n`;
      return '[empty part]\n';
    }),
  );
}

function notice(text, error = false) {
  return h('div', { class: `notice${error ? ' error' : ''}`, role: error ? 'alert' : 'status' }, text);
}

/** The form that answers a pending request; it goes through the same Updates and checks as the CLI. */
function answerForm(delegationId, request, onDone) {
  const status = h('div', { class: 'muted', 'data-role': 'form-status' });
  const path = `/delegations/${encodeURIComponent(delegationId)}`;
  const submit = async (e, body, action) => {
    e.preventDefault();
    const form = e.target.closest('form');
    for (const b of form.querySelectorAll('button')) b.disabled = true;
    status.replaceChildren(notice('sending…'));
    try {
      await api(`${path}/${action}`, { method: 'POST', body });
      status.replaceChildren(notice(action === 'review' ? 'decided' : 'sent to the agent'));
      onDone();
    } catch (err) {
      status.replaceChildren(notice(`${err.type}: ${err.message}`, true));
      for (const b of form.querySelectorAll('button')) b.disabled = false;
    }
  };
  if (request.kind === 'input') {
    const text = h('textarea', { name: 'answer', required: true, placeholder: 'Your answer to the agent', 'aria-label': 'answer' });
    return h(
      'div',
      {},
      h(
        'form',
        { class: 'answer', onsubmit: (e) => submit(e, { requestId: request.requestId, text: text.value }, 'answer') },
        text,
        h('button', { type: 'submit' }, 'Send answer'),
      ),
      status,
    );
  }
  if (request.kind === 'auth') {
    const env = h('input', {
      name: 'fromEnv',
      required: true,
      placeholder: 'PORTAL_TOKEN',
      pattern: '[A-Za-z_][A-Za-z0-9_]*',
      'aria-label': 'environment variable on the worker',
    });
    return h(
      'div',
      {},
      h(
        'form',
        { class: 'answer', onsubmit: (e) => submit(e, { requestId: request.requestId, fromEnv: env.value }, 'authorize') },
        h('span', { class: 'muted' }, 'Credential from the worker’s variable'),
        env,
        h('button', { type: 'submit' }, 'Authorize'),
      ),
      status,
    );
  }
  const reason = h('input', { name: 'reason', placeholder: 'reason (optional)', size: 30, 'aria-label': 'reason' });
  let decision = 'accept';
  return h(
    'div',
    {},
    h(
      'form',
      {
        class: 'answer',
        onsubmit: (e) => submit(e, { requestId: request.requestId, decision, ...(reason.value ? { reason: reason.value } : {}) }, 'review'),
      },
      reason,
      h('button', { type: 'submit', onclick: () => (decision = 'accept') }, 'Accept'),
      h('button', { type: 'submit', class: 'danger', onclick: () => (decision = 'reject') }, 'Reject'),
    ),
    status,
  );
}

const KIND_TEXT = { input: 'asks for input', auth: 'asks for authorization', review: 'result waits for review' };

async function inboxPage(signal) {
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

async function delegationsPage(signal) {
  const { delegations } = await api('/delegations?limit=100', { signal });
  fill(
    h('h1', {}, 'Delegations'),
    delegations.length
      ? h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Delegation', 'Agent', 'Status', 'Outcome', 'Started'].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            delegations.map((d) =>
              h(
                'tr',
                {},
                h('td', {}, delegationLink(d.id)),
                h('td', {}, d.agent || ''),
                h('td', {}, d.status ? pill(d.status) : ''),
                h('td', {}, d.outcome ? pill(d.outcome) : ''),
                h('td', {}, when(d.started)),
              ),
            ),
          ),
        )
      : notice('No delegations yet.'),
  );
}

function artifactsTable(artifacts) {
  if (!artifacts.length) return h('p', { class: 'muted' }, 'No artifacts.');
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Artifact', 'Type', 'Size', 'SHA-256', 'Content (untrusted)'].map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      artifacts.map((a) =>
        h(
          'tr',
          {},
          h('td', {}, a.name || a.artifactId),
          h('td', {}, a.mediaType || ''),
          h('td', {}, `${a.size} B`),
          h('td', { class: 'mono', title: a.sha256 }, short(a.sha256, 16)),
          h(
            'td',
            {},
            a.parts ? untrustedParts(a.parts) : h('span', { class: 'muted' }, a.ref ? `stored as ${short(a.ref, 20)}` : 'not kept'),
          ),
        ),
      ),
    ),
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
          main.prepend(notice(`${err.type}: ${err.message}`, true));
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
        h('span', {}, `Calls ${r.remoteCalls}`),
      ),
      h(
        'div',
        { class: 'meta muted' },
        h('span', {}, 'Remote task ', h('code', {}, r.remote.taskId || '-')),
        h('span', {}, 'Context ', h('code', {}, r.remote.contextId || '-')),
        r.policy ? h('span', {}, `Policy ${r.policy}`) : null,
        graphId ? h('a', { href: `#/g/${encodeURIComponent(graphId)}` }, `Graph ${graphId}`) : null,
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
      {},
      r.turns.map((t) => h('li', {}, h('code', {}, t.messageId), ' ', h('span', { class: 'muted' }, when(t.sentAt)))),
    ),
    h('h2', {}, 'Artifacts'),
    artifactsTable(r.artifacts),
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

async function delegationPage(id, signal) {
  let record = await api(`/delegations/${encodeURIComponent(id)}`, { signal });
  const render = () => renderDelegation(record, signal, () => {});
  render();
  if (record.outcome) return;
  // Live: the record again at each change, until it settles.
  followEvents(id, signal, (event, data) => {
    if (event !== 'status') return;
    // A half-typed answer is kept: the page is redrawn only when what is pending changes.
    const same = record.pending && data.pending && record.pending.requestId === data.pending.requestId && !data.outcome;
    record = data;
    if (!same) render();
    else document.querySelector('[data-field="status"]')?.replaceChildren(pill(data.status));
  }).catch((err) => {
    if (!signal.aborted) main.prepend(notice(`live updates stopped: ${err.message}`, true));
  });
}

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

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function nodeClass(n) {
  if (n.status === 'SETTLED') return n.outcome === 'ACCEPTED' ? 'n-ACCEPTED' : 'n-bad';
  return `n-${n.status}`;
}

/** The DAG: one column per depth, edges from each dependency to its dependent. */
function dag(nodes) {
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

function renderGraph(g) {
  fill(
    h('h1', {}, 'Graph ', h('span', { class: 'mono' }, g.id)),
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
        h('span', {}, `${g.nodes.filter((n) => n.status === 'SETTLED').length}/${g.nodes.length} settled`),
      ),
    ),
    dag(g.nodes),
    h('h2', {}, 'Nodes'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Node', 'Agent', 'State', 'After', 'Remote task', 'Reasons'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        g.nodes.map((n) =>
          h(
            'tr',
            {},
            h(
              'td',
              {},
              h('a', { href: `#/d/${encodeURIComponent(n.delegationId)}` }, n.id),
              n.followUp ? h('span', { class: 'muted' }, ' (follow-up)') : null,
            ),
            h('td', {}, n.agent),
            h('td', {}, pill(n.status === 'SETTLED' ? n.outcome || 'SETTLED' : n.status)),
            h('td', {}, n.dependsOn.join(', ')),
            h('td', { class: 'mono' }, short(n.remote.taskId, 14)),
            h('td', {}, (n.reasons || []).join('; ')),
          ),
        ),
      ),
    ),
    h('h2', {}, 'Artifact lineage'),
    g.lineage.length
      ? h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Name', 'Context', 'Versions (oldest first)'].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            g.lineage.map((l) =>
              h(
                'tr',
                {},
                h('td', {}, l.name),
                h('td', { class: 'mono' }, short(l.contextId, 14)),
                h(
                  'td',
                  {},
                  h(
                    'ol',
                    {},
                    l.versions.map((v) =>
                      h(
                        'li',
                        {},
                        `node ${v.nodeId}, ${v.size} B, sha256 ${short(v.sha256, 12)}`,
                        v.accepted ? '' : ' (not accepted)',
                        v.artifactId === l.latestAccepted ? h('strong', {}, ' ← latest accepted') : '',
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No artifacts yet.'),
  );
}

async function graphPage(id, signal) {
  let g = await api(`/graphs/${encodeURIComponent(id)}`, { signal });
  renderGraph(g);
  while (g.status !== 'SETTLED' && !signal.aborted) {
    await new Promise((r) => setTimeout(r, 1_000));
    if (signal.aborted) return;
    g = await api(`/graphs/${encodeURIComponent(id)}`, { signal });
    renderGraph(g);
  }
}

function tokenPage() {
  const input = h('input', { name: 'token', size: 50, placeholder: 'bearer token', 'aria-label': 'token' });
  fill(
    h('h1', {}, 'Sign in'),
    h('p', {}, 'Open the link `baton ui` or `baton dev` printed, or paste a token from api.callers.'),
    h(
      'form',
      {
        class: 'answer',
        onsubmit: (e) => {
          e.preventDefault();
          sessionStorage.setItem(TOKEN_KEY, input.value.trim());
          route();
        },
      },
      input,
      h('button', { type: 'submit' }, 'Use token'),
    ),
  );
}

async function route() {
  stopPage();
  const controller = new AbortController();
  stopPage = () => controller.abort();
  const hash = location.hash || '#/inbox';
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', hash.startsWith(`#/${a.dataset.nav}`));
  if (!sessionStorage.getItem(TOKEN_KEY)) return tokenPage();
  try {
    const me = await api('/whoami', { signal: controller.signal });
    document.getElementById('whoami').textContent = `${me.tenant}/${me.user}`;
    const [, page, arg] = /^#\/([a-z]+)\/?(.*)$/.exec(hash) || [];
    if (page === 'd' && arg) await delegationPage(decodeURIComponent(arg), controller.signal);
    else if (page === 'g' && arg) await graphPage(decodeURIComponent(arg), controller.signal);
    else if (page === 'delegations') await delegationsPage(controller.signal);
    else await inboxPage(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) return;
    if (err.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      return tokenPage();
    }
    fill(notice(`${err.type || 'Error'}: ${err.message}`, true));
  }
}

document.getElementById('open-graph').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = e.target.elements.graph.value.trim();
  if (id) location.hash = `#/g/${encodeURIComponent(id)}`;
});
window.addEventListener('hashchange', route);
route();
