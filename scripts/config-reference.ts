/**
 * `npm run docs:config`: writes docs/configuration.md from the configuration schema itself: every
 * field's path and default from the zod schema (`ConfigSchema`), its meaning from the schema's own
 * TSDoc (read through the TypeScript compiler, so the comment on a field is the documentation).
 * `test/unit/config-reference.test.ts` fails when the checked-in page differs from what it writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';
import { ConfigSchema } from '../src/config/schema';
import { projectRoot } from '../src/runtime/project-root';
import { projectProgram } from '../infra/typescript-program';

/** A field of the configuration: its path (`agents.<name>.card`), default, and meaning. */
export interface ConfigField {
  path: string;
  default: string;
  meaning: string;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  in?: z.ZodType;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** What a field's default shows: its value, `unset` when optional, `required` otherwise. */
function shownDefault(value: unknown, optional: boolean): string {
  if (value === undefined) return optional ? 'unset' : 'required';
  if (typeof value === 'string') return `\`${value}\``;
  if (value && typeof value === 'object' && !Array.isArray(value) && !Object.keys(value).length) return 'none';
  return `\`${JSON.stringify(value).replaceAll('"', '').replaceAll(',', ', ').replaceAll(':', ': ')}\``;
}

/** Peels defaults, optionals and pipes off `s`: the schema inside, its default, and whether it may be left out. */
function unwrap(s: z.ZodType): { inner: z.ZodType; value?: unknown; optional: boolean } {
  let inner = s;
  let value: unknown;
  let optional = false;
  for (;;) {
    const def = defOf(inner);
    if (def.type === 'default' || def.type === 'prefault') {
      if (value === undefined) value = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      optional = true;
      inner = def.innerType as z.ZodType;
    } else if (def.type === 'optional' || def.type === 'nullable' || def.type === 'readonly' || def.type === 'catch') {
      optional = true;
      inner = def.innerType as z.ZodType;
    } else if (def.type === 'pipe' && def.in) inner = def.in;
    else return { inner, ...(value !== undefined ? { value } : {}), optional };
  }
}

/** The schema's TSDoc, through the compiler: the property's own comment, else its schema constant's. */
class SchemaDocs {
  private readonly checker: ts.TypeChecker;
  readonly root: ts.Type;

  constructor(file: string) {
    const program = projectProgram([file]);
    this.checker = program.getTypeChecker();
    const source = program.getSourceFile(file);
    const moduleSymbol = source && this.checker.getSymbolAtLocation(source);
    const config = moduleSymbol && this.checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'ConfigSchema');
    if (!config) throw new Error(`no ConfigSchema exported by ${file}`);
    // The schema's output type (z.infer), whose properties keep the shape's comments.
    const schemaType = this.checker.getTypeOfSymbol(config);
    const output = this.checker.getPropertyOfType(schemaType, '_output');
    if (!output) throw new Error('ConfigSchema has no _output type');
    this.root = this.checker.getTypeOfSymbol(output);
  }

  property(type: ts.Type, key: string): { type: ts.Type; doc: string } | undefined {
    const t = this.checker.getNonNullableType(type);
    const symbol = this.checker.getPropertyOfType(t, key);
    if (!symbol) return undefined;
    return { type: this.checker.getTypeOfSymbol(symbol), doc: this.docOf(symbol) };
  }

  recordValue(type: ts.Type): ts.Type | undefined {
    return this.checker.getIndexTypeOfType(this.checker.getNonNullableType(type), ts.IndexKind.String);
  }

  private docOf(symbol: ts.Symbol): string {
    const own = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
    if (own) return own;
    // `signature: CardSignatureSchema.optional()`: the comment on the schema constant.
    const declaration = symbol.declarations?.[0];
    if (!declaration || !ts.isPropertyAssignment(declaration)) return '';
    let e: ts.Expression = declaration.initializer;
    while (ts.isCallExpression(e) || ts.isPropertyAccessExpression(e)) e = ts.isCallExpression(e) ? e.expression : e.expression;
    if (!ts.isIdentifier(e)) return '';
    const target = this.checker.getSymbolAtLocation(e);
    return target ? ts.displayPartsToString(target.getDocumentationComment(this.checker)).trim() : '';
  }
}

