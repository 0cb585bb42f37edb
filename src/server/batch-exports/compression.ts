/**
 * The compressions of batch export files, in the two ways files use them:
 * - a JSON Lines file is one compressed stream (StreamCompressor): gzip and brotli from
 *   node:zlib, zstd as one Zstandard frame (@hpcc-js/wasm-zstd's streaming compressor, a WASM
 *   build of libzstd: Node 20's zlib has no zstd), lz4 as one LZ4 frame of independent 1 MiB
 *   blocks (lz4js's block compressor, pure JavaScript; the frame written here). Each push
 *   answers the compressed bytes of its input at once (a flush), so that a file's size is
 *   known as it grows, for `max_file_size_mb`.
 * - a Parquet file compresses each page on its own (pageCompressors, for hyparquet-writer):
 *   GZIP, BROTLI, ZSTD (a frame a page) and LZ4_RAW (a bare LZ4 block a page); SNAPPY is
 *   hyparquet-writer's own.
 */
import { constants, createBrotliCompress, createGzip, brotliCompressSync, gzipSync, type BrotliCompress, type Gzip } from "node:zlib";
import { Zstd } from "@hpcc-js/wasm-zstd";
import * as lz4 from "lz4js";
import * as xxh32 from "lz4js/xxh32.js";

export interface StreamCompressor {
  /** Compresses `input`; answers the compressed bytes it gave (flushed: nothing of it is held back). */
  push(input: Uint8Array): Promise<Uint8Array[]>;
  /** Ends the stream; answers its last bytes. */
  end(): Promise<Uint8Array[]>;
  /** Lets go of what it holds (after end, or instead of it). */
  close(): void;
}

export type StreamCompression = "gzip" | "brotli" | "zstd" | "lz4";

/**
 * A zlib stream, flushed after each push (gzip: a sync flush, which keeps the window; zlib's
 * default full flush would empty it). Brotli at quality 5, PostHog's (zlib's default, 11, is
 * several times slower).
 */
class ZlibCompressor implements StreamCompressor {
  private readonly out: Uint8Array[] = [];
  private failure: Error | null = null;
  constructor(
    private readonly stream: Gzip | BrotliCompress,
    private readonly flushKind: number,
  ) {
    stream.on("data", (chunk: Buffer) => this.out.push(chunk));
    stream.on("error", (error: Error) => (this.failure = error));
  }

  private taken(): Uint8Array[] {
    if (this.failure) throw this.failure;
    return this.out.splice(0);
  }

  async push(input: Uint8Array): Promise<Uint8Array[]> {
    this.stream.write(input);
    await new Promise<void>((resolve) => this.stream.flush(this.flushKind, () => resolve()));
    return this.taken();
  }

  async end(): Promise<Uint8Array[]> {
    await new Promise<void>((resolve, reject) => {
      this.stream.once("end", resolve).once("error", reject);
      this.stream.end();
    });
    return this.taken();
  }

  close(): void {
    this.stream.destroy();
  }
}

let zstdModule: Promise<Zstd> | null = null;
/** The WASM zstd, loaded once (compiling it is asynchronous). */
function loadZstd(): Promise<Zstd> {
  zstdModule ??= Zstd.load();
  return zstdModule;
}

/** The module has one streaming context: one zstd stream at a time in the process, each waiting for the one before to end. */
let zstdStreamTurn: Promise<void> = Promise.resolve();

class ZstdCompressor implements StreamCompressor {
  private release: (() => void) | null = null;
  private constructor(private readonly zstd: Zstd) {}

  static async open(): Promise<ZstdCompressor> {
    const before = zstdStreamTurn;
    let release!: () => void;
    zstdStreamTurn = new Promise((resolve) => (release = resolve));
    try {
      const [zstd] = await Promise.all([loadZstd(), before]);
      const compressor = new ZstdCompressor(zstd);
      compressor.release = release;
      zstd.reset();
      return compressor;
    } catch (error) {
      release();
      throw error;
    }
  }

  async push(input: Uint8Array): Promise<Uint8Array[]> {
    return input.length === 0 ? [] : [this.zstd.compressChunk(input)];
  }

  async end(): Promise<Uint8Array[]> {
    const last = this.zstd.compressEnd();
    this.close();
    return [last];
  }

  close(): void {
    this.release?.();
    this.release = null;
  }
}

