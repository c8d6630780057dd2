import { runContainerTask } from '../../container-task.js';
import { step } from './step.js';

await runContainerTask(step);
