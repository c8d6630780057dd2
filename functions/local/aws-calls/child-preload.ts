/**
 * `node --import <this, bundled>` for a container task's child process while the local host
 * records AWS calls (recorder.ts childProcessRecording): the whole process is one unit.
 */
import { startCallRecording } from './recorder.js';

startCallRecording(process.env.AWS_CALL_LOG, process.env.AWS_CALL_UNIT);
