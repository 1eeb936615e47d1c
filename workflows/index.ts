export { delegationWorkflow } from './delegation';
export { taskGraphWorkflow } from './task-graph';
