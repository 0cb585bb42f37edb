/** The e-mail of a report (filled in once the e-mail sender lands). */
import { DeliveryError, type Report } from "./delivery";
import type { SubscriptionRow } from "./store";

export async function sendReportEmail(_row: SubscriptionRow, _report: Report): Promise<void> {
  throw new DeliveryError("E-mail delivery is not available yet: use a webhook.");
}
