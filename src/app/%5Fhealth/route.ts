// `npm start` answers /_health on its fast path; this route serves it under `next dev`.
export { handleHealth as GET } from "@/server/health/handlers";
export const dynamic = "force-dynamic";
