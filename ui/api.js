// The HTTP API as the web app uses it: the same /api/v1 other services call, with the bearer token
// this tab was given.

export const TOKEN_KEY = 'baton.token';

export const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

// Signed in with OpenID Connect: the session cookie goes by itself; changes carry its CSRF token.
let csrf = '';
export const useSession = (csrfToken) => {
  csrf = csrfToken;
};
export const inSession = () => !token() && !!csrf;

/** The headers that say who this tab is: its bearer token, or (a session) the CSRF token on changes. */
export function authHeaders(method = 'GET') {
  if (token()) return { Authorization: `Bearer ${token()}` };
  return csrf && method !== 'GET' ? { 'X-CSRF-Token': csrf } : {};
}

/** The session the cookie names, if any: { tenant, user, csrf }, or null. */
export async function currentSession() {
  const res = await fetch('/auth/session', { credentials: 'same-origin' });
  if (!res.ok) return null;
  const s = await res.json();
  return s.signedIn ? s : null;
}

/** Whether the server offers OpenID Connect sign-in. */
export async function oidcOffered() {
  const res = await fetch('/auth/config');
  return res.ok && !!(await res.json()).oidc;
}

/** Ends the session (and forgets a token), then shows the sign-in page. */
export async function signOut() {
  if (csrf) await fetch('/auth/sign-out', { method: 'POST', headers: { 'X-CSRF-Token': csrf } });
  csrf = '';
  sessionStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

/** Calls the API; a refusal becomes an ApiError carrying the server's error type and message. */
export async function api(path, opts = {}) {
  const res = await fetch(`/api/v1${path}`, {
    method: opts.method || 'GET',
    headers: { ...authHeaders(opts.method || 'GET'), ...(opts.body ? { 'Content-Type': 'application/json' } : {}) },
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
export async function followEvents(id, signal, onEvent) {
  const res = await fetch(`/api/v1/delegations/${encodeURIComponent(id)}/events`, {
    headers: authHeaders(),
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

/**
 * Saves an artifact's bytes as a file: fetched with the token (a plain link cannot send it), handed to
 * the browser as a download, never opened in this page (the bytes are the agent's).
 */
export async function downloadArtifact(id, artifact) {
  const res = await fetch(`/api/v1/delegations/${encodeURIComponent(id)}/artifacts/${encodeURIComponent(artifact.artifactId)}/content`, {
    headers: authHeaders(),
  });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    throw new ApiError(res.status, body.error?.type || 'Internal', body.error?.message || `HTTP ${res.status}`);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') || '')?.[1] || 'artifact';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
