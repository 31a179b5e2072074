/**
 * `npm run image:provider`: makes the reference provider's container image from the repo, with no
 * registry (see fixtures/reference-provider-image/build.ts), and prints its name, to certify it with
 * `H2H_TARGET_IMAGE=<name> npm run certify`.
 */
import { parseArgs } from "node:util";
import {
  buildReferenceProviderImage,
  ImageBuildError,
  REFERENCE_PROVIDER_IMAGE,
} from "../fixtures/reference-provider-image/build.ts";
import { runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run image:provider -- [--tag NAME] [--force]
  --tag NAME   image name (default: ${REFERENCE_PROVIDER_IMAGE})
  --force      build even when an image with the same content exists`;

await runCli(async () => {
  let values: { tag?: string; force?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { tag: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean" } },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const result = await buildReferenceProviderImage({
      ...(values.tag ? { image: values.tag } : {}),
      force: values.force === true,
    });
    console.log(
      `${result.built ? "built" : "up to date:"} ${result.image} (node ${result.nodeVersion}, ` +
        `${(result.rootfsBytes / 1024 / 1024).toFixed(1)} MiB, content ${result.contentHash.slice(0, 12)}) ` +
        `in ${(result.durationMs / 1000).toFixed(1)} s`,
    );
    console.log(`certify it: H2H_TARGET_IMAGE=${result.image} npm run certify`);
    return 0;
  } catch (error) {
    if (error instanceof ImageBuildError) {
      console.error(`error: image:provider: ${error.message}`);
      return 1;
    }
    throw error;
  }
});
