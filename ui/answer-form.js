// The form that answers a pending request: it goes through the same API (and Updates, and checks) as the CLI.
import { api } from './api.js';
import { h, notice } from './dom.js';

/** The form that answers a pending request; it goes through the same Updates and checks as the CLI. */
export function answerForm(delegationId, request, onDone) {
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

export const KIND_TEXT = { input: 'asks for input', auth: 'asks for authorization', review: 'result waits for review' };
