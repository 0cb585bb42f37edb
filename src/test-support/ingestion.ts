import { handleBatch } from "@/server/http/capture";

/**
 * For tests: sends `batch` through the real `/batch/` route handler, as an SDK would, and
 * throws (failing the test) unless every event was accepted.
 */
export async function sendBatch(apiKey: string, batch: object[]): Promise<void> {
  const response = await handleBatch(
    new Request("http://burrow.test/batch/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: apiKey, batch }),
    }),
  );
  const text = await response.text();
  if (text !== '{"status":1}') throw new Error(`/batch/ answered ${response.status} ${text}`);
}
