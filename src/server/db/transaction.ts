import type { Prisma } from "@/generated/prisma/client";
import type { Database, PrismaClient } from "./client";

/** A transaction's client: what a store function runs on when a service groups writes. */
export type Tx = Prisma.TransactionClient;

/** What a store function runs on: the process's client, or a transaction's. */
export type DbClient = PrismaClient | Tx;

export interface TransactionOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  maxWait?: number;
  timeout?: number;
}

/**
 * Whether a write failed on the unique index `index`: Prisma's P2002, read by its code (a
 * client of another bundle fails `instanceof`), or an error whose message names the code or
 * the index (a partial index Prisma cannot map to fields is reported by name only).
 */
export function isUniqueViolation(error: unknown, index: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "P2002" || (typeof message === "string" && (message.includes("P2002") || message.includes(index)));
}

/**
 * Runs `work` in one transaction, so that several stores' writes land together or not at
 * all. Services call this instead of Prisma's `$transaction`; only stores see the client.
 */
export function inTransaction<T>(db: Database, work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
  return db.prisma.$transaction(work, options);
}
