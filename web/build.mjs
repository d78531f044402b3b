// Builds the one committed browser bundle: node build.mjs <outdir>
// (npm run build writes it to api/web/static/dist). Deterministic: the same lock file gives
// byte-identical output, which tests/browser/test_bundle.py checks.
//
// Every file is named after its content (a changed bundle is a new URL, so the server can let
// browsers keep each one for a year), a manifest maps entry names to those file names for the
// templates, and each script and style sheet gets a brotli and a gzip twin, compressed here once
// rather than per request.
import { build } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node build.mjs <outdir>");
  process.exit(2);
}
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { addnorm: "src/main.js", "addnorm-css": "src/main.css" },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outdir,
  entryNames: "[name]-[hash]",
  assetNames: "fonts/[name]-[hash]",
  loader: { ".woff2": "file", ".woff": "empty", ".ttf": "empty" },
  legalComments: "eof",
  logLevel: "warning",
  metafile: true,
});

const manifest = {};
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  const name = relative(outdir, file);
  if (meta.entryPoint) {
    const ext = name.endsWith(".css") ? ".css" : ".js";
    const entry = basename(name).replace(/-[A-Z2-7]{8}\.(js|css)$/, "") + ext;
    manifest[entry] = name;
  }
  if (/\.(js|css)$/.test(name)) {
    const data = readFileSync(join(outdir, name));
    // gzip with no file name and a zero time stamp: the same input gives the same bytes.
    writeFileSync(join(outdir, `${name}.gz`), gzipSync(data, { level: 9 }));
    writeFileSync(
      join(outdir, `${name}.br`),
      brotliCompressSync(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      }),
    );
  }
}
const sorted = Object.fromEntries(Object.entries(manifest).sort());
writeFileSync(join(outdir, "manifest.json"), `${JSON.stringify(sorted, null, 2)}\n`);
