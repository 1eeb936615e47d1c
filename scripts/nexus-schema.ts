/**
 * `npm run nexus-schema`: writes workflows/baton-nexus-service.schema.json, the JSON Schema of Baton's
 * Nexus service (src/nexus/service-schema.ts), beside the service definition. test/unit/nexus.test.ts
 * fails when the checked-in file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/runtime/project-root';
import { nexusServiceJsonSchema } from '../src/nexus/service-schema';

/** Where the schema file lives, and its text. */
export const NEXUS_SCHEMA_FILE = join(projectRoot(), 'workflows', 'baton-nexus-service.schema.json');
export const nexusSchemaText = (): string => `${JSON.stringify(nexusServiceJsonSchema(), null, 2)}\n`;

if (require.main === module) {
  writeFileSync(NEXUS_SCHEMA_FILE, nexusSchemaText());
  process.stdout.write(`wrote ${NEXUS_SCHEMA_FILE}\n`);
}
