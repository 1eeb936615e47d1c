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
    // Only the credentials the agent's entry allows are offered, by name: never a free field.
    const names = request.credentials || [];
    if (!names.length) return notice('No credential is configured for this agent (agents.<name>.credentials on the worker).', true);
    const credential = h(
      'select',
      { name: 'credential', required: true, 'aria-label': 'credential' },
      names.map((n) => h('option', { value: n }, n)),
    );
    return h(
      'div',
      {},
      h(
        'form',
        { class: 'answer', onsubmit: (e) => submit(e, { requestId: request.requestId, credential: credential.value }, 'authorize') },
        h('span', { class: 'muted' }, 'Send the credential'),
        credential,
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
