/**
 * The source-acquisition container (layers/ffmpeg/Dockerfile, which carries yt-dlp): the
 * AcquireSource step of one-off analyses whose source is long, of unknown size or a provider page;
 * a Fargate task on AWS and a child process of the local host.
 */
import { acquireSourceTask } from '../workflows/analysis/acquire-source-step.js';
import { runContainerTask } from './container-task.js';

await runContainerTask(acquireSourceTask);