/** LZ4 frame format: version 01 with independent blocks; blocks of at most 1 MiB; no checksums. */
const LZ4_FLAGS = 0x60;
const LZ4_BLOCK_MAX = 0x60;
const LZ4_BLOCK_BYTES = 1024 * 1024;
const LZ4_UNCOMPRESSED = 0x80000000;

/** An LZ4 block holding `input` as literals only: what compresses to nothing still has to be a block (a Parquet page). */
function literalBlock(input: Uint8Array): Uint8Array {
  const extra = input.length >= 15 ? Math.floor((input.length - 15) / 255) + 1 : 0;
  const block = new Uint8Array(1 + extra + input.length);
  block[0] = Math.min(input.length, 15) << 4;
  let at = 1;
  for (let rest = input.length - 15; rest >= 0; rest -= 255) block[at++] = Math.min(rest, 255);
  block.set(input, at);
  return block;
}

/** A bare LZ4 block of `input` (Parquet's LZ4_RAW). */
function lz4Block(input: Uint8Array, scratch: Uint8Array, table: Uint32Array): Uint8Array {
  table.fill(0);
  const size = lz4.compressBlock(input, scratch, 0, input.length, table);
  return size > 0 ? scratch.slice(0, size) : literalBlock(input);
}

class Lz4FrameCompressor implements StreamCompressor {
  private readonly block = Buffer.alloc(LZ4_BLOCK_BYTES);
  private filled = 0;
  private readonly scratch = new Uint8Array(lz4.compressBound(LZ4_BLOCK_BYTES));
  private readonly table = new Uint32Array(1 << 16);
  private started = false;

  private header(): Uint8Array {
    const header = new Uint8Array([0x04, 0x22, 0x4d, 0x18, LZ4_FLAGS, LZ4_BLOCK_MAX, 0]);
    header[6] = (xxh32.hash(0, header, 4, 2) >>> 8) & 0xff;
    return header;
  }

  /** The filled block, compressed unless that would not make it smaller. */
  private flushBlock(out: Uint8Array[]): void {
    if (this.filled === 0) return;
    const input = this.block.subarray(0, this.filled);
    this.table.fill(0);
    const size = lz4.compressBlock(input, this.scratch, 0, input.length, this.table);
    const stored = size > 0 && size < input.length;
    const length = Buffer.alloc(4);
    length.writeUInt32LE(stored ? size : (LZ4_UNCOMPRESSED | input.length) >>> 0);
    out.push(length, stored ? this.scratch.slice(0, size) : Buffer.from(input));
    this.filled = 0;
  }

  async push(input: Uint8Array): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    if (!this.started) {
      out.push(this.header());
      this.started = true;
    }
    for (let offset = 0; offset < input.length; ) {
      const taken = Math.min(LZ4_BLOCK_BYTES - this.filled, input.length - offset);
      this.block.set(input.subarray(offset, offset + taken), this.filled);
      this.filled += taken;
      offset += taken;
      if (this.filled === LZ4_BLOCK_BYTES) this.flushBlock(out);
    }
    return out;
  }

  async end(): Promise<Uint8Array[]> {
    const out = this.started ? [] : [this.header()];
    this.flushBlock(out);
    out.push(new Uint8Array(4));
    return out;
  }

  close(): void {}
}

export async function openStreamCompressor(compression: StreamCompression): Promise<StreamCompressor> {
  switch (compression) {
    case "gzip":
      return new ZlibCompressor(createGzip({ level: 6 }), constants.Z_SYNC_FLUSH);
    case "brotli":
      return new ZlibCompressor(createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }), constants.BROTLI_OPERATION_FLUSH);
    case "zstd":
      return ZstdCompressor.open();
    case "lz4":
      return new Lz4FrameCompressor();
  }
}

/** Parquet page codecs hyparquet-writer does not have (synchronous: it calls them a page at a time). */
export type PageCompressor = (input: Uint8Array) => Uint8Array;

export async function pageCompressors(): Promise<Record<"GZIP" | "BROTLI" | "ZSTD" | "LZ4_RAW", PageCompressor>> {
  const zstd = await loadZstd();
  const scratch = { bytes: new Uint8Array(0), table: new Uint32Array(1 << 16) };
  return {
    GZIP: (input) => gzipSync(input),
    BROTLI: (input) => brotliCompressSync(input),
    ZSTD: (input) => zstd.compress(input),
    LZ4_RAW: (input) => {
      const bound = lz4.compressBound(input.length);
      if (scratch.bytes.length < bound) scratch.bytes = new Uint8Array(bound);
      return lz4Block(input, scratch.bytes, scratch.table);
    },
  };
}
