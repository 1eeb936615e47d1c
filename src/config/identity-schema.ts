/**
 * Identity in the configuration: how Baton obtains credentials for an agent (OAuth 2.0 client
 * credentials, an API key, a client certificate), which identity providers' tokens it accepts from
 * callers, and how operators sign in to the web app (OpenID Connect). Secrets are named here (a
 * variable or a file), never written here (docs/identity.md).
 */
import { z } from 'zod';
import { PERMISSIONS } from '../auth/permissions';
import { DurationSchema } from '../shared/delegation-types';
import { envName, origin, tenantName } from './field-schemas';

/** A secret named by where it is kept: exactly one of an environment variable or a file. */
export const SecretSourceSchema = z
  .object({
    /** Environment variable that holds it. */
    fromEnv: envName.optional(),
    /** File that holds it (trailing newline ignored). */
    fromFile: z.string().min(1).optional(),
  })
  .strict()
  .refine((s) => (s.fromEnv ? 1 : 0) + (s.fromFile ? 1 : 0) === 1, { message: 'set exactly one of fromEnv or fromFile' });
export type SecretSource = z.infer<typeof SecretSourceSchema>;

/** An OAuth 2.0 scope: printable ASCII without spaces, quotes or backslashes (RFC 6749 §3.3). */
const scope = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/, 'must be one scope (printable, no spaces)');

/** The algorithms a JWT may be signed with: asymmetric only (no `none`, no HMAC a public key could forge). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * OAuth 2.0 client credentials for one agent (RFC 6749 §4.4): Baton fetches an access token when it
 * needs one, keeps it per agent and scope until shortly before it expires, fetches a new one once after
 * a 401, and sends it as `Authorization: Bearer`.
 */
export const AgentOAuthSchema = z
  .object({
    /**
     * The token endpoint. Default: the one the agent's card names (its OAuth 2.0 client credentials
     * flow, or its OpenID Connect discovery document), and only when it is on one of `cardTokenOrigins`:
     * a card never chooses where a client secret goes.
     */
    tokenUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Origins a token endpoint named by the card may be on. Default none: `tokenUrl` is required. */
    cardTokenOrigins: z.array(origin).default([]),
    /** The client id the identity provider registered for Baton. */
    clientId: z.string().min(1).max(200),
    /** The client secret (`client_secret_basic`, or `client_secret_post` with `authMethod`). */
    clientSecret: SecretSourceSchema.optional(),
    /** Authenticate with a signed assertion instead of a secret (`private_key_jwt`, RFC 7523). */
    privateKeyJwt: z
      .object({
        /** PEM file of the private key (PKCS#8), or a file with its JWK. */
        keyFile: z.string().min(1),
        /** The key id (`kid`) the provider registered it under. Default: none in the header. */
        keyId: z.string().min(1).max(200).optional(),
        /** The signing algorithm, matching the key. Default RS256. */
        alg: z.enum(JWT_ALGORITHMS).default('RS256'),
      })
      .strict()
      .optional(),
    /** How a client secret is sent. Default client_secret_basic (RFC 6749 §2.3.1 says servers must take it). */
    authMethod: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
    /** Scopes to ask for. Default none (the provider's default for the client). */
    scopes: z.array(scope).max(50).default([]),
    /** An `audience` parameter, for providers that want one. Default unset. */
    audience: z.string().min(1).max(500).optional(),
    /** A resource indicator (RFC 8707): the agent the token is for. Default unset. */
    resource: z.url().optional(),
  })
  .strict()
  .refine((o) => (o.clientSecret ? 1 : 0) + (o.privateKeyJwt ? 1 : 0) === 1, {
    message: 'set exactly one of clientSecret or privateKeyJwt',
  })
  .refine((o) => o.tokenUrl || o.cardTokenOrigins.length, {
    message: 'set tokenUrl, or cardTokenOrigins to take the token endpoint the card names from those origins only',
  });
export type AgentOAuth = z.infer<typeof AgentOAuthSchema>;

/** An API key for one agent, sent where the agent's card says (its `apiKey` security scheme). */
export const AgentApiKeySchema = z
  .object({
    /** Where it goes: a header, a query parameter or a cookie. Default header. Checked against the card at resolve. */
    in: z.enum(['header', 'query', 'cookie']).default('header'),
    /** The header, parameter or cookie name. */
    name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'use letters, digits and . _ -'),
    /** Environment variable that holds the key. */
    fromEnv: envName.optional(),
    /** File that holds the key (trailing newline ignored). */
    fromFile: z.string().min(1).optional(),
  })
  .strict()
  .refine((a) => (a.fromEnv ? 1 : 0) + (a.fromFile ? 1 : 0) === 1, { message: 'set exactly one of fromEnv or fromFile' })
  .refine((a) => !(a.in === 'header' && /^(host|cookie|content-length|content-type|transfer-encoding|connection)$/i.test(a.name)), {
    message: 'names a header Baton sets itself',
  });
export type AgentApiKey = z.infer<typeof AgentApiKeySchema>;

