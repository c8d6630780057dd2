/**
 * The render container (layers/ffmpeg/Dockerfile): one moment of a render, cut, framed and
 * encoded with ffmpeg; a Fargate task on AWS and a child process of the local host.
 */
import { renderMomentTask } from '../workflows/render/render-moment-step.js';
import { runContainerTask } from './container-task.js';

await runContainerTask(renderMomentTask);
