import type { ContainerRuntimeClient } from "testcontainers";
import { describe, expect, it } from "vitest";
import { ContainerEngineError, effectiveImageName, ensureImage, reasonOf } from "./container-engine.ts";

/** An engine that has the images given, and whose pulls fail (no registry) or bring the image. */
function fakeEngine(has: string[], pullBrings: boolean) {
  const images = new Set(has);
  const pulls: string[] = [];
  const client = {
    image: {
      exists: async (name: { string: string }) => images.has(name.string),
      pull: async (name: { string: string }) => {
        pulls.push(name.string);
        if (!pullBrings)
          throw new Error(
            '(HTTP code 500) server error - Get "https://registry-1.docker.io/v2/": no such host',
          );
        images.add(name.string);
      },
    },
  } as unknown as ContainerRuntimeClient;
  return { client, pulls };
}

describe("ensureImage", () => {
  it("uses an image the engine has as it is: never pulled", async () => {
    const { client, pulls } = fakeEngine(["grafana/k6:1.3.0"], false);
    expect(await ensureImage(client, "grafana/k6:1.3.0", "H2H_K6_IMAGE")).toBe("local");
    expect(pulls).toEqual([]);
  });

  it("pulls an image the engine lacks", async () => {
    const { client, pulls } = fakeEngine([], true);
    expect(await ensureImage(client, "grafana/k6:1.3.0", "H2H_K6_IMAGE")).toBe("pulled");
    expect(pulls).toEqual(["grafana/k6:1.3.0"]);
  });

  it("says which image, which setting and why when it can be neither found nor pulled", async () => {
    const { client } = fakeEngine([], false);
    const attempt = ensureImage(client, "grafana/k6:1.3.0", "H2H_K6_IMAGE");
    await expect(attempt).rejects.toThrow(ContainerEngineError);
    await expect(ensureImage(client, "grafana/k6:1.3.0", "H2H_K6_IMAGE")).rejects.toThrow(
      'the Docker engine has no image grafana/k6:1.3.0 (H2H_K6_IMAGE) and could not pull it (Get "https://registry-1.docker.io/v2/": no such host)',
    );
  });
});

describe("image names", () => {
  it("follow testcontainers' registry prefix, except for names that carry a registry", async () => {
    const previous = process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX;
    process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX = "mirror.example.test/hub/";
    try {
      expect(await effectiveImageName("grafana/k6:1.3.0")).toBe("mirror.example.test/hub/grafana/k6:1.3.0");
      expect(await effectiveImageName("localhost/h2h-certify/reference-provider:local")).toBe(
        "localhost/h2h-certify/reference-provider:local",
      );
    } finally {
      if (previous === undefined) delete process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX;
      else process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX = previous;
    }
    expect(await effectiveImageName("grafana/k6:1.3.0")).toBe("grafana/k6:1.3.0");
  });

  it("an engine's error is cut to its first line, without dockerode's preamble", () => {
    expect(reasonOf(new Error("(HTTP code 404) no such container - No such image: x:1\nstack"))).toBe(
      "No such image: x:1",
    );
  });
});
