/**
 * The JSON Schema of Baton's Nexus service: each operation's input and output, for callers in other
 * languages to generate their types from. Built from the schemas the handler checks inputs with and the
 * record schemas of the HTTP API's OpenAPI document, so it cannot drift from either.
 * `npm run nexus-schema` writes it to workflows/baton-nexus-service.schema.json.
 */
import { componentSchemas } from '../http/openapi';
import { jsonSchemaOf } from '../http/api-schemas';
import { BATON_NEXUS_SERVICE } from '../../workflows/nexus-service';
import { OPERATION_INPUTS } from './operation-schemas';
// Imported, so the compiler writes it beside lib/workflows/nexus-service.d.ts, where the package ships it.
import checkedIn from '../../workflows/baton-nexus-service.schema.json';

/** The schema file as checked in (`npm run nexus-schema` writes it; a unit test compares the two). */
export const CHECKED_IN_SCHEMA: unknown = checkedIn;

/** What each operation completes with, by the name of its schema. */
const OPERATION_OUTPUTS: Record<keyof typeof OPERATION_INPUTS, string> = {
  delegate: 'Delegation',
  runGraph: 'Graph',
  answer: 'Sent',
  authorize: 'Sent',
  review: 'Delegation',
  cancel: 'Delegation',
  status: 'Delegation',
};

const ASYNC = new Set(['delegate', 'runGraph']);

export function nexusServiceJsonSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = { ...componentSchemas() };
  const operations: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(OPERATION_INPUTS)) {
    const input = `${name[0]?.toUpperCase()}${name.slice(1)}Input`;
    defs[input] = jsonSchemaOf(schema);
    operations[name] = {
      mode: ASYNC.has(name) ? 'async' : 'sync',
      input: { $ref: `#/$defs/${input}` },
      output: { $ref: `#/$defs/${OPERATION_OUTPUTS[name as keyof typeof OPERATION_INPUTS]}` },
    };
  }
  const document = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:baton-a2a:nexus-service:v1',
    title: `Baton Nexus service "${BATON_NEXUS_SERVICE}"`,
    description:
      "Operations of Baton's Nexus service: `x-operations` names each one's input and output schema and whether it is asynchronous (completes by callback) or synchronous. Errors are Nexus handler errors: BAD_REQUEST (fix the input), NOT_FOUND (no such delegation for your tenant), CONFLICT (refused: not pending, settled), UNAUTHORIZED (your namespace is not a Baton caller), RESOURCE_EXHAUSTED and UNAVAILABLE (retried).",
    'x-service': BATON_NEXUS_SERVICE,
    'x-operations': operations,
    $defs: defs,
  };
  // The records' schemas point at each other the OpenAPI way; here they live under $defs.
  return JSON.parse(JSON.stringify(document).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
}
