export { delegationWorkflow } from './delegation';
