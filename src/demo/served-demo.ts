/**
 * What `baton dev` serves when the config serves nothing: Baton as an A2A agent, and Baton calling it.
 * `checked-qa` is a durable gateway in front of supplier-qa; `qa-pipeline` is a graph whose second
 * node delegates to `baton-qa`, which is `checked-qa` again through its A2A endpoint: a pipeline that
 * calls a pipeline.
 */
import { loopbackAgentEntry, ServeSchema, type AgentEntry, type ServeConfig } from '../config/schema';

/** The variable `baton dev` puts its own caller's token in, for the `baton-qa` entry's auth. */
export const DEV_SELF_TOKEN_ENV = 'BATON_DEV_SELF_TOKEN';

/** The variable `baton dev` puts a key made for the run in, to seal the tokens of callers' webhooks. */
export const DEV_PUSH_KEY_ENV = 'BATON_DEV_PUSH_KEY';

const skills = [
  {
    id: 'verify-inspection',
    name: 'Verify inspection report',
    description: 'Checks an inspection report against an order; the verdict is accepted by Baton before it is returned.',
    tags: ['quality', 'supplier'],
    examples: ['Verify inspection report inspection-92 against order A1042, product SN-4471'],
  },
];

export function demoServe(): ServeConfig {
  return ServeSchema.parse({
    // Callers' webhooks on this machine are fine in development (never in production: serve.push).
    push: { allowHttp: true, allowPrivateNetwork: true, keys: { currentKey: 'dev', keys: { dev: { fromEnv: DEV_PUSH_KEY_ENV } } } },
    services: {
      'checked-qa': {
        description: 'supplier-qa behind Baton: durable, with its verdict accepted before it is returned',
        skills,
        delegate: { agent: 'supplier-qa' },
      },
      'qa-pipeline': {
        description: 'An inspection by supplier-qa, then a second opinion from Baton-served checked-qa',
        skills,
        graph: {
          nodes: [
            { id: 'inspect', agent: 'supplier-qa', withRequest: true },
            { id: 'second-opinion', agent: 'baton-qa', withRequest: true, dependsOn: ['inspect'] },
          ],
        },
      },
    },
  });
}

/** The registry entry of Baton's own `checked-qa`, on the web app's port, authenticated as the dev caller. */
export function selfAgentEntry(appPort: number): AgentEntry {
  return loopbackAgentEntry(`http://127.0.0.1:${appPort}/a2a/checked-qa/.well-known/agent-card.json`, {
    auth: { fromEnv: DEV_SELF_TOKEN_ENV, scheme: 'Bearer' },
    acceptance: 'completed-with-artifact',
  });
}
