import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = process.cwd();
const cfg = ts.getParsedCommandLineOfConfigFile(
  "tsconfig.json",
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
const program = ts.createProgram(cfg.fileNames, { ...cfg.options, noEmit: true });
const rel = (abs) => path.relative(ROOT, abs).split(path.sep).join("/");
const indexes = process.argv.slice(2);
const used = new Map(indexes.map((i) => [i, new Set()]));
for (const sf of program.getSourceFiles()) {
  const file = rel(sf.fileName);
  if (file.startsWith("node_modules") || file.startsWith("..")) continue;
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const spec = node.moduleSpecifier.text;
      if (spec.startsWith(".")) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        if (used.has(target) && !file.startsWith(path.posix.dirname(target) + "/")) {
          const els = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
          if (els && (ts.isNamedImports(els) || ts.isNamedExports(els)))
            for (const el of els.elements) used.get(target).add((el.propertyName ?? el.name).text);
          else used.get(target).add("*");
        }
      }
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const a = node.arguments[0];
      if (a && ts.isStringLiteral(a) && a.text.startsWith(".")) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), a.text));
        if (used.has(target)) used.get(target).add("*dyn:" + file);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
// also: names used inside string code (e.g. node -e commands) in md/ts files: conservative grep
const checker = program.getTypeChecker();
const out = {};
for (const idx of indexes) {
  const sf = program.getSourceFile(path.join(ROOT, idx));
  const exps = checker.getExportsOfModule(checker.getSymbolAtLocation(sf)).map((e) => e.name);
  const u = used.get(idx);
  out[idx] = exps.filter((e) => !u.has(e));
}
console.log(JSON.stringify(out));
