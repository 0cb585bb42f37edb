// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleFlags } from "@/server/http/sdk/flags";

export const dynamic = "force-dynamic";
export { handleFlags as GET, handleFlags as POST, handleFlags as OPTIONS };
