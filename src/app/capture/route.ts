// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleCaptureEvents } from "@/server/http/capture";

export const dynamic = "force-dynamic";
export { handleCaptureEvents as GET, handleCaptureEvents as POST, handleCaptureEvents as OPTIONS };
