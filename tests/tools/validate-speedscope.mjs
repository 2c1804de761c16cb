// Validates speedscope files against the schema the speedscope package ships.
// Usage: node validate-speedscope.mjs FILE...   (exit 1 on the first invalid file)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.FG_NPM + "/");
const Ajv = require("ajv");
const schema = JSON.parse(readFileSync(require.resolve("speedscope/dist/release/file-format-schema.json"), "utf8"));
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

for (const file of process.argv.slice(2)) {
  const data = JSON.parse(readFileSync(file, "utf8"));
  if (!validate(data)) {
    console.error(`${file}: not valid against speedscope's schema:`, JSON.stringify(validate.errors.slice(0, 5)));
    process.exit(1);
  }
  for (const p of data.profiles) {
    const frames = data.shared.frames.length;
    if (p.samples.length !== p.weights.length) throw new Error(`${file}: ${p.name}: samples and weights differ in length`);
    for (const s of p.samples) for (const f of s) if (f >= frames) throw new Error(`${file}: frame index ${f} out of range`);
  }
  console.log(`${file}: valid, ${data.profiles.length} profile(s), ${data.shared.frames.length} frames`);
}
