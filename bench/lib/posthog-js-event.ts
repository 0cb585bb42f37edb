/**
 * What posthog-js really sends with a `$pageview`: about 35 properties, ~1.2 KB, with a
 * `$session_id` and `$window_id` per visitor. Benchmarks of ingestion use it, so that row size
 * and per-property work are those of real traffic.
 */
export function posthogJsPageviewProperties(visitor: number, page: number): Record<string, unknown> {
  return {
    $os: "Mac OS X", $os_version: "14.6.1", $browser: "Chrome", $device_type: "Desktop", $browser_version: 131,
    $current_url: `https://shop.example.com/products/item-${page}?utm_source=newsletter&utm_campaign=autumn`,
    $host: "shop.example.com", $pathname: `/products/item-${page}`,
    $raw_user_agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    $screen_height: 1117, $screen_width: 1728, $viewport_height: 981, $viewport_width: 1728, $lib: "web", $lib_version: "1.449.2",
    $insert_id: `insert-${visitor}-${page}`, $time: 1732262400.123, $device_id: `device-${visitor}`,
    $session_id: `01937a6b-0000-7000-8000-${String(visitor).padStart(12, "0")}`, $window_id: `01937a6b-0000-7000-9000-${String(visitor).padStart(12, "0")}`,
    $pageview_id: `pageview-${visitor}-${page}`, $referrer: "https://www.google.com/", $referring_domain: "www.google.com", $initial_referrer: "$direct",
    $initial_referring_domain: "$direct", $is_identified: false, $process_person_profile: true, $configured_session_timeout_ms: 1800000,
    $timezone: "Europe/Berlin", $timezone_offset: -60, $browser_language: "en-GB", $browser_language_prefix: "en", title: `Item ${page} – Example shop`,
    $sdk_debug_retry_queue_size: 0, $lib_rate_limit_remaining_tokens: 100, $pageview_id_prev: null,
  };
}

/** A posthog-js `$pageview` event of `visitor` (distinct id `bench-user-<visitor>`). */
export function posthogJsPageview(visitor: number, page: number, timestamp = new Date()): Record<string, unknown> {
  return { event: "$pageview", distinct_id: `bench-user-${visitor}`, properties: posthogJsPageviewProperties(visitor, page), timestamp: timestamp.toISOString() };
}
