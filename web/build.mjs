// Builds the one committed browser bundle: node build.mjs <outdir>
// (npm run build writes it to api/web/static/dist). Deterministic: the same lock file gives
// byte-identical output, which tests/browser/test_bundle.py checks.
import { build } from "esbuild";
import { rmSync } from "node:fs";

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node build.mjs <outdir>");
  process.exit(2);
}
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { addnorm: "src/main.js", "addnorm-css": "src/main.css" },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outdir,
  // Fonts keep their names (no content hash) so a rebuild diff stays readable.
  assetNames: "fonts/[name]",
  loader: { ".woff2": "file", ".woff": "empty", ".ttf": "empty" },
  legalComments: "eof",
  logLevel: "warning",
});
