/**
 * `npm run image:provider`: the reference provider's container image, made from the repo with no
 * registry, to certify with `H2H_TARGET_IMAGE=<name> npm run certify`.
 */
import {
  buildReferenceProviderImage,
  ImageBuildError,
  REFERENCE_PROVIDER_IMAGE,
} from "../../fixtures/providers/reference-image/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

export const imageProvider = defineCommand({
  name: "image:provider",
  summary:
    "Makes the reference provider's container image with no registry (this machine's node, its\n" +
    "libraries and a bundle of the provider, through docker import) and prints its name. An image\n" +
    "with the same content is reused; the one a rebuild replaces is removed.",
  options: {
    tag: { type: "string", value: "NAME", description: `image name (default: ${REFERENCE_PROVIDER_IMAGE})` },
    force: { type: "boolean", description: "build even when an image with the same content exists" },
  },
  exitCodes: { [EXIT.failed]: "the image could not be made (no Docker engine, docker import failed)" },
  knownErrors: [[ImageBuildError, EXIT.failed]],
  async run(options) {
    const result = await buildReferenceProviderImage({
      ...(options.tag ? { image: options.tag } : {}),
      force: options.force === true,
    });
    console.log(
      `${result.built ? "built" : "up to date:"} ${result.image} (node ${result.nodeVersion}, ` +
        `${(result.rootfsBytes / 1024 / 1024).toFixed(1)} MiB, content ${result.contentHash.slice(0, 12)}) ` +
        `in ${(result.durationMs / 1000).toFixed(1)} s`,
    );
    console.log(`certify it: H2H_TARGET_IMAGE=${result.image} npm run certify`);
    return EXIT.ok;
  },
});
