/**
 * The global setup of the `contract` Vitest project (vitest.config.ts): what `npm run certify`
 * does before its specs run, so that `npx vitest run --project contract` certifies the same target
 * in a provider's own Vitest CI. The H2H_* settings are read from the one table, the target opened
 * (H2H_BASE_URL; the H2H_TARGET_IMAGE container; else the bundled reference provider), the sink
 * started, the target tried once, and the run context provided; all of it ends with the run.
 * Plain Vitest reporters then say pass or fail per check: certify's reports are not written.
 */
import { rm } from "node:fs/promises";
import type { TestProject } from "vitest/node";
import { ExchangeRecorder } from "../../contract/index.ts";
import { makeRunFolder, removeGoneRunFolders } from "../../contract/kit/index.ts";
import { parseSettings } from "../../run-setup/index.ts";
import { consoleLine } from "../reports/console.ts";
import { deadlineOf } from "./deadline.ts";
import { RUN_CONTEXT_KEY } from "./run-context.ts";
import {
  describeRun,
  newRunId,
  type OpenedTarget,
  openRunTarget,
  readRunInputs,
  runContextOf,
  whyNotJudgeable,
} from "./run-target.ts";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const inputs = await readRunInputs(parseSettings(process.env, { command: "certify" }));
  let masker = inputs.masker;
  const print = (line: string) => console.log(consoleLine(masker.text(line)));
  const runId = newRunId(new Date());
  // No SIGINT handling of certify's here: Vitest's own ends the run, and this teardown with it.
  const deadlineAt = Date.now() + deadlineOf(inputs.profile, undefined);
  await removeGoneRunFolders();
  const runDir = await makeRunFolder("h2h-certify");
  let target: OpenedTarget | undefined;
  const teardown = async () => {
    await target?.close();
    await rm(runDir, { recursive: true, force: true });
  };
  try {
    target = await openRunTarget(inputs, { runId, runDir, print });
    masker = target.masker;
    for (const line of describeRun(inputs, target)) print(line);
    // A target nothing can be judged of fails once, with the reason, not once per check.
    const recorder = new ExchangeRecorder("runner", masker, runDir, inputs.profile.limits.maxBodyBytes);
    const why = await whyNotJudgeable(inputs, target, recorder, deadlineAt);
    if (why !== undefined) throw new Error(`h2h-certify: nothing can be judged: ${masker.text(why)}`);
    project.provide(RUN_CONTEXT_KEY, runContextOf(inputs, target, { runId, runDir, deadlineAt }));
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
