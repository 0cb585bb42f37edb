/**
 * Parquet files as batch exports write them, read back with hyparquet (another implementation
 * than the writer's), its pages decompressed by other implementations than the compressors':
 * node:zlib, and hyparquet-compressors' ZSTD (fzstd) and LZ4_RAW.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors as independentDecompressors } from "hyparquet-compressors";
import { describe, expect, it } from "vitest";
import type { ExportRecord } from "./models";
import { MODEL_COLUMNS } from "./models";
import { isoMicros, ParquetFile } from "./parquet";

const decompressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)),
  ZSTD: independentDecompressors.ZSTD,
  // An empty page is the one-byte block 0x00 (what liblz4 writes for no input), which this decoder does not take.
  LZ4_RAW: (input: Uint8Array, length: number) => (length === 0 ? new Uint8Array(0) : independentDecompressors.LZ4_RAW!(input, length)),
};
/** The file's bytes as one ArrayBuffer, from the chunks a file hands out. */
function arrayBuffer(chunks: Uint8Array[]): ArrayBuffer {
  const bytes = Buffer.concat(chunks);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
/** A whole file of `batches` (each added at once). */
async function fileOf(columns: Parameters<typeof ParquetFile.open>[0], compression: Parameters<typeof ParquetFile.open>[1], batches: ExportRecord[][], rowGroupRows?: number) {
  const file = await ParquetFile.open(columns, compression, { rowGroupRows });
  const chunks = batches.flatMap((batch) => file.add(batch));
  return arrayBuffer([...chunks, ...file.finish()]);
}

const rows = Array.from({ length: 5 }, (_, i) => ({
  team_id: 7,
  distinct_id: `d${i}`,
  person_id: `0190a000-0000-7000-8000-00000000000${i}`,
  properties: { i, nested: { ok: true }, text: "é" },
  person_version: i,
  person_distinct_id_version: 0,
  created_at: `2026-01-10T01:0${i}:00.000Z`,
  _inserted_at: `2026-01-10T02:00:00.12345${i}Z`,
}));

describe("Parquet files", () => {
  it("keep microseconds of ISO times", () => {
    expect(isoMicros("2026-01-10T02:00:00.123456Z")).toBe(1768010400123456n);
    expect(isoMicros("2026-01-10T02:00:00.123Z")).toBe(1768010400123000n);
    expect(isoMicros("2026-01-10T02:00:00Z")).toBe(1768010400000000n);
  });

  for (const [compression, codec] of [[null, "UNCOMPRESSED"], ["snappy", "SNAPPY"], ["gzip", "GZIP"], ["brotli", "BROTLI"], ["zstd", "ZSTD"], ["lz4", "LZ4_RAW"]] as const) {
    it(`write row groups as rows come (${compression ?? "uncompressed"}), readable with timestamps as timestamps and JSON as strings`, async () => {
      const file = await ParquetFile.open(MODEL_COLUMNS.persons, compression, { rowGroupRows: 2 });
      // 5 rows in groups of at most 2: 2, 2, 1 (a group is encoded, and its bytes handed out, as soon as it is full).
      const first = file.add(rows.slice(0, 3));
      expect(first.length).toBe(1);
      const buffer = arrayBuffer([...first, ...file.add(rows.slice(3)), ...file.finish()]);
      const metadata = parquetMetadata(buffer);
      expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([2, 2, 1]);
      expect(metadata.row_groups[0]!.columns[0]!.meta_data!.codec).toBe(codec);
      const inserted = metadata.schema.find((e) => e.name === "_inserted_at")!;
      expect(inserted.logical_type).toMatchObject({ type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" });
      const micros = await parquetReadObjects({ file: buffer, compressors: decompressors, parsers: { timestampFromMicroseconds: (v: bigint) => v } });
      expect(micros.map((r) => r._inserted_at)).toEqual(rows.map((r) => isoMicros(r._inserted_at)));
      const read = await parquetReadObjects({ file: buffer, compressors: decompressors });
      expect(read).toEqual(
        rows.map((r) => ({
          ...r,
          team_id: 7n,
          person_version: BigInt(r.person_version),
          person_distinct_id_version: 0n,
          properties: JSON.stringify(r.properties),
          created_at: new Date(r.created_at),
          _inserted_at: new Date(r._inserted_at),
        })),
      );
    });
  }

  it("write nulls as nulls (a column of nulls is an empty page) and an empty interval as a valid file of no rows", async () => {
    for (const compression of ["snappy", "zstd", "lz4"] as const) {
      const file = await fileOf(MODEL_COLUMNS.sessions, compression, [[{ team_id: 1, session_id: "s", distinct_id: "d", person_id: null, start_timestamp: "2026-01-10T00:00:00Z", end_timestamp: "2026-01-10T00:01:00Z", duration: 60 }]]);
      const [row] = await parquetReadObjects({ file, compressors: decompressors });
      expect(row, compression).toMatchObject({ session_id: "s", person_id: null, entry_url: null, duration: 60n, pageview_count: null });
    }
    const empty = await fileOf(MODEL_COLUMNS.events, null, []);
    expect(Number(parquetMetadata(empty).num_rows)).toBe(0);
    expect(await parquetReadObjects({ file: empty })).toEqual([]);
  });

  it("make a row group of wide rows before it has its rows' count, and keep the footer's statistics short", async () => {
    const wide = Array.from({ length: 40 }, (_, i) => ({ ...rows[0]!, distinct_id: `w${i}`, properties: { text: "x".repeat(100_000 + i) } }));
    const file = await ParquetFile.open(MODEL_COLUMNS.persons, "lz4", { rowGroupBytes: 1_000_000 });
    const buffer = arrayBuffer([...file.add(wide), ...file.finish()]);
    const metadata = parquetMetadata(buffer);
    // About 100 kB a row: groups of 10 rows, not one of 40.
    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([10, 10, 10, 10]);
    expect(metadata.metadata_length).toBeLessThan(20_000);
    const read = await parquetReadObjects({ file: buffer, compressors: decompressors });
    expect(read.map((r) => (JSON.parse(r.properties as string) as { text: string }).text.length)).toEqual(wide.map((_, i) => 100_000 + i));
  });
});
