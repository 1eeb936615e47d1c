/**
 * Every option of the library's entry points says its default in TSDoc (`@default`), read through the
 * TypeScript compiler: an option added without one fails here.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import ts from 'typescript';
import { projectRoot } from '../../src/runtime/project-root';
import { projectProgram } from '../../infra/typescript-program';

const ENTRY_POINTS = ['src/api/client.ts', 'src/api/worker.ts', 'src/api/dev.ts', 'workflows/api.ts'];

/** `<entry>: <Options type>.<property>` for each optional property of an exported `…Options` type without `@default`. */
function missingDefaults(): { checked: number; missing: string[] } {
  const files = ENTRY_POINTS.map((f) => join(projectRoot(), f));
  const program = projectProgram(files);
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  let checked = 0;
  for (const [i, file] of files.entries()) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read ${file}`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      if (!exported.name.endsWith('Options')) continue;
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      for (const property of checker.getPropertiesOfType(type)) {
        if (!(property.flags & ts.SymbolFlags.Optional)) continue;
        // Options inherited from the Temporal SDK's own types say their defaults there.
        const declaredIn = property.declarations?.[0]?.getSourceFile().fileName ?? '';
        if (declaredIn.includes('node_modules')) continue;
        checked += 1;
        if (!property.getJsDocTags(checker).some((t) => t.name === 'default'))
          missing.push(`${ENTRY_POINTS[i]}: ${exported.name}.${property.name}`);
      }
    }
  }
  return { checked, missing };
}

it('says the default of every optional option of the entry points (@default)', () => {
  const { checked, missing } = missingDefaults();
  assert.ok(checked > 20, `${checked} options checked`);
  assert.deepEqual(missing, []);
});
