// Sign-in: a token pasted by hand (the link `baton ui` prints signs in by itself).
import { TOKEN_KEY } from '../api.js';
import { fill, h } from '../dom.js';

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
}
