import { randomFillSync } from "node:crypto";

// The `uuid` package asks the OS for 16 random bytes per id: one syscall per event, about a
// tenth of the capture path's CPU. Random bytes are drawn here 512 ids at a time instead.
const POOL = new Uint8Array(16 * 512);
let poolOffset = POOL.length;

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

let lastMs = -Infinity;
let sequence = 0;

function randomBytes16(): Uint8Array {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = POOL.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/**
 * A new event id: a UUIDv7 (RFC 9562) as PostHog's SDKs make, so ids sort by creation time.
 * Within one millisecond a 32-bit counter, seeded at random each millisecond, keeps ids of
 * this process increasing (RFC 9562 §6.2, method 1, as the `uuid` package does).
 */
export function newEventUuid(now: number = Date.now()): string {
  const random = randomBytes16();
  if (now > lastMs) {
    lastMs = now;
    sequence = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    sequence = (sequence + 1) | 0;
    // Counter overflow: borrow the next millisecond rather than repeat an id.
    if (sequence === 0) lastMs++;
  }
  const ms = lastMs;
  const b = new Uint8Array(16);
  b[0] = (ms / 0x10000000000) & 0xff;
  b[1] = (ms / 0x100000000) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | ((sequence >>> 28) & 0x0f);
  b[7] = (sequence >>> 20) & 0xff;
  b[8] = 0x80 | ((sequence >>> 14) & 0x3f);
  b[9] = (sequence >>> 6) & 0xff;
  b[10] = ((sequence << 2) & 0xff) | (random[10]! & 0x03);
  for (let i = 11; i < 16; i++) b[i] = random[i]!;
  let text = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text += "-";
    text += HEX[b[i]!];
  }
  return text;
}
