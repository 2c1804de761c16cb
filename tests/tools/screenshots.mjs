// Saves the pictures the user docs show, taken in headless Chromium as the tools suite opens the pages.
// Usage: node screenshots.mjs OUTDIR HEATMAP.html[@FROM,TO,BFROM,BTO] PNG=PAGE.html...
//   OUTDIR/PNG          each flame graph page's lowest rows and legend, where the page opens (a
//                       page of the agent, of fgprof convert, or fgprof diff --html's differential one)
//   OUTDIR/heatmap.png  the heatmap; with FROM TO (ms since 1970) that range's flame graph, and with
//                       BFROM BTO too, against that baseline (the differential view)
// Fails on a console error or a page that does not load, as the other browser checks do.
import { resolve } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(process.env.FG_NPM + "/");
const { chromium } = require("playwright-core");
const [out, heatArg, ...flames] = process.argv.slice(2);
if (!out || !heatArg || flames.length === 0 || flames.some((f) => !/^[\w.-]+\.png=./.test(f))) {
  console.error("usage: node screenshots.mjs OUTDIR HEATMAP.html[@FROM,TO,BFROM,BTO] PNG=PAGE.html...");
  process.exit(2);
}
const at = heatArg.lastIndexOf("@");
const [heat, rangeText] = at < 0 ? [heatArg, ""] : [heatArg.slice(0, at), heatArg.slice(at + 1)];
const range = rangeText ? rangeText.split(",") : [];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
let failures = 0;
async function open(file, ready, viewport) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("file://" + resolve(file));
  await page.waitForFunction(ready, null, { timeout: 60000 });
  return { page, errors };
}
function check(ok, message) {
  if (!ok) { console.error("FAIL: " + message); failures++; }
}
try {
  // the graph's lowest rows and its legend: where the page opens (the summary below it is text in the docs)
  for (const arg of flames) {
    const png = arg.slice(0, arg.indexOf("=")), file = arg.slice(arg.indexOf("=") + 1);
    const rows = png === "diff.png" ? 300 : 520;
    const { page, errors } = await open(file, () => window.fgFlameGraph !== undefined, { width: 1000, height: 620 });
    const bottom = await page.evaluate(() => { const r = document.getElementById("legend").getBoundingClientRect();
                                               return r.bottom + window.scrollY; });
    await page.screenshot({ path: out + "/" + png, fullPage: true,
                            clip: { x: 0, y: Math.max(0, bottom - rows), width: 1000, height: Math.min(bottom, rows) + 4 } });
    check(errors.length === 0, file + ": console errors: " + errors.join(" | "));
  }
  {
    const { page, errors } = await open(heat, () => document.body.dataset.ready, { width: 1000, height: 900 });
    check(await page.evaluate(() => document.body.dataset.ready === "1"), "the heatmap did not load");
    if (range.length >= 2) {
      const start = await page.evaluate(() => JSON.parse(document.getElementById("header").textContent).startEpochNs);
      const ns = (ms) => Number(ms) * 1e6 - start;
      if (range.length >= 4) await page.evaluate(([a, b]) => window.heatmapSelect(a, b, true), [ns(range[2]), ns(range[3])]);
      const r = await page.evaluate(([a, b]) => window.heatmapSelect(a, b), [ns(range[0]), ns(range[1])]);
      check(r.total > 0, "the range has no sample");
    }
    await page.screenshot({ path: out + "/heatmap.png", fullPage: true });
    check(errors.length === 0, "heatmap console errors: " + errors.join(" | "));
  }
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
