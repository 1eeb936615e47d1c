/**
 * The zod schemas that workflow code validates with, loaded the first time one is needed. Every
 * workflow evaluates the bundle's modules afresh (only preloaded modules are shared, and those are
 * frozen, which zod schemas cannot be: they fill in their own fields on first use). Building every
 * schema up front cost each delegation about 2 ms of CPU and its garbage, mostly for messages that
 * never came (decision 0020). Lint keeps workflows/ and src/shared/ from importing the schema
 * modules' values any other way.
 */
import type * as DataUseTypes from './data-use-types';
import type * as DelegationTypes from './delegation-types';
import type * as GraphTypes from './graph-types';
import type * as ServedTaskTypes from './served-task-types';

/* eslint-disable @typescript-eslint/no-require-imports -- a require inside a function is what defers the module */

/** The delegation schemas (`delegation-types`), built on first use. */
export const delegationSchemas = (): typeof DelegationTypes => require('./delegation-types') as typeof DelegationTypes;

/** The graph schemas (`graph-types`), built on first use. */
export const graphSchemas = (): typeof GraphTypes => require('./graph-types') as typeof GraphTypes;

/** The schemas of an application's served workflow (`served-task-types`), built on first use. */
export const servedTaskSchemas = (): typeof ServedTaskTypes => require('./served-task-types') as typeof ServedTaskTypes;

/** The data-use schemas (`data-use-types`), built the first time a part carries data use. */
export const dataUseSchemas = (): typeof DataUseTypes => require('./data-use-types') as typeof DataUseTypes;
