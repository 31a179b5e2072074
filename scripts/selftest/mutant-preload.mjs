/**
 * Loaded by each mutant child (scripts/selftest/mutant-child.ts) before tsx's hooks: the packages its main
 * thread needs that are plain JavaScript. Through the hooks, each module's source takes a trip to
 * tsx's thread and back, costly for large bundles, in each child. Loaded here first, the child's
 * imports of them find them in the module cache.
 * Plain JavaScript: nothing is transformed yet. A missing package is left to tsx.mjs to explain.
 */
try {
  await Promise.all([import("undici"), import("zod")]);
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
}
