// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleEngage } from "@/server/http/capture";

export const dynamic = "force-dynamic";
export { handleEngage as GET, handleEngage as POST, handleEngage as OPTIONS };
