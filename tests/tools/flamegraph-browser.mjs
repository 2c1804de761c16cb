// Opens an fgagent flame graph in headless Chromium and checks it as a user would.
// Usage: node flamegraph-browser.mjs FILE MODE [ARG]
//   smoke NAME   loads with no console error, and NAME is one of the frames
//   interact     the tools suite's fixture: zoom, reset, search share, highlight, invert, tooltip, injection
//   time         prints how long the page took to load and draw: LOAD_MS <n>
//   diff NAME    a differential page: NAME grew, so it is drawn red, and its tooltip shows both shares
import { resolve } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(process.env.FG_NPM + "/");
const { chromium } = require("playwright-core");
const [file, mode, arg] = process.argv.slice(2);
let failures = 0;
function check(ok, message) {
  if (!ok) { console.error("FAIL: " + message); failures++; }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const t0 = Date.now();
  await page.goto("file://" + resolve(file));
  await page.waitForFunction(() => window.fgFlameGraph !== undefined, null, { timeout: 30000 });
  const loadMs = Date.now() - t0;
  check(errors.length === 0, "console errors: " + errors.join(" | "));
  // no frame name may become markup or script, whatever the mode
  check(await page.evaluate(() => window.pwned === undefined && document.querySelectorAll("img").length === 0),
        "a frame name became HTML or ran as script");
  check(await page.evaluate(() => window.fgFlameGraph.frames > 1), "no frames");

  if (mode === "time") {
    console.log("LOAD_MS " + loadMs);
  } else if (mode === "smoke") {
    check(await page.evaluate((n) => FG.names.includes(n), arg), `no frame named ${arg}`);
  } else if (mode === "interact") {
    const evil = "</script><img src=x onerror=window.pwned=1>.x";
    check(await page.evaluate(() => window.pwned === undefined), "a frame name ran as HTML");
    check(await page.evaluate((n) => FG.names.includes(n), evil), "the hostile frame name did not survive intact");

    const canvasWidth = await page.evaluate(() => document.getElementById("canvas").clientWidth);
    const at = async (name) => page.evaluate((n) => window.fgFlameGraph.find(n), name);
    const clickOn = async (name) => {
      const r = await at(name);
      await page.locator("#canvas").click({ position: { x: r[0] + r[2] / 2, y: r[1] + 8 } });
    };
    // click zooms: Main.work fills the width, its sibling Main.cold leaves
    const work = await at("Main.work");
    check(work && work[2] < canvasWidth * 0.8, "Main.work is not a part of the width before zooming");
    await clickOn("Main.work");
    check((await page.evaluate(() => window.fgFlameGraph.zoom)) === work[3], "click did not zoom to Main.work");
    const zoomed = await at("Main.work");
    check(zoomed && Math.abs(zoomed[2] - canvasWidth) < 2, "zoomed Main.work does not fill the width");
    check((await at("Main.cold")) === null, "Main.cold is still drawn while zoomed into Main.work");
    await page.click("#reset");
    check((await page.evaluate(() => window.fgFlameGraph.zoom)) === 0, "reset did not zoom out");

    // search: share of Main.hot (800 of 1310 samples) and magenta frames
    await page.fill("#search", "Main\\.hot");
    const matched = await page.textContent("#matched");
    check(matched.startsWith("61.07%"), "search share is '" + matched + "', not 61.07%");
    const hot = await at("Main.hot");
    const pixel = await page.evaluate((r) => {
      const c = document.getElementById("canvas"), k = c.width / c.clientWidth;
      return Array.from(c.getContext("2d").getImageData(Math.floor((r[0] + 2) * k), Math.floor((r[1] + 3) * k), 1, 1).data);
    }, hot);
    check(pixel[0] === 230 && pixel[1] === 0 && pixel[2] === 230, "a matched frame is not highlighted: rgb " + pixel);
    await page.fill("#search", "(");
    check(await page.evaluate(() => document.getElementById("search").classList.contains("bad")), "a bad regex is not flagged");
    await page.fill("#search", "");

    // hover shows the frame's name, samples, percent: the widest Main.hot is main's, 600 of 1310
    const r = await at("Main.hot");
    await page.locator("#canvas").hover({ position: { x: r[0] + r[2] / 2, y: r[1] + 8 } });
    const tip = await page.textContent("#tip");
    check(tip.includes("Main.hot") && tip.includes("600 samples") && tip.includes("45.80%"), "tooltip says: " + tip);

    // inverted: the root at the top
    await page.check("#invert");
    check((await at("all"))[1] === 0, "inverted view does not put the root at the top");
    check((await page.textContent("#unattributed")).startsWith("3.82%"), "unattributed share is not 3.82% (50 of 1310)");
  } else if (mode === "diff") {
    check(await page.evaluate(() => Array.isArray(FG.b)), "no base data in a differential page");
    const r = await page.evaluate((n) => window.fgFlameGraph.find(n), arg);
    check(r !== null, "no frame " + arg);
    const pixel = await page.evaluate((r) => {
      const c = document.getElementById("canvas"), k = c.width / c.clientWidth;
      return Array.from(c.getContext("2d").getImageData(Math.floor((r[0] + 2) * k), Math.floor((r[1] + 3) * k), 1, 1).data);
    }, r);
    check(pixel[0] === 255 && pixel[1] < 235 && pixel[1] === pixel[2], "a frame that grew is not red: rgb " + pixel);
    await page.locator("#canvas").hover({ position: { x: r[0] + r[2] / 2, y: r[1] + 8 } });
    const tip = await page.textContent("#tip");
    check(/base \d+\.\d+% -> new \d+\.\d+%/.test(tip), "the tooltip does not show both shares: " + tip);
  } else {
    check(false, "unknown mode " + mode);
  }
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
