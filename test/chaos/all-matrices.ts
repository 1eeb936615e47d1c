/** Every refusal matrix, by name: the campaign runs them all, and so does `npm test`. */
import { hostileCallerMatrix } from './caller-matrix';
import {
  credentialMatrix,
  crossTenantMatrix,
  forgedPushMatrix,
  hostileAgentMatrix,
  idSpaceMatrix,
  ssrfMatrix,
  type MatrixReport,
} from './matrices';

export const MATRICES: [name: string, run: () => Promise<MatrixReport>][] = [
  ['SSRF', ssrfMatrix],
  ['forged push', forgedPushMatrix],
  ['cross-tenant', crossTenantMatrix],
  ['credential', credentialMatrix],
  ['id space', idSpaceMatrix],
  ['hostile agent', hostileAgentMatrix],
  ['hostile caller', hostileCallerMatrix],
];
