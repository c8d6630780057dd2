/**
 * The signal-extraction container (layers/ffmpeg/Dockerfile): the ExtractChunkSignals step for
 * chunks planned with runner `container`, a Fargate task on AWS and a child process of the local host.
 */
import { extractChunkSignalsTask } from '../workflows/analysis/extract-chunk-signals-step.js';
import { runContainerTask } from './container-task.js';

await runContainerTask(extractChunkSignalsTask);
