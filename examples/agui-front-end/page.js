/**
 * A minimal AG-UI front end for a Baton delegation, built on the official @ag-ui/client: it sends the
 * request, shows the agent's question when the run ends with an interrupt, and resumes with the
 * answer. Where Baton is, the caller's token and the agent come from the page's fragment:
 * `#baton=<url>&token=<token>&agent=<name>&thread=<id>`. Bundle it for a browser (webpack, esbuild).
 */
import { HttpAgent } from '@ag-ui/client';

const params = new URLSearchParams(location.hash.slice(1));
const show = (id, text) => (document.getElementById(id).textContent = text);

const agent = new HttpAgent({
  url: `${params.get('baton')}/agui/agents/${encodeURIComponent(params.get('agent') ?? 'supplier-qa')}`,
  headers: { Authorization: `Bearer ${params.get('token')}` },
  threadId: params.get('thread') ?? undefined,
});

let pending = [];

async function run(parameters) {
  show('status', 'running');
  document.getElementById('interrupt').hidden = true;
  await agent.runAgent(parameters, {
    onStateChanged: ({ state }) => show('status', `${state.status ?? ''} ${state.remoteState ?? ''}`.trim()),
    onRunFinishedEvent: (finished) => {
      if (finished.outcome === 'interrupt') {
        pending = finished.interrupts;
        show('question', pending.map((i) => i.message).join('\n'));
        document.getElementById('interrupt').hidden = false;
      } else show('outcome', finished.outcome === 'cancelled' ? 'CANCELED' : String(finished.result?.outcome ?? 'finished'));
    },
    onRunErrorEvent: ({ event }) => show('outcome', `${event.code ?? 'ERROR'}: ${event.message}`),
  });
}

document.getElementById('ask').addEventListener('submit', (e) => {
  e.preventDefault();
  agent.addMessage({ id: `user-${Date.now()}`, role: 'user', content: document.getElementById('request').value });
  void run({});
});

document.getElementById('answer').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = document.getElementById('answer-text').value;
  void run({ resume: pending.map((i) => ({ interruptId: i.id, status: 'resolved', payload: { text } })) });
});
