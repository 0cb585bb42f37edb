/**
 * The first query of the early-access page, built here for both sides: its server page
 * prefetches it (src/trpc/server.ts) and the client list asks for it, so the keys match.
 */
export function earlyAccessListInput(projectId: number) {
  return { projectId, limit: 200 };
}
