/**
 * A worker thread of the batch pool (batch.ts): checks the histories it is sent, one at a time.
 *
 * Takes: the command's CheckSettings as workerData; then messages { id, path, found }. Gives: one
 * message { id, outcome } per history (check-one.ts). Invariant: checkOne never throws, so every
 * message is answered; if the thread dies anyway (out of memory), the pool reports the history
 * it was on as an internal error and starts another thread.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { checkOne, type CheckSettings } from './check-one.ts';
import { injectedWorkerExit } from './fault.ts';

export interface Job { id: number; path: string; found: boolean }

if (parentPort === null) throw new Error('batch-worker: must run as a worker thread');
const port = parentPort;
const settings = workerData as CheckSettings;
port.on('message', (job: Job) => {
  injectedWorkerExit(job.path);
  void checkOne(job.path, settings, job.found).then((outcome) => port.postMessage({ id: job.id, outcome }));
});
