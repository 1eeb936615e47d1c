/**
 * Checks HTTP responses against the OpenAPI document the server itself serves: the operation is found
 * by method and path template, the schema by status code, and ajv (JSON Schema 2020-12, the dialect
 * of OpenAPI 3.1) judges the body.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: Record<string, Record<string, unknown>>;
};

export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Operations seen by `check`, as `METHOD template status`. */
  readonly covered = new Set<string>();

  constructor(private readonly doc: Doc) {
    // The document is one schema resource, so its internal "#/components/..." references resolve.
    this.ajv.addSchema({ $id: 'baton-api', components: doc.components }, 'baton-api');
  }

  private template(method: string, path: string): string {
    const bare = path.replace(/^\/api\/v1/, '').split('?')[0] ?? '';
    for (const t of Object.keys(this.doc.paths)) {
      const re = new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (re.test(bare) && this.doc.paths[t]?.[method.toLowerCase()]) return t;
    }
    throw new Error(`the OpenAPI document has no operation ${method} ${bare}`);
  }

  /** Throws when `body` is not what the document says `method path` answers with `status`. */
  check(method: string, path: string, status: number, body: unknown): void {
    const t = this.template(method, path);
    let response = this.doc.paths[t]?.[method.toLowerCase()]?.responses[String(status)] as
      { $ref?: string; content?: Record<string, { schema: unknown }> } | undefined;
    if (!response) throw new Error(`${method} ${t} answered ${status}, which the document does not list`);
    if (response.$ref) response = this.doc.components.responses?.[response.$ref.split('/').pop() ?? ''] as typeof response;
    const schema = response?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method} ${t} ${status} has no JSON schema in the document`);
    const key = `${method} ${t} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"baton-api#/components/')) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(body))
      throw new Error(
        `${key}: the body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`,
      );
    this.covered.add(key);
  }
}
