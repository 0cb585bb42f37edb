import { describe, expect, it } from "vitest";
import { ConfigError } from "@/server/db/config";
import { emailSettingsFromEnv } from "./contract";

const read = (vars: Record<string, string>) => emailSettingsFromEnv(vars as unknown as NodeJS.ProcessEnv);

describe("e-mail settings from the environment", () => {
  it("is off when neither variable is set", () => {
    expect(read({})).toBeNull();
    expect(read({ SMTP_URL: " ", EMAIL_FROM: "" })).toBeNull();
  });

  it("reads smtp:// and smtps:// URLs with a sender", () => {
    expect(read({ SMTP_URL: "smtps://u:p@mail.example.com:465", EMAIL_FROM: "Burrow <b@example.com>" })).toEqual({ url: "smtps://u:p@mail.example.com:465", from: "Burrow <b@example.com>" });
  });

  it.each([
    [{ SMTP_URL: "smtp://mail.example.com" }, /EMAIL_FROM must be set too/],
    [{ EMAIL_FROM: "b@example.com" }, /SMTP_URL must be set too/],
    [{ SMTP_URL: "http://mail.example.com", EMAIL_FROM: "b@example.com" }, /smtp:\/\/ or smtps:\/\//],
    [{ SMTP_URL: "smtp://mail.example.com", EMAIL_FROM: "burrow" }, /EMAIL_FROM must be an address/],
  ])("stops start-up on %j", (vars, message) => {
    expect(() => read(vars)).toThrow(ConfigError);
    expect(() => read(vars)).toThrow(message);
  });
});
