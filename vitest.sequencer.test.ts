/**
 * npm test's file order: the long files first, in the listed order, whatever Vitest cached; the
 * rest in Vitest's own order; and no listed name that is not a test file any more.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongFilesFirstSequencer, { LONG_FILES_FIRST } from "./vitest.sequencer.ts";

const root = fileURLToPath(new URL(".", import.meta.url));

/** The part of Vitest and of a file's specification the base sequencer reads. */
function sequencerWith(cachedMs: Record<string, number>) {
  const cache = {
    getFileTestResults: (key: string) => {
      const duration = cachedMs[key.slice(key.indexOf(":") + 1)];
      return duration === undefined ? undefined : { duration, failed: false };
    },
    getFileStats: () => ({ size: 1 }),
  };
  return new LongFilesFirstSequencer({ cache, config: { root } } as unknown as Vitest);
}
const project = { name: "", config: { root, isolate: false, sequence: { groupOrder: 0 } } };
const spec = (path: string) => ({ moduleId: join(root, path), project }) as unknown as TestSpecification;
const [longest, second, third] = LONG_FILES_FIRST as readonly [string, string, string, ...string[]];
const pathsOf = (files: TestSpecification[]) => files.map((file) => file.moduleId.slice(root.length));

describe("LongFilesFirstSequencer", () => {
  it("starts the listed files first, longest first, even when Vitest cached them as instant", async () => {
    const files = ["a.test.ts", second, "b.test.ts", longest].map(spec);
    // As after a run without Docker: the long ones cached as skipped, the short ones as slower.
    const sorted = await sequencerWith({
      [longest]: 3,
      [second]: 2,
      "a.test.ts": 500,
      "b.test.ts": 900,
    }).sort(files);
    expect(pathsOf(sorted)).toEqual([longest, second, "b.test.ts", "a.test.ts"]);
  });

  it("keeps Vitest's order for the files it does not list (with no cache: the order given)", async () => {
    const files = ["c.test.ts", "a.test.ts", third, "b.test.ts"].map(spec);
    const sorted = await sequencerWith({}).sort(files);
    expect(pathsOf(sorted)).toEqual([third, "c.test.ts", "a.test.ts", "b.test.ts"]);
  });

  it("lists only test files that exist, each once", () => {
    expect(
      LONG_FILES_FIRST.filter((path) => !path.endsWith(".test.ts") || !existsSync(join(root, path))),
    ).toEqual([]);
    expect(new Set(LONG_FILES_FIRST).size).toBe(LONG_FILES_FIRST.length);
  });
});
