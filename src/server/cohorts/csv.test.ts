import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { CSV_MESSAGES, csvIds, parseCsvRows } from "./csv";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("static cohort CSV rules", () => {
  it("parses quoted fields, doubled quotes, CRLF and blank lines", () => {
    expect(parseCsvRows('a,"b, c","say ""hi"""\r\n\r\n"multi\nline",x\n')).toEqual([
      ["a", "b, c", 'say "hi"'],
      ["multi\nline", "x"],
    ]);
    expect(parseCsvRows('"a"b,"",x,\r"unterminated')).toEqual([["ab", "", "x", ""], ["unterminated"]]);
  });

  it("reads one column by its header, else as distinct ids from the first row", async () => {
    expect(await csvIds(bytes("person-id\nA1B2C3D4-0000-4000-8000-000000000001\n"))).toEqual({ kind: "person_id", ids: ["A1B2C3D4-0000-4000-8000-000000000001"] });
    expect(await csvIds(bytes("\uFEFFEmail\n a@x.io \na@x.io\n"))).toEqual({ kind: "email", ids: ["a@x.io"] });
    expect(await csvIds(bytes("user-1\nuser-2\n"))).toEqual({ kind: "distinct_id", ids: ["user-1", "user-2"] });
  });

  it("prefers person_id, then distinct_id, then email among several columns", async () => {
    expect(await csvIds(bytes("email,distinct_id\na@x.io,d1\n"))).toEqual({ kind: "distinct_id", ids: ["d1"] });
    expect(await csvIds(bytes("email,name\na@x.io,A\n,B\n"))).toEqual({ kind: "email", ids: ["a@x.io"] });
  });

  it.each([
    ["", CSV_MESSAGES.empty],
    ["\n\n", CSV_MESSAGES.empty],
    ["email\n\n", CSV_MESSAGES.noIds],
    ["a,b\n1,2\n", CSV_MESSAGES.multiColumn],
    ["x\u0000y\n", CSV_MESSAGES.nul],
    [`${"x".repeat(1001)}\n`, CSV_MESSAGES.tooLong],
  ])("refuses %j with a 400 naming csv", async (text, message) => {
    await expect(csvIds(bytes(text))).rejects.toThrow(new AppError("invalid_input", message, "csv"));
  });

  it("refuses bytes that are not UTF-8", async () => {
    await expect(csvIds(new Uint8Array([0xc3, 0x28]))).rejects.toThrow(CSV_MESSAGES.encoding);
  });
});
