export { delegationWorkflow } from './delegation';
export { taskGraphWorkflow } from './task-graph';
export { taskPushWorkflow } from './task-push';
