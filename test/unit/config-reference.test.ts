/**
 * The configuration reference cannot drift: docs/configuration.md is what `npm run docs:config` writes
 * from the schema, and every field the schema has says what it means.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configFields, configurationPage, CONFIGURATION_PAGE } from '../../scripts/config-reference';

describe('the configuration reference', () => {
  const fields = configFields();

  it('is the page the schema writes (run npm run docs:config after changing src/config/schema.ts)', () => {
    assert.equal(readFileSync(CONFIGURATION_PAGE, 'utf8'), configurationPage());
  });

  it('lists every field with its default and a description from the schema', () => {
    assert.ok(fields.length > 150, `${fields.length} fields`);
    assert.deepEqual(
      fields.filter((f) => !f.meaning).map((f) => f.path),
      [],
      'every field of src/config/schema.ts has TSDoc',
    );
    const byPath = new Map(fields.map((f) => [f.path, f]));
    assert.equal(byPath.get('temporal.taskQueue')?.default, '`baton`');
    assert.equal(byPath.get('agents.<name>.card')?.default, 'required');
    assert.equal(byPath.get('agents.<name>.readAfterSendMs')?.default, '`1000`');
    assert.equal(byPath.get('agents.<name>.sparsePoll.every')?.default, '`1m`');
    assert.match(byPath.get('agents.<name>.cardTtl')?.meaning ?? '', /fetched and\s+checked again/);
  });
});