/** Every field of the configuration, in the schema's order. */
export function configFields(): ConfigField[] {
  const docs = new SchemaDocs(join(projectRoot(), 'src', 'config', 'schema.ts'));
  const fields: ConfigField[] = [];
  const walk = (schema: z.ZodType, type: ts.Type | undefined, path: string): void => {
    const { inner } = unwrap(schema);
    const def = defOf(inner);
    if (def.type === 'record' && def.valueType) {
      walk(def.valueType, type && docs.recordValue(type), `${path}.<name>`);
      return;
    }
    if (def.type !== 'object' || !def.shape) return;
    for (const [key, child] of Object.entries(def.shape)) {
      const at = path ? `${path}.${key}` : key;
      const found = type ? docs.property(type, key) : undefined;
      const { inner: childInner, value, optional } = unwrap(child);
      const childDef = defOf(childInner);
      const nested = (childDef.type === 'object' && childDef.shape) || childDef.type === 'record';
      // An object is a row when it says something of its own; its fields are rows in any case.
      if (!nested || found?.doc)
        fields.push({ path: at, default: nested ? (optional ? 'unset' : '') : shownDefault(value, optional), meaning: found?.doc ?? '' });
      if (nested) walk(child, found?.type, at);
    }
  };
  walk(ConfigSchema, docs.root, '');
  return fields;
}

const INTRO = `# Configuration

<!-- Written by \`npm run docs:config\` from src/config/schema.ts (its fields, defaults and TSDoc); edit the schema, not this page. -->

Baton reads one YAML file: \`--config FILE\`, else \`$BATON_CONFIG\`, else \`./baton.config.yaml\`; with none,
built-in defaults (no agents). Unknown fields are errors, and every error names the field:

\`\`\`
baton: /work/baton.config.yaml is not valid:
  - agents.supplier-qa.card: must be an absolute http(s) URL of the agent card or of the agent
\`\`\`

String values may name environment variables: \`\${NAME}\`, or \`\${NAME:-default}\` when it may be unset
(\`$\${\` writes a literal \`\${\`). One file then serves every container of a deployment
(\`deploy/baton.config.yaml\` in [operations](operations.md)). An unset variable without a default is an
error that names the field. Keys are never expanded, and secrets still belong in variables named by
\`fromEnv\`/\`tokenFromEnv\` fields, not expanded into the file. \`baton config check\` reads a file as
a worker would and names every problem. How Temporal is reached, names, worker memory and an example
entry: [configuration-guide.md](configuration-guide.md).
`;

/** The page, as `npm run docs:config` writes it. */
export function configurationPage(): string {
  const fields = configFields();
  const sections = new Map<string, ConfigField[]>();
  for (const f of fields) {
    const top = f.path.split('.')[0] ?? f.path;
    sections.set(top, [...(sections.get(top) ?? []), f]);
  }
  const lines = [INTRO];
  for (const [top, rows] of sections) {
    lines.push(`## \`${top}\``, '', '| Field | Default | Meaning |', '|---|---|---|');
    for (const r of rows) lines.push(`| \`${r.path}\` | ${r.default} | ${r.meaning.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|')} |`);
    lines.push('');
  }
  return lines.join('\n');
}

export const CONFIGURATION_PAGE = join(projectRoot(), 'docs', 'configuration.md');

if (require.main === module) {
  const page = configurationPage();
  const before = readFileSync(CONFIGURATION_PAGE, 'utf8');
  writeFileSync(CONFIGURATION_PAGE, page);
  const undocumented = configFields().filter((f) => !f.meaning);
  process.stderr.write(
    `${before === page ? 'unchanged' : 'wrote'} ${CONFIGURATION_PAGE}${undocumented.length ? `; without a description: ${undocumented.map((f) => f.path).join(', ')}` : ''}\n`,
  );
}
