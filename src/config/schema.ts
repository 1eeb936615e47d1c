/**
 * The config file (`baton.config.yaml`): Temporal connection, the caller's identity and the agent
 * registry. Every field has a default that suits a laptop running `baton dev`.
 */
import { z } from 'zod';

const name = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'use lower-case letters, digits and -');

export const AgentEntrySchema = z
  .object({
    /** Card URL, or the agent's base URL (then `/.well-known/agent-card.json` is appended). */
    card: z.url({ message: 'must be an absolute http(s) URL of the agent card or of the agent' }),
    /** Allow plain http. Default false: only for loopback or dev agents. */
    allowHttp: z.boolean().default(false),
    /** Allow private, loopback and link-local addresses. Default false. */
    allowPrivateNetwork: z.boolean().default(false),
    /** Preferred binding when the card offers several. Default: the card's own order. */
    binding: z.enum(['JSONRPC', 'HTTP+JSON']).optional(),
    /** How to follow the remote task. Default auto (stream when the card supports it, else poll). */
    observe: z.enum(['auto', 'stream', 'poll', 'push']).default('auto'),
    /** Acceptance policy used when a delegation names none. */
    acceptance: z.string().default('completed-with-artifact'),
  })
  .strict();
export type AgentEntry = z.infer<typeof AgentEntrySchema>;

export const ConfigSchema = z
  .object({
    temporal: z
      .object({
        /** host:port of an existing server; unset means Baton finds or starts one (see docs/temporal-server.md). */
        address: z.string().optional(),
        namespace: z.string().default('default'),
        taskQueue: z.string().default('baton'),
      })
      .strict()
      .default({ namespace: 'default', taskQueue: 'baton' }),
    caller: z
      .object({ tenant: z.string().min(1).default('local'), user: z.string().min(1).default('dev') })
      .strict()
      .default({ tenant: 'local', user: 'dev' }),
    agents: z.record(name, AgentEntrySchema).default({}),
  })
  .strict();
export type BatonConfig = z.infer<typeof ConfigSchema>;
