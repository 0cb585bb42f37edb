// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleDecide } from "@/server/http/sdk/flags";

export const dynamic = "force-dynamic";
export { handleDecide as GET, handleDecide as POST, handleDecide as OPTIONS };
