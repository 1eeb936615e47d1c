/**
 * Clients start Baton's workflows by the signatures in workflows/messages.ts, not by importing the
 * workflows' code (which would tie the client layer to the activities'). This file does not compile
 * when a workflow and its signature drift apart.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { delegationWorkflow } from '../../workflows/delegation';
import type { DelegationWorkflow, TaskGraphWorkflow, TaskPushWorkflow } from '../../workflows/messages';
import { taskGraphWorkflow } from '../../workflows/task-graph';
import { taskPushWorkflow } from '../../workflows/task-push';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

it('each workflow has exactly the signature its clients start it by', () => {
  const checks: [
    Same<typeof delegationWorkflow, DelegationWorkflow>,
    Same<typeof taskGraphWorkflow, TaskGraphWorkflow>,
    Same<typeof taskPushWorkflow, TaskPushWorkflow>,
  ] = [true, true, true];
  assert.deepEqual(checks, [true, true, true]);
  assert.deepEqual(
    [delegationWorkflow.name, taskGraphWorkflow.name, taskPushWorkflow.name],
    ['delegationWorkflow', 'taskGraphWorkflow', 'taskPushWorkflow'],
  );
});
