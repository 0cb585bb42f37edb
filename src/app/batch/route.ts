// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleBatch } from "@/server/http/capture";

export const dynamic = "force-dynamic";
export { handleBatch as GET, handleBatch as POST, handleBatch as OPTIONS };
