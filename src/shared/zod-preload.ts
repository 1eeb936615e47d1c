/**
 * The workflow bundle preloads this module so zod is evaluated once per worker thread and shared by
 * every workflow (see PRELOADED_MODULES). Preloading zod by name does not work: its package declares
 * no side effects, so the bundler drops an import whose value is unused; this file is the import
 * that is kept.
 *
 * 👉 Preloaded modules and the context's globals are frozen after preloading. zod fills in its global
 * config (error messages, the memoizer) on first use, which would then fail: it is filled in here.
 */
import * as z from 'zod';

z.config(z.locales.en());
z.config({ memoizer: z.core.memoizer() });

export const zod = z;
