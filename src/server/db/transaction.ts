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
 * Runs `work` in one transaction, so that several stores' writes land together or not at
 * all. Services call this instead of Prisma's `$transaction`; only stores see the client.
 */
export function inTransaction<T>(db: Database, work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
  return db.prisma.$transaction(work, options);
}
