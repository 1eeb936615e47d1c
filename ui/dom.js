// DOM helpers. Strings always become text nodes, never markup: what an agent wrote is shown, never run.

export const main = () => document.getElementById('main');

/** Builds an element; strings become text nodes, never markup. */
export function h(tag, attrs, ...children) {
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
export const fill = (...nodes) => main().replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));

export const pill = (value) =>
  h('span', { class: `pill s-${String(value).replace('TASK_STATE_', '')}` }, String(value).replace('TASK_STATE_', ''));
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
export const short = (s, n = 12) => (s && s.length > n ? `${s.slice(0, n)}…` : s || '');
export const delegationLink = (id) => h('a', { href: `#/d/${encodeURIComponent(id)}`, class: 'mono' }, id);

/** An agent's parts, as plain text: text verbatim, data as JSON, files and URLs named, never rendered. */
export function untrustedParts(parts) {
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

/** A table: one header row, then a row per entry; a cell is a `td` made with h(), or content for a plain one. */
export function table(headers, rows) {
  const cell = (c) => (c instanceof Node && c.nodeName === 'TD' ? c : h('td', {}, c));
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) => h('tr', {}, row.map(cell))),
    ),
  );
}

export function notice(text, error = false) {
  return h('div', { class: `notice${error ? ' error' : ''}`, role: error ? 'alert' : 'status' }, text);
}

/** Puts a notice above the page (a failure the page itself cannot show). */
export function prependNotice(text) {
  main().prepend(notice(text, true));
}

const SVG = 'http://www.w3.org/2000/svg';
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}
