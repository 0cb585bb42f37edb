import { describe, expect, it } from "vitest";
import { moveProgressReporter } from "./progress";

function recorder(isTTY: boolean) {
  const written: string[] = [];
  return { written, output: { isTTY, columns: 200, write: (text: string) => written.push(text) } };
}

describe("moveProgressReporter", () => {
  it("redraws one bar in place on a terminal and ends its line", () => {
    let time = 0;
    const { written, output } = recorder(true);
    const progress = moveProgressReporter(output, () => time);
    progress.update({ moved: 0, total: 2_000 });
    time = 2_000;
    progress.update({ moved: 1_000, total: 2_000 });
    time = 4_000;
    progress.update({ moved: 2_000, total: 2_000 });
    progress.end();
    expect(written).toEqual([
      `\r[${"-".repeat(30)}]   0%  0/2,000 events  0 events/s\x1b[K`,
      `\r[${"#".repeat(15)}${"-".repeat(15)}]  50%  1,000/2,000 events  500 events/s\x1b[K`,
      `\r[${"#".repeat(30)}] 100%  2,000/2,000 events  500 events/s\x1b[K`,
      "\n",
    ]);
  });

  it("writes plain lines elsewhere, at most one a second, and always the last", () => {
    let time = 0;
    const { written, output } = recorder(false);
    const progress = moveProgressReporter(output, () => time);
    progress.update({ moved: 100, total: 1_000 });
    time = 500;
    progress.update({ moved: 200, total: 1_000 });
    time = 1_200;
    progress.update({ moved: 300, total: 1_000 });
    time = 1_300;
    progress.update({ moved: 1_000, total: 1_000 });
    progress.end();
    expect(written).toEqual([
      "moving events: 100/1,000 events (10%), 0 events/s\n",
      "moving events: 300/1,000 events (30%), 167 events/s\n",
      "moving events: 1,000/1,000 events (100%), 692 events/s\n",
    ]);
  });

  it("counts the rate from where this run started, not from zero", () => {
    let time = 0;
    const { written, output } = recorder(false);
    const progress = moveProgressReporter(output, () => time);
    progress.update({ moved: 5_000, total: 6_000 });
    time = 2_000;
    progress.update({ moved: 6_000, total: 6_000 });
    expect(written.at(-1)).toBe("moving events: 6,000/6,000 events (100%), 500 events/s\n");
  });
});
