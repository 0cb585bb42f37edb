/**
 * Outbound safety, as other domains use it: the URL check when a URL is saved, the guarded
 * client that checks again at connect time (and at each redirect), and sealed secrets.
 */
export { AllowlistError, currentAllowlist, isNonPublicAddress, parseAllowlist, type OutboundAllowlist } from "./addresses";
export { checkOutboundUrl, type UrlVerdict } from "./url";
export { OutboundRefusedError, outboundRequest, resolveOutboundHost, type OutboundRequest, type OutboundResponse, type Resolver } from "./client";
export { isSealed, maskedSecret, openSecret, sealSecret } from "./secrets";
