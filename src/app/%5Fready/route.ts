// `npm start` answers /_ready on its fast path; this route serves it under `next dev`.
export { handleReady as GET } from "@/server/health/handlers";
export const dynamic = "force-dynamic";
