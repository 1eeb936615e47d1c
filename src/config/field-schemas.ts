/** Field shapes the configuration's schemas share. */
import { z } from 'zod';
import { TENANT_NAME } from '../shared/ids';

/** A tenant's name: it prefixes the ids its callers choose (`<tenant>:<id>`), so it holds no `:` and no `/`. */
export const tenantName = z.string().regex(TENANT_NAME, 'use letters, digits and . _ @ - (at most 100, starting with a letter or digit)');

/** The name of an environment variable. */
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** An origin: scheme, host and port, no path. */
export const origin = z
  .url()
  .refine((u) => new URL(u).origin === u.replace(/\/$/, ''), { message: 'must be an origin like https://host[:port], with no path' });
