/**
 * `${NAME}` and `${NAME:-default}` in the config file's string values are read from the environment,
 * so one file serves every container of a deployment (docker-compose.yml sets the variables). Only
 * whole strings are scanned, never keys; `$${` writes a literal `${`.
 */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export class MissingEnvError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export function expandEnv(raw: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  const problems: string[] = [];
  const walk = (value: unknown, path: string[]): unknown => {
    if (typeof value === 'string') {
      return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
        if (match === '$${') return '${';
        const found = env[name ?? ''];
        if (found !== undefined && found !== '') return found;
        if (fallback !== undefined) return fallback;
        problems.push(`${path.join('.') || '(top level)'}: \${${name}} is not set: set it, or give a default as \${${name}:-value}`);
        return match;
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, String(i)]));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k])]));
    return value;
  };
  const expanded = walk(raw, []);
  if (problems.length) throw new MissingEnvError(problems);
  return expanded;
}
