/**
 * The process's resident memory at its highest while some work runs. Sampled from a worker
 * thread: synchronous work (an inflate, a parse) blocks the event loop, so samples taken on
 * it would miss the peak; and the process's lifetime peak (`maxRSS`) is often an earlier
 * test's, which would hide it.
 */
import { Worker } from "node:worker_threads";

const SAMPLER = `
const { workerData, parentPort } = require("node:worker_threads");
const peak = new Float64Array(workerData.peak);
const stop = new Int32Array(workerData.stop);
parentPort.postMessage("started");
while (Atomics.load(stop, 0) === 0) {
  peak[0] = Math.max(peak[0], process.memoryUsage.rss());
  Atomics.wait(stop, 0, 0, 2);
}
`;

/** Runs `work`; its result, and the highest RSS growth over the RSS when it started, in MB. */
export async function peakRssDuring<T>(work: () => Promise<T>): Promise<{ value: T; rssGrowthMb: number }> {
  const peak = new SharedArrayBuffer(8);
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(SAMPLER, { eval: true, workerData: { peak, stop } });
  await new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
  const before = process.memoryUsage.rss();
  try {
    const value = await work();
    return { value, rssGrowthMb: (Math.max(new Float64Array(peak)[0]!, process.memoryUsage.rss()) - before) / 1e6 };
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    Atomics.notify(new Int32Array(stop), 0);
    await worker.terminate();
  }
}
