// Baton's web app: the inbox, the delegations and graphs, a delegation's page, a graph's page. It speaks only the HTTP API
// (/api/v1, the same one other services use) and never puts remote text into markup: everything an
// agent wrote is set as textContent. Browser ES modules, no build step; this one routes.
import { api, currentSession, signOut, TOKEN_KEY, useSession } from './api.js';
import { fill, notice } from './dom.js';
import { delegationPage } from './pages/delegation.js';
import { delegationsPage } from './pages/delegations.js';
import { graphPage } from './pages/graph.js';
import { graphsPage } from './pages/graphs.js';
import { inboxPage } from './pages/inbox.js';
import { confirmSignInPage, signInPage } from './pages/sign-in.js';

let stopPage = () => {};

// A token handed over in the URL fragment (baton ui prints such a link) leaves the address bar at
// once, and signs the tab in only once the person has seen whose it is and said yes: a link from
// someone else must not switch who this tab acts as (login CSRF).
let offered = '';
function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    offered = decodeURIComponent(m[1]);
    history.replaceState(null, '', `${location.pathname}#/inbox`);
  }
}

async function route() {
  takeToken(); // on load, and when a link changes only the fragment of an open tab
  stopPage();
  const controller = new AbortController();
  stopPage = () => controller.abort();
  const hash = location.hash || '#/inbox';
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', hash.startsWith(`#/${a.dataset.nav}`));
  if (offered) {
    const token = offered;
    offered = '';
    return confirmSignInPage(token, route);
  }
  const signOutButton = document.getElementById('sign-out');
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    // No token in this tab: an OpenID Connect session (its cookie), or the sign-in page.
    const session = await currentSession().catch(() => null);
    if (!session) {
      signOutButton.hidden = true;
      return signInPage(route);
    }
    useSession(session.csrf);
  }
  signOutButton.hidden = false;
  try {
    const me = await api('/whoami', { signal: controller.signal });
    document.getElementById('whoami').textContent = `${me.tenant}/${me.user}`;
    const [, page, arg] = /^#\/([a-z]+)\/?(.*)$/.exec(hash) || [];
    if (page === 'd' && arg) await delegationPage(decodeURIComponent(arg), controller.signal);
    else if (page === 'g' && arg) await graphPage(decodeURIComponent(arg), controller.signal);
    else if (page === 'delegations') await delegationsPage(controller.signal, arg);
    else if (page === 'graphs') await graphsPage(controller.signal, arg);
    else await inboxPage(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) return;
    if (err.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      return signInPage(route);
    }
    fill(notice(`${err.type || 'Error'}: ${err.message}`, true));
  }
}

document.getElementById('open-graph').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = e.target.elements.graph.value.trim();
  if (id) location.hash = `#/g/${encodeURIComponent(id)}`;
});
document.getElementById('sign-out').addEventListener('click', () => void signOut().then(route));
window.addEventListener('hashchange', route);
route();
