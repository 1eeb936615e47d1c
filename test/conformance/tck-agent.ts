/**
 * The agent behind the gateway the A2A TCK tests: it plays the TCK's scenarios (its SUTs choose them
 * by the messageId's prefix). A gateway sends the agent messageIds of its own, never the caller's, so
 * the TCK plugin (tck_plugin.py) names the scenario in a data part `{"tckScenario": "<prefix>"}`:
 * - `input-required`: asks a question (INPUT_REQUIRED) and asks again on every answer of that scenario;
 * - `reject-task`: REJECTED; `fail-task`: FAILED;
 * - `long-running`: works until canceled (for subscribe and cancel);
 * - `artifact-text`, `artifact-file`, `artifact-file-url`, `artifact-data`: completes with the artifact
 *   the TCK's SUTs give for them;
 * - anything else (`complete-task` included): WORKING, a text artifact echoing the request, COMPLETED.
 */
import type { DemoAgentDefinition } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { dataOf, openTask, skill, textOf } from '../../src/demo/kit';

/** The scenario a message names, from the plugin's data part. */
export function scenarioOf(data: unknown[]): string {
  for (const d of data)
    if (d && typeof d === 'object' && typeof (d as { tckScenario?: unknown }).tckScenario === 'string')
      return (d as { tckScenario: string }).tckScenario;
  return 'complete-task';
}

/** The parts the TCK expects for each artifact scenario (tests/compatibility/core_operations/test_artifacts.py). */
const ARTIFACT_PARTS: Record<string, unknown> = {
  'artifact-text': { text: 'Generated text content', mediaType: 'text/plain' },
  'artifact-file': { raw: Buffer.from('file content').toString('base64'), filename: 'output.txt', mediaType: 'text/plain' },
  'artifact-file-url': { url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' },
  'artifact-data': { data: { key: 'value', count: 42 }, mediaType: 'application/json' },
};

export function tckAgent(): DemoAgentDefinition {
  const running = new Map<string, () => void>();
  return {
    name: 'tck-agent',
    description: 'Plays the A2A TCK scenarios behind a Baton gateway.',
    skills: skill('tck', 'A2A TCK scenarios'),
    executor: {
      execute: async (ctx, bus) => {
        openTask(ctx, bus);
        const scenario = scenarioOf(dataOf(ctx.userMessage));
        const { taskId, contextId } = ctx;
        switch (scenario) {
          case 'input-required':
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED', 'Which order is this about?'));
            break;
          case 'reject-task':
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_REJECTED', 'This agent does not take that request.'));
            break;
          case 'fail-task':
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_FAILED', 'The work failed.'));
            break;
          case 'long-running':
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', 'Working until canceled'));
            await new Promise<void>((resolve) => running.set(taskId, resolve));
            break;
          case 'artifact-text':
          case 'artifact-file':
          case 'artifact-file-url':
          case 'artifact-data':
            bus.publish(
              artifactEvent(taskId, contextId, { artifactId: `${taskId}-${scenario}`, name: scenario, parts: [ARTIFACT_PARTS[scenario]] }),
            );
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED', 'Done'));
            break;
          default:
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', 'Working'));
            bus.publish(
              artifactEvent(taskId, contextId, {
                artifactId: `${taskId}-echo`,
                name: 'echo',
                parts: [{ text: `Received: ${textOf(ctx.userMessage)}`, mediaType: 'text/plain' }],
              }),
            );
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED', 'Done'));
        }
        bus.finished();
      },
      cancelTask: async (taskId, bus) => {
        running.get(taskId)?.();
        running.delete(taskId);
        bus.publish(statusEvent(taskId, '', 'TASK_STATE_CANCELED'));
        bus.finished();
      },
    },
  };
}
