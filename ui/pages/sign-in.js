// Sign-in: a token pasted by hand, or the one a link carried (`baton ui` prints such a link), which
// signs the tab in only once the person has seen whose it is and said yes.
import { oidcOffered, TOKEN_KEY } from '../api.js';
import { fill, h, notice } from '../dom.js';

export function signInPage(route) {
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
  // With OpenID Connect configured: the provider signs the operator in (the server keeps the session).
  void oidcOffered().then((offered) => {
    if (!offered) return;
    document
      .getElementById('main')
      .prepend(
        h(
          'p',
          {},
          h(
            'button',
            { type: 'button', 'data-action': 'oidc-sign-in', onclick: () => location.assign('/auth/oidc/start') },
            'Sign in with OpenID Connect',
          ),
        ),
      );
  });
}

/** Who `token` signs in as, or null when the server does not know it. */
async function whoIs(token) {
  const res = await fetch('/api/v1/whoami', { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) return null;
  const me = await res.json();
  return `${me.tenant}/${me.user}`;
}

/** Asks before a link's token signs the tab in: it names who the token is, and who the tab is now. */
export async function confirmSignInPage(token, route) {
  const [offered, current] = await Promise.all([
    whoIs(token),
    sessionStorage.getItem(TOKEN_KEY) ? whoIs(sessionStorage.getItem(TOKEN_KEY)) : null,
  ]);
  if (!offered) {
    fill(notice('The sign-in link holds a token this server does not know: nothing changed.', true));
    return setTimeout(route, 2_000);
  }
  if (offered === current) return route();
  fill(
    h('h1', {}, 'Sign in from a link'),
    h('p', {}, `This link signs this tab in as ${offered}.`),
    current ? h('p', {}, `The tab is signed in as ${current} now; that would end.`) : null,
    h('p', { class: 'muted' }, 'Sign in only with a link you asked for: someone else’s link would make what you do here theirs.'),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          'data-action': 'sign-in',
          onclick: () => {
            sessionStorage.setItem(TOKEN_KEY, token);
            route();
          },
        },
        `Sign in as ${offered}`,
      ),
      h('button', { type: 'button', 'data-action': 'keep', onclick: () => route() }, current ? `Stay ${current}` : 'Not now'),
    ),
  );
}
