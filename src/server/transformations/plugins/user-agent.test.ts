import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { userAgentPlugin } from "./user-agent";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const WINDOWS_CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IPAD_FIREFOX = "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/120.0 Mobile/15E148 Safari/605.1.15";

describe("user-agent plugin", () => {
  it("sets browser, OS and device of a phone", () => {
    const result = runPlugin(userAgentPlugin, {}, ingestEvent({ properties: { $raw_user_agent: IPHONE } }))!;
    expect(result.properties).toMatchObject({ $browser: "Safari", $browser_version: 17.4, $os: "iOS", $os_version: "17.4", $device_type: "Mobile" });
  });

  it("reads desktop Chrome on Windows and a tablet", () => {
    expect(runPlugin(userAgentPlugin, {}, ingestEvent({ properties: { $raw_user_agent: WINDOWS_CHROME } }))!.properties).toMatchObject({
      $browser: "Chrome",
      $browser_version: 124,
      $os: "Windows",
      $os_version: "10",
      $device_type: "Desktop",
    });
    expect(runPlugin(userAgentPlugin, {}, ingestEvent({ properties: { $raw_user_agent: IPAD_FIREFOX } }))!.properties).toMatchObject({
      $browser: "Firefox",
      $device_type: "Tablet",
    });
  });

  it("keeps what the SDK set unless override is on", () => {
    const event = ingestEvent({ properties: { $raw_user_agent: WINDOWS_CHROME, $browser: "Custom" } });
    expect(runPlugin(userAgentPlugin, {}, event)!.properties.$browser).toBe("Custom");
    expect(runPlugin(userAgentPlugin, {}, event)!.properties.$os).toBe("Windows");
    expect(runPlugin(userAgentPlugin, { override: true }, event)!.properties.$browser).toBe("Chrome");
  });

  it("reads another property, and passes events without a user agent unchanged", () => {
    expect(runPlugin(userAgentPlugin, { source: "ua" }, ingestEvent({ properties: { ua: IPHONE } }))!.properties.$os).toBe("iOS");
    const none = ingestEvent({ properties: { $raw_user_agent: 12 } });
    expect(runPlugin(userAgentPlugin, {}, none)).toBe(none);
    const unknown = ingestEvent({ properties: { $raw_user_agent: "???" } });
    expect(runPlugin(userAgentPlugin, {}, unknown)).toBe(unknown);
  });
});
