/**
 * `baton/workflow`: what a user's workflow imports to delegate. Workflow-safe: it pulls in only the
 * workflow SDK, zod and Baton's pure shared code. Re-export `delegationWorkflow` from your workflows
 * file, or build the worker with `withBaton` (from `baton/worker`), which does it for you.
 */
export { delegate, startDelegation, type DelegateOptions, type DelegationHandle } from './delegate';
export { delegationWorkflow } from './delegation';
export { taskPushWorkflow } from './task-push';
export { callMcpTool, type CallMcpToolOptions, type McpToolOutcome } from './mcp-tools';
export { servedTask, ServedTask } from './served-task';
export {
  answerSignal,
  answerUpdate,
  authorizeSignal,
  authorizeUpdate,
  cancelUpdate,
  requestSignal,
  reviewUpdate,
  servedMessageUpdate,
  servedTaskQuery,
  statusQuery,
} from './messages';
export type { DelegationResult } from '../src/shared/delegation-result';
export type {
  Answer,
  ArtifactRecord,
  Authorize,
  Caller,
  Contract,
  DelegationRecord,
  DelegationStatus,
  OutcomeKind,
  PendingRequest,
  RefusedSignal,
  RequestNotice,
} from '../src/shared/delegation-types';
export type { Part } from '../src/shared/a2a-types';
export type { McpToolResult } from '../src/shared/mcp-tool-types';
export type { ServedArtifact, ServedMessage, ServedTaskInput, ServedTaskState } from '../src/shared/served-task-types';
export {
  batonNexusService,
  BATON_NEXUS_SERVICE,
  type AnswerInput,
  type AuthorizeInput,
  type CancelInput,
  type DelegateInput,
  type ReviewInput,
  type RunGraphInput,
  type Sent,
  type StatusInput,
} from './nexus-service';