/** Mutual TLS: the client certificate Baton presents to this agent (HTTP and gRPC). */
export const AgentTlsSchema = z
  .object({
    /** PEM file of the client certificate (and its chain). */
    certFile: z.string().min(1),
    /** PEM file of its private key. */
    keyFile: z.string().min(1),
    /** PEM file of the CAs the agent's server certificate is checked against. Default: the system's. */
    caFile: z.string().min(1).optional(),
  })
  .strict();
export type AgentTls = z.infer<typeof AgentTlsSchema>;

const permission = z.enum(PERMISSIONS);

const claimName = z.string().regex(/^[A-Za-z0-9_.:/-]{1,100}$/, 'must be a claim name');

/** Who a verified token or ID token is: the tenant (fixed, or a claim) and the user (a claim). */
const claimMapping = {
  /** The tenant every caller of this issuer acts for. Give this or `tenantClaim`. */
  tenant: tenantName.optional(),
  /** The claim that names the caller's tenant. Give this or `tenant`. */
  tenantClaim: claimName.optional(),
  /** The claim that names the user. Default sub. */
  userClaim: claimName.default('sub'),
  /** Plain http to the issuer (discovery, keys, tokens): only for a provider on loopback. Default false. */
  allowHttp: z.boolean().default(false),
};
const oneTenant = (i: { tenant?: string; tenantClaim?: string }) => (i.tenant ? 1 : 0) + (i.tenantClaim ? 1 : 0) === 1;

/**
 * An identity provider whose JWT access tokens callers may bring (the HTTP API, the served agents on
 * every binding, `/mcp`): verified against the issuer's published keys, then mapped to a caller.
 */
export const IssuerSchema = z
  .object({
    /** The issuer (`iss`), exactly as the tokens carry it. */
    issuer: z.url({ protocol: /^https?$/ }),
    /** The audience (`aud`) the tokens must name: Baton's own identifier at this provider. */
    audience: z.string().min(1).max(500),
    /** Where the keys are. Default: `jwks_uri` of the issuer's discovery document. */
    jwksUri: z.url({ protocol: /^https?$/ }).optional(),
    /** Signature algorithms taken. Default RS256, PS256, ES256, EdDSA; never `none` or HMAC. */
    algorithms: z.array(z.enum(JWT_ALGORITHMS)).min(1).default(['RS256', 'PS256', 'ES256', 'EdDSA']),
    ...claimMapping,
    /**
     * The scope (in `scope` or `scp`) that grants each permission. Default `baton:read`,
     * `baton:delegate`, `baton:answer`, `baton:cancel`, `baton:admin` (admin grants them all).
     */
    scopes: z
      .object(
        Object.fromEntries(PERMISSIONS.map((p) => [p, scope.default(`baton:${p}`)])) as Record<
          (typeof PERMISSIONS)[number],
          z.ZodDefault<typeof scope>
        >,
      )
      .strict()
      .default(Object.fromEntries(PERMISSIONS.map((p) => [p, `baton:${p}`])) as Record<(typeof PERMISSIONS)[number], string>),
    /** Clock skew allowed on `exp` and `nbf`, in seconds. Default 5. */
    clockToleranceSeconds: z.number().int().min(0).max(300).default(5),
  })
  .strict()
  .refine(oneTenant, { message: 'give exactly one of tenant or tenantClaim' })
  .refine((i) => i.allowHttp || new URL(i.issuer).protocol === 'https:', {
    message: 'an http issuer needs allowHttp (loopback providers only)',
  });
export type IssuerConfig = z.infer<typeof IssuerSchema>;

/** Operators sign in to the web app with OpenID Connect (authorization code with PKCE). */
export const OidcSignInSchema = z
  .object({
    /** The OpenID provider's issuer; its discovery document is read from it. */
    issuer: z.url({ protocol: /^https?$/ }),
    /** The client id registered for the web app. */
    clientId: z.string().min(1).max(200),
    /** The client secret, for a confidential client. Default: none (a public client, PKCE only). */
    clientSecret: SecretSourceSchema.optional(),
    /** Scopes asked for. Default openid, profile, email. */
    scopes: z.array(scope).min(1).default(['openid', 'profile', 'email']),
    ...claimMapping,
    /** What a signed-in operator may do. Default read, delegate, answer, cancel. */
    permissions: z.array(permission).min(1).default(['read', 'delegate', 'answer', 'cancel']),
    /** The callback URL registered at the provider. Default `<the web app's URL>/auth/oidc/callback`. */
    redirectUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** How long a session lasts. Default 8h. */
    sessionTtl: DurationSchema.default('8h'),
  })
  .strict()
  .refine(oneTenant, { message: 'give exactly one of tenant or tenantClaim' })
  .refine((i) => i.allowHttp || new URL(i.issuer).protocol === 'https:', {
    message: 'an http issuer needs allowHttp (loopback providers only)',
  });
export type OidcSignInConfig = z.infer<typeof OidcSignInSchema>;

export { permission as PermissionSchema };
